"""A file as the structure search reads it: its language, its text (grep's reading:
binary, oversized and unreadable files skipped, byte order marks honoured), and its
parts: the whole file, or each code cell of a notebook.

Search workers load this module (boris.structure.task) when a structure task first
reaches them: it imports nothing of the server.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from boris.search.file_text import OPEN_FLAGS
from boris.structure import languages
from boris.structure.languages import PYTHON, Language
from boris.structure.notebook_cells import code_cells

#: The bytes read of a file without an extension to find its #! line.
_FIRST_LINE = 256


@dataclass(frozen=True)
class Part:
    """What is parsed as one source: a whole file (``cell`` None) or a notebook cell."""

    cell: int | None
    text: bytes


@dataclass(frozen=True)
class Source:
    language: Language
    parts: list[Part]
    #: For a notebook, its cells (a file's lines are counted when shown: a search by
    #: name shows no header).
    size: int = 0
    notebook: bool = False

    def header(self, label: str) -> str:
        """The line that introduces a file in every output that shows it whole."""
        if self.notebook:
            return f"{label} (Python notebook, {self.size} {_plural(self.size, 'cell')})"
        size = line_count(self.parts[0].text)
        return f"{label} ({self.language.name}, {size} {_plural(size, 'line')})"


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def language_of(name: str, path: str) -> Language | None:
    """The language of the file ``name`` (its last path component) at ``path``: by its
    name, else by its ``#!`` line if it has no extension; notebooks are Python."""
    if languages.is_notebook(name):
        return PYTHON
    found = languages.by_name(name)
    if found is not None or not languages.needs_first_line(name):
        return found
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        head = os.read(fd, _FIRST_LINE)
    except OSError:
        return None
    finally:
        os.close(fd)
    return languages.by_first_line(head)


def source_of(name: str, data: bytes, language: Language) -> Source | None:
    if languages.is_notebook(name):
        cells = code_cells(data)
        if cells is None:
            return None
        total, sources = cells
        return Source(PYTHON, [Part(n, text) for n, text in sources], total, notebook=True)
    return Source(language, [Part(None, data)])


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
