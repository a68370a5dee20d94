"""How a notebook's cells are shown (boris/files/notebook/view.py) where it takes more
than the tool's tests show: what showing a long source line costs."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_notebook

from boris.files.notebook.format import parse
from boris.files.notebook.view import CellLines, render
from tests.support.notebooks import jupyter

MB = 1024 * 1024


@pytest.mark.parametrize("character", ["a", "é", "😀"])
def test_a_long_source_line_is_shown_from_its_head(character: str) -> None:
    """A cell's source line of 8 million characters is shown as view shows any line
    (its first 2,000 characters and its length), without a copy of it: showing it
    allocates far less than the line (its UTF-8 bytes were made whole)."""
    line = character * (8 * MB)
    cell = new_code_cell(line + "\r\nprint()", id="long")
    notebook = parse(jupyter(new_notebook(cells=[cell])).encode())
    tracemalloc.start()
    try:
        shown = render(notebook, None, "/n.ipynb").text
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert shown.splitlines()[1:4] == [
        "[cell 1] code id=long execution_count=none",
        f"1\t{character * 2000}... [truncated, {8 * MB} chars total]",
        "2\tprint()",
    ]
    assert peak < MB, peak


@given(
    st.lists(st.text(alphabet="ab\n\r\ufeff\ud800é", max_size=8), max_size=8),
    st.integers(0, 12),
)
def test_a_source_in_pieces_is_shown_as_the_text_they_make(pieces: list[str], most: int) -> None:
    """A source held as a list (of lines, or of any pieces) is shown, up to any number
    of lines, as the one string they make."""
    whole = {"cell_type": "markdown", "metadata": {}, "source": "".join(pieces)}
    assert CellLines(1, {**whole, "source": pieces}, None).lines(most) == CellLines(
        1, whole, None
    ).lines(most)
