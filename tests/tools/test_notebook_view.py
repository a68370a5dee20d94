"""view of a Jupyter notebook through a real client: cells, outputs of each kind, the cut of
long outputs, images as image content, view_range over cells, and files that are not
nbformat 4 notebooks shown as text with the reason (README "Notebooks").

The notebooks are written by nbformat itself (tests/support/notebooks.py).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from fastmcp import Client
from mcp_types import ImageContent, TextContent
from nbformat.v3 import new_code_cell as v3_code_cell
from nbformat.v3 import new_notebook as v3_notebook
from nbformat.v3 import new_worksheet
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from boris.files.notebook import format as notebook_format
from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.notebooks import PNG, jupyter, sample

pytestmark = pytest.mark.anyio


async def view(client: Client[Any], path: Path, view_range: list[int] | None = None) -> Any:
    args: dict[str, Any] = {"path": str(path)}
    if view_range is not None:
        args["view_range"] = view_range
    return await client.call_tool("view", args, raise_on_error=False)


def write(path: Path, notebook: Any) -> Path:
    path.write_text(jupyter(notebook), encoding="utf-8")
    return path


def png_output() -> Any:
    """A display_data output of a 1x1 PNG."""
    return new_output("display_data", data={"image/png": base64.b64encode(PNG).decode()})


def numbered_lines(count: int) -> str:
    """A source of ``count`` lines: 0, 1, 2, …"""
    return "".join(f"{n}\n" for n in range(count))


SAMPLE_VIEW = """\
[notebook] 4 cells, nbformat 4.5, python
[cell 1] markdown id=intro
1\t# Title
2\tSome *text*
[cell 2] code id=run execution_count=3
1\tprint("hi")
2\t1 / 0
[output] stream stdout
| hi
[output] error ZeroDivisionError: division by zero
| ZeroDivisionError: division by zero
[cell 3] raw id=raw
1\traw text
[cell 4] code id=never execution_count=none
1\tx = 1
"""


async def test_cells_with_sources_and_outputs(client: Client[Any], case: Path) -> None:
    path = write(case / "a.ipynb", sample())
    assert ok_text(await view(client, path)) == SAMPLE_VIEW


async def test_results_markdown_html_widgets_and_images(client: Client[Any], case: Path) -> None:
    png = base64.b64encode(PNG).decode()
    widget = "application/vnd.jupyter.widget-view+json"
    notebook = new_notebook(
        cells=[
            new_code_cell(
                "show()",
                id="c",
                execution_count=1,
                outputs=[
                    new_output(
                        "execute_result",
                        data={"text/plain": "   a\n0  1", "text/html": "<table/>"},
                        execution_count=1,
                    ),
                    new_output(
                        "display_data",
                        data={"text/markdown": "**bold**", "text/plain": "<Markdown>"},
                    ),
                    new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
                    new_output("display_data", data={widget: {"model_id": "m"}}),
                    new_output("display_data", data={"image/svg+xml": "<svg/>"}),
                    new_output("stream", name="stderr", text="\x1b[33mwarning\x1b[0m\n"),
                ],
            )
        ]
    )
    result = await view(client, write(case / "r.ipynb", notebook))
    assert not result.is_error
    text, *images = result.content
    assert isinstance(text, TextContent)
    assert text.text == (
        "[notebook] 1 cell, nbformat 4.5\n"
        "[cell 1] code id=c execution_count=1\n"
        "1\tshow()\n"
        "[output] execute_result text/plain; not shown: text/html\n"
        "|    a\n"
        "| 0  1\n"
        "[output] display_data text/markdown; not shown: text/plain\n"
        "| **bold**\n"
        "[output] display_data image/png (image 1), text/plain\n"
        "| <Figure>\n"
        f"[output] display_data (no data); not shown: {widget}\n"
        "[output] display_data image/svg+xml (image 2)\n"
        "[output] stream stderr\n"
        "| warning\n"
    )
    assert [(i.type, i.mime_type) for i in images if isinstance(i, ImageContent)] == [
        ("image", "image/png"),
        ("image", "image/svg+xml"),
    ]
    assert isinstance(images[0], ImageContent)
    assert base64.b64decode(images[0].data) == PNG
    assert isinstance(images[1], ImageContent)
    assert base64.b64decode(images[1].data) == b"<svg/>"


async def test_an_svg_image_is_its_text(client: Client[Any], case: Path) -> None:
    """SVG is text, which the file holds as a list of lines; a lone surrogate in it (JSON
    holds one as an escape, UTF-8 cannot) is attached as "?"."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg">\n<text>\ud800</text>\n</svg>\n'
    output = new_output("display_data", data={"image/svg+xml": svg})
    notebook = new_notebook(cells=[new_code_cell("", id="c", outputs=[output])])
    text = jupyter(notebook)
    assert '"<text>\ud800</text>\\n",' in text  # a line of its own
    path = case / "svg.ipynb"
    path.write_text(text.replace("\ud800", "\\ud800"), encoding="utf-8")
    result = await view(client, path)
    text, image = result.content
    assert isinstance(text, TextContent)
    assert text.text.splitlines()[2:] == ["[output] display_data image/svg+xml (image 1)"]
    assert isinstance(image, ImageContent)
    assert base64.b64decode(image.data) == (
        b'<svg xmlns="http://www.w3.org/2000/svg">\n<text>?</text>\n</svg>\n'
    )


