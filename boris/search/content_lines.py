"""grep's content output for one file: its match lines and their context, numbered and
labelled, ``--`` between groups, and the first lines before a page only counted.

Grep's worker processes load this module (boris.search.pool): it imports nothing of
the server.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from boris.patterns.line_regex import Matcher
from boris.stop import CHECK_EVERY, Stop, check


class Layout(Protocol):
    """How a search lays out content lines (a :class:`~boris.search.file_search.FileTask`)."""

    @property
    def line_numbers(self) -> bool: ...

    @property
    def before(self) -> int:
        """Lines of context before each match line."""

    @property
    def after(self) -> int:
        """Lines of context after each match line."""

    @property
    def budget(self) -> int | None:
        """The most output lines a file needs to give (None: all)."""

    @property
    def max_chars(self) -> int | None:
        """A file stops giving lines once those it keeps hold more than this many
        characters (None: no limit)."""


class Rendered(NamedTuple):
    """A file's content output: how many of its first output lines were left out
    (counted, never formatted or kept: they fall before the page), the lines after
    them, and whether those were cut short at ``max_chars``."""

    left_out: int
    lines: list[str]
    cut: bool = False


class _Full(Exception):
    """A file has given all the lines a page can show."""


def render_file(
    label: str,
    data: bytes,
    matcher: Matcher,
    task: Layout,
    skip: int = 0,
    stop: Stop | None = None,
) -> Rendered:
    """A file's output lines: match lines and context, ``--`` between groups that do
    not touch (never before the first: the caller separates files). The first
    ``skip`` of them are only counted: a page that starts far into the output costs
    no memory for the lines before it.

    With a budget only enough match lines are found to fill it: one more than the
    budget decides whether the last group merges with the next. With ``max_chars``
    the lines stop once those kept overflow any page (a file of long lines cannot
    swell the output).
    """
    before, after, budget = task.before, task.after, task.budget
    with_context = before > 0 or after > 0
    numbered = task.line_numbers
    max_chars = task.max_chars
    lines = _Lines(data)
    out: list[str] = []
    left_out = 0
    size = 0  # characters of the lines kept
    emitted = -1  # number of the last line emitted (0-based), -1 before the first
    after_until = -1  # after-context of the previous match runs to this line

    def add(line: str) -> None:
        nonlocal size
        out.append(line)
        if max_chars is not None:
            size += len(line) + 1
            if size > max_chars:
                raise _Full

    def emit(number: int, span: tuple[int, int], mark: str) -> None:
        nonlocal left_out
        if left_out < skip:
            left_out += 1
            return
        text = _line_text(data, *span)
        add(f"{label}{mark}{number + 1}{mark}{text}" if numbered else f"{label}{mark}{text}")

    def separate() -> None:
        nonlocal left_out
        if left_out < skip:
            left_out += 1
        else:
            add("--")

    try:
        for found, (start, end) in enumerate(matcher.lines(data), 1):
            number = lines.number_at(start)
            # The previous match's after-context, up to this match.
            while emitted < min(after_until, number - 1):
                emitted += 1
                emit(emitted, lines.span(emitted), "-")
            first = max(number - before, emitted + 1, 0)
            if with_context and emitted >= 0 and first > emitted + 1:
                separate()
            for context_line in range(first, number):
                emit(context_line, lines.span(context_line), "-")
            emit(number, (start, end), ":")
            emitted = number
            after_until = number + after
            if budget is not None and found > budget:
                break
            if not found % CHECK_EVERY:
                check(stop)
        while emitted < after_until and lines.exists(emitted + 1):
            emitted += 1
            emit(emitted, lines.span(emitted), "-")
    except _Full:
        return Rendered(left_out, out, cut=True)
    return Rendered(left_out, out)


def _line_text(data: bytes, start: int, end: int) -> str:
    if end > start and data[end - 1] == 13:  # CRLF: the "\r" is part of the line end
        end -= 1
    return data[start:end].decode("utf-8", "replace")


class _Lines:
    """Line numbers and spans of one buffer, found on demand from a cursor.

    Rendering moves forward through the file (with short steps back for
    before-context), so each lookup scans only the bytes near the previous one.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)
        self.number = 0  # the cursor: a line's number and start offset
        self.start = 0

    def number_at(self, line_start: int) -> int:
        """Number of the line starting at ``line_start``, at or after the cursor."""
        self.number += self.data.count(b"\n", self.start, line_start)
        self.start = line_start
        return self.number

    def span(self, number: int) -> tuple[int, int]:
        """Start and end offsets (newline excluded) of line ``number``, which exists."""
        data = self.data
        while number > self.number:
            self.start = data.find(b"\n", self.start) + 1
            self.number += 1
        while number < self.number:
            self.start = data.rfind(b"\n", 0, self.start - 1) + 1
            self.number -= 1
        end = data.find(b"\n", self.start)
        return self.start, self.size if end < 0 else end

    def exists(self, number: int) -> bool:
        """Whether the file has a line ``number`` (one past the last existing line at most)."""
        end = self.span(number - 1)[1]
        return end + 1 < self.size
