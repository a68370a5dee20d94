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

import codecs
import dataclasses
import functools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from boris.search.file_text import read_text_file
from boris.search.frames import string_list
from boris.stop import Stop, check
from boris.structure.definitions import Definition, definitions, each_definition
from boris.structure.grammars import parse, parse_range, prefix_end
from boris.structure.languages import Language, is_notebook
from boris.structure.notebook_cells import NotebookTooDeep
from boris.structure.references import definition_sites, holds, occurrences, references
from boris.structure.source import Part, Source, language_of, source_of
from boris.text import LIMIT, printable

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
        return definition.qualifier.tail(len(self.parts)) == self.parts


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
#: times its size, at least MIN_BUDGET (small files), at most MAX_BUDGET. Measured as
#: peak RSS over generated files (tests/structure/test_bounded.py, bench/symbols.py
#: --hostile): the syntax tree takes some 30 bytes per byte of a dense file, the
#: query's matches about as much again while they are read, the definitions found in
#: them a little more: a minified bundle or a file of declarations peaks near 90
#: (2.9 MB: 262 MiB), ordinary code far below; nesting adds nothing.
BUDGET_PER_BYTE = 128
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
    #: How much of a file's lines the page can still take, whatever came before it: at
    #: most ``most`` lines (0: any number), and with ``capped`` none after the one whose
    #: characters, counted from line ``uncounted`` on (the offset), pass the output
    #: cap. The work on a file stops there.
    most: int = 0
    uncounted: int = 0
    capped: bool = False
    #: With the bounds, the lines before ``uncounted`` and after the last the page can
    #: take still counted, given as empty lines (a file's page tells how many lines it
    #: has): none is kept.
    counted: bool = False
    #: For NAMES: the longest qualified name given (0: any; a longer one gives an
    #: empty line); None gives each definition's last name instead, as the text after
    #: the last dot.
    longest: int | None = 0

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
            lines = self.run_file(label, path, stop)
            if lines:
                found.append((index, lines))
        return found

    def run_file(self, label: str, path: str, stop: Stop | None = None) -> list[str]:
        """The lines of one file of a walk (one of a known language)."""
        name = path.rpartition(os.sep)[2]
        language = language_of(name, path)
        if language is None:
            return []
        data = self._read(path, name, language)
        if data is None:
            return []
        try:
            source = source_of(name, data, language)
        except NotebookTooDeep:
            return []  # skipped, as a notebook that is not JSON
        if source is None:
            return []
        return self.lines(label, source, stop)

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

    def lines(self, label: str, source: Source, stop: Stop | None = None) -> list[str]:
        """The lines of ``source`` (a file shown as ``label``) for this task's mode, as
        many as the page can take (see :attr:`most`)."""
        produced = self.each_line(label, source, stop)
        if not self.most and not self.capped:
            return list(produced)
        kept: list[str] = []
        chars = 0
        for line in produced:
            if len(kept) >= self.uncounted:
                chars += len(line) + 1
            elif self.counted:
                line = ""
            kept.append(line)
            if (self.most and len(kept) >= self.most) or (self.capped and chars > LIMIT + 1):
                break
        if self.counted:
            kept.extend("" for _ in produced)
        return kept

    def each_line(self, label: str, source: Source, stop: Stop | None = None) -> Iterator[str]:
        """The lines of ``source`` for this task's mode, made as they are read (a
        reader that stops early stops the work); ``stop`` is looked at every
        :data:`CHECK_EVERY` definitions."""
        if self.mode == REFERENCES:
            return reference_lines(label, source, self.query.parts[-1], stop)
        if self.mode == NAMES:
            return self._names(source, stop)
        if self.mode in (PLACES, DEFINITIONS):
            return self._definitions(label, source, stop)
        return outline_lines(label, source, self.query.kind, top_only=self.mode == MAP, stop=stop)

    def _names(self, source: Source, stop: Stop | None) -> Iterator[str]:
        longest = self.longest
        for _, found, _, _ in parsed(source, stop=stop):
            for d in _checked(found, stop):
                if longest is None:
                    yield d.qualifier.own[-1].rpartition(".")[2]
                elif not longest or d.qualifier.length <= longest:
                    yield d.qualified
                else:
                    yield ""  # a name too long to be close to what is looked for

    def _definitions(self, label: str, source: Source, stop: Stop | None) -> Iterator[str]:
        parts = parsed(source, self._word(), self.query.qualifiers, stop)
        for part, found, lines, _ in parts:
            for d in _checked(found, stop):
                if self.query.wants(d):
                    if self.mode == PLACES:
                        yield place(part, d)
                    else:
                        yield definition_line(label, part, d, lines)

    def _word(self) -> str | None:
        """The name whose definitions are looked for, if one is."""
        return self.query.parts[-1] if self.query.parts and self.query.pattern is None else None


