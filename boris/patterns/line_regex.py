"""A grep pattern compiled with RE2 and the lines of a buffer it matches, found in one
pass over the whole buffer.

Semantics are those of a line-by-line grep in Go's regexp dialect: a line matches when
the pattern matches inside it (``^``/``$`` at its ends, never across its newline). Doing
that one line at a time costs a call per line; instead a file's bytes are searched
whole with RE2, compiled so it can never match a newline (``never_nl``) and with
``^``/``$`` at line boundaries (``(?m)``). Only buffers that match pay for turning
offsets into lines. As in Go's line scanner a line's ending ``\\r\\n`` is a line end
(the ``\\r`` is not part of the line), so such buffers are searched with their ``\\r``
before ``\\n`` removed (:meth:`Matcher.prepare`). The few patterns whose meaning
depends on seeing one line alone (``\\A``, ``\\z``) are run line by line.

``multiline`` searches the whole buffer as it is with ``(?ms)``, as ripgrep's
``--multiline --multiline-dotall``: ``.`` crosses lines and ``^``/``$`` still match at
line boundaries; every line a match touches is a match line. Without it, a pattern
with a literal newline could never match, and is refused.

Used by grep (boris.search.file_search, in worker processes too: this module loads
nothing of the server) and by the near-miss hint of the file tools.
"""

from __future__ import annotations

from collections.abc import Iterator

from boris.patterns.re2_raw import Re2Error, SpanSearch, span_search
from boris.patterns.regex_text import cannot_see_carriage_return, has_literal_newline
from boris.stop import CHECK_EVERY, Stop, check


class PatternError(ValueError):
    """The regular expression cannot be used: RE2's message, or why not."""


#: Why a pattern with a literal newline is refused without ``multiline``.
NEWLINE_WITHOUT_MULTILINE = (
    "it contains a literal newline, which never matches because lines are searched "
    "one at a time; set multiline: true to let matches span lines"
)


