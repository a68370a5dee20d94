"""Searching one file: RE2 over its whole buffer, matches mapped to lines afterwards.

Semantics are those of a line-by-line grep in Go's regexp dialect: a line matches when
the pattern matches inside it (``^``/``$`` at its ends, never across its newline). Doing
that one line at a time costs a call per line; instead each file is read as bytes in
one go and searched whole with RE2, compiled so it can never match a newline
(``never_nl``) and with ``^``/``$`` at line boundaries (``(?m)``). Only files that
match pay for turning offsets into line numbers. As in Go's line scanner a line's
ending ``\\r\\n`` is a line end (the ``\\r`` is not part of the line), so such files are
searched with their ``\\r`` before ``\\n`` removed. The few patterns whose meaning depends
on seeing one line alone (``\\A``, ``\\z``) are run line by line.

``multiline`` searches the whole file as it is with ``(?ms)``, as ripgrep's
``--multiline --multiline-dotall``: ``.`` crosses lines and ``^``/``$`` still match at
line boundaries; every line a match touches is a match line. Without it, a pattern
with a literal newline could never match, and is refused.

Files are read whole. A NUL byte anywhere makes a file binary, and it is skipped. As
in ripgrep, a UTF-8 byte order mark is not part of the text, and a file starting with
a UTF-16 one is searched as the text it encodes (turned into UTF-8 first).

This module imports nothing of the server: worker processes (boris.search.pool) load it
to search files in parallel.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from boris.files.sniff import UTF8_BOM, UTF16_BE_BOM, UTF16_LE_BOM

#: The first read of every file: all of most source files, and no more of a longer
#: one before a NUL in it shows it is binary: a good part of a tree can be binaries
#: (compiled files, libraries) that are never searched.
_FIRST_READ = 1 << 12

#: Opening a file to read, whatever it turns out to be: a FIFO or a device never
#: blocks the open, and its type is then checked on the descriptor.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


class PatternError(ValueError):
    """The regular expression cannot be used: RE2's message, or why not."""


class Stopped(Exception):
    """The search was called off (its call was cancelled): nobody waits for its result."""


class Stop(Protocol):
    """What tells a search to stop (a :class:`threading.Event`)."""

    def is_set(self) -> bool: ...


#: Matches (or files) between two looks at whether a search was called off.
CHECK_EVERY = 4096


def check(stop: Stop | None) -> None:
    """Raise :class:`Stopped` if ``stop`` is set."""
    if stop is not None and stop.is_set():
        raise Stopped


#: Why a pattern with a literal newline is refused without ``multiline``.
NEWLINE_WITHOUT_MULTILINE = (
    "it contains a literal newline, which never matches because lines are searched "
    "one at a time; set multiline: true to let matches span lines"
)


# --- the pattern -------------------------------------------------------------------


