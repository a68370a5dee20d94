"""The syntax errors of a source as tree-sitter reads it, placed where a reader would look.

An ``ERROR`` node is text the parser could not place; a ``MISSING`` node a zero-width
token it put in to go on (a ``)`` or a ``;``). An error is reported at the first place
worth looking at: for an ``ERROR`` node that leaves a bracket open, that bracket (the
node itself starts where the parser gave up, often the start of the statement around
it); else where the node starts. One error per line: the parser's recovery often
makes several nodes of one mistake, and the errors inside an ``ERROR`` node are left
to it. Lines and columns are 1-based, columns in
characters of the line decoded as UTF-8 (an invalid byte is one character, a tab is
one): what an editor's "go to line:column" takes.

A large source is not parsed whole for an edit: only the stretch around the change,
from the start of a line that begins a top-level statement before it to the start of
such a line after it (:func:`window`). The parser reads left to right, so the text
before such a line reads alike, and the edit's errors are in the stretch; where a cut
is not at a real statement's start, the stretch reads with errors that the text
before the edit has too, at the same place, and the comparison of the two
(boris.structure.edit_syntax) leaves them out.

Plain data in and out: the search workers may run it. (Python sources are read by
Python's own parser: see :func:`errors`.)
"""

from __future__ import annotations

import ast
import codecs
import itertools
import re
import warnings
from typing import TYPE_CHECKING, NamedTuple

from boris.structure import grammars
from boris.structure.languages import PHP, PYTHON, Language

if TYPE_CHECKING:
    from tree_sitter import Node

#: Errors gathered from one source at most: the comparison needs those of both sides,
#: a reply shows ten.
MAX_ERRORS = 200
#: The characters of an unexpected text shown, and of a line.
TEXT_CHARS = 20
LINE_CHARS = 120

#: A line where a top-level statement may start, for the languages without a pattern
#: of their own: anything at the line's start but whitespace, a closing bracket, a
#: comment's continuation, or a preprocessor line (which may stand inside a function).
_TOP_LEVEL = re.compile(rb"(?m)^(?![\s)\]}*#/])")
#: The cuts of each language; None: parsed whole (PHP's code starts at ``<?php``: a
#: stretch without it would read as HTML).
_CUTS: dict[str, re.Pattern[bytes] | None] = {PYTHON.key: PYTHON.top_level_start, PHP.key: None}
#: Bytes compared at once when looking for where two sources start to differ.
_BLOCK = 1 << 16

#: The last character of an opening token, and what closes it.
_OPEN = {"(": ")", "[": "]", "{": "}"}
#: Tokens a line may end with inside a construct.
_LINE_ENDS = frozenset({";", ":", ",", "=>", "->", "then", "do", "else", "in", "begin"})
#: Kinds of node that are whole: a line may end after them.
_WHOLE = ("statement", "declaration", "definition", "block", "comment", "}", ")", "]")


class Problem(NamedTuple):
    """One error: where, what (``unexpected <text>``, ``missing <token>``), its line."""

    line: int
    column: int
    kind: str  # "unexpected" or "missing"
    what: str
    text: str


def errors(language: Language, source: bytes, first_line: int = 1) -> list[Problem]:
    """The syntax errors of ``source`` (UTF-8 bytes, no byte order mark), at most
    ``MAX_ERRORS``, in order; its first line is numbered ``first_line``.

    A Python source is read by Python's own parser, which tells its first error, where
    Python places it: tree-sitter's grammar reads some code Python refuses (an
    unterminated string at a line's end, a starred expression alone in parentheses,
    ``x:`` without an annotation, an indentation Python does not take) and refuses a
    little Python reads, and its errors would tell of one mistake several times.
    tree-sitter's word counts only where Python's parser cannot say where (a NUL)."""
    if language.key == PYTHON.key:
        refusal = _python_refusal(source)
        if refusal is None:
            return []
        if refusal == _NOWHERE:
            return _tree_errors(language, source, first_line)
        line, column = refusal
        at = _offset(source, line, column)
        shown = _first_line(source[at:])
        what = f"unexpected {shown or 'end of line'}"
        return [_placed(source, at, line + first_line - 1, "unexpected", what)]
    return _tree_errors(language, source, first_line)


