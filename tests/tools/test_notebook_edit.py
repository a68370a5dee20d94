"""notebook_edit through a real client: each edit mode on notebooks written by Jupyter
(nbformat itself) and in VS Code's style, with the bytes outside the edited cell compared
with the file before; addressing by id and number; errors that leave the file as it was;
the rules every edit shares (view first, scope, size, an identity-keeping write).

The oracles: nbformat reading the result back, the writers' own output for the expected
notebook (tests/support/notebooks.py), and plain slices of the file before the edit, found by
indentation (tests/support/notebooks.py ``cell_spans``), not by Boris's reading.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from fastmcp import Client
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.notebooks import as_json, cell_spans, jupyter, sample, vscode

pytestmark = pytest.mark.anyio


def without_ids(content: Any) -> Any:
    """A notebook's JSON as an nbformat 4.x before 4.5 holds it: cells without ids."""
    content["nbformat_minor"] = 4
    for cell in content["cells"]:
        del cell["id"]
    return content


def vscode_made(content: Any) -> Any:
    """As VS Code makes a notebook of its own: nbformat 4.2, no cell ids."""
    content = without_ids(content)
    content["nbformat_minor"] = 2
    content["metadata"]["orig_nbformat"] = 4
    return content


#: name → (writer of a notebook's JSON, its indentation per level)
WRITERS: dict[str, tuple[Callable[[Any], str], str]] = {
    "jupyter": (lambda content: jupyter(nbformat.from_dict(content)), " "),
    "jupyter-4.4": (lambda content: jupyter(nbformat.from_dict(without_ids(content))), " "),
    "vscode": (lambda content: vscode(vscode_made(content)), " "),
    "vscode-4": (lambda content: vscode(content, "    "), "    "),
}


