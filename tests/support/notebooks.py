"""Notebook files as their writers write them, for the notebook tests.

Jupyter writes with nbformat itself (``nbformat.writes``: indent 1, sorted keys, non-ASCII
as is) and a final newline, as ``nbformat.write`` and Jupyter's contents manager add.
VS Code's ipynb serializer writes ``JSON.stringify(<keys sorted recursively>, undefined,
indent) + "\\n"``, with the indentation it detected in the file it read (one space for a
notebook it made); ``json.dumps`` with the same options writes the same bytes for the
values a notebook holds (strings, integers, null, booleans). Where a cell's text lies is
found here by its indentation, independently of Boris's own reading.
"""

from __future__ import annotations

import json
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

#: A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f3e1b60000000049454e44ae426082"
)


def jupyter(notebook: Any) -> str:
    """The file Jupyter saves for ``notebook`` (a NotebookNode)."""
    return str(nbformat.writes(notebook)) + "\n"


def vscode(content: Any, indent: str = " ") -> str:
    """The file VS Code saves for ``content`` (a notebook's JSON), with ``indent``."""
    return json.dumps(content, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


def as_json(notebook: Any) -> Any:
    """A NotebookNode as the JSON a file holds (sources and texts split into lines)."""
    return json.loads(jupyter(notebook))


def cell_spans(text: str, indent: str) -> list[tuple[int, int]]:
    """Where each cell's JSON object is in a file indented by ``indent`` per level: the
    cells are the only values two levels deep that open a line of their own (the other
    keys' values open on their key's line), and each closes at the same depth."""
    opening = "\n" + indent * 2 + "{\n"
    closing = "\n" + indent * 2 + "}"
    spans = []
    at = text.find(opening)
    while at >= 0:
        start = at + 1 + len(indent) * 2
        end = text.index(closing, start) + len(closing)
        spans.append((start, end))
        at = text.find(opening, end)
    return spans


def sample() -> Any:
    """A notebook with a cell of each kind and outputs of each kind."""
    return new_notebook(
        metadata={"language_info": {"name": "python"}},
        cells=[
            new_markdown_cell("# Title\nSome *text*", id="intro"),
            new_code_cell(
                'print("hi")\n1 / 0',
                id="run",
                execution_count=3,
                outputs=[
                    new_output("stream", name="stdout", text="hi\n"),
                    new_output(
                        "error",
                        ename="ZeroDivisionError",
                        evalue="division by zero",
                        traceback=["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"],
                    ),
                ],
            ),
            new_raw_cell("raw text", id="raw"),
            new_code_cell("x = 1", id="never"),
        ],
    )