class Matcher:
    """A compiled grep pattern and how it finds match lines in a file's bytes."""

    def __init__(self, pattern: str, *, case_insensitive: bool, multiline: bool) -> None:
        import re2

        options = re2.Options()
        options.log_errors = False
        options.never_capture = True  # the span of the whole match is all grep needs
        options.case_sensitive = not case_insensitive
        source = pattern.encode()
        # Compiled as written first, so an error message quotes the user's pattern.
        try:
            span_search(source, options)
        except Re2Error as exc:
            raise PatternError(str(exc)) from None
        if not multiline and has_literal_newline(pattern):
            raise PatternError(NEWLINE_WITHOUT_MULTILINE)
        self.multiline = multiline
        self._one_line: SpanSearch | None = None
        if multiline:
            options.dot_nl = True
            self._search = span_search(b"(?m)" + source, options)
            self._per_line = False
        else:
            options.never_nl = True
            self._search = span_search(b"(?m)" + source, options)
            self._one_line = span_search(source, options)
            # \A and \z mean the ends of the line; on a whole buffer, of the file.
            self._per_line = "\\A" in pattern or "\\z" in pattern
        self._cr_blind = multiline or cannot_see_carriage_return(pattern)

    def prepare(self, data: bytes) -> bytes:
        """A file's bytes as the matching methods take them: without the ``\\r`` of
        ``\\r\\n`` line ends (and of a final ``\\r``) unless in multiline mode, or
        unless the pattern cannot tell whether such a ``\\r`` is there."""
        if self._cr_blind or b"\r" not in data:
            return data
        data = data.replace(b"\r\n", b"\n")
        # A final "\r" ends the last line like a newline would.
        return data[:-1] + b"\n" if data.endswith(b"\r") else data

    def matches(self, data: bytes) -> bool:
        """Whether any line of ``data`` matches."""
        if self._per_line:
            return next(self._lines_one_by_one(data), None) is not None
        start = self._search(data, 0, len(data))[0][0]
        return start >= 0 and not _is_past_last_line(data, start)

    def count(self, data: bytes, stop: Stop | None = None) -> int:
        """The number of match lines in ``data`` (the hot loop of count mode).

        Raises :class:`Stopped` soon after ``stop`` is set."""
        if self.multiline:
            return self._count_spanned(data, stop)
        if self._per_line:
            count = 0
            for count, _ in enumerate(self._lines_one_by_one(data), 1):
                if not count % CHECK_EVERY:
                    check(stop)
            return count
        search, find, size = self._search, data.find, len(data)
        pos = count = 0
        while True:
            start = search(data, pos, size)[0][0]
            if start < 0:
                return count
            end = find(b"\n", start)
            if end < 0:  # on the last line, which has no newline, unless past the end
                return count + (0 if _is_past_last_line(data, start) else 1)
            count += 1
            pos = end + 1
            if not count % CHECK_EVERY:
                check(stop)

    def _count_spanned(self, data: bytes, stop: Stop | None) -> int:
        """:meth:`count` in multiline mode: the lines :meth:`_spanned_lines` yields,
        counted without visiting each (a match may span thousands of lines)."""
        search, size = self._search, len(data)
        pos = count = calls = 0
        last_end = -1  # the end of the last line counted
        while pos <= size:
            start, end = search(data, pos, size)[0]
            if start < 0 or _is_past_last_line(data, start):
                break
            last = max(start, end - 1)
            if last > last_end:  # reaches past the lines counted so far
                if start <= last_end:
                    line_start = last_end + 1
                else:
                    line_start = data.rfind(b"\n", max(last_end, 0), start) + 1
                count += data.count(b"\n", line_start, last) + 1
                last_end = data.find(b"\n", last, size)
                if last_end < 0:
                    last_end = size
            pos = end if end > start else end + 1
            calls += 1
            if not calls % CHECK_EVERY:
                check(stop)
        return count

    def lines(self, data: bytes) -> Iterator[tuple[int, int]]:
        """``(start, end)`` byte offsets of each match line (without its newline), in
        order, each once."""
        if self.multiline:
            return self._spanned_lines(data)
        if self._per_line:
            return self._lines_one_by_one(data)
        return self._lines_whole_buffer(data)

    def _lines_whole_buffer(self, data: bytes) -> Iterator[tuple[int, int]]:
        search, size = self._search, len(data)
        pos = 0
        while pos <= size:
            start = search(data, pos, size)[0][0]
            if start < 0 or _is_past_last_line(data, start):
                return
            line_start = data.rfind(b"\n", pos, start) + 1 or pos
            line_end = data.find(b"\n", start, size)
            if line_end < 0:
                line_end = size
            yield line_start, line_end
            pos = line_end + 1

    def _lines_one_by_one(self, data: bytes) -> Iterator[tuple[int, int]]:
        search = self._one_line
        assert search is not None
        view = memoryview(data)
        for start, end in _all_lines(data):
            # A line alone, so that \A and \z see its ends.
            if search(view[start:end], 0, end - start)[0][0] >= 0:
                yield start, end

    def _spanned_lines(self, data: bytes) -> Iterator[tuple[int, int]]:
        # Linear: every byte is looked at a bounded number of times. A match that
        # starts on a line already yielded only adds the lines after it, found from
        # the end of that line on (never by scanning that line again: on a one-line
        # file of a million matches that would be a million scans of the line).
        search, size = self._search, len(data)
        pos = 0
        last_end = -1  # the end of the last line yielded
        while pos <= size:
            start, end = search(data, pos, size)[0]
            if start < 0 or _is_past_last_line(data, start):
                return
            if start <= last_end:  # begins on a line yielded already
                line_start = last_end + 1
            else:  # the search stops at the newline ending the last line yielded
                line_start = data.rfind(b"\n", max(last_end, 0), start) + 1
            last = max(start, end - 1)
            while line_start <= last:
                line_end = data.find(b"\n", line_start, size)
                if line_end < 0:
                    line_end = size
                yield line_start, line_end
                last_end = line_end
                line_start = line_end + 1
            pos = end if end > start else end + 1


def _is_past_last_line(data: bytes, offset: int) -> bool:
    # A file ending in "\n" has no line after it (an empty one has none at all): an
    # empty match there is not on a line.
    return offset == len(data) and (offset == 0 or data[offset - 1] == 10)


def _all_lines(data: bytes) -> Iterator[tuple[int, int]]:
    size, start = len(data), 0
    while start < size:
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        yield start, end
        start = end + 1
