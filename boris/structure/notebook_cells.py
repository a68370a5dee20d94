"""A notebook's code cells as Python sources, numbered as view numbers cells.

The notebook's JSON is read with the standard library: structure needs no more than
the cells' types and sources (view and notebook_edit check notebooks with nbformat).
IPython's own lines (``%magic``, ``!command``, ``?help``) are not Python: each is read
as ``...`` at its indentation, a statement as IPython runs it (a loop's body may be one
alone), keeping the cell's line numbers, so that the rest of the cell parses.
"""

from __future__ import annotations

import json
import re

_IPYTHON_LINE = re.compile(rb"^([ \t]*)(?:%|!|\?)[^\n]*", re.MULTILINE)


class NotebookTooDeep(Exception):
    """A notebook's JSON nests deeper than the standard library's reader recurses."""


def code_cells(data: bytes) -> tuple[int, list[tuple[int, bytes]]] | None:
    """The number of cells of a notebook and ``(number, source)`` for each code cell,
    numbered from 1 among all cells; None when ``data`` is not a notebook.
    :class:`NotebookTooDeep` where it cannot be read (nested thousands deep)."""
    try:
        content = json.loads(data)
    except ValueError:
        return None
    except RecursionError:
        raise NotebookTooDeep from None
    cells = content.get("cells") if isinstance(content, dict) else None
    if not isinstance(cells, list):
        return None
    found = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if not isinstance(source, str):
            continue
        found.append((number, as_python(source.encode("utf-8", "surrogatepass"))))
    return len(cells), found


def as_python(source: bytes) -> bytes:
    """A code cell's source with IPython's own lines read as ``...``."""
    return _IPYTHON_LINE.sub(rb"\1...", source)
