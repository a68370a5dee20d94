"""A Jupyter notebook file as view and notebook_edit read it: its JSON, checked by nbformat,
and where each cell's JSON text lies in the file.

A notebook is read whole (it is one JSON document) within ``--max-file-size``. It must be
UTF-8 JSON, a notebook of major version 4, and valid by Jupyter's own schema, which
``nbformat`` checks (imported on first use: serving never loads it otherwise). What
fails any of these is :class:`NotNotebook`, with the reason in words.

The positions of the cells (:class:`Layout`) let an edit change one cell's text and
keep every other byte of the file as its writer left it.

What a notebook costs to read is bounded for the sake of every other session: the JSON
is decoded a value at a time (each cell on its own), so no single call holds the
interpreter for the whole file; nbformat's check of a file (seconds for a large one) is
made once per unchanged file, its verdict kept by the file's identity (device, inode,
size, modification and change times, as git trusts its index; not for a file modified
in the last seconds, which may still be changing within one tick of the clock); and
large notebooks are read and checked one at a time. A notebook whose verdict is known
is read lazily: its cells are found but decoded only when shown.
"""

from __future__ import annotations

import json
import os
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, overload

#: The name a notebook file ends in (in any case).
NOTEBOOK_SUFFIX = ".ipynb"
#: The longest reason quoted from a validator: its messages can quote a whole cell.
_MAX_REASON = 300
#: JSON's whitespace, which may stand between any two tokens.
_WHITESPACE = " \t\n\r"
#: Verdicts kept, the most recently used.
_VERDICTS_KEPT = 256
#: A file modified this shortly before it was read may be modified again within the same
#: tick of the file system's clock (2 s on FAT), its identity unchanged: its verdict is
#: not kept. Its modification time says when its content last changed: a write sets it,
#: and one that follows a time set back (a copy that keeps times) sets a new one anyway.
_SETTLED_SECONDS = 2.0
#: Notebooks larger than this are read and checked one at a time.
_LARGE = 1 << 20
#: The cells, of all notebooks together, whose places are kept with their verdicts.
_SHAPE_CELLS = 1_000_000

#: What identifies a file's content without reading it.
Identity = tuple[int, int, int, int, int]


def is_notebook_name(path: str) -> bool:
    """Whether ``path`` names a notebook file (``.ipynb``, in any case)."""
    return path.lower().endswith(NOTEBOOK_SUFFIX)


class NotNotebook(Exception):
    """The file is not a valid nbformat 4 notebook; ``reason`` (its one argument) says
    why, in words."""

    @property
    def reason(self) -> str:
        reason: str = self.args[0]
        return reason


@dataclass
class Notebook:
    """A notebook file: its text, its JSON, and its version's minor number."""

    text: str
    content: dict[str, Any]
    minor: int

    @property
    def cells(self) -> Sequence[dict[str, Any]]:
        cells: Sequence[dict[str, Any]] = self.content["cells"]
        return cells

    @property
    def has_ids(self) -> bool:
        """Whether its cells carry ids: nbformat 4.5 and later."""
        return self.minor >= 5


def identity(info: os.stat_result) -> Identity:
    """A file's identity as its verdict is kept by."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@dataclass(frozen=True)
class _Shape:
    """What a valid notebook's view needs of it without reading it again: its top-level
    values but the cells, and where each cell starts in its text."""

    top: dict[str, Any]
    starts: array[int]


class _Verdicts:
    """nbformat's verdict on files by their identity: None (valid) or the reason; and the
    shape of valid ones, for as many cells in all as ``_SHAPE_CELLS``."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Identity, tuple[str | None, _Shape | None]] = OrderedDict()
        self._cells = 0
        self._lock = threading.Lock()

    def get(self, key: Identity | None) -> tuple[bool, str | None, _Shape | None]:
        """Whether a verdict is known, it, and the notebook's shape if kept."""
        if key is None:
            return False, None, None
        with self._lock:
            if key not in self._kept:
                return False, None, None
            self._kept.move_to_end(key)
            verdict, shape = self._kept[key]
            return True, verdict, shape

    def keep(
        self, key: Identity | None, verdict: str | None, read: int, shape: _Shape | None = None
    ) -> None:
        """Keep the verdict on the file ``key`` names, read at ``read`` (ns): not if it
        had been modified within the clock's tick of that (it may have been modified
        again since, its times unchanged)."""
        if key is None or read - key[3] < _SETTLED_SECONDS * 1e9:
            return
        with self._lock:
            if key in self._kept:
                self._drop_shape(key)
            self._kept[key] = (verdict, shape)
            self._cells += 0 if shape is None else len(shape.starts)
            self._kept.move_to_end(key)
            while len(self._kept) > _VERDICTS_KEPT:
                oldest = next(iter(self._kept))
                self._drop_shape(oldest)
                del self._kept[oldest]
            older = iter(self._kept)  # the least recently used first
            while self._cells > _SHAPE_CELLS:
                self._drop_shape(next(older))  # the verdict stays

    def _drop_shape(self, key: Identity) -> None:
        verdict, shape = self._kept[key]
        if shape is not None:
            self._cells -= len(shape.starts)
            self._kept[key] = (verdict, None)


