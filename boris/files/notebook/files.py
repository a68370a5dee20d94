"""notebook_edit: replace, insert or delete one cell of a Jupyter notebook, on the
read-edit-write cycle of the other edits (boris.files.edit_files).

The notebook is not written again from its parsed JSON: only the edited cell's text
changes, spliced into the file's own text, so every other byte stays as its writer
(Jupyter, VS Code, or anything else) left it. The new cell is written in the style of
the cells around it: their indentation, separators, line breaks, key order (sorted,
as Jupyter and VS Code write them, or the neighbour's order), source as a list of
lines or one string, non-ASCII characters escaped or not. The notebook is checked by
nbformat when read; the result is read back and its new cell checked by nbformat's
schema before anything is written (the rest of it is the text found valid).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from boris.errors import BorisError, Code
from boris.files.access import FileAccess
from boris.files.edit_bytes import encode_argument
from boris.files.edit_files import edit_file, editing
from boris.files.notebook.format import (
    Layout,
    Notebook,
    NotNotebook,
    cell_problem,
    is_notebook_name,
    layout,
    parse,
    skip_whitespace,
)
from boris.files.notebook.view import cell_view
from boris.files.place import locate

EditMode = Literal["replace", "insert", "delete"]
CellType = Literal["code", "markdown"]

#: Where keys go that a neighbouring cell does not show the place of (nbformat's order).
_KEY_ORDER = ("id", "cell_type", "metadata", "execution_count", "source", "outputs")
#: A \\u escape of a character outside ASCII, not itself an escaped backslash.
_ESCAPED_NON_ASCII = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")
#: The longest decimal ``cell`` taken as a number (int() refuses very long ones).
_MAX_DIGITS = 18
#: A lone UTF-16 surrogate: JSON may hold one as an escape, UTF-8 text cannot hold one.
_SURROGATE = re.compile("[\ud800-\udfff]")


def edit_notebook(
    access: FileAccess,
    path: str,
    cell: int | str,
    edit_mode: EditMode,
    new_source: str | None,
    cell_type: CellType | None,
) -> str:
    """notebook_edit: what it does and returns (the tool gives the defaults)."""
    if not is_notebook_name(path):
        raise BorisError(
            Code.INVALID_INPUT,
            f"path: {path} is not a notebook (.ipynb); use str_replace for other files",
        )
    if cell == "":
        raise BorisError(Code.INVALID_INPUT, "cell: must not be empty; give a cell id or number")
    if edit_mode == "insert" and cell_type is None:
        raise BorisError(
            Code.INVALID_INPUT, "cell_type: required to insert a cell (code or markdown)"
        )
    if edit_mode != "delete":
        if new_source is None:
            raise BorisError(Code.INVALID_INPUT, f"new_source: required to {edit_mode} a cell")
        encode_argument("new_source", new_source)
    outcome: list[str] = []  # the result of the edit as last applied

    with locate(access.resolve, path) as place, editing(place.path):

        def apply(data: bytes) -> bytes:
            notebook = _parse(data, place.path)
            index = _address(notebook, cell, edit_mode, place.path)
            if edit_mode == "delete":
                text, message = _delete(notebook, index, place.path)
            elif edit_mode == "insert":
                assert cell_type is not None
                assert new_source is not None
                text, message = _insert(notebook, index, new_source, cell_type, place.path)
            else:
                assert new_source is not None
                text, message = _replace(notebook, index, new_source, cell_type, place.path)
            if new_source is not None and _makes_code(notebook, index, edit_mode, cell_type):
                old = _code_source(notebook, index) if edit_mode == "replace" else None
                new = new_source.encode("utf-8", "surrogatepass")
                message += access.check_syntax(place.path, lambda: old, new, "cell")
            outcome.append(message)
            return text.encode("utf-8")

        # A cell is named by its number or id, not by its text: the notebook must be as
        # the caller last saw it. Its new cell is checked, not the file's JSON.
        edit_file(access, place, "notebook_edit", apply, blind=True, check=False)
    return outcome[-1]


def _makes_code(notebook: Notebook, index: int, mode: EditMode, cell_type: CellType | None) -> bool:
    """Whether the edit leaves a code cell (a replaced cell keeps its type by default)."""
    if mode == "insert":
        return cell_type == "code"
    return (cell_type or notebook.cells[index].get("cell_type")) == "code"


def _code_source(notebook: Notebook, index: int) -> bytes | None:
    """The source of the cell at ``index`` if it is a code cell (None: it was not)."""
    cell = notebook.cells[index]
    if cell.get("cell_type") != "code":
        return None
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(source)
    return str(source).encode("utf-8", "surrogatepass")


def _parse(data: bytes, path: str) -> Notebook:
    try:
        return parse(data)
    except NotNotebook as exc:
        raise BorisError(
            Code.NOTEBOOK_INVALID,
            f"{path} cannot be edited as a notebook: {exc.reason}. "
            "view shows it as text; str_replace can fix it",
        ) from None


def _address(notebook: Notebook, cell: int | str, mode: EditMode, path: str) -> int:
    """The 0-based index of the cell ``cell`` names; for insert, of the cell the new one
    goes after (-1: first)."""
    cells = notebook.cells
    total = len(cells)
    if isinstance(cell, str):
        for index, each in enumerate(cells):
            if each.get("id") == cell:
                return index
        if not (cell.isascii() and cell.isdigit()):
            if not notebook.has_ids:
                raise BorisError(
                    Code.INVALID_INPUT,
                    f"cell: the cells of {path} have no ids (nbformat 4.{notebook.minor}); "
                    f"give the cell's number, 1 to {total}",
                )
            raise BorisError(
                Code.INVALID_INPUT,
                f"cell: no cell of {path} has the id {_quoted(cell)}; view the notebook to "
                "see the ids, or give the cell's number",
            )
        number = int(cell) if len(cell) <= _MAX_DIGITS else 10**_MAX_DIGITS
    else:
        number = cell
    lowest = 0 if mode == "insert" else 1
    if lowest <= number <= total:
        return number - 1
    shown = str(number) if -(10**_MAX_DIGITS) < number < 10**_MAX_DIGITS else "that number"
    if mode == "insert":
        where = "give 0 to insert first" + (
            f", or 1 to {total} to insert after that cell" if total else " (it has no cells)"
        )
        raise BorisError(Code.INVALID_INPUT, f"cell: {shown} is out of range for {path}: {where}")
    cells_are = f"its cells are numbered 1 to {total}" if total else "it has no cells"
    raise BorisError(Code.INVALID_INPUT, f"cell: {shown} is out of range: {cells_are} ({path})")


def _quoted(text: str) -> str:
    return repr(text if len(text) <= 100 else text[:100] + "...")


# --- the three edits -----------------------------------------------------------------


def _replace(
    notebook: Notebook, index: int, source: str, cell_type: CellType | None, path: str
) -> tuple[str, str]:
    old = notebook.cells[index]
    spans = layout(notebook.text)
    style = _style(notebook, old, spans.starts[index])
    kind = cell_type or old["cell_type"]
    new = dict(old)
    new["cell_type"] = kind
    new["source"] = _source_value(source, style.source_lines)
    cleared = ""
    if kind == "code":
        if old["cell_type"] == "code" and (old.get("outputs") or old.get("execution_count")):
            cleared = " (its outputs and execution count were cleared)"
        new.pop("attachments", None)  # a code cell has none
        new["outputs"] = []
        new["execution_count"] = None
    else:
        new.pop("outputs", None)
        new.pop("execution_count", None)
    start, end = spans.starts[index], spans.ends[index]
    text = notebook.text[:start] + _dump(new, style) + notebook.text[end:]
    _check(text, len(notebook.cells), index, new, path)
    _check_cell(new, notebook.minor, index, path)
    number = index + 1
    return text, f"Replaced cell {number} of {path}{cleared}\n\n{_shown(number, new)}"


def _insert(
    notebook: Notebook, after: int, source: str, cell_type: CellType, path: str
) -> tuple[str, str]:
    from nbformat.v4 import new_code_cell, new_markdown_cell  # on first use, as in notebook.py

    cells = notebook.cells
    spans = layout(notebook.text)
    make: Callable[[], Any] = new_code_cell if cell_type == "code" else new_markdown_cell
    new = dict(make())
    new["metadata"] = {}
    if notebook.has_ids:
        taken = {each.get("id") for each in cells}
        while new["id"] in taken:
            new["id"] = make()["id"]
    else:
        del new["id"]
    text = notebook.text
    if cells:
        neighbour = max(after, 0)
        style = _style(notebook, cells[neighbour], spans.starts[neighbour])
        new["source"] = _source_value(source, style.source_lines)
        dumped = _dump(new, style)
        separator = _separator(text, spans, style)
        if after < 0:
            start = spans.starts[0]
            text = text[:start] + dumped + separator + text[start:]
        else:
            end = spans.ends[after]
            text = text[:end] + separator + dumped + text[end:]
    else:
        style = _empty_array_style(notebook, spans)
        new["source"] = _source_value(source, style.source_lines)
        dumped = _dump(new, style)
        if style.indent is None:
            inside = dumped
        else:
            closing = style.base[: len(style.base) - len(style.indent)]
            inside = style.newline + style.base + dumped + style.newline + closing
        text = text[: spans.open + 1] + inside + text[spans.close :]
    index = after + 1
    _check(text, len(cells) + 1, index, new, path)
    _check_cell(new, notebook.minor, index, path)
    number = index + 1
    now = _count(len(cells) + 1)
    return text, f"Inserted cell {number} in {path} ({now} now)\n\n{_shown(number, new)}"


def _delete(notebook: Notebook, index: int, path: str) -> tuple[str, str]:
    cells = notebook.cells
    spans = layout(notebook.text)
    text = notebook.text
    if len(cells) == 1:
        text = text[: spans.open + 1] + text[spans.close :]  # "[]", as JSON writers write it
    elif index + 1 < len(cells):
        text = text[: spans.starts[index]] + text[spans.starts[index + 1] :]
    else:
        text = text[: spans.ends[index - 1]] + text[spans.ends[index] :]
    _check(text, len(cells) - 1, None, None, path)
    old = cells[index]
    named = f" (id {old['id']})" if "id" in old else ""
    return text, f"Deleted cell {index + 1}{named} of {path} ({_count(len(cells) - 1)} now)"


def _count(cells: int) -> str:
    return "1 cell" if cells == 1 else f"{cells} cells"


def _shown(number: int, cell: dict[str, Any]) -> str:
    """The edited cell as view shows it."""
    return cell_view(number, cell)


def _check(
    text: str, count: int, index: int | None, cell: dict[str, Any] | None, path: str
) -> None:
    """The edited text, read back: JSON holding ``count`` cells, the one at ``index``
    (if any) ``cell``. Nothing is written otherwise."""
    unwritten = BorisError(
        Code.NOTEBOOK_INVALID,
        f"the edit could not be written in the layout of {path}, so it was not made",
    )
    try:
        cells = json.loads(text)["cells"]
    except (ValueError, RecursionError):
        raise unwritten from None
    if len(cells) != count or (index is not None and _canonical(cells[index]) != _canonical(cell)):
        raise unwritten


def _check_cell(cell: dict[str, Any], minor: int, index: int, path: str) -> None:
    """The new cell, at ``index``, checked by nbformat: the rest of the file is the text
    that was valid before, so the cell is all that needs checking again."""
    problem = cell_problem(cell, minor, index + 1)
    if problem is not None:
        raise BorisError(
            Code.NOTEBOOK_INVALID,
            f"the edit would leave {path} invalid, so it was not made: not a valid "
            f"nbformat 4 notebook: {problem}",
        )


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)  # NaN compares equal this way


# --- writing a cell in the file's style ----------------------------------------------


@dataclass(frozen=True)
class _Style:
    """How the cells of a notebook file are written."""

    #: One level of indentation; None when a cell is written on one line.
    indent: str | None
    #: What every line of a cell but the first starts with, before its own indentation.
    base: str
    newline: str
    item_separator: str
    key_separator: str
    sort_keys: bool
    ensure_ascii: bool
    #: Whether sources are lists of lines (as Jupyter and VS Code write them) or strings.
    source_lines: bool
    key_order: tuple[str, ...]


def _style(notebook: Notebook, cell: dict[str, Any], start: int) -> _Style:
    """The style of the file's cell ``cell``, whose text starts at ``start``."""
    text = notebook.text
    indent, base, newline, items, keys = _object_style(text, start)
    order = tuple(cell)
    return _Style(
        indent=indent,
        base=base,
        newline=newline,
        item_separator=items,
        key_separator=keys,
        sort_keys=_sorted(order) and _sorted(tuple(notebook.content)),
        ensure_ascii=_escapes_non_ascii(text),
        source_lines=not isinstance(cell.get("source"), str),
        key_order=order,
    )


