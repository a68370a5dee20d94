"""The grammars, parsers and definition queries of the languages, loaded on first use.

tree-sitter and a language's grammar are imported when a file of that language is
first parsed in a process (the server, or a search worker), never at start-up. A
grammar and its compiled query serve every thread; a parser is not safe to share
between threads, and is made for each parse (a few microseconds, against tens for
the parse of the smallest file).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from boris.stop import Stop, check
from boris.structure.languages import Language

if TYPE_CHECKING:
    import tree_sitter


@dataclass(frozen=True)
class Grammar:
    """A language loaded: tree-sitter's Language and the query of its definitions."""

    language: tree_sitter.Language
    definitions: tree_sitter.Query


def load(language: Language) -> Grammar:
    """A language's grammar and the query of its definitions, loaded (:func:`grammar`
    keeps them once loaded)."""
    import tree_sitter

    module = importlib.import_module(language.module)
    loaded = tree_sitter.Language(getattr(module, language.function)())
    own = language.query or language.key
    source = "\n".join(query_text(key) for key in (*language.based_on, own))
    return Grammar(loaded, tree_sitter.Query(loaded, source))


#: A language's grammar, loaded once in a process.
grammar = functools.cache(load)


def query_text(key: str) -> str:
    """The text of a query file of boris/structure/queries/."""
    return resources.files("boris.structure").joinpath("queries").joinpath(f"{key}.scm").read_text()


def parse(
    language: Language, source: bytes, through: int | None = None, stop: Stop | None = None
) -> tree_sitter.Tree:
    """The syntax tree of ``source`` (UTF-8 bytes); with ``through``, perhaps of only
    the start of it that holds the first ``through`` bytes in whole top-level
    statements (see :func:`prefix_end`): its definitions there are the whole file's.
    Where that start reads with a syntax error, the file is parsed whole.

    With ``stop``, a large source is handed to the parser a piece at a time, and
    :class:`~boris.stop.Stopped` ends the parse soon after ``stop`` is set."""
    import tree_sitter

    parser = tree_sitter.Parser(grammar(language).language)
    end = None if through is None else prefix_end(language, source, through)
    if end is not None:
        tree = parser.parse(source[:end])
        if not tree.root_node.has_error:
            return tree
    if stop is None or len(source) <= PIECE:
        return parser.parse(source)
    return _in_pieces(parser, source, stop)


#: Bytes handed to the parser at a time, where a parse may be called off: it reads
#: this much in a few milliseconds.
PIECE = 1 << 16


def parse_range(
    language: Language, source: bytes, start: int, end: int, row: int, stop: Stop | None = None
) -> tree_sitter.Tree:
    """The syntax tree of ``source[start:end]`` alone (``start`` the first byte of line
    ``row``, 0-based), its nodes placed as in the whole source."""
    import tree_sitter

    parser = tree_sitter.Parser(grammar(language).language)
    newline = source.rfind(b"\n", start, end)
    end_row = row + source.count(b"\n", start, end)
    end_column = end - (newline + 1) if newline >= 0 else end - start
    parser.included_ranges = [tree_sitter.Range((row, 0), (end_row, end_column), start, end)]
    if stop is None:
        return parser.parse(source)
    return _in_pieces(parser, source, stop)


def _in_pieces(parser: tree_sitter.Parser, source: bytes, stop: Stop) -> tree_sitter.Tree:
    """``source`` parsed as the parser reads it, PIECE bytes at a time: once ``stop`` is
    set, the parser is told the text ends, and :class:`~boris.stop.Stopped` is raised."""

    def piece(offset: int, _point: tuple[int, int]) -> bytes:
        # Told the end of the text, the parser ends the tree there.
        return b"" if stop.is_set() else source[offset : offset + PIECE]

    tree = parser.parse(piece)
    check(stop)
    return tree


def prefix_end(language: Language, source: bytes, through: int) -> int | None:
    """Where ``source`` may be cut so that what comes before holds its first
    ``through`` bytes in whole top-level statements: the start of the first line after
    them that starts one (``language.top_level_start``); None where there is no such
    line, or the language has none.

    A parser reads left to right: the statements before the cut read alike with or
    without the rest, as long as the cut is at a statement's start, which the cut part
    then shows by reading without a syntax error (a cut inside a string or a bracket,
    or after a backslash, leaves one open). What such a read does not show is a line
    that opens a block and lacks its body (``if x:`` just before the cut): the rest
    would have made it an error, so there is no cut after one."""
    if language.top_level_start is None:
        return None
    line_end = source.find(b"\n", through)
    if line_end < 0:
        return None
    found = language.top_level_start.search(source, line_end + 1)
    if found is None:
        return None
    end = found.start()
    if end == len(source) or _opens_a_block(source, end):
        return None
    return end


def _opens_a_block(source: bytes, end: int) -> bool:
    """Whether the last line of code before ``end`` ends with ``:``, with or without a
    comment after it (a ``#`` in a string counts as a comment's start: in doubt, it
    does)."""
    start = end
    while start > 0:
        line_start = source.rfind(b"\n", 0, start - 1) + 1
        line = source[line_start : start - 1].strip()
        start = line_start
        if line and not line.startswith(b"#"):
            break
    else:
        return False
    ends = [line, *(line[:at] for at in range(len(line)) if line[at] == 35)]  # "#"
    return any(part.rstrip().endswith(b":") for part in ends)