async def test_images_that_are_not_images_are_named(client: Client[Any], case: Path) -> None:
    notebook = new_notebook(
        cells=[
            new_code_cell(
                "",
                id="c",
                outputs=[
                    new_output("display_data", data={"image/png": "not base64!"}),
                    new_output(
                        "display_data", data={"image/jpeg": base64.b64encode(b"text").decode()}
                    ),
                ],
            )
        ]
    )
    result = await view(client, write(case / "i.ipynb", notebook))
    assert len(result.content) == 1
    assert ok_text(result).splitlines()[2:] == [
        "[output] display_data image/png (not attached: not valid base64)",
        "[output] display_data image/jpeg (not attached: not an image)",
    ]


async def test_long_output_keeps_head_and_tail(client: Client[Any], case: Path) -> None:
    lines = [f"step {n:05d}" for n in range(2000)]  # 10 characters each, 21,999 in all
    output = new_output("stream", name="stdout", text="\n".join(lines) + "\n")
    notebook = new_notebook(cells=[new_code_cell("train()", id="t", outputs=[output])])
    shown = ok_text(await view(client, write(case / "long.ipynb", notebook))).splitlines()
    body = shown[4:]
    # Whole lines from the first 1000 and the last 1000 characters.
    head = [f"| {line}" for line in lines[:90]]
    tail = [f"| {line}" for line in lines[-90:]]
    cut = 21_999 - 90 * 11 * 2 + 2  # the two newlines next to the cut are not shown either
    assert body == [*head, f"[... {cut:,} characters of this output not shown ...]", *tail]


async def test_carriage_returns_settled_and_ansi_removed(client: Client[Any], case: Path) -> None:
    output = new_output(
        "stream",
        name="stdout",
        text="10%\r50%\r100%\n\x1b]0;title\x07\x1b[1mdone\x1b[0m\n"
        "epoch 1/2 [==  ]\repoch 2/2 [====]\r\nno redraw here\n",
    )
    notebook = new_notebook(cells=[new_code_cell("", id="p", outputs=[output])])
    shown = ok_text(await view(client, write(case / "p.ipynb", notebook)))
    assert shown.splitlines()[2:] == [
        "[output] stream stdout",
        "| 100%",
        "| done",
        "| epoch 2/2 [====]",
        "| no redraw here",
    ]