@pytest.fixture(params=sorted(WRITERS))
def writer(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def written(writer: str, content: Any) -> str:
    return WRITERS[writer][0](json.loads(json.dumps(content)))


def rewritten(writer: str, text: str) -> str:
    """What the writer writes for the notebook in ``text``: the same text, for a file in
    the writer's own style."""
    content = json.loads(text)
    if writer.startswith("jupyter"):
        return jupyter(nbformat.from_dict(content))
    return vscode(content, WRITERS[writer][1])


def cells_of(text: str) -> list[tuple[Any, ...]]:
    """The cells nbformat reads: type, source, outputs, execution count, id."""
    notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    return [
        (c.cell_type, c.source, c.get("outputs"), c.get("execution_count"), c.get("id"))
        for c in notebook.cells
    ]


async def edit(client: Client[Any], path: Path, **arguments: Any) -> Any:
    return await client.call_tool(
        "notebook_edit", {"path": str(path), **arguments}, raise_on_error=False
    )


async def prepared(client: Client[Any], path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    assert not (await client.call_tool("view", {"path": str(path)})).is_error
    return text


# --- replace ---------------------------------------------------------------------------


async def test_replace_code_cell(client: Client[Any], case: Path, writer: str) -> None:
    path = case / "n.ipynb"
    before = await prepared(client, path, written(writer, as_json(sample())))
    result = await edit(client, path, cell=2, new_source="x = 2\nprint(x)\n")
    after = path.read_text(encoding="utf-8")
    start, end = cell_spans(before, WRITERS[writer][1])[1]
    assert after.startswith(before[:start])
    assert after.endswith(before[end:])
    assert rewritten(writer, after) == after
    expected = cells_of(before)
    _, _, _, _, cell_id = expected[1]
    expected[1] = ("code", "x = 2\nprint(x)\n", [], None, cell_id)
    assert cells_of(after) == expected
    shown = f"[cell 2] code{f' id={cell_id}' if cell_id else ''} execution_count=none"
    assert ok_text(result) == (
        f"Replaced cell 2 of {path} (its outputs and execution count were cleared)\n\n"
        f"{shown}\n1\tx = 2\n2\tprint(x)\n"
    )


async def test_the_cell_shown_after_an_edit_is_cut_as_view_cuts_it(
    client: Client[Any], case: Path
) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    source = "".join(f"x{n} = {n}\n" for n in range(1, 3001))
    lines = ok_text(await edit(client, path, cell=2, new_source=source)).splitlines()
    assert lines[2] == "[cell 2] code id=run execution_count=none"
    assert lines[-2] == "1999\tx1999 = 1999"
    assert lines[-1] == "[Truncated: cell 2 goes on from line 2000 of its 3000 source lines.]"


async def test_the_cell_shown_after_an_edit_fills_an_answer_whole(
    client: Client[Any], case: Path
) -> None:
    """A cell of exactly as many lines as an answer holds (2,000: its header and 1,999
    source lines) is shown whole."""
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    source = "".join(f"x{n} = {n}\n" for n in range(1, 2000))
    lines = ok_text(await edit(client, path, cell=2, new_source=source)).splitlines()
    assert lines[2:4] == ["[cell 2] code id=run execution_count=none", "   1\tx1 = 1"]
    assert lines[-1] == "1999\tx1999 = 1999"
    assert len(lines) == 2 + 2000


async def test_replace_in_a_jupyter_file_is_what_jupyter_writes(
    client: Client[Any], case: Path
) -> None:
    path = case / "n.ipynb"
    notebook = sample()
    await prepared(client, path, jupyter(notebook))
    await edit(client, path, cell="intro", new_source="# New title\n\nÜmlaut ✓")
    notebook.cells[0].source = "# New title\n\nÜmlaut ✓"
    assert path.read_text(encoding="utf-8") == jupyter(notebook)


async def test_replace_markdown_keeps_its_type(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    result = await edit(client, path, cell=1, new_source="plain")
    assert ok_text(result) == f"Replaced cell 1 of {path}\n\n[cell 1] markdown id=intro\n1\tplain\n"


async def test_replace_can_change_the_type(client: Client[Any], case: Path, writer: str) -> None:
    path = case / "n.ipynb"
    content = as_json(sample())
    content["cells"][0]["attachments"] = {"a.png": {"image/png": "iVBORw0KGgo="}}
    before = await prepared(client, path, written(writer, content))
    await edit(client, path, cell=2, new_source="# now text", cell_type="markdown")
    await edit(client, path, cell=1, new_source="x = 1", cell_type="code")
    after = path.read_text(encoding="utf-8")
    cells = json.loads(after)["cells"]
    assert cells[0]["cell_type"] == "code"
    assert "attachments" not in cells[0]  # a code cell cannot hold any
    assert (cells[0]["outputs"], cells[0]["execution_count"]) == ([], None)
    assert cells[1]["cell_type"] == "markdown"
    assert "outputs" not in cells[1]
    assert "execution_count" not in cells[1]
    spans = cell_spans(before, WRITERS[writer][1])
    assert after.endswith(before[spans[1][1] :])
    assert rewritten(writer, after) == after


async def test_keys_a_cell_gains_follow_its_own_in_nbformats_order(
    client: Client[Any], case: Path
) -> None:
    """In a file whose keys are not sorted, a markdown cell made code keeps its keys'
    order, the two it gains after them in the order nbformat gives them."""
    path = case / "n.ipynb"
    cell = '{\n   "cell_type": "%s",\n   "metadata": {},\n   "source": "%s"%s\n  }'
    head = '{\n "nbformat": 4,\n "nbformat_minor": 4,\n "metadata": {},\n "cells": [\n  '
    await prepared(client, path, head + cell % ("markdown", "x", "") + "\n ]\n}\n")
    ok_text(await edit(client, path, cell=1, new_source="y", cell_type="code"))
    gained = ',\n   "execution_count": null,\n   "outputs": []'
    assert path.read_text(encoding="utf-8") == head + cell % ("code", "y", gained) + "\n ]\n}\n"


# --- insert ----------------------------------------------------------------------------


@pytest.mark.parametrize("after_cell", [0, 2, 4])
async def test_insert(client: Client[Any], case: Path, writer: str, after_cell: int) -> None:
    path = case / "n.ipynb"
    before = await prepared(client, path, written(writer, as_json(sample())))
    result = await edit(
        client, path, cell=after_cell, edit_mode="insert", new_source="y = 2", cell_type="code"
    )
    after = path.read_text(encoding="utf-8")
    spans = cell_spans(before, WRITERS[writer][1])
    at = spans[0][0] if after_cell == 0 else spans[after_cell - 1][1]
    assert after.startswith(before[:at])
    assert after.endswith(before[at:])
    assert rewritten(writer, after) == after
    cells = cells_of(after)
    new = cells.pop(after_cell)
    assert cells == cells_of(before)
    assert new[:4] == ("code", "y = 2", [], None)
    has_ids = json.loads(before)["nbformat_minor"] >= 5
    assert (new[4] is not None) == has_ids
    if has_ids:
        assert new[4] not in {c[4] for c in cells}
    header = f"[cell {after_cell + 1}] code{f' id={new[4]}' if has_ids else ''}"
    assert ok_text(result) == (
        f"Inserted cell {after_cell + 1} in {path} (5 cells now)\n\n"
        f"{header} execution_count=none\n1\ty = 2\n"
    )


async def test_insert_after_a_cell_named_by_id(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    await edit(client, path, cell="run", edit_mode="insert", new_source="m", cell_type="markdown")
    assert [c[1] for c in cells_of(path.read_text())][:3] == [
        "# Title\nSome *text*",
        'print("hi")\n1 / 0',
        "m",
    ]


async def test_insert_into_an_empty_notebook(client: Client[Any], case: Path, writer: str) -> None:
    path = case / "n.ipynb"
    content = as_json(sample())
    content["cells"] = []
    await prepared(client, path, written(writer, content))
    for source in ("second", "first"):
        await edit(client, path, cell=0, edit_mode="insert", new_source=source, cell_type="code")
    after = path.read_text(encoding="utf-8")
    assert rewritten(writer, after) == after
    assert [c[1] for c in cells_of(after)] == ["first", "second"]


# --- delete ----------------------------------------------------------------------------


@pytest.mark.parametrize("number", [1, 2, 4])
async def test_delete(client: Client[Any], case: Path, writer: str, number: int) -> None:
    path = case / "n.ipynb"
    before = await prepared(client, path, written(writer, as_json(sample())))
    result = await edit(client, path, cell=number, edit_mode="delete")
    spans = cell_spans(before, WRITERS[writer][1])
    if number < len(spans):  # the cell and the separator after it
        expected = before[: spans[number - 1][0]] + before[spans[number][0] :]
    else:  # the last: the separator before it and the cell
        expected = before[: spans[number - 2][1]] + before[spans[number - 1][1] :]
    assert path.read_text(encoding="utf-8") == expected
    assert rewritten(writer, expected) == expected
    removed = cells_of(before)[number - 1][4]
    named = f" (id {removed})" if removed else ""
    assert ok_text(result) == f"Deleted cell {number}{named} of {path} (3 cells now)"


@pytest.mark.parametrize("number", [1, 2, 3])
async def test_delete_keeps_the_other_cells_separators(
    client: Client[Any], case: Path, number: int
) -> None:
    """A cell goes with the separator after it (before it, for the last one): the other
    separators stay as they were, however they differ."""
    path = case / "n.ipynb"
    notebook = new_notebook(cells=[new_markdown_cell(name, id=name) for name in "abc"])
    content = as_json(notebook)
    cells = [json.dumps(cell, sort_keys=True) for cell in content.pop("cells")]
    rest = json.dumps(content, sort_keys=True)[1:]
    separators = [",\n", ",\n\n  "]
    before = [cells[0], separators[0], cells[1], separators[1], cells[2]]
    await prepared(client, path, '{"cells": [\n' + "".join(before) + "\n], " + rest)
    ok_text(await edit(client, path, cell=number, edit_mode="delete"))
    after = {
        1: [cells[1], separators[1], cells[2]],
        2: [cells[0], separators[0], cells[2]],
        3: [cells[0], separators[0], cells[1]],
    }[number]
    assert path.read_text(encoding="utf-8") == '{"cells": [\n' + "".join(after) + "\n], " + rest


async def test_delete_the_only_cell(client: Client[Any], case: Path, writer: str) -> None:
    path = case / "n.ipynb"
    content = as_json(sample())
    content["cells"] = content["cells"][:1]
    await prepared(client, path, written(writer, content))
    await edit(client, path, cell=1, edit_mode="delete")
    after = path.read_text(encoding="utf-8")
    content["cells"] = []
    assert after == written(writer, content)


# --- files in other styles -------------------------------------------------------------


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def compact(text: str) -> str:
    return json.dumps(json.loads(text))


def ascii_escaped(text: str) -> str:
    return json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"


def unsorted(text: str) -> str:
    """Keys in the order a writer that builds its dicts by hand might use."""
    content = json.loads(text)
    first = ["nbformat", "nbformat_minor", "metadata", "cells"]
    content = {key: content[key] for key in first}
    order = ["id", "cell_type", "source", "metadata", "outputs", "execution_count"]
    content["cells"] = [{k: c[k] for k in order if k in c} for c in content["cells"]]
    return json.dumps(content, indent=2, ensure_ascii=False) + "\n"


def one_string_sources(text: str) -> str:
    """Sources as one string each, as ``nbformat.writes(..., split_lines=False)`` writes them."""
    content = json.loads(text)
    for cell in content["cells"]:
        cell["source"] = "".join(cell["source"])
    return json.dumps(content, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def trailing_spaces(text: str) -> str:
    """As json.dumps with an indent wrote before Python 3.4: a space after each comma,
    at the end of its line too."""
    content = json.loads(text)
    return json.dumps(content, indent=1, sort_keys=True, separators=(", ", ": ")) + "\n"


def cells_in_nbformat_order(text: str) -> str:
    """The keys of cells in the order nbformat makes them in, the notebook's own sorted."""
    order = list(new_code_cell())
    content = json.loads(text)
    content["cells"] = [{key: c[key] for key in order if key in c} for c in content["cells"]]
    return json.dumps(content, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    "style",
    [
        crlf,
        compact,
        ascii_escaped,
        unsorted,
        one_string_sources,
        trailing_spaces,
        cells_in_nbformat_order,
    ],
)
async def test_other_styles_keep_their_bytes_and_style(
    client: Client[Any], case: Path, style: Callable[[str], str]
) -> None:
    path = case / "n.ipynb"
    notebook = sample()
    notebook.cells[0].source = "Café"
    before = await prepared(client, path, style(jupyter(notebook)))
    await edit(client, path, cell=4, new_source="é = 1")
    await edit(client, path, cell=4, edit_mode="insert", new_source="ü", cell_type="markdown")
    await edit(client, path, cell=2, edit_mode="delete")
    after = path.read_bytes().decode()  # read_text() would turn CRLF into LF
    # Expected: the same edits on the notebook, in the same style.
    notebook.cells[3].source = "é = 1"
    inserted = json.loads(after)["cells"][3]
    notebook.cells.append(new_markdown_cell("ü", id=inserted["id"]))
    del notebook.cells[1]
    assert after == style(jupyter(notebook))
    # The first cell's bytes were never touched.
    first = before[: before.index('"id": "run"')]
    assert after.startswith(first[: first.rindex("{")])


def in_nbformat_order(notebook: Any) -> str:
    """As a writer that keeps the order nbformat makes its objects in (a notebook's keys
    not sorted, "cells" last), indented by two, sources split into lines as nbformat
    splits them."""
    content = json.loads(json.dumps(notebook))
    for cell in content["cells"]:
        cell["source"] = cell["source"].splitlines(keepends=True)
    return json.dumps(content, indent=2, ensure_ascii=False) + "\n"


EMPTY_STYLES: dict[str, Callable[[Any], str]] = {
    "crlf": lambda notebook: crlf(jupyter(notebook)),
    "compact": lambda notebook: compact(jupyter(notebook)),
    "ascii-escaped": lambda notebook: ascii_escaped(jupyter(notebook)),
    "nbformat-order": in_nbformat_order,
    "after-a-blank-line": lambda notebook: "\n" + jupyter(notebook),
}


@pytest.mark.parametrize("style", sorted(EMPTY_STYLES))
async def test_the_first_cell_of_an_empty_notebook_is_written_in_its_style(
    client: Client[Any], case: Path, style: str
) -> None:
    """With no cell to copy, the first is written in the style of the notebook around it:
    its line breaks, one level of indentation below the line of "cells", separators,
    escapes, and key order (nbformat's where the file's keys are not sorted)."""
    write = EMPTY_STYLES[style]
    kernel = {"display_name": "Pythön 3", "language": "python", "name": "python3"}
    notebook = new_notebook(metadata={"kernelspec": kernel})
    path = case / "n.ipynb"
    await prepared(client, path, write(notebook))
    ok_text(
        await edit(
            client, path, cell=0, edit_mode="insert", new_source="é = 1\nb = 2", cell_type="code"
        )
    )
    after = path.read_bytes().decode()
    notebook.cells.append(new_code_cell("é = 1\nb = 2", id=json.loads(after)["cells"][0]["id"]))
    assert after == write(notebook)


def a_cell_a_line(notebook: Any) -> str:
    """Each cell on a line of its own; the rest of the notebook on the first and last."""
    content = as_json(notebook)
    cells = ",\n".join(json.dumps(cell, sort_keys=True) for cell in content.pop("cells"))
    return '{"cells": [\n' + cells + "\n], " + json.dumps(content, sort_keys=True)[1:] + "\n"


@pytest.mark.parametrize("after_cell", [0, 1, 2])
async def test_a_new_cell_is_separated_as_the_files_cells_are(
    client: Client[Any], case: Path, after_cell: int
) -> None:
    """The separator between two cells is copied from the file (here a line break), not
    made from a cell's own style (one line, items separated by a space)."""
    path = case / "n.ipynb"
    notebook = new_notebook(cells=[new_code_cell("a", id="a"), new_markdown_cell("b", id="b")])
    await prepared(client, path, a_cell_a_line(notebook))
    ok_text(
        await edit(
            client, path, cell=after_cell, edit_mode="insert", new_source="c", cell_type="markdown"
        )
    )
    after = path.read_text(encoding="utf-8")
    inserted = json.loads(after)["cells"][after_cell]["id"]
    notebook.cells.insert(after_cell, new_markdown_cell("c", id=inserted))
    assert after == a_cell_a_line(notebook)


@pytest.mark.parametrize("mode", ["replace", "insert"])
async def test_a_layout_a_cell_cannot_be_written_in_is_refused(
    client: Client[Any], case: Path, mode: str
) -> None:
    """Colons that start lines (valid JSON, which no writer makes) give no separator to
    write a key and its value with: the edit is refused, the file left as it was."""
    path = case / "n.ipynb"
    before = await prepared(client, path, jupyter(sample()).replace('": ', '"\n: '))
    arguments: dict[str, Any] = {"cell": 1, "edit_mode": mode, "new_source": "x"}
    if mode == "insert":
        arguments["cell_type"] = "code"
    assert error_text(await edit(client, path, **arguments)) == (
        f"[NOTEBOOK_INVALID] the edit could not be written in the layout of {path}, so it was "
        "not made"
    )
    assert path.read_text(encoding="utf-8") == before


# --- addressing ------------------------------------------------------------------------


async def test_cell_by_id_and_by_number_as_text(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    await edit(client, path, cell="never", new_source="by id")
    await edit(client, path, cell="3", new_source="by number")
    cells = cells_of(path.read_text())
    assert [cells[3][1], cells[2][1]] == ["by id", "by number"]


async def test_an_id_made_of_digits_is_an_id_first(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    notebook = new_notebook(cells=[new_code_cell("a", id="x"), new_code_cell("b", id="1")])
    await prepared(client, path, jupyter(notebook))
    await edit(client, path, cell="1", new_source="second")
    await edit(client, path, cell=1, new_source="first")
    assert [c[1] for c in cells_of(path.read_text())] == ["first", "second"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"cell": 5, "new_source": "x"}, "cell: 5 is out of range: its cells are numbered 1 to 4"),
        ({"cell": 0, "new_source": "x"}, "cell: 0 is out of range: its cells are numbered 1 to 4"),
        ({"cell": -1, "edit_mode": "delete"}, "cell: -1 is out of range"),
        (
            {"cell": 5, "edit_mode": "insert", "new_source": "x", "cell_type": "code"},
            "cell: 5 is out of range for {path}: give 0 to insert first, or 1 to 4 to insert "
            "after that cell",
        ),
        ({"cell": "nope", "new_source": "x"}, "cell: no cell of {path} has the id 'nope'"),
        ({"cell": "9" * 40, "new_source": "x"}, "cell: that number is out of range"),
        ({"cell": "9" * 5000, "new_source": "x"}, "cell: that number is out of range"),
        ({"cell": "9" * 18, "new_source": "x"}, f"cell: {10**18 - 1} is out of range"),
        ({"cell": 10**18 - 1, "new_source": "x"}, f"cell: {10**18 - 1} is out of range"),
        ({"cell": 10**18, "new_source": "x"}, "cell: that number is out of range"),
        ({"cell": -1000, "edit_mode": "delete"}, "cell: -1000 is out of range"),
        ({"cell": 1 - 10**18, "edit_mode": "delete"}, f"cell: {1 - 10**18} is out of range"),
        ({"cell": -(10**18), "edit_mode": "delete"}, "cell: that number is out of range"),
        ({"cell": "", "new_source": "x"}, "cell: must not be empty"),
        (
            {"cell": 1, "new_source": "a\ud800"},
            "new_source: contains a lone UTF-16 surrogate, which is not valid Unicode text",
        ),
        ({"cell": 1}, "new_source: required to replace a cell"),
        (
            {"cell": 1, "edit_mode": "insert", "new_source": "x"},
            "cell_type: required to insert a cell (code or markdown)",
        ),
    ],
    ids=[
        "past",
        "zero",
        "negative",
        "insert",
        "id",
        "long",
        "longer than int() reads",
        "18 digits",
        "largest shown",
        "too large to show",
        "-1000",
        "lowest shown",
        "too low to show",
        "empty",
        "surrogate",
        "source",
        "type",
    ],
)
async def test_invalid_cells_and_arguments(
    client: Client[Any], case: Path, arguments: dict[str, Any], message: str
) -> None:
    path = case / "n.ipynb"
    before = await prepared(client, path, jupyter(sample()))
    inode = path.stat().st_ino
    result = await edit(client, path, **arguments)
    assert error_text(result).startswith("[INVALID_INPUT] " + message.format(path=path))
    assert path.read_text() == before
    assert path.stat().st_ino == inode


async def test_no_ids_before_nbformat_4_5(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(nbformat.from_dict(without_ids(as_json(sample())))))
    result = await edit(client, path, cell="intro", new_source="x")
    assert error_text(result) == (
        f"[INVALID_INPUT] cell: the cells of {path} have no ids (nbformat 4.4); give the "
        "cell's number, 1 to 4"
    )


async def test_bad_argument_types(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    for arguments in (
        {"cell": 1.5, "new_source": "x"},
        {"cell": True, "new_source": "x"},
        {"cell": 1, "new_source": "x", "edit_mode": "move"},
        {"cell": 1, "new_source": "x", "cell_type": "raw"},
    ):
        assert error_text(await edit(client, path, **arguments)).startswith("[INVALID_INPUT] ")


# --- what is not a notebook ------------------------------------------------------------


async def test_only_notebooks(client: Client[Any], case: Path) -> None:
    path = case / "n.json"
    await prepared(client, path, jupyter(sample()))
    assert error_text(await edit(client, path, cell=1, new_source="x")) == (
        f"[INVALID_INPUT] path: {path} is not a notebook (.ipynb); use str_replace for other files"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"cells": [}', "not valid JSON: Expecting value: line 1 column 12 (char 11)"),
        ('{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}', "nbformat 3: only"),
        ("[]", "the JSON is a list, not a notebook object"),
    ],
    ids=["json", "v3", "list"],
)
async def test_not_a_notebook(client: Client[Any], case: Path, text: str, reason: str) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, text)
    message = error_text(await edit(client, path, cell=1, new_source="x"))
    assert message.startswith(f"[NOTEBOOK_INVALID] {path} cannot be edited as a notebook: {reason}")
    assert message.endswith(". view shows it as text; str_replace can fix it")
    assert path.read_text() == text


@pytest.mark.parametrize("where", ["metadata", "output"])
async def test_a_lone_surrogate_in_the_edited_cell_stays_escaped(
    client: Client[Any], case: Path, where: str
) -> None:
    """JSON may hold a lone UTF-16 surrogate as a \\u escape; a file with non-ASCII text
    written as is still holds that one as an escape. An edit of its cell keeps it so (it
    used to fail with a Python error, as UTF-8 cannot hold it)."""
    path = case / "n.ipynb"
    content = as_json(sample())
    content["cells"][0]["source"] = "# Ümlaut"
    cell = 2 if where == "metadata" else 1
    if where == "metadata":
        content["cells"][1]["metadata"] = {"tag": "\ud800"}
    else:  # a markdown cell keeps its attachments through a replace
        content["cells"][0]["attachments"] = {"a.txt": {"text/plain": "\udc00"}}
    text = vscode(content).replace("\ud800", "\\ud800").replace("\udc00", "\\udc00")
    before = await prepared(client, path, text)
    ok_text(await edit(client, path, cell=cell, new_source="x = 2"))
    after = path.read_text(encoding="utf-8")
    start, end = cell_spans(before, " ")[cell - 1]
    assert after.startswith(before[:start])
    assert after.endswith(before[end:])
    assert ("\\ud800" if where == "metadata" else "\\udc00") in after[start:]
    read = json.loads(after)["cells"][cell - 1]
    if where == "metadata":
        assert read["metadata"] == {"tag": "\ud800"}
    else:
        assert read["attachments"] == {"a.txt": {"text/plain": "\udc00"}}
    assert "".join(read["source"]) == "x = 2"


async def test_a_directory_is_not_edited(client: Client[Any], case: Path) -> None:
    path = case / "d.ipynb"
    path.mkdir()
    assert error_text(await edit(client, path, cell=1, new_source="x")) == (
        f"[INVALID_INPUT] {path} is a directory; notebook_edit works on files only"
    )


@pytest.mark.parametrize("number", [1, 3])
async def test_an_edit_that_would_make_it_invalid(
    client: Client[Any], case: Path, number: int
) -> None:
    # Markdown and raw metadata may hold anything; a code cell's "collapsed" must be a
    # boolean.
    path = case / "n.ipynb"
    content = as_json(sample())
    content["cells"][number - 1]["metadata"] = {"collapsed": "yes"}
    nbformat.validate(content)
    before = await prepared(client, path, jupyter(nbformat.from_dict(content)))
    result = await edit(client, path, cell=number, new_source="x", cell_type="code")
    assert error_text(result) == (
        f"[NOTEBOOK_INVALID] the edit would leave {path} invalid, so it was not made: not a "
        f"valid nbformat 4 notebook: cell {number}, metadata.collapsed: 'yes' is not of type "
        "'boolean'"
    )
    assert path.read_text() == before


# --- the rules every edit follows ------------------------------------------------------


async def test_view_first(case: Path) -> None:
    path = case / "n.ipynb"
    path.write_text(jupyter(sample()))
    async with app_client(workdir=case) as fresh:
        assert error_text(await edit(fresh, path, cell=1, new_source="x")) == (
            f"[FILE_NOT_VIEWED] file {path} must be viewed before editing. Use the view tool first."
        )
        await fresh.call_tool("view", {"path": str(path)})
        assert not (await edit(fresh, path, cell=1, new_source="x")).is_error
        # The file it edited counts as viewed; so does one it inserted into.
        assert not (await edit(fresh, path, cell=1, new_source="y")).is_error


async def test_scope(case: Path) -> None:
    secret = case / "secret"
    secret.mkdir()
    path = secret / "n.ipynb"
    path.write_text(jupyter(sample()))
    async with app_client("--deny-dir", "**/secret", workdir=case) as denied:
        result = await edit(denied, path, cell=1, new_source="x")
    assert error_text(result).startswith("[ACCESS_DENIED] ")
    assert path.read_text() == jupyter(sample())


async def test_size_limit(case: Path) -> None:
    path = case / "n.ipynb"
    text = jupyter(sample())
    path.write_text(text)
    limit = f"{len(text.encode()) + 100}B"
    async with app_client("--max-file-size", limit, workdir=case) as small:
        await small.call_tool("view", {"path": str(path)})
        result = await edit(small, path, cell=1, new_source="x" * 200)
        assert error_text(result).startswith("[FILE_TOO_LARGE] the edited file would be ")
        assert not (await edit(small, path, cell=1, new_source="x" * 10)).is_error
    async with app_client("--max-file-size", "100B", "--require-view-before-edit", "false") as s:
        result = await edit(s, path, cell=1, new_source="x")
    assert error_text(result).startswith(f"[FILE_TOO_LARGE] {path} is ")


async def test_one_write_that_keeps_the_file(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    os.chmod(path, 0o600)
    other = case / "link.ipynb"
    os.link(path, other)
    inode = path.stat().st_ino
    await edit(client, path, cell=1, new_source="x")
    assert path.stat().st_ino == inode  # a hard link: written in place, after a backup
    assert path.stat().st_mode & 0o777 == 0o600
    assert other.read_text() == path.read_text()
    assert sorted(p.name for p in case.iterdir()) == ["link.ipynb", "n.ipynb"]


async def test_outputs_of_other_cells_stay(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    notebook = sample()
    notebook.cells.append(
        new_code_cell("z", id="z", outputs=[new_output("stream", name="stdout", text="kept")])
    )
    await prepared(client, path, jupyter(notebook))
    await edit(client, path, cell="run", new_source="again")
    assert json.loads(path.read_text())["cells"][4]["outputs"] == [
        {"name": "stdout", "output_type": "stream", "text": ["kept"]}
    ]
