"""A Jupyter notebook file as view and notebook_edit read it: its JSON, checked by nbformat,
and where each cell's JSON text lies in the file.

A notebook is read whole (it is one JSON document) within ``--max-file-size``. It must be
UTF-8 JSON, a notebook of major version 4, and valid by Jupyter's own schema, which
``nbformat`` checks (imported on first use: serving never loads it otherwise). What
fails any of these is :class:`NotNotebook`, with the reason in words.

The positions of the cells (:class:`Layout`) let an edit change one cell's text and
keep every other byte of the file as its writer left it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: The name a notebook file ends in (in any case).
NOTEBOOK_SUFFIX = ".ipynb"
#: The longest reason quoted from a validator: its messages can quote a whole cell.
_MAX_REASON = 300
#: JSON's whitespace, which may stand between any two tokens.
_WHITESPACE = " \t\n\r"


def is_notebook_name(path: str) -> bool:
    """Whether ``path`` names a notebook file (``.ipynb``, in any case)."""
    return path.lower().endswith(NOTEBOOK_SUFFIX)


class NotNotebook(Exception):
    """The file is not a valid nbformat 4 notebook; ``reason`` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Notebook:
    """A notebook file: its text, its JSON, and its version's minor number."""

    text: str
    content: dict[str, Any]
    minor: int

    @property
    def cells(self) -> list[dict[str, Any]]:
        cells: list[dict[str, Any]] = self.content["cells"]
        return cells

    @property
    def has_ids(self) -> bool:
        """Whether its cells carry ids: nbformat 4.5 and later."""
        return self.minor >= 5


def parse(data: bytes) -> Notebook:
    """The notebook in ``data``, checked by nbformat; NotNotebook if it is not one."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotNotebook(f"not UTF-8 text (byte {exc.start} is not UTF-8)") from None
    try:
        content = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotNotebook(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise NotNotebook("not valid JSON: nested too deeply") from None
    if not isinstance(content, dict):
        raise NotNotebook(f"the JSON is {_json_kind(content)}, not a notebook object")
    major = content.get("nbformat")
    if major != 4 or isinstance(major, bool):
        if major is None:
            raise NotNotebook("no nbformat version: not a Jupyter notebook")
        raise NotNotebook(
            f"nbformat {json.dumps(major)[:20]}: only nbformat 4 notebooks are read as cells"
        )
    minor = content.get("nbformat_minor")
    if not isinstance(minor, int) or isinstance(minor, bool) or minor < 0:
        raise NotNotebook("nbformat_minor is not a whole number")
    notebook = Notebook(text, content, minor)
    problem = validation_problem(notebook.content)
    if problem is not None:
        raise NotNotebook(f"not a valid nbformat 4 notebook: {problem}")
    return notebook


def validation_problem(content: dict[str, Any], first: int = 1) -> str | None:
    """What nbformat finds wrong with a notebook's JSON (its first error), or None; its
    cells are named by number from ``first``.

    nbformat's ``iter_validate`` is used rather than ``validate``, which would repair
    missing or repeated cell ids in place (and warn) instead of reporting them; the
    uniqueness of ids is checked here as ``validate`` checks it.
    """
    from nbformat.validator import iter_validate  # on first use: see the module doc

    try:
        error = next(iter(iter_validate(content)), None)
    except RecursionError:
        return "nested too deeply to validate"
    except Exception as exc:  # a third-party validator on hostile input: a fact about the file
        return _cut(f"nbformat could not validate it: {exc}")
    if error is not None:
        where = _where(list(getattr(error, "absolute_path", [])), first)
        return _cut(f"{where}{error.message}")
    cells = content["cells"]
    if content["nbformat_minor"] >= 5:
        seen: set[str] = set()
        for number, cell in enumerate(cells, 1):
            if cell["id"] in seen:
                return _cut(f"cell {number + first - 1}: cell id {cell['id']!r} is not unique")
            seen.add(cell["id"])
    return None


def cell_problem(cell: dict[str, Any], minor: int, number: int) -> str | None:
    """What nbformat finds wrong with one cell of a notebook of version 4.``minor``, the
    cell numbered ``number``: it is checked as the one cell of a notebook, by the same
    schema and validator as a whole notebook."""
    alone = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": minor}
    return validation_problem(alone, number)


def _where(path: list[Any], first: int) -> str:
    """A validator's path into the notebook, cells numbered from ``first``."""
    head = ""
    if len(path) >= 2 and path[0] == "cells" and isinstance(path[1], int):
        head, path = f"cell {path[1] + first}", path[2:]
    rest = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
    where = ", ".join(part for part in (head, rest.lstrip(".")) if part)
    return f"{where}: " if where else ""


def _cut(text: str) -> str:
    text = " ".join(text.split())  # one line
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 3] + "..."


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return "a number" if not isinstance(value, bool) else "a boolean"


def source_text(cell: dict[str, Any]) -> str:
    """A cell's source as one string (the file may hold it as a list of lines)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


# --- where the cells are in the text ---------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where the ``cells`` array of a notebook's text is: its brackets and each cell's
    JSON value, as ``(start, end)`` offsets into the text (end exclusive)."""

    open: int
    close: int
    cells: list[tuple[int, int]]


def layout(text: str) -> Layout:
    """The :class:`Layout` of a notebook's text, which must be valid JSON holding an
    object with a ``cells`` array (as :func:`parse` checked).

    The JSON is walked with the standard decoder's ``raw_decode``, which tells where
    each value it decodes ends. Where a key appears twice, the last one counts, as
    for ``json.loads``.
    """
    decode = json.JSONDecoder().raw_decode
    found: Layout | None = None
    at = _skip(text, 0)
    assert text[at] == "{"
    at = _skip(text, at + 1)
    while text[at] != "}":
        key, at = decode(text, at)
        at = _skip(text, at)
        assert text[at] == ":"
        value = _skip(text, at + 1)
        if key == "cells" and text[value] == "[":
            found = _array(text, value, decode)
            at = found.close + 1
        else:
            _, at = decode(text, value)
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    assert found is not None, "parse() checked that the notebook has cells"
    return found


def _array(text: str, start: int, decode: Any) -> Layout:
    assert text[start] == "["
    spans = []
    at = _skip(text, start + 1)
    while text[at] != "]":
        _, end = decode(text, at)
        spans.append((at, end))
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return Layout(start, at, spans)


def _skip(text: str, at: int) -> int:
    while text[at] in _WHITESPACE:
        at += 1
    return at


def skip_whitespace(text: str, at: int) -> int:
    """The first offset from ``at`` that is not JSON whitespace."""
    return _skip(text, at)