async def test_each_output_header_is_one_line(client: Client[Any], case: Path) -> None:
    """An error's header holds the first line of its value, a stream's its name made one
    line (every line that is not source or output text starts with "["); an empty line
    of an output's text is a bare "|"."""
    outputs = [
        new_output(
            "error",
            ename="ValueError",
            evalue="\nfirst line\nsecond line\n",
            traceback=["ValueError: first line", "second line"],
        ),
        new_output("stream", name="std\nout", text="a\n\nb\n"),
    ]
    notebook = new_notebook(cells=[new_code_cell("", id="e", outputs=outputs)])
    shown = ok_text(await view(client, write(case / "e.ipynb", notebook)))
    assert shown.splitlines()[2:] == [
        "[output] error ValueError: first line",
        "| ValueError: first line",
        "| second line",
        "[output] stream std out",
        "| a",
        "|",
        "| b",
    ]


async def test_view_range_selects_cells(client: Client[Any], case: Path) -> None:
    path = write(case / "a.ipynb", sample())
    expected = SAMPLE_VIEW.split("[cell 2]")[1].split("[cell 4]")[0]
    assert ok_text(await view(client, path, [2, 3])) == (
        "[notebook] 4 cells (showing cells 2 to 3), nbformat 4.5, python\n[cell 2]" + expected
    )
    last = "[notebook] 4 cells (showing cell 4), nbformat 4.5, python\n" + (
        "[cell 4]" + SAMPLE_VIEW.split("[cell 4]")[1]
    )
    assert ok_text(await view(client, path, [4, 4])) == last
    assert ok_text(await view(client, path, [4, 99])) == last
    assert ok_text(await view(client, path, [4, -1])) == last


@pytest.mark.parametrize(
    ("view_range", "message"),
    [
        ([0, 2], "[INVALID_INPUT] view_range start must be 1 or more, got 0"),
        ([3, 2], "[INVALID_INPUT] view_range start 3 is greater than end 2"),
        ([5, 9], "[INVALID_INPUT] start 5 exceeds total cells 4 in "),
    ],
)
async def test_view_range_errors_as_for_lines(
    client: Client[Any], case: Path, view_range: list[int], message: str
) -> None:
    path = write(case / "a.ipynb", sample())
    assert error_text(await view(client, path, view_range)).startswith(message)


async def test_a_long_notebook_is_cut_at_a_cell(client: Client[Any], case: Path) -> None:
    source = "\n".join(f"x{n} = {n}" for n in range(99))  # 100 lines with the header
    notebook = new_notebook(cells=[new_code_cell(source, id=f"c{n}") for n in range(1, 31)])
    shown = ok_text(await view(client, write(case / "big.ipynb", notebook)))
    lines = shown.splitlines()
    assert lines[0] == "[notebook] 30 cells, nbformat 4.5"
    assert lines[-1] == (
        "[Truncated: cells 21 to 30 not shown. Use view_range [21, 30] to see them.]"
    )
    assert len(lines) == 1 + 20 * 100 + 1
    assert lines[-2] == "99\tx98 = 98"


async def test_a_range_of_cells_longer_than_an_answer_is_cut_at_a_cell(
    client: Client[Any], case: Path
) -> None:
    source = "\n".join(f"x{n} = {n}" for n in range(99))  # 100 lines with the header
    notebook = new_notebook(cells=[new_code_cell(source, id=f"c{n}") for n in range(1, 31)])
    lines = ok_text(await view(client, write(case / "big.ipynb", notebook), [3, 30])).splitlines()
    assert lines[0] == "[notebook] 30 cells (showing cells 3 to 30), nbformat 4.5"
    assert lines[1] == "[cell 3] code id=c3 execution_count=none"
    assert lines[-1] == (
        "[Truncated: cells 23 to 30 not shown. Use view_range [23, 30] to see them.]"
    )
    assert len(lines) == 1 + 20 * 100 + 1


