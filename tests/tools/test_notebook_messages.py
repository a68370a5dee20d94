"""Notebooks through a real client, at the edges of what is read as one: each kind of JSON
that is not a notebook, versions, nbformat's findings outside the cells and their cut,
the oldest nbformat 4 (4.0), a minified file edited, and the words of notebook_edit's
answers where a count or a note changes (README "Notebooks", "notebook_edit").

The oracle for what is valid is nbformat itself; the reasons are written out in full, as
a model reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from fastmcp import Client
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tests.support import error_text, ok_text
from tests.support.notebooks import jupyter, sample
from tests.tools.test_notebook_edit import edit, prepared

pytestmark = pytest.mark.anyio


async def shown_as_text(client: Client[Any], path: Path, text: str) -> str:
    """The reason view gives for showing ``text`` as text, not as cells."""
    path.write_text(text, encoding="utf-8")
    result = await client.call_tool("view", {"path": str(path)}, raise_on_error=False)
    first = ok_text(result).split("\n", 1)[0]
    prefix = "[Shown as text, not as notebook cells: "
    assert first.startswith(prefix), first
    assert first.endswith("]")
    return first[len(prefix) : -1]


def notebook_json(**changes: Any) -> dict[str, Any]:
    """A valid notebook's JSON with top-level values replaced."""
    content: dict[str, Any] = json.loads(jupyter(new_notebook(cells=[new_code_cell("x")])))
    content.update(changes)
    return content


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[]", "a list"),
        ('"cells"', "a string"),
        ("null", "null"),
        ("3", "a number"),
        ("1.5", "a number"),
        ("true", "a boolean"),
        ("false", "a boolean"),
    ],
)
async def test_json_that_is_not_an_object(
    client: Client[Any], case: Path, text: str, kind: str
) -> None:
    reason = await shown_as_text(client, case / "n.ipynb", text + "\n")
    assert reason == f"the JSON is {kind}, not a notebook object"


@pytest.mark.parametrize(
    ("major", "said"),
    [
        ("4", '"4"'),
        (True, "true"),
        (5, "5"),
        ("x" * 40, '"' + "x" * 19),  # the value cut to 20 characters of its JSON
    ],
    ids=["string", "boolean", "five", "long"],
)
async def test_a_version_that_is_not_4(
    client: Client[Any], case: Path, major: Any, said: str
) -> None:
    reason = await shown_as_text(
        client, case / "n.ipynb", json.dumps(notebook_json(nbformat=major))
    )
    assert reason == f"nbformat {said}: only nbformat 4 notebooks are read as cells"


async def test_a_version_of_4_that_is_not_a_whole_number(client: Client[Any], case: Path) -> None:
    """nbformat reads 4.0 as a version too, then fails looking for a module "v4.0"."""
    reason = await shown_as_text(client, case / "n.ipynb", json.dumps(notebook_json(nbformat=4.0)))
    assert reason == "nbformat 4.0 is not a whole number"


@pytest.mark.parametrize("minor", [-1, True, 1.5, None])
async def test_a_minor_version_that_is_not_a_whole_number(
    client: Client[Any], case: Path, minor: Any
) -> None:
    reason = await shown_as_text(
        client, case / "n.ipynb", json.dumps(notebook_json(nbformat_minor=minor))
    )
    assert reason == "nbformat_minor is not a whole number"


@pytest.mark.parametrize(
    ("change", "finding"),
    [
        (
            lambda nb: nb["metadata"].update(kernelspec=3),
            "metadata.kernelspec: 3 is not of type 'object'",
        ),
        (lambda nb: nb.pop("metadata"), "'metadata' is a required property"),
        (
            lambda nb: nb["cells"][0].update(
                outputs=[{"output_type": "stream", "name": 3, "text": ""}]
            ),
            "cell 1, outputs[0].name: 3 is not of type 'string'",
        ),
    ],
    ids=["metadata", "top", "output"],
)
async def test_nbformats_finding_is_named_by_where_it_is(
    client: Client[Any], case: Path, change: Any, finding: str
) -> None:
    content = notebook_json()
    change(content)
    with pytest.raises(nbformat.ValidationError):  # the oracle agrees it is not valid
        nbformat.validate(content)
    reason = await shown_as_text(client, case / "n.ipynb", json.dumps(content, indent=1))
    assert reason == f"not a valid nbformat 4 notebook: {finding}"
    message = error_text(await edit(client, case / "n.ipynb", cell=1, new_source="y"))
    assert message == (
        f"[NOTEBOOK_INVALID] {case / 'n.ipynb'} cannot be edited as a notebook: not a valid "
        f"nbformat 4 notebook: {finding}. view shows it as text; str_replace can fix it"
    )


