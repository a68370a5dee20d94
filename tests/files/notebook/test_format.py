"""A notebook's JSON read a value at a time (boris/files/notebook/format.py), against
``json.loads``; and a notebook whose verdict is known, read lazily, shown exactly as one
read whole (README "Notebooks").

The texts are JSON as writers write it and as they could: any whitespace between tokens,
a key given twice, values of every kind; and notebooks written by Jupyter and VS Code.
"""

from __future__ import annotations

import itertools
import json
import time
from array import array
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boris.files.notebook import format as notebook_format
from boris.files.notebook.view import render
from tests.support.notebooks import jupyter, sample, vscode

WHITESPACE = st.text(alphabet=" \t\n\r", max_size=3)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """An object's JSON text with any whitespace, its keys possibly repeated, "cells" an
    array of values (or not an array)."""
    keys = draw(st.lists(st.sampled_from(["cells", "metadata", "nbformat", "x"]), max_size=5))
    parts = []
    for key in keys:
        if key == "cells" and draw(st.booleans()):
            items = draw(st.lists(VALUES, max_size=4))
            inner = ",".join(
                draw(WHITESPACE) + json.dumps(item) + draw(WHITESPACE) for item in items
            )
            value = "[" + (inner or draw(WHITESPACE)) + "]"
        else:
            value = json.dumps(draw(VALUES))
        gap = draw(WHITESPACE)
        parts.append(f'{gap}"{key}"{draw(WHITESPACE)}:{draw(WHITESPACE)}{value}{draw(WHITESPACE)}')
    return draw(WHITESPACE) + "{" + (",".join(parts) or draw(WHITESPACE)) + "}" + draw(WHITESPACE)


@given(json_texts(), st.booleans())
def test_read_a_value_at_a_time_as_json_loads_reads(text: str, lazy: bool) -> None:
    decoded, _ = notebook_format._decode(text, lazy=lazy)
    expected = json.loads(text)
    if lazy and isinstance(decoded.get("cells"), notebook_format._Cells):
        decoded["cells"] = list(decoded["cells"])
    assert decoded == expected