@pytest.mark.parametrize(
    ("view_range", "then"),
    [(None, " Use view_range [2, 2] to see cell 2."), ([1, 1], ""), ([1, 2], "")],
    ids=["whole", "the cell", "the cell and the next"],
)
async def test_a_cell_longer_than_an_answer_is_cut_inside(
    client: Client[Any], case: Path, view_range: list[int] | None, then: str
) -> None:
    """The first cell shown, alone longer than an answer holds, is cut inside it, with a
    note naming the cell and the line it goes on from."""
    source = "".join(f"y{n} = {n}\n" for n in range(1, 5001))
    notebook = new_notebook(cells=[new_code_cell(source, id="long"), new_code_cell("z", id="z")])
    if view_range == [1, 2]:
        then = " Use view_range [2, 2] to see cell 2."
    lines = ok_text(await view(client, write(case / "long.ipynb", notebook), view_range))
    shown = lines.splitlines()
    assert shown[1] == "[cell 1] code id=long execution_count=none"
    assert shown[2] == "   1\ty1 = 1"
    assert shown[-2] == "1999\ty1999 = 1999"
    assert shown[-1] == (
        f"[Truncated: cell 1 goes on from line 2000 of its 5000 source lines.{then}]"
    )
    assert len(shown) == 1 + 2000 + 1


async def test_a_cell_of_many_outputs_is_cut_in_an_output(client: Client[Any], case: Path) -> None:
    text = "".join(f"out {n}\n" for n in range(100))
    outputs = [new_output("stream", name="stdout", text=text) for _ in range(30)]
    notebook = new_notebook(cells=[new_code_cell("run()", id="run", outputs=outputs)])
    shown = ok_text(await view(client, write(case / "outputs.ipynb", notebook))).splitlines()
    # The header, the source line, then 101 lines an output: 19 whole, the 20th cut.
    assert shown[-1] == "[Truncated: cell 1 goes on in its output 20 of 30.]"
    assert shown[-2] == "| out 77"
    assert len(shown) == 1 + 2000 + 1


async def test_a_cell_cut_where_an_output_ends_goes_on_in_the_next(
    client: Client[Any], case: Path
) -> None:
    """The first 2,000 lines of a cell end exactly with one of its outputs: the note
    names the next. An image before the cut counts its header line."""
    outputs = [png_output()]
    outputs += [new_output("stream", name="stdout", text=f"a{n}\nb{n}\n") for n in range(2, 702)]
    source = "".join(f"s{n}\n" for n in range(1, 10))
    notebook = new_notebook(cells=[new_code_cell(source, id="c", outputs=outputs)])
    # The cell's lines, each with the output it belongs to (0: none).
    model = [("[cell 1] code id=c execution_count=none", 0)]
    model += [(f"{n}\ts{n}", 0) for n in range(1, 10)]
    model += [("[output] display_data image/png (image 1)", 1)]
    for n in range(2, 702):
        model += [("[output] stream stdout", n), (f"| a{n}", n), (f"| b{n}", n)]
    after = model[2000][1]
    assert model[1999][1] != after == 665
    result = await view(client, write(case / "cut.ipynb", notebook))
    text, image = result.content
    assert isinstance(text, TextContent)
    assert isinstance(image, ImageContent)
    assert text.text == (
        "[notebook] 1 cell, nbformat 4.5\n"
        + "".join(line + "\n" for line, _ in model[:2000])
        + f"[Truncated: cell 1 goes on in its output {after} of 701.]\n"
    )


async def test_notebooks_without_ids(client: Client[Any], case: Path) -> None:
    notebook = new_notebook(cells=[new_markdown_cell("hi"), new_code_cell("x")])
    notebook.nbformat_minor = 4
    for cell in notebook.cells:
        del cell["id"]
    assert ok_text(await view(client, write(case / "old.ipynb", notebook))) == (
        "[notebook] 2 cells, nbformat 4.4\n"
        "[cell 1] markdown\n1\thi\n"
        "[cell 2] code execution_count=none\n1\tx\n"
    )