class Matcher:
    """A compiled grep pattern and how it finds match lines in a file's bytes."""

    def __init__(self, pattern: str, *, case_insensitive: bool, multiline: bool) -> None:
        import re2

        # The extension's RE2 class itself, not the re-like wrapper around it: its Match
        # takes any buffer and returns plain spans, with none of the wrapper's per-call
        # generator and match objects (the count loop calls it once per match line).
        compile_regex = re2._re2.RE2
        options = re2.Options()
        options.log_errors = False
        options.never_capture = True  # the span of the whole match is all grep needs
        options.case_sensitive = not case_insensitive
        source = pattern.encode()
        # Compiled as written first, so an error message quotes the user's pattern.
        checked = compile_regex(source, options)
        if not checked.ok():
            raise PatternError(checked.error().decode("utf-8", "replace"))
        if not multiline and has_literal_newline(pattern):
            raise PatternError(NEWLINE_WITHOUT_MULTILINE)
        self.multiline = multiline
        self._anchor = re2._re2.RE2.Anchor.UNANCHORED
        if multiline:
            options.dot_nl = True
            self._regex: Any = compile_regex(b"(?m)" + source, options)
            self._one_line: Any = None
            self._per_line = False
        else:
            options.never_nl = True
            self._regex = compile_regex(b"(?m)" + source, options)
            self._one_line = compile_regex(source, options)
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
        start = self._regex.Match(self._anchor, data, 0, len(data))[0][0]
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
        match, anchor, find, size = self._regex.Match, self._anchor, data.find, len(data)
        pos = count = 0
        while True:
            start = match(anchor, data, pos, size)[0][0]
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
        match, anchor, size = self._regex.Match, self._anchor, len(data)
        pos = count = calls = 0
        last_end = -1  # the end of the last line counted
        while pos <= size:
            start, end = match(anchor, data, pos, size)[0]
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
        match, anchor, size = self._regex.Match, self._anchor, len(data)
        pos = 0
        while pos <= size:
            start = match(anchor, data, pos, size)[0][0]
            if start < 0 or _is_past_last_line(data, start):
                return
            line_start = data.rfind(b"\n", pos, start) + 1 or pos
            line_end = data.find(b"\n", start, size)
            if line_end < 0:
                line_end = size
            yield line_start, line_end
            pos = line_end + 1

    def _lines_one_by_one(self, data: bytes) -> Iterator[tuple[int, int]]:
        match, anchor = self._one_line.Match, self._anchor
        view = memoryview(data)
        for start, end in _all_lines(data):
            # A line alone, so that \A and \z see its ends.
            if match(anchor, view[start:end], 0, end - start)[0][0] >= 0:
                yield start, end

    def _spanned_lines(self, data: bytes) -> Iterator[tuple[int, int]]:
        # Linear: every byte is looked at a bounded number of times. A match that
        # starts on a line already yielded only adds the lines after it, found from
        # the end of that line on (never by scanning that line again: on a one-line
        # file of a million matches that would be a million scans of the line).
        match, anchor, size = self._regex.Match, self._anchor, len(data)
        pos = 0
        last_end = -1  # the end of the last line yielded
        while pos <= size:
            start, end = match(anchor, data, pos, size)[0]
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


#: Escapes that match neither a carriage return nor an end of line, in and outside
#: a character class.
_BLIND_ESCAPES = frozenset("wdbBA")
_BLIND_CLASS_ESCAPES = frozenset("wd")


def cannot_see_carriage_return(pattern: str) -> bool:
    """Whether ``pattern`` surely matches a line the same with or without a ``\\r``
    at its end: it has no ``$`` and nothing that can match a ``\\r`` (``.``, ``\\s``,
    negated classes, control characters, most escapes). Such patterns are run on
    CRLF files as they are, sparing a scan and a copy of every file.

    Conservative: anything it does not recognise counts as seeing the ``\\r``.
    """
    if "\\Q" in pattern:
        return False  # quoted text would need its own parsing
    in_class = False
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch < " ":
            return False  # a literal control character, maybe "\r" itself
        if ch == "\\":
            escaped = pattern[i + 1] if i + 1 < n else ""
            allowed = _BLIND_CLASS_ESCAPES if in_class else _BLIND_ESCAPES
            punctuation = " " < escaped < "\x7f" and not escaped.isalnum()
            if not (escaped in allowed or punctuation):
                return False
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif pattern.startswith("[:", i):
                return False  # a POSIX class such as [:space:]
        elif ch in "$.":
            return False
        elif ch == "[":
            if pattern.startswith(("[^", "[]"), i):
                return False
            in_class = True
        i += 1
    return True


def has_literal_newline(pattern: str) -> bool:
    """Whether ``pattern`` (valid RE2) writes a newline as a literal character: typed
    as is (also inside ``\\Q...\\E``), as an escape (``\\n``, ``\\x0A``,
    ``\\x{A}``, ``\\012``), or as a character class that holds nothing else
    (``[\\n]``).

    Line-by-line matching can never match such a newline, and ripgrep refuses
    these patterns the same way. What merely *may* match a newline (``\\s``,
    ``[^a]``, ``(?s).``) is fine: it just never does, as in ripgrep.
    """
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\n":
            return True
        if ch == "\\":
            if pattern.startswith("Q", i + 1):
                end = pattern.find("\\E", i + 2)
                quoted = pattern[i + 2 : n if end < 0 else end]
                if "\n" in quoted:
                    return True
                i = n if end < 0 else end + 2
                continue
            value, i = _escape(pattern, i)
            if value == 10:
                return True
            continue
        if ch == "[":
            end = _class_end(pattern, i)
            if _is_newline_class(pattern[i:end]):
                return True
            i = end
            continue
        i += 1
    return False