def _empty_array_style(notebook: Notebook, spans: Layout) -> _Style:
    """The style of a first cell: the top-level object's, one level deeper than the
    line of the ``cells`` key."""
    text = notebook.text
    indent, _, newline, items, keys = _object_style(text, skip_whitespace(text, 0))
    outer = _indentation(text, spans.open)  # of the line of "cells": [
    return _Style(
        indent=indent,
        base=outer if indent is None else outer + indent,
        newline=newline,
        item_separator=items,
        key_separator=keys,
        sort_keys=_sorted(tuple(notebook.content)),
        ensure_ascii=_escapes_non_ascii(text),
        source_lines=True,
        key_order=_KEY_ORDER,
    )


def _object_style(text: str, start: int) -> tuple[str | None, str, str, str, str]:
    """Indentation (None: on one line), base, newline and separators of the JSON object
    at ``start``, read from the space around its first key and value."""
    decode = json.JSONDecoder().raw_decode
    first = skip_whitespace(text, start + 1)
    gap = text[start + 1 : first]
    _, key_end = decode(text, first)
    value = skip_whitespace(text, skip_whitespace(text, key_end) + 1)
    key_separator = text[key_end:value]
    _, value_end = decode(text, value)
    # A comma follows: every cell, and every notebook, has more than one key.
    between = text[value_end : skip_whitespace(text, skip_whitespace(text, value_end) + 1)]
    base = _indentation(text, start)
    newline = "\r\n" if "\r\n" in gap else "\n"
    if "\n" not in gap:  # on one line: its separators as they are
        return None, base, newline, between, key_separator
    indent = _indentation(text, first)[len(base) :]
    return indent, base, newline, _on_its_line(between), _on_its_line(key_separator)