async def test_invalid_json_is_shown_as_text_with_the_reason(
    client: Client[Any], case: Path
) -> None:
    (case / "bad.ipynb").write_text('{\n "cells": [\n  {,\n ]\n}\n')
    assert ok_text(await view(client, case / "bad.ipynb")) == (
        "[Shown as text, not as notebook cells: not valid JSON: Expecting property name "
        "enclosed in double quotes: line 3 column 4 (char 17)]\n"
        '1\t{\n2\t "cells": [\n3\t  {,\n4\t ]\n5\t}\n'
    )
    # view_range then counts lines.
    assert ok_text(await view(client, case / "bad.ipynb", [2, 2])).endswith('\n2\t "cells": [\n')
    # JSON nested deeper than the decoder goes.
    deep = "[" * 5000 + "]" * 5000
    (case / "deep.ipynb").write_text(f'{{"cells": [], "metadata": {{"x": {deep}}}}}\n')
    assert ok_text(await view(client, case / "deep.ipynb")).startswith(
        "[Shown as text, not as notebook cells: not valid JSON: nested too deeply]\n1\t{"
    )


async def test_an_nbformat_3_notebook_is_shown_as_text(client: Client[Any], case: Path) -> None:
    old = v3_notebook(worksheets=[new_worksheet(cells=[v3_code_cell(input="x = 1")])])
    text = nbformat.writes(old, version=3)
    (case / "v3.ipynb").write_text(text)
    shown = ok_text(await view(client, case / "v3.ipynb"))
    first, rest = shown.split("\n", 1)
    assert first == (
        "[Shown as text, not as notebook cells: nbformat 3: only nbformat 4 notebooks are "
        "read as cells]"
    )
    assert rest.startswith(" 1\t{\n")
    assert len(rest.splitlines()) == len(text.splitlines())


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (
            lambda nb: nb["cells"][1].pop("outputs"),
            "not a valid nbformat 4 notebook: cell 2: 'outputs' is a required property",
        ),
        (
            lambda nb: nb["cells"][1].update(id="intro"),
            "not a valid nbformat 4 notebook: cell 2: cell id 'intro' is not unique",
        ),
        (
            lambda nb: nb.pop("nbformat"),
            "no nbformat version: not a Jupyter notebook",
        ),
        (
            lambda nb: nb.update(nbformat_minor="5"),
            "nbformat_minor is not a whole number",
        ),
    ],
    ids=["schema", "ids", "version", "minor"],
)
async def test_an_invalid_notebook_is_shown_as_text(
    client: Client[Any], case: Path, edit: Any, reason: str
) -> None:
    content = json.loads(jupyter(sample()))
    edit(content)
    (case / "x.ipynb").write_text(json.dumps(content, indent=1))
    shown = ok_text(await view(client, case / "x.ipynb"))
    assert shown.split("\n", 1)[0] == f"[Shown as text, not as notebook cells: {reason}]"


async def test_not_utf8(client: Client[Any], case: Path) -> None:
    (case / "latin.ipynb").write_bytes(b'{"caf\xe9": 1}\n')
    assert ok_text(await view(client, case / "latin.ipynb")) == (
        "[Shown as text, not as notebook cells: not UTF-8 text (byte 5 is not UTF-8)]\n"
        '1\t{"caf\ufffd": 1}\n'
    )


async def test_other_names_are_plain_json(client: Client[Any], case: Path) -> None:
    path = write(case / "a.json", sample())
    assert ok_text(await view(client, path)).startswith(' 1\t{\n 2\t "cells": [\n')


async def test_size_limit(case: Path) -> None:
    path = write(case / "a.ipynb", sample())
    async with app_client("--max-file-size", "100B", workdir=case) as small:
        assert error_text(await view(small, path)).startswith("[FILE_TOO_LARGE] ")