def _escape(pattern: str, i: int) -> tuple[int | None, int]:
    """The character an escape at ``i`` stands for (None for one that stands for a
    class or an assertion) and the index after it."""
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    if letter == "n":
        return 10, i + 2
    if letter == "x":
        if pattern.startswith("{", i + 2):
            end = pattern.find("}", i + 3)
            return int(pattern[i + 3 : end], 16), end + 1
        return int(pattern[i + 2 : i + 4], 16), i + 4
    if "0" <= letter <= "7":  # octal: \0 with up to two more digits, \1-\7 with one or two
        end = i + 2
        while end < min(i + 4, len(pattern)) and "0" <= pattern[end] <= "7":
            end += 1
        return int(pattern[i + 1 : end], 8), end
    if letter in "pP":
        if pattern.startswith("{", i + 2):
            return None, pattern.find("}", i + 3) + 1
        return None, i + 3
    return None, i + 2


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class that opens at ``start``, with RE2's
    rules: a ``]`` right after ``[`` or ``[^`` is a member, ``[:name:]`` is one."""
    i, n = start + 1, len(pattern)
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):
        i += 1
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
        elif ch == "]":
            return i + 1
        elif pattern.startswith("[:", i) and (close := pattern.find(":]", i + 2)) >= 0:
            i = close + 2
        else:
            i += 1
    return n


def _is_newline_class(text: str) -> bool:
    """Whether the character class ``text`` holds the newline and nothing else."""
    if "\\" not in text and "\n" not in text and not text.startswith("[^"):
        return False  # plain members: it cannot be the newline alone
    return _matches_only_newline(text)


@functools.lru_cache(maxsize=256)
def _matches_only_newline(regex: str) -> bool:
    import re2

    options = re2.Options()
    options.log_errors = False
    compiled = re2._re2.RE2(regex.encode(), options)
    # For one character, the least and greatest possible matches are equal only
    # when it can be just one character.
    return bool(compiled.ok() and compiled.PossibleMatchRange(2) == (True, b"\n", b"\n"))


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


# --- reading files -----------------------------------------------------------------


def read_text_file(path: str, max_size: int) -> bytes | None:
    """The text of a regular file of at most ``max_size`` bytes, as the bytes grep
    searches (see :func:`as_text`); None for a file grep skips (binary, too large,
    empty, not a regular file, unreadable)."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = _read_text(fd, max_size)
        if data is None or is_binary(data) or not _is_regular(fd):
            return None
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def is_binary(text: bytes) -> bool:
    """Whether a file's text (see :func:`as_text`) holds a NUL: it is binary, as in
    ripgrep, wherever the NUL is."""
    return text.find(b"\0") >= 0


def _read_text(fd: int, max_size: int) -> bytes | None:
    """The text of the open file ``fd`` as :func:`as_text` gives it; None for a file
    grep skips, though a binary file may still be returned: the caller tests
    :func:`is_binary` (only once the text matches, which most do not).

    Most files take one read and no other system call: a read shorter than asked is
    the end of a regular file, and asking one byte more than ``max_size`` shows a
    file that is too large. A longer file is looked at on its descriptor (its type
    and size) before the rest of it is read, unless its first part shows a NUL. The
    type of a short file is checked by the caller once it has a result
    (:func:`_is_regular`): a FIFO or a device that took a file's place gives at most
    one non-blocking read and never a result.
    """
    data = os.read(fd, min(_FIRST_READ, max_size + 1))
    if not data or len(data) > max_size:
        return None
    bom = data[0] in _BOM_FIRST_BYTES
    # A NUL in the first part is binary (UTF-16 text is full of them): no more
    # of it is read. One further on is found once the text matches.
    if data.find(b"\0") >= 0 and not (bom and data.startswith((UTF16_LE_BOM, UTF16_BE_BOM))):
        return None
    if len(data) == _FIRST_READ:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_size:
            return None
        data = _read_rest(fd, info.st_size)
    if bom:
        data = as_text(data)
    return data or None


def _is_regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


#: The first bytes of the byte order marks: only files starting with one of them
#: need a closer look.
_BOM_FIRST_BYTES = frozenset({UTF8_BOM[0], UTF16_LE_BOM[0], UTF16_BE_BOM[0]})


def as_text(data: bytes) -> bytes:
    """A file's bytes as grep searches them. As in ripgrep, a UTF-8 byte order mark is
    dropped, and a file that starts with a UTF-16 one is decoded (invalid sequences
    become U+FFFD) and searched as UTF-8."""
    if data.startswith(UTF8_BOM):
        return data[len(UTF8_BOM) :]
    if data.startswith(UTF16_LE_BOM):
        return data[len(UTF16_LE_BOM) :].decode("utf-16-le", "replace").encode()
    if data.startswith(UTF16_BE_BOM):
        return data[len(UTF16_BE_BOM) :].decode("utf-16-be", "replace").encode()
    return data


def _read_rest(fd: int, size: int) -> bytes:
    """The ``size`` bytes of a regular file whose first bytes were read already.

    The file is read again from its start into one buffer: joining its first bytes
    and the rest would hold the file twice at once (and copy it once more), for a
    few kilobytes read twice.
    """
    data = os.pread(fd, size, 0)
    if len(data) >= size or not data:
        return data
    parts = [data]  # a short read: read on until the size or the end
    have = len(data)
    while have < size:
        chunk = os.pread(fd, size - have, have)
        if not chunk:
            break
        parts.append(chunk)
        have += len(chunk)
    return b"".join(parts)


# --- one file, one task -------------------------------------------------------------

#: The output modes; the first is the default.
OUTPUT_MODES = ("files_with_matches", "content", "count")


@dataclass(frozen=True)
class FileTask:
    """What to do with each file of a search, as plain data: it travels to worker
    processes, which compile the pattern themselves."""

    pattern: str
    case_insensitive: bool
    multiline: bool
    output_mode: str
    max_size: int
    line_numbers: bool = True
    before: int = 0
    after: int = 0
    #: content mode: the most output lines a file needs to give (None: all).
    budget: int | None = None
    #: content mode: a file stops giving lines once those it keeps (see
    #: :class:`Rendered`) hold more than this many characters, more than any page
    #: shows (None: no limit).
    max_chars: int | None = None

    def matcher(self) -> Matcher:
        return compiled(self.pattern, self.case_insensitive, self.multiline)


@functools.lru_cache(maxsize=32)
def compiled(pattern: str, case_insensitive: bool, multiline: bool) -> Matcher:
    """The Matcher of a pattern, compiled once per process."""
    return Matcher(pattern, case_insensitive=case_insensitive, multiline=multiline)


class Rendered(NamedTuple):
    """A file's content output: how many of its first output lines were left out
    (counted, never formatted or kept: they fall before the page), the lines after
    them, and whether those were cut short at ``max_chars``."""

    left_out: int
    lines: list[str]
    cut: bool = False


#: A file's result: its mtime (files_with_matches), its count of match lines (count)
#: or its output lines (content); None when the file has no match or is skipped.
Result = int | Rendered | None


def search_file(
    task: FileTask,
    matcher: Matcher,
    label: str,
    path: str,
    skip: int = 0,
    stop: Stop | None = None,
) -> Result:
    """Read and search one file; ``label`` is how content lines name it, and content
    leaves out (counts) the file's first ``skip`` output lines. Raises
    :class:`Stopped` soon after ``stop`` is set, however large the file."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = _read_text(fd, task.max_size)
        if data is None:
            return None
        data = matcher.prepare(data)
        mode = task.output_mode
        # A binary file is told only once it matches: most files do not, and are then
        # spared a scan for a NUL; the same goes for the descriptor's type and mtime.
        result: Result
        if mode == "count":
            result = matcher.count(data, stop) or None
        elif mode == "content":
            rendered = render_file(label, data, matcher, task, skip, stop)
            result = rendered if rendered.left_out or rendered.lines else None
        else:
            result = 0 if matcher.matches(data) else None
        if result is None or is_binary(data):
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        return info.st_mtime_ns if mode == "files_with_matches" else result
    except OSError:
        return None
    finally:
        os.close(fd)


# --- content lines --------------------------------------------------------------------


class _Full(Exception):
    """A file has given all the lines a page can show."""


def render_file(
    label: str,
    data: bytes,
    matcher: Matcher,
    task: FileTask,
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