#: Definitions (or references) made between two looks at whether the search was called
#: off.
CHECK_EVERY = 256


def _checked(items: Iterable[Definition], stop: Stop | None) -> Iterator[Definition]:
    """``items``, looking at ``stop`` every :data:`CHECK_EVERY` of them."""
    if stop is None:
        yield from items
        return
    for count, item in enumerate(items):
        if count and not count % CHECK_EVERY:
            check(stop)
        yield item


def parsed(
    source: Source,
    word: str | None = None,
    qualifiers: tuple[str, ...] = (),
    stop: Stop | None = None,
) -> Iterator[tuple[Part, Iterable[Definition], list[bytes], int | None]]:
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
        tree = parse(source.language, part.text, around[-1][1] if around else None, stop)
        found = each_definition(tree, source.language, around, stop, part.text)
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
    return list(outline_lines(label, source, kind, top_only=top_only))


def outline_lines(
    label: str, source: Source, kind: str | None, *, top_only: bool, stop: Stop | None = None
) -> Iterator[str]:
    """:func:`outline`'s lines, each made when it is read. Every part is parsed first:
    the header tells the first syntax error of them all."""
    head = source.header(label)
    notes = []
    trees: list[tuple[Part, tree_sitter.Tree | None]] = []
    for index, part in enumerate(source.parts):
        if index:
            check(stop)  # between a notebook's cells (the file's own look came before)
        tree = parse(source.language, part.text, stop=stop)
        error = _error(tree)
        if error is not None:
            where = f"cell {part.cell}, line {error}" if part.cell is not None else f"line {error}"
            notes.append(where)
        # A large part that reads cleanly is outlined a piece at a time: its tree is
        # let go of once it told its errors.
        piecewise = (
            error is None
            and len(part.text) >= PIECEWISE_FROM
            and source.language.top_level_start is not None
        )
        trees.append((part, None if piecewise else tree))
        del tree
    lines = _outline_entries(source, trees, kind, top_only, stop)
    first = next(lines, None)
    if top_only and kind is not None and first is None:
        return  # a map with a kind shows only the files that hold one
    if notes:
        note = "; ".join(notes)
        if top_only:
            head = f"{head} [syntax errors: first at {note}]"
        else:
            yield head
            head = (
                f"[Syntax errors, the first at {note}: definitions near them may be "
                "missing or cut short.]"
            )
    yield head
    if first is not None:
        yield first
        yield from lines


def _outline_entries(
    source: Source,
    trees: list[tuple[Part, tree_sitter.Tree | None]],
    kind: str | None,
    top_only: bool,
    stop: Stop | None,
) -> Iterator[str]:
    indent = "  " if top_only else ""
    for part, tree in trees:
        text = part.text.split(b"\n")
        cell = f"cell {part.cell}:" if part.cell is not None else ""
        found = (
            each_definition(tree, source.language, stop=stop, source=part.text)
            if tree is not None
            else _piecewise_definitions(source.language, part.text, stop)
        )
        for d in _checked(found, stop):
            if kind is not None:
                if d.kind == kind:
                    yield (
                        f"{indent}{d.kind} {d.qualified}  {cell}{d.start}-{d.end}  "
                        f"{signature(text, d.line)}"
                    )
            elif not top_only or not d.depth:
                # The indent is made with the line: the lines after a full page are not.
                yield (
                    f"{indent}{'  ' * d.depth}{d.kind} {d.name}  {cell}{d.start}-{d.end}  "
                    f"{signature(text, d.line)}"
                )


#: Parts of at least this many bytes that read without a syntax error are outlined a
#: piece of about PIECE_BYTES at a time, where their language tells where a top-level
#: statement starts: the memory is a piece's, and a full page stops the parsing.
PIECEWISE_FROM = 1 << 20
PIECE_BYTES = 1 << 18