async def test_compat_editor_shows_the_same(case: Path) -> None:
    path = write(case / "a.ipynb", sample())
    async with app_client("--anthropic-compat", workdir=case) as compat:
        result = await compat.call_tool(
            "str_replace_editor", {"command": "view", "path": str(path)}, raise_on_error=False
        )
    assert ok_text(result) == SAMPLE_VIEW


@pytest.mark.parametrize(
    ("evalue", "header"),
    [
        ("", "[output] error E"),
        ("x  y\tz", "[output] error E: x  y\tz"),  # no line break: kept as it is
        ("a\rb", "[output] error E: a b"),
    ],
    ids=["empty", "spaces", "cr"],
)
async def test_an_errors_header(client: Client[Any], case: Path, evalue: str, header: str) -> None:
    output = new_output("error", ename="E", evalue=evalue, traceback=[])
    notebook = new_notebook(cells=[new_code_cell("", id="e", outputs=[output])])
    shown = ok_text(await view(client, write(case / "e.ipynb", notebook)))
    assert shown.splitlines()[2:] == [header]


async def test_every_type_not_shown_is_named(client: Client[Any], case: Path) -> None:
    data = {"text/plain": "t", "application/json": {}, "text/latex": "$x$"}
    output = new_output("display_data", data=data)
    notebook = new_notebook(cells=[new_code_cell("", id="d", outputs=[output])])
    shown = ok_text(await view(client, write(case / "d.ipynb", notebook)))
    assert shown.splitlines()[2] == (
        "[output] display_data text/plain; not shown: application/json, text/latex"
    )


async def test_a_source_that_starts_with_an_empty_line(client: Client[Any], case: Path) -> None:
    notebook = new_notebook(cells=[new_markdown_cell("\nx\n", id="m")])
    shown = ok_text(await view(client, write(case / "m.ipynb", notebook)))
    assert shown.splitlines()[1:] == ["[cell 1] markdown id=m", "1\t", "2\tx"]


async def test_a_cell_that_needs_two_lines_where_one_is_left(
    client: Client[Any], case: Path
) -> None:
    """Cells are shown whole: with one line left of the view's 2,000, a cell of a header
    and one line waits for the next view."""
    cells = [
        new_markdown_cell(numbered_lines(1998), id="a"),
        new_markdown_cell("last", id="b"),
    ]
    shown = ok_text(await view(client, write(case / "n.ipynb", new_notebook(cells=cells))))
    assert shown.splitlines()[-1] == (
        "[Truncated: cells 2 to 2 not shown. Use view_range [2, 2] to see them.]"
    )
    assert len(shown.splitlines()) == 1 + 1999 + 1


@pytest.mark.parametrize(
    ("lines", "before", "on"),
    [(1999, [], "output 1 of 1"), (1997, [new_output("stream", text="a\n")], "output 2 of 2")],
    ids=["its source", "an output"],
)
async def test_a_cell_cut_before_an_image_shows_no_image(
    client: Client[Any], case: Path, lines: int, before: list[Any], on: str
) -> None:
    """A first cell longer than the view is cut inside: cut right before an image
    output, the image is not attached either."""
    image = png_output()
    source = numbered_lines(lines)
    notebook = new_notebook(cells=[new_code_cell(source, id="c", outputs=[*before, image])])
    result = await view(client, write(case / "c.ipynb", notebook))
    assert [type(block) for block in result.content] == [TextContent]
    assert ok_text(result).splitlines()[-1] == f"[Truncated: cell 1 goes on in its {on}.]"


async def test_a_lone_surrogate_in_a_source(client: Client[Any], case: Path) -> None:
    path = case / "s.ipynb"
    text = jupyter(new_notebook(cells=[new_markdown_cell("a", id="s")]))
    path.write_text(text.replace('"a"', '"a\\ud800b"'), encoding="utf-8")
    # Its three bytes (as UTF-8 would hold it) are each shown as not UTF-8, as view
    # shows a file's bytes that are not.
    assert ok_text(await view(client, path)).splitlines()[2] == "1\ta\ufffd\ufffd\ufffdb"