def _indentation(text: str, at: int) -> str:
    """The spaces and tabs that start the line of the offset ``at``."""
    line = end = text.rfind("\n", 0, at) + 1
    while text[end] in " \t":
        end += 1
    return text[line:end]


def _on_its_line(separator: str) -> str:
    """A separator (``,`` or ``:`` with the space around it) without the line break and
    indentation that may follow it."""
    return separator.split("\n")[0].rstrip("\r")


def _separator(text: str, spans: Layout, style: _Style) -> str:
    """What goes between two cells: as between the file's first two, or made in its style."""
    if len(spans.starts) >= 2:
        return text[spans.ends[0] : spans.starts[1]]
    if style.indent is None:
        return style.item_separator
    return style.item_separator + style.newline + style.base


def _dump(cell: dict[str, Any], style: _Style) -> str:
    if not style.sort_keys:
        # A cell has only keys of its neighbour's and of nbformat's (the neighbour is the
        # cell itself for a replace, and nbformat made an inserted one).
        order = [key for key in style.key_order if key in cell]
        order += [key for key in _KEY_ORDER if key in cell and key not in order]
        cell = {key: cell[key] for key in order}
    text = json.dumps(
        cell,
        indent=style.indent,
        separators=(style.item_separator, style.key_separator),
        sort_keys=style.sort_keys,
        ensure_ascii=style.ensure_ascii,
    )
    if style.indent is not None:
        text = text.replace("\n", style.newline + style.base)
    if not style.ensure_ascii:
        # A string of the cell (its metadata, an output) may hold a lone surrogate, read
        # from a \\u escape: it stays one, as UTF-8 cannot carry it.
        text = _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text


def _source_value(source: str, as_lines: bool) -> str | list[str]:
    """A source as the file holds sources: split into lines as nbformat splits them, or
    one string."""
    return source.splitlines(keepends=True) if as_lines else source


def _sorted(keys: tuple[str, ...]) -> bool:
    return list(keys) == sorted(keys)


def _escapes_non_ascii(text: str) -> bool:
    """Whether the file writes characters outside ASCII as \\u escapes: it is all ASCII
    and holds such an escape."""
    return text.isascii() and _ESCAPED_NON_ASCII.search(text) is not None