@pytest.mark.parametrize("text", ["{", '{"cells": [1,]}', '{"a": 1} x', '{"a" 1}'])
def test_json_that_is_not_valid_is_refused_as_json_loads_refuses_it(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as refused:
        notebook_format._decode(text, lazy=False)
    assert str(refused.value) == str(expected.value)


@pytest.mark.parametrize("text", ["[1, 2]", '"x"', "3"])
def test_json_that_is_not_an_object_is_read_as_json_loads_reads_it(text: str) -> None:
    assert notebook_format._decode(text, lazy=False)[0] == json.loads(text)


_inodes = itertools.count(1)


@given(st.sampled_from(["jupyter", "vscode"]), st.integers(1, 4), st.booleans())
def test_a_notebook_read_lazily_shows_as_one_read_whole(
    writer: str, first: int, ranged: bool
) -> None:
    content = json.loads(jupyter(sample()))
    text = jupyter(sample()) if writer == "jupyter" else vscode(content)
    data = text.encode()
    # A file that last changed long ago, never seen before: its verdict is kept.
    known = (0, next(_inodes), len(data), 0, 0)
    whole = notebook_format.parse(data, known)
    for _ in range(2):  # from its shape kept with the verdict
        lazy = notebook_format.parse(data, known)
        assert isinstance(lazy.cells, notebook_format._Cells)
        assert list(lazy.cells) == whole.cells == content["cells"]
        assert lazy.cells[first - 1 :] == whole.cells[first - 1 :]
        cell_range = (first, 4) if ranged else None
        assert render(lazy, cell_range, "p").text == render(whole, cell_range, "p").text


def test_a_verdict_is_not_kept_for_a_file_that_just_changed() -> None:
    data = jupyter(sample()).encode()
    just = (0, next(_inodes), len(data), 2**62, 2**62)  # modified "now", as far as time goes
    notebook_format.parse(data, just)
    assert isinstance(notebook_format.parse(data, just).cells, list)


def shape(cells: int) -> notebook_format._Shape:
    """Where the cells of a notebook of ``cells`` cells are, as a verdict keeps it."""
    return notebook_format._Shape({}, array("q", bytes(8 * cells)))


def test_the_places_of_cells_kept_are_bounded_the_least_recently_used_go_first() -> None:
    """Where the cells of valid notebooks are is kept for a million cells of all of them:
    beyond, the least recently used notebooks lose theirs, keeping their verdicts."""
    verdicts = notebook_format._Verdicts()
    read = time.time_ns()
    a, b, c, d = ((0, inode, 0, 0, 0) for inode in range(4))  # files long unchanged
    shapes: dict[Any, Any] = {}
    recent: list[Any] = []  # the files by their last use, the least recent first

    def use(key: Any) -> None:
        if key in recent:
            recent.remove(key)
        recent.append(key)

    def keep(key: Any, cells: int) -> None:
        shapes[key] = shape(cells)
        verdicts.keep(key, None, read, shapes[key])
        use(key)

    def kept() -> list[Any]:
        """Each file's kept shape: None where only the verdict is kept, or none."""
        found = {key: verdicts.get(key) for key in recent}  # used in that order: unchanged
        assert all(known and verdict is None for known, verdict, _ in found.values())
        assert verdicts.get(d) == (False, None, None) or d in found
        return [found[key][2] if key in found else None for key in (a, b, c, d)]

    keep(a, 600_000)
    keep(b, 400_000)  # a million: all kept
    assert kept() == [shapes[a], shapes[b], None, None]
    keep(c, 100_000)  # a's go
    assert kept() == [None, shapes[b], shapes[c], None]
    verdicts.get(b)
    use(b)
    keep(a, 600_000)  # read again: c's go, b being used more recently
    assert kept() == [shapes[a], shapes[b], None, None]
    keep(d, 1)  # then b's, c having none
    assert kept() == [shapes[a], None, None, shapes[d]]


def test_a_verdict_is_kept_for_a_file_unchanged_for_two_seconds() -> None:
    """The file system's clock may tick as slowly as every 2 s: a file modified less
    than that before it was read may be modified again with the same times. Its
    modification time decides: one set into the past (its change time is now) is
    settled, since a later write sets a new one."""
    verdicts = notebook_format._Verdicts()
    read = time.time_ns()
    settled = (0, 1, 0, read - 2_000_000_000, read)
    changing = (0, 2, 0, read - 1_999_999_999, read - 1_999_999_999)
    verdicts.keep(settled, "not valid", read)
    verdicts.keep(changing, "not valid", read)
    assert verdicts.get(settled) == (True, "not valid", None)
    assert verdicts.get(changing) == (False, None, None)


def test_the_256_most_recently_used_verdicts_are_kept() -> None:
    """Beyond 256 files the least recently used is forgotten, with the places of its
    cells; a verdict on a file that is not a notebook holds no cells' places."""
    verdicts = notebook_format._Verdicts()
    read = time.time_ns()
    keys = [(0, inode, 0, 0, 0) for inode in range(257)]
    first, last = shape(600_000), shape(1_000_000)
    verdicts.keep(keys[0], None, read, first)
    for key in keys[1:256]:
        verdicts.keep(key, f"not valid {key[1]}", read)
    verdicts.get(keys[0])  # used again: keys[1] is now the least recently used
    verdicts.keep(keys[256], None, read, last)  # a million cells: keys[0] loses its places
    assert verdicts.get(keys[1]) == (False, None, None)
    assert verdicts.get(keys[2]) == (True, "not valid 2", None)
    assert verdicts.get(keys[0]) == (True, None, None)
    assert verdicts.get(keys[256]) == (True, None, last)