@pytest.mark.parametrize("length", [253, 254])
async def test_a_finding_is_cut_after_300_characters(
    client: Client[Any], case: Path, length: int
) -> None:
    """nbformat's message quotes the value it refuses: a long one is cut."""
    value = "x" * length
    content = notebook_json()
    content["metadata"]["kernelspec"] = value
    finding = f"metadata.kernelspec: {value!r} is not of type 'object'"
    assert len(finding) == 300 + (length - 253)
    reason = await shown_as_text(client, case / "n.ipynb", json.dumps(content, indent=1))
    cut = finding if len(finding) <= 300 else finding[:297] + "..."
    assert reason == f"not a valid nbformat 4 notebook: {cut}"


# --- nbformat 4.0, the oldest read as cells ------------------------------------------------


def version_4_0(notebook: Any) -> str:
    """A notebook as nbformat 4.0 holds it: no cell ids, minor version 0."""
    content = json.loads(jupyter(notebook))
    content["nbformat_minor"] = 0
    for cell in content["cells"]:
        del cell["id"]
    nbformat.validate(content, version=4, version_minor=0)
    return json.dumps(content, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


async def test_an_nbformat_4_0_notebook_is_viewed_and_edited(
    client: Client[Any], case: Path
) -> None:
    path = case / "old.ipynb"
    await prepared(client, path, version_4_0(sample()))
    shown = ok_text(await client.call_tool("view", {"path": str(path)}))
    assert shown.startswith(
        "[notebook] 4 cells, nbformat 4.0, python\n[cell 1] markdown\n1\t# Title\n"
    )
    ok_text(await edit(client, path, cell=2, new_source="y = 2"))
    ok_text(await edit(client, path, cell=0, edit_mode="insert", new_source="z", cell_type="code"))
    ok_text(await edit(client, path, cell=4, edit_mode="delete"))
    after = path.read_text(encoding="utf-8")
    read = nbformat.reads(after, as_version=nbformat.NO_CONVERT)
    nbformat.validate(read)
    assert (read.nbformat, read.nbformat_minor) == (4, 0)
    assert [(c.cell_type, c.source) for c in read.cells] == [
        ("code", "z"),
        ("markdown", "# Title\nSome *text*"),
        ("code", "y = 2"),
        ("code", "x = 1"),
    ]
    assert all("id" not in cell for cell in read.cells)


# --- a minified notebook -----------------------------------------------------------------


def minified(content: Any) -> str:
    return json.dumps(content, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


async def test_a_minified_notebook_stays_minified(client: Client[Any], case: Path) -> None:
    """A file written without any whitespace (no final newline either) gets its edited
    cells in the same form."""
    path = case / "min.ipynb"
    notebook = sample()
    notebook.cells[0].source = "Café"
    await prepared(client, path, minified(json.loads(jupyter(notebook))))
    ok_text(await edit(client, path, cell=4, new_source="é = 1\nb = 2"))
    ok_text(
        await edit(client, path, cell=1, edit_mode="insert", new_source="ü", cell_type="markdown")
    )
    ok_text(await edit(client, path, cell=3, edit_mode="delete"))
    after = path.read_text(encoding="utf-8")
    notebook.cells[3].source = "é = 1\nb = 2"
    notebook.cells[3].execution_count = None
    inserted = json.loads(after)["cells"][1]
    notebook.cells.insert(1, new_markdown_cell("ü", id=inserted["id"]))
    del notebook.cells[2]
    assert after == minified(json.loads(jupyter(notebook)))


# --- notebook_edit's answers ---------------------------------------------------------------


def one_code_cell(**fields: Any) -> str:
    content = json.loads(jupyter(new_notebook(cells=[new_code_cell("x = 1", id="c")])))
    content["cells"][0].update(fields)
    return json.dumps(content, indent=1)


CLEARED = " (its outputs and execution count were cleared)"
STREAM = json.loads(json.dumps(new_output("stream", name="stdout", text="hi\n")))


@pytest.mark.parametrize(
    ("fields", "note"),
    [
        ({"outputs": [STREAM], "execution_count": None}, CLEARED),
        ({"outputs": [], "execution_count": 7}, CLEARED),
        ({"outputs": [STREAM], "execution_count": 7}, CLEARED),
        ({"outputs": [], "execution_count": None}, ""),
    ],
    ids=["outputs", "count", "both", "neither"],
)
async def test_a_replace_says_when_it_cleared_outputs(
    client: Client[Any], case: Path, fields: dict[str, Any], note: str
) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, one_code_cell(**fields))
    assert ok_text(await edit(client, path, cell=1, new_source="y")) == (
        f"Replaced cell 1 of {path}{note}\n\n[cell 1] code id=c execution_count=none\n1\ty\n"
    )
    cell = json.loads(path.read_text())["cells"][0]
    assert (cell["outputs"], cell["execution_count"]) == ([], None)


async def test_counts_of_one_cell_and_of_none(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, json.dumps(notebook_json(cells=[]), indent=1))
    assert error_text(await edit(client, path, cell=1, new_source="x")) == (
        f"[INVALID_INPUT] cell: 1 is out of range: it has no cells ({path})"
    )
    assert error_text(
        await edit(client, path, cell=1, edit_mode="insert", new_source="x", cell_type="code")
    ) == (
        f"[INVALID_INPUT] cell: 1 is out of range for {path}: give 0 to insert first "
        "(it has no cells)"
    )
    inserted = ok_text(
        await edit(client, path, cell=0, edit_mode="insert", new_source="x", cell_type="code")
    )
    assert inserted.startswith(f"Inserted cell 1 in {path} (1 cell now)\n\n[cell 1] code id=")
    shown = ok_text(await client.call_tool("view", {"path": str(path)}))
    assert shown.startswith("[notebook] 1 cell, nbformat 4.5\n")
    ok_text(await edit(client, path, cell=1, edit_mode="insert", new_source="y", cell_type="code"))
    deleted = ok_text(await edit(client, path, cell=2, edit_mode="delete"))
    assert deleted.startswith("Deleted cell 2 (id ")
    assert deleted.endswith(f" of {path} (1 cell now)")
    deleted = ok_text(await edit(client, path, cell=1, edit_mode="delete"))
    assert deleted.endswith(f" of {path} (0 cells now)")
    assert json.loads(path.read_text())["cells"] == []


@pytest.mark.parametrize("length", [100, 101])
async def test_an_id_not_found_is_quoted_up_to_100_characters(
    client: Client[Any], case: Path, length: int
) -> None:
    path = case / "n.ipynb"
    await prepared(client, path, jupyter(sample()))
    wanted = "é" * length
    quoted = repr(wanted if length <= 100 else wanted[:100] + "...")
    assert error_text(await edit(client, path, cell=wanted, new_source="x")) == (
        f"[INVALID_INPUT] cell: no cell of {path} has the id {quoted}; view the notebook to "
        "see the ids, or give the cell's number"
    )


@pytest.mark.parametrize("cells", [0, 1])
async def test_insert_into_a_minified_notebook_of_few_cells(
    client: Client[Any], case: Path, cells: int
) -> None:
    """With no second cell to copy the separator from (or no cell at all to copy the
    style from), the new cell is still written without whitespace."""
    path = case / "min.ipynb"
    notebook = new_notebook(cells=[new_code_cell("a", id="first")][:cells])
    await prepared(client, path, minified(json.loads(jupyter(notebook))))
    ok_text(
        await edit(client, path, cell=cells, edit_mode="insert", new_source="b", cell_type="code")
    )
    after = path.read_text(encoding="utf-8")
    inserted = json.loads(after)["cells"][cells]
    notebook.cells.append(new_code_cell("b", id=inserted["id"]))
    assert after == minified(json.loads(jupyter(notebook)))


async def test_an_output_of_2000_characters_is_shown_whole(client: Client[Any], case: Path) -> None:
    text = "a" * 1999 + "b"
    notebook = new_notebook(
        cells=[new_code_cell("p", id="c", outputs=[new_output("stream", name="stdout", text=text)])]
    )
    path = case / "full.ipynb"
    path.write_text(jupyter(notebook), encoding="utf-8")
    shown = ok_text(await client.call_tool("view", {"path": str(path)}))
    assert shown.endswith(f"[output] stream stdout\n| {text}\n")


async def test_a_long_output_of_one_line_keeps_its_ends(client: Client[Any], case: Path) -> None:
    """An output without line breaks is cut at characters: its first and last 1,000."""
    text = "a" * 1000 + "b" * 3000 + "c" * 1000
    notebook = new_notebook(
        cells=[new_code_cell("p", id="c", outputs=[new_output("stream", name="stdout", text=text)])]
    )
    path = case / "long.ipynb"
    path.write_text(jupyter(notebook), encoding="utf-8")
    shown = ok_text(await client.call_tool("view", {"path": str(path)}))
    assert shown.endswith(
        "[output] stream stdout\n"
        f"| {'a' * 1000}\n"
        "[... 3,000 characters of this output not shown ...]\n"
        f"| {'c' * 1000}\n"
    )