def _piecewise_definitions(
    language: Language, text: bytes, stop: Stop | None
) -> Iterator[Definition]:
    """The definitions of ``text``, which parses without a syntax error, each piece
    parsed alone. A piece ends where :func:`~boris.structure.grammars.prefix_end`
    cuts (at a top-level statement's start, the start before it reading alike with or
    without the rest), so its definitions are the whole text's; a piece that reads with
    a syntax error all the same is read again with all that follows it."""
    size = len(text)
    start = row = 0
    while start < size:
        through = start + PIECE_BYTES
        cut = prefix_end(language, text, through) if through < size else None
        end = size if cut is None else cut
        tree = parse_range(language, text, start, end, row, stop)
        if end < size and tree.root_node.has_error:
            end = size
            tree = parse_range(language, text, start, end, row, stop)
        yield from each_definition(tree, language, stop=stop, source=text)
        row += text.count(b"\n", start, end)
        start = end


def definition_line(label: str, part: Part, d: Definition, lines: list[bytes]) -> str:
    return f"{label}:{_range(part, d)}  {d.kind} {d.qualified}  {signature(lines, d.line)}"


def reference_lines(
    label: str, source: Source, name: str, stop: Stop | None = None
) -> Iterator[str]:
    for part in source.parts:
        spans = occurrences(name, part.text)
        if not spans:
            continue
        # As much of the part as holds every occurrence in whole top-level statements:
        # what encloses each reads alike with or without the rest.
        tree = parse(source.language, part.text, spans[-1][1], stop=stop)
        # The definitions that meet an occurrence: those it names, those it lies in.
        found = definitions(tree, source.language, spans, part.text)
        lines = part.text.split(b"\n")
        starts = _line_starts(lines)
        cell = f"cell {part.cell}:" if part.cell is not None else ""
        # A column counts the characters before the name from the last reference on
        # the same line, not from the line's start: a minified line of many is read once.
        at_line, at_byte, at_column = 0, 0, 1
        found_references = references(tree, part.text, name, source.language, found)
        for count, ref in enumerate(found_references):
            if stop is not None and count and not count % CHECK_EVERY:
                check(stop)
            line = lines[ref.line - 1]
            byte = ref.byte - starts[ref.line - 1]
            if ref.line != at_line:
                at_line, at_byte, at_column = ref.line, 0, 1
            at_column += len(line[at_byte:byte].decode("utf-8", "replace"))
            at_byte = byte
            where = ref.enclosing.qualified if ref.enclosing is not None else "(top level)"
            yield f"{label}:{cell}{ref.line}:{at_column}  in {where}  {signature(lines, ref.line)}"
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
    """Line ``line`` (1-based) of a source, trimmed, at most MAX_SIGNATURE characters.

    A long line (a minified bundle's one line holds every definition) is decoded only
    as far as the signature needs: what each definition costs does not grow with its
    line."""
    data = lines[line - 1]
    if len(data) <= _SHORT_LINE:
        text = data.decode("utf-8", "replace").strip()
        return printable(text[:MAX_SIGNATURE])
    return printable(_leading_text(data))


#: Lines of at most this many bytes are decoded whole.
_SHORT_LINE = 4 * MAX_SIGNATURE + 64
#: Bytes of a long line decoded at a time.
_STEP = 1024


def _leading_text(data: bytes) -> str:
    """``data.decode("utf-8", "replace").strip()[:MAX_SIGNATURE]``, decoding only as
    far as that needs: its first MAX_SIGNATURE characters after the leading
    whitespace, and then as far as a character that is not whitespace, which tells
    that the line goes on past them (else they are trimmed at the right too)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    kept = ""
    size = len(data)
    for start in range(0, size, _STEP):
        piece = decoder.decode(data[start : start + _STEP], start + _STEP >= size)
        if not kept:
            piece = piece.lstrip()
        room = MAX_SIGNATURE - len(kept)
        if room > 0:
            kept += piece[:room]
            piece = piece[room:]
        if len(kept) == MAX_SIGNATURE and (
            not kept[-1].isspace() or (piece and not piece.isspace())
        ):
            return kept
    return kept.rstrip()


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