_verdicts = _Verdicts()
_one_large = threading.Lock()


def parse(data: bytes, known_as: Identity | None = None) -> Notebook:
    """The notebook in ``data``, checked by nbformat; NotNotebook if it is not one.

    With ``known_as`` (the file's :func:`identity` when it was read), a verdict kept
    for it spares the check, and its cells are decoded only when used.
    """
    read = time.time_ns()
    known, verdict, shape = _verdicts.get(known_as)
    if known and verdict is not None:
        raise NotNotebook(verdict)
    text = _text(data)
    if known:
        try:
            if shape is None:
                content, spans = _decode(text, lazy=True)
                shape = _shape_of(content, spans)
                _verdicts.keep(known_as, None, read, shape)
            else:
                content = {**shape.top, "cells": _Cells(text, shape.starts)}
            return Notebook(text, content, content["nbformat_minor"])
        except (ValueError, RecursionError, KeyError, TypeError):
            known = False  # not what was checked after all: check it again
    guard: AbstractContextManager[Any] = _one_large if len(data) > _LARGE else nullcontext()
    with guard:
        checked, verdict, _ = _verdicts.get(known_as)  # another call may have checked it
        if checked and verdict is not None:
            raise NotNotebook(verdict)
        try:
            notebook, spans = _read(text, check=not (known or checked))
        except NotNotebook as exc:
            _verdicts.keep(known_as, exc.reason, read)
            raise
        _verdicts.keep(known_as, None, read, _shape_of(notebook.content, spans))
    return notebook


def _shape_of(content: Any, spans: Layout | None) -> _Shape:
    if not isinstance(content, dict) or spans is None:
        raise ValueError  # not the notebook that was checked: it is checked again
    return _Shape({k: v for k, v in content.items() if k != "cells"}, spans.starts)


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotNotebook(f"not UTF-8 text (byte {exc.start} is not UTF-8)") from None