#: Where Python's parser refuses a source it cannot tell where it refuses.
_NOWHERE = (0, 0)


def _python_refusal(source: bytes) -> tuple[int, int] | None:
    """Where Python's parser refuses ``source`` (line, column, 1-based; ``_NOWHERE``),
    None if it reads it."""
    text = source.decode("utf-8", "replace")
    try:
        # What Python only warns of (an invalid escape in a string, a number run into a
        # word, "is" with a literal) is no error, and not for stderr.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        if not exc.lineno:
            return _NOWHERE
        return exc.lineno, max(exc.offset or 1, 1)
    except (ValueError, RecursionError, MemoryError):
        return _NOWHERE  # tree-sitter's word, then
    return None


def _offset(source: bytes, line: int, column: int) -> int:
    """The byte offset of a 1-based line and character column of ``source``."""
    start = 0
    for _ in range(line - 1):
        found = source.find(b"\n", start)
        if found < 0:
            return len(source)
        start = found + 1
    # A byte at a time, as the decoding Python's parser was given counts characters (a
    # byte that is not UTF-8 is one, or a cut sequence of them).
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    at, chars = start, 0
    while chars < column - 1 and at < len(source) and source[at] != 10:  # "\n"
        chars += len(decoder.decode(source[at : at + 1]))
        at += 1
    return at


def _tree_errors(language: Language, source: bytes, first_line: int) -> list[Problem]:
    tree = grammars.parse(language, source)
    root = tree.root_node
    if not root.has_error:
        return []
    found: list[Problem] = []
    lines: set[int] = set()
    stack = [root]
    while stack and len(found) < MAX_ERRORS:
        node = stack.pop()
        if node.is_missing:
            place, what, kind = node, f"missing {node.type}", "missing"
        elif node.is_error:
            place = _focus(node)
            shown = _first_line(source[place.start_byte : node.end_byte])
            what, kind = f"unexpected {shown or 'end of line'}", "unexpected"
        else:
            place = None
        if place is not None:  # one error per line
            row = place.start_point[0]
            if row not in lines:
                lines.add(row)
                found.append(_placed(source, place.start_byte, row + first_line, kind, what))
            # What the parser could not place holds the errors its recovery made of the
            # same mistake: the node speaks for them.
            continue
        # Children last first, so that they come off the stack in order.
        stack.extend(child for child in reversed(node.children) if child.has_error)
    found.sort(key=lambda error: (error.line, error.column))
    return found


def _focus(node: Node) -> Node:
    """Where a reader should look in an ``ERROR`` node, among its own children: the
    innermost bracket it leaves open; else the first child on a line of its own after
    one that cannot end a line (the token the parser could not place after it); else
    its start."""
    children = node.children
    open_: list[Node] = []
    for child in children:
        kind = child.type
        if kind[-1:] in _OPEN:
            open_.append(child)
        elif open_ and kind == _closer(open_[-1].type):
            open_.pop()
    if open_:
        return open_[-1]
    for before, child in itertools.pairwise(children):
        if child.start_point[0] > before.end_point[0] and not _ends_a_line(before):
            return child
    return node


def _closer(opener: str) -> str:
    """What closes an opening token: ``)`` for ``(``, ``))`` for Bash's ``$((``."""
    return "".join(_OPEN[c] for c in reversed(opener) if c in _OPEN)


def _ends_a_line(node: Node) -> bool:
    """Whether a line may end after ``node``: an opening or separating token, or a
    whole statement, block or definition."""
    kind = node.type
    if kind[-1:] in _OPEN or kind in _LINE_ENDS:
        return True
    return kind.endswith(_WHOLE) or node.is_error


def _first_line(text: bytes) -> str:
    line = text.split(b"\n", 1)[0].rstrip(b"\r")
    return line.decode("utf-8", "replace").strip()[:TEXT_CHARS]


