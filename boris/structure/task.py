"""What a structure search does with each file (:class:`StructureTask`, plain data that
travels to grep's worker processes), and the lines it gives for it.

A search by name first looks for the name in the file's bytes with grep's matcher, as
grep would, and parses only a file that holds it; an outline or a map parses every
file it is given. A syntax tree lives while its file is looked at, no longer: what
comes back is text.

Output lines (SPEC "symbols"):
- outline: ``<kind> <name>  <start>-<end>  <signature>``, indented two spaces a level;
- definitions: ``<path>:<start>-<end>  <kind> <Qualified.name>  <signature>``;
- references: ``<path>:<line>:<column>  in <Qualified.enclosing>  <the line>``.
In a notebook a line number is the cell's, after ``cell N:``.

Search workers load this module when a structure task first reaches them: it imports
nothing of the server.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from boris.search.file_text import read_text_file
from boris.search.frames import string_list
from boris.stop import Stop, check
from boris.structure.definitions import Definition, definitions
from boris.structure.grammars import parse
from boris.structure.languages import Language, is_notebook
from boris.structure.references import definition_sites, holds, occurrences, references
from boris.structure.source import Part, Source, language_of, source_of
from boris.text import printable

if TYPE_CHECKING:
    import tree_sitter

#: The most characters of a signature or a reference's line shown.
MAX_SIGNATURE = 200

OUTLINE = "outline"
MAP = "map"
DEFINITIONS = "definitions"
REFERENCES = "references"
#: For view's symbol: the definitions of a name as fields (``place`` and
#: :func:`parse_place`), and every qualified name a file defines.
PLACES = "places"
NAMES = "names"


@dataclass(frozen=True)
class NameQuery:
    """Which definitions a search by name wants."""

    #: The parts of a qualified name (``("Outer", "inner")``), or empty.
    parts: tuple[str, ...] = ()
    #: An RE2 pattern on the qualified name instead.
    pattern: str | None = None
    kind: str | None = None

    @property
    def qualifiers(self) -> tuple[str, ...]:
        """The parts of the name before its last (``Outer`` of ``Outer.inner``)."""
        return self.parts[:-1]

    def wants(self, definition: Definition) -> bool:
        """Whether a search by name (a pattern, or the parts of a name) wants it."""
        if self.kind is not None and definition.kind != self.kind:
            return False
        if self.pattern is not None:
            return _regex(self.pattern).search(definition.qualified) is not None
        size = len(self.parts)
        return definition.parts[-size:] == self.parts


@functools.lru_cache(maxsize=8)
def _regex(pattern: str) -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options)


#: The longest a worker may parse and look at one file: beyond what any file of real
#: code takes (a generated 9 MB Python file takes some 25 s on a busy machine), short of
#: a call that hangs.
FILE_SECONDS = 60.0

#: The memory a file's work may take beyond what its worker holds already: so many
#: times its size (a syntax tree takes some 10 to 20 times the text), at least
#: MIN_BUDGET (small files), at most MAX_BUDGET.
BUDGET_PER_BYTE = 64
MIN_BUDGET = 64 << 20
MAX_BUDGET = 512 << 20


def memory_budget(size: int) -> int:
    """The memory the work on a file of ``size`` bytes may take."""
    return min(max(size * BUDGET_PER_BYTE, MIN_BUDGET), MAX_BUDGET)


@dataclass(frozen=True)
class StructureTask:
    """What to do with each file of a structure search, as plain data."""

    #: It parses with tree-sitter: only in workers (boris.search.pool), within budgets.
    ISOLATED: ClassVar[bool] = True

    mode: str
    max_size: int
    query: NameQuery = NameQuery()
    #: The name a file must hold to be read further: as a word, as grep's ``\bname\b``
    #: would find it (a notebook, whose JSON may escape what precedes it, as text).
    prefilter: str | None = None
    #: The longest a worker may take over one file.
    seconds: float = FILE_SECONDS

    @property
    def file_seconds(self) -> float | None:
        return self.seconds

    def memory_budget(self, path: str) -> int | None:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
        return memory_budget(min(size, self.max_size))

    def wire(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_wire(cls, fields: dict[str, Any]) -> StructureTask:
        query = fields["query"]
        return cls(**{**fields, "query": NameQuery(**{**query, "parts": tuple(query["parts"])})})

    def result_to_wire(self, result: list[str]) -> Any:
        return result

    def result_from_wire(self, value: Any) -> list[str]:
        return string_list(value)

    def run_chunk(
        self, chunk: list[tuple[str, str]], skip: int, stop: Stop | None = None
    ) -> list[tuple[int, list[str]]]:
        """``(index, lines)`` for the files of ``chunk`` that give any (``skip`` is
        grep's alone)."""
        found = []
        for index, (label, path) in enumerate(chunk):
            check(stop)
            lines = self.run_file(label, path)
            if lines:
                found.append((index, lines))
        return found

    def run_file(self, label: str, path: str) -> list[str]:
        """The lines of one file of a walk (one of a known language)."""
        name = path.rpartition(os.sep)[2]
        language = language_of(name, path)
        if language is None:
            return []
        data = self._read(path, name, language)
        if data is None:
            return []
        source = source_of(name, data, language)
        if source is None:
            return []
        return self.lines(label, source)

    def _read(self, path: str, name: str, language: Language) -> bytes | None:
        """The file's text if it is to be parsed, as grep reads it. As in grep, a file
        is told binary, or not a regular file, only once it holds the name (where a
        definition may name it, for a search for definitions): most files do not, and
        are spared the look."""
        word = self.prefilter
        if word is None:
            return read_text_file(path, self.max_size)
        notebook = is_notebook(name)

        def wanted(data: bytes) -> bool:
            found = word.encode() in data if notebook else holds(word, data)
            return found and self._may_define(data, name, language)

        return read_text_file(path, self.max_size, wanted)

    def _may_define(self, data: bytes, name: str, language: Language) -> bool:
        """Whether a file that holds the name may define it: for a search for
        definitions, whether the name stands where a definition names something (in a
        notebook each cell is looked at once it is read)."""
        word = self._word()
        if word is None or self.mode not in (DEFINITIONS, PLACES) or is_notebook(name):
            return True
        return bool(sites(data, word, self.query.qualifiers, language))

    def lines(self, label: str, source: Source) -> list[str]:
        """The lines of ``source`` (a file shown as ``label``) for this task's mode."""
        if self.mode == REFERENCES:
            return list(reference_lines(label, source, self.query.parts[-1]))
        if self.mode == NAMES:
            return [d.qualified for _, found, _, _ in parsed(source) for d in found]
        if self.mode in (PLACES, DEFINITIONS):
            wanted = [
                (part, d, lines)
                for part, found, lines, _ in parsed(source, self._word(), self.query.qualifiers)
                for d in found
                if self.query.wants(d)
            ]
            if self.mode == PLACES:
                return [place(part, d) for part, d, _ in wanted]
            return [definition_line(label, part, d, lines) for part, d, lines in wanted]
        return outline(label, source, self.query.kind, top_only=self.mode == MAP)

    def _word(self) -> str | None:
        """The name whose definitions are looked for, if one is."""
        return self.query.parts[-1] if self.query.parts and self.query.pattern is None else None


def parsed(
    source: Source, word: str | None = None, qualifiers: tuple[str, ...] = ()
) -> Iterator[tuple[Part, list[Definition], list[bytes], int | None]]:
    """Each part of ``source`` with its definitions (with ``word``, only those that may
    be named so, and those holding them; with ``qualifiers`` too, only in a part that
    holds each of them), its lines and the line of its first syntax error (None when
    it parses cleanly; with ``word``, in as much of the part as was parsed)."""
    for part in source.parts:
        around = None
        if word is not None:
            around = sites(part.text, word, qualifiers, source.language)
            if not around:
                continue  # not parsed: the name is not where a definition names
        # Where a name is looked for, only as much is parsed as holds where it may be.
        tree = parse(source.language, part.text, around[-1][1] if around else None)
        found = definitions(tree, source.language, around)
        yield part, found, part.text.split(b"\n"), _error(tree)


def sites(
    text: bytes, word: str, qualifiers: tuple[str, ...], language: Language
) -> list[tuple[int, int]]:
    """Where a definition of ``word`` may be named in ``text`` (see
    :func:`~boris.structure.references.definition_sites`); none if ``text`` lacks one of
    the ``qualifiers`` (``Outer`` of ``Outer.inner``). Every part of a qualified name is
    text of the file: the name of a definition that holds it, of a scope, of a Go
    receiver's type, or a piece of a name written qualified (``A::f``)."""
    if not all(qualifier.encode() in text for qualifier in qualifiers):
        return []
    return definition_sites(word, text, language)


def outline(label: str, source: Source, kind: str | None, *, top_only: bool) -> list[str]:
    """A file's outline: its header, a note on syntax errors, then its definitions.

    In a map (``top_only``) the definitions are the file's top-level ones, below its
    header; with ``kind`` only those of that kind, at any depth, qualified."""
    head = source.header(label)
    notes = []
    lines = []
    indent = "  " if top_only else ""
    for part, found, text, error in parsed(source):
        if error is not None:
            where = f"cell {part.cell}, line {error}" if part.cell is not None else f"line {error}"
            notes.append(where)
        cell = f"cell {part.cell}:" if part.cell is not None else ""
        for d in found:
            if kind is not None:
                if d.kind == kind:
                    lines.append(
                        f"{indent}{d.kind} {d.qualified}  {cell}{d.start}-{d.end}  "
                        f"{signature(text, d.line)}"
                    )
            elif not top_only or not d.depth:
                lines.append(
                    f"{indent}{'  ' * d.depth}{d.kind} {d.name}  {cell}{d.start}-{d.end}  "
                    f"{signature(text, d.line)}"
                )
    if top_only and kind is not None and not lines:
        return []  # a map with a kind shows only the files that hold one
    if notes:
        note = "; ".join(notes)
        if top_only:
            head = f"{head} [syntax errors: first at {note}]"
        else:
            lines.insert(
                0,
                f"[Syntax errors, the first at {note}: definitions near them may be "
                "missing or cut short.]",
            )
    return [head, *lines]


def definition_line(label: str, part: Part, d: Definition, lines: list[bytes]) -> str:
    return f"{label}:{_range(part, d)}  {d.kind} {d.qualified}  {signature(lines, d.line)}"


def reference_lines(label: str, source: Source, name: str) -> Iterator[str]:
    for part in source.parts:
        spans = occurrences(name, part.text)
        if not spans:
            continue
        # As much of the part as holds every occurrence in whole top-level statements:
        # what encloses each reads alike with or without the rest.
        tree = parse(source.language, part.text, spans[-1][1])
        # The definitions that meet an occurrence: those it names, those it lies in.
        found = definitions(tree, source.language, spans)
        lines = part.text.split(b"\n")
        starts = _line_starts(lines)
        cell = f"cell {part.cell}:" if part.cell is not None else ""
        for ref in references(tree, part.text, name, source.language, found):
            line = lines[ref.line - 1]
            column = len(line[: ref.byte - starts[ref.line - 1]].decode("utf-8", "replace")) + 1
            where = ref.enclosing.qualified if ref.enclosing is not None else "(top level)"
            yield f"{label}:{cell}{ref.line}:{column}  in {where}  {signature(lines, ref.line)}"
        error = _error(tree)
        if error is not None:
            yield _read_in_part(label, part, error)


def _read_in_part(label: str, part: Part, error: int) -> str:
    """The note after the references of a file (a cell) that does not parse."""
    where = f"cell {part.cell}, line {error}" if part.cell is not None else f"line {error}"
    return (
        f"[{label}: read in part, syntax errors from {where}: "
        "uses in what could not be read are left out]"
    )


@dataclass(frozen=True)
class Place:
    """Where a definition is, as view's symbol needs it."""

    cell: int | None
    start: int
    end: int
    kind: str
    qualified: str


def place(part: Part, d: Definition) -> str:
    cell = "" if part.cell is None else str(part.cell)
    return f"{cell}\t{d.start}\t{d.end}\t{d.kind}\t{d.qualified}"


def parse_place(line: str) -> Place:
    cell, start, end, kind, qualified = line.split("\t", 4)
    return Place(int(cell) if cell else None, int(start), int(end), kind, qualified)


def _line_starts(lines: list[bytes]) -> list[int]:
    starts = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    return starts


def _range(part: Part, d: Definition) -> str:
    cell = f"cell {part.cell}:" if part.cell is not None else ""
    return f"{cell}{d.start}-{d.end}"


def signature(lines: list[bytes], line: int) -> str:
    """Line ``line`` (1-based) of a source, trimmed, at most MAX_SIGNATURE characters."""
    text = lines[line - 1].decode("utf-8", "replace").strip()
    return printable(text[:MAX_SIGNATURE])


def _error(tree: tree_sitter.Tree) -> int | None:
    """The line of the first syntax error of a tree, None if it has none."""
    node = tree.root_node
    if not node.has_error:
        return None
    while not (node.is_error or node.is_missing):
        for child in node.children:
            if child.has_error or child.is_missing:
                node = child
                break
        else:
            break
    line: int = node.start_point[0] + 1
    return line