def _read(text: str, *, check: bool) -> tuple[Notebook, Layout | None]:
    """The notebook in ``text``, with nbformat's check if ``check``; where its cells are."""
    try:
        content, spans = _decode(text, lazy=False)
    except json.JSONDecodeError as exc:
        raise NotNotebook(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise NotNotebook("not valid JSON: nested too deeply") from None
    if not isinstance(content, dict):
        raise NotNotebook(f"the JSON is {_json_kind(content)}, not a notebook object")
    major = content.get("nbformat")
    if major != 4 or not isinstance(major, int) or isinstance(major, bool):
        if major is None:
            raise NotNotebook("no nbformat version: not a Jupyter notebook")
        if major == 4:  # 4.0: nbformat itself would look for a module named after it
            raise NotNotebook(f"nbformat {json.dumps(major)[:20]} is not a whole number")
        raise NotNotebook(
            f"nbformat {json.dumps(major)[:20]}: only nbformat 4 notebooks are read as cells"
        )
    minor = content.get("nbformat_minor")
    if not isinstance(minor, int) or isinstance(minor, bool) or minor < 0:
        raise NotNotebook("nbformat_minor is not a whole number")
    notebook = Notebook(text, content, minor)
    problem = validation_problem(notebook.content) if check else None
    if problem is not None:
        raise NotNotebook(f"not a valid nbformat 4 notebook: {problem}")
    return notebook, spans


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
    """A validator's path into the notebook, cells numbered from ``first``: ``cell 2,
    outputs[0].name: ``, or nothing for the notebook itself."""
    parts = []
    if len(path) >= 2 and path[0] == "cells" and isinstance(path[1], int):
        parts.append(f"cell {path[1] + first}")
        path = path[2:]
    if path:
        keys = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
        parts.append(keys.removeprefix("."))
    return f"{', '.join(parts)}: " if parts else ""


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


def multiline_text(value: str | Sequence[str]) -> str:
    """A text as a notebook holds it (a source, an output's text or data): one string,
    or a list of lines."""
    return value if isinstance(value, str) else "".join(value)


# --- where the cells are in the text ---------------------------------------------------

_decoder = json.JSONDecoder()


@dataclass
class Layout:
    """Where the ``cells`` array of a notebook's text is: the offsets of its brackets,
    and of each cell's JSON value, its start and its end (exclusive), kept as two
    arrays: a notebook may have hundreds of thousands of cells."""

    open: int
    close: int = 0
    starts: array[int] = field(default_factory=lambda: array("q"))
    ends: array[int] = field(default_factory=lambda: array("q"))


def layout(text: str) -> Layout:
    """The :class:`Layout` of a notebook's text, which must be valid JSON holding an
    object with a ``cells`` array (as :func:`parse` checked)."""
    walked = _walk(text, keep=False)
    assert walked is not None
    found = walked[1]
    assert found is not None  # parse() checked that the notebook has cells
    return found


def _decode(text: str, *, lazy: bool) -> tuple[Any, Layout | None]:
    """The JSON value in ``text``, and where the cells are if it is an object with a
    ``cells`` array; an object is decoded a value at a time (with ``lazy``, its cells
    only when used). Invalid JSON raises JSONDecodeError (as json.loads says it) or
    RecursionError."""
    try:
        walked = _walk(text, keep=not lazy)
    except (ValueError, IndexError, TypeError, RecursionError):
        walked = None
    if walked is None:
        return json.loads(text), None  # not an object, or not valid: as json.loads reads it
    content, cells = walked
    if lazy and cells is not None:
        content["cells"] = _Cells(text, cells.starts)
    return content, cells


class _NotRead(ValueError):
    """Text the walk does not read as JSON: ``json.loads`` reads it again and says why."""


def _walk(text: str, keep: bool) -> tuple[dict[str, Any], Layout | None] | None:
    """The top-level object of a JSON text, each value decoded on its own (the cells
    only with ``keep``), and where its cells are; None if the text is not an object.
    Where a key appears twice, the last one counts, as for ``json.loads``. Raises
    ValueError (or IndexError at a cut end) for text that is not valid JSON."""
    decode = _decoder.raw_decode
    at = _skip(text, 0)
    if text[at] != "{":
        return None
    content: dict[str, Any] = {}
    spans: Layout | None = None
    at = _skip(text, at + 1)
    # An empty object ("{}", no notebook) fails at its missing first key: json.loads
    # reads it then.
    while True:
        if text[at] != '"':
            raise _NotRead  # a key that is not a string
        key, at = decode(text, at)
        at = _skip(text, at)
        if text[at] != ":":
            raise _NotRead  # no colon after a key
        at = _skip(text, at + 1)
        if key == "cells" and text[at] == "[":
            cells: list[Any] = []
            spans = Layout(at)
            at = _skip(text, at + 1)
            while text[at] != "]":
                value, end = decode(text, at)
                spans.starts.append(at)
                spans.ends.append(end)
                if keep:
                    cells.append(value)
                at = _skip(text, end)
                if text[at] == ",":
                    at = _skip(text, at + 1)
                    if text[at] == "]":
                        raise _NotRead  # a comma before the end of the array
                elif text[at] != "]":
                    raise _NotRead  # no comma between cells
            spans.close = at
            content[key] = cells
            at += 1
        else:
            content[key], at = decode(text, at)
            if key == "cells":
                spans = None  # the last one counts
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
            continue
        if text[at] != "}":
            raise _NotRead  # no comma between keys
        at += 1
        break
    if _skip_to_end(text, at) != len(text):
        raise _NotRead  # more after the object
    return content, spans


class _Cells(Sequence[dict[str, Any]]):
    """A notebook's cells, each decoded from the text when it is used."""

    def __init__(self, text: str, starts: array[int]) -> None:
        self._text = text
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        cell: dict[str, Any] = _decoder.raw_decode(self._text, self._starts[index])[0]
        return cell

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index in range(len(self)):
            yield self[index]


def _skip_to_end(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def _skip(text: str, at: int) -> int:
    while text[at] in _WHITESPACE:
        at += 1
    return at


def skip_whitespace(text: str, at: int) -> int:
    """The first offset from ``at`` that is not JSON whitespace."""
    return _skip(text, at)