def _placed(source: bytes, at: int, line: int, kind: str, what: str) -> Problem:
    start = source.rfind(b"\n", 0, at) + 1
    end = source.find(b"\n", at)
    if end < 0:
        end = len(source)
    column = len(source[start:at].decode("utf-8", "replace")) + 1
    text = source[start:end].decode("utf-8", "replace").rstrip()[:LINE_CHARS]
    return Problem(line, column, kind, what, text)


# --- the stretch an edit changed ----------------------------------------------------------


class Window(NamedTuple):
    """The stretch of a source around an edit: ``[start, end)`` in the new text, the
    same stretch ``[start, old_end)`` in the old; the texts are alike up to ``prefix``
    and in their last ``suffix`` bytes."""

    start: int
    end: int
    old_end: int
    prefix: int
    suffix: int

    def lines(self, before: bytes, after: bytes) -> Lines:
        """Where the stretch and the change are in lines (counted only when needed)."""
        changed = before.count(b"\n", 0, self.prefix) + 1
        return Lines(
            first=changed - before.count(b"\n", self.start, self.prefix),
            changed=changed,
            old_last=changed + before.count(b"\n", self.prefix, len(before) - self.suffix),
            new_last=changed + after.count(b"\n", self.prefix, len(after) - self.suffix),
        )


class Lines(NamedTuple):
    """The line a stretch starts on, and the change's lines: from ``changed`` (in both
    texts) through ``old_last`` in the old text and ``new_last`` in the new."""

    first: int
    changed: int
    old_last: int
    new_last: int


def window(language: Language, before: bytes, after: bytes) -> Window:
    """The stretch of ``after`` that an edit of ``before`` changed, cut at top-level
    statements (the whole text where the language has no cuts)."""
    prefix = _common_prefix(before, after)
    suffix = _common_suffix(before, after, prefix)
    cut = _CUTS.get(language.key, _TOP_LEVEL)
    if cut is None:
        return Window(0, len(after), len(before), prefix, suffix)
    start = _cut_before(cut, before, after, prefix)
    line_end = after.find(b"\n", len(after) - suffix)
    end = len(after)
    if line_end >= 0:
        found = cut.search(after, line_end + 1)
        if found is not None and found.start() < len(after):
            end = found.start()
    return Window(start, end, len(before) - (len(after) - end), prefix, suffix)


def _cut_before(cut: re.Pattern[bytes], before: bytes, after: bytes, at: int) -> int:
    """The start of the last line at or before ``at`` where ``cut`` matches in both
    texts (the edit may have made or unmade a statement's start at its first line),
    else 0: looked for a line at a time, back from ``at`` (a definition is seldom
    long)."""
    line_start = after.rfind(b"\n", 0, at) + 1
    while line_start > 0 and (
        cut.match(after, line_start) is None or cut.match(before, line_start) is None
    ):
        line_start = after.rfind(b"\n", 0, line_start - 1) + 1
    return line_start


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the common start of ``a`` and ``b``: a block at a time, then by
    halves within the block that differs. Each comparison is one memcmp of ``a`` in
    place against a view of ``b`` (a slice of bytes would be a copy)."""
    size = min(len(a), len(b))
    view = memoryview(b)
    at = 0
    while at + _BLOCK <= size and a.startswith(view[at : at + _BLOCK], at):
        at += _BLOCK
    low, high = at, min(at + _BLOCK, size)  # a[:low] == b[:low]; a[:high + 1] != ...
    while low < high:
        middle = (low + high + 1) // 2
        if a.startswith(view[at:middle], at):
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: bytes, b: bytes, prefix: int) -> int:
    """The length of the common end of ``a`` and ``b`` that does not reach back into
    their common start (as :func:`_common_prefix`, from the end)."""
    size = min(len(a), len(b)) - prefix
    view = memoryview(b)
    end_a, end_b = len(a), len(b)
    at = 0
    while at + _BLOCK <= size and a.endswith(view[end_b - at - _BLOCK : end_b - at], 0, end_a - at):
        at += _BLOCK
    low, high = at, min(at + _BLOCK, size)
    while low < high:
        middle = (low + high + 1) // 2
        if a.endswith(view[end_b - middle : end_b - at], 0, end_a - at):
            low = middle
        else:
            high = middle - 1
    return low