async def test_the_language_from_the_kernelspec(client: Client[Any], case: Path) -> None:
    """Without language_info, the kernelspec's language names the notebook's."""
    notebook = new_notebook(cells=[new_markdown_cell("x", id="m")])
    notebook.metadata = {"kernelspec": {"name": "ir", "display_name": "R", "language": "R"}}
    shown = ok_text(await view(client, write(case / "r.ipynb", notebook)))
    assert shown.splitlines()[0] == "[notebook] 1 cell, nbformat 4.5, R"
    # A name of any length in the metadata is cut to 40 characters.
    notebook.metadata = {"language_info": {"name": "L" * 39 + "MN"}}
    shown = ok_text(await view(client, write(case / "long.ipynb", notebook)))
    assert shown.splitlines()[0] == "[notebook] 1 cell, nbformat 4.5, " + "L" * 39 + "M"


async def test_images_of_the_cells_shown_stay_when_a_later_one_is_cut(
    client: Client[Any], case: Path
) -> None:
    image = png_output()
    cells = [
        new_code_cell("x", id="a", outputs=[image]),
        new_markdown_cell(numbered_lines(2000), id="b"),
    ]
    result = await view(client, write(case / "i.ipynb", new_notebook(cells=cells)))
    assert [type(block) for block in result.content] == [TextContent, ImageContent]
    assert result.content[0].text.splitlines()[-2:] == [
        "[output] display_data image/png (image 1)",
        "[Truncated: cells 2 to 2 not shown. Use view_range [2, 2] to see them.]",
    ]


async def test_a_first_cell_cut_inside_names_the_cells_after_it(
    client: Client[Any], case: Path
) -> None:
    long = new_markdown_cell(numbered_lines(2000), id="a")
    cells = [long, new_markdown_cell("b", id="b"), new_markdown_cell("c", id="c")]
    shown = ok_text(await view(client, write(case / "t.ipynb", new_notebook(cells=cells))))
    assert shown.splitlines()[-1] == (
        "[Truncated: cell 1 goes on from line 2000 of its 2000 source lines. Use view_range "
        "[2, 3] to see cells 2 to 3.]"
    )


def kept(path: Path) -> bool:
    """Whether nbformat's verdict on ``path``, as it is now, is kept."""
    return notebook_format._verdicts.get(notebook_format.identity(path.stat()))[0]


async def test_a_settled_notebook_is_viewed_the_same_from_its_kept_verdict(
    client: Client[Any], case: Path
) -> None:
    """A notebook unmodified for two seconds keeps its verdict and where its cells are:
    the views after the first are made from them, and are the same. (Its modification
    time is set into the past rather than waited for.)"""
    good = write(case / "good.ipynb", sample())
    bad = case / "bad.ipynb"
    bad.write_text('{"cells": [}\n')
    for path in (good, bad):
        past = path.stat().st_mtime_ns - 10**10  # ten seconds
        os.utime(path, ns=(past, past))
        assert not kept(path)
    first = [ok_text(await view(client, path)) for path in (good, bad)]
    assert kept(good)
    assert kept(bad)
    for _ in range(2):
        assert [ok_text(await view(client, path)) for path in (good, bad)] == first
    assert first[0] == SAMPLE_VIEW
    assert first[1].startswith("[Shown as text, not as notebook cells: not valid JSON: ")
    assert ok_text(await view(client, good, [2, 3])) == (
        "[notebook] 4 cells (showing cells 2 to 3), nbformat 4.5, python\n[cell 2]"
        + SAMPLE_VIEW.split("[cell 2]")[1].split("[cell 4]")[0]
    )
