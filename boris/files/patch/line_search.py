"""Where a run of whole lines occurs in a file's bytes, compared exactly or more leniently.

A file is read as lines split at ``\\n``; a line's text is what comes before its ``\\n``
and the ``\\r`` of a CRLF (a UTF-8 BOM is not part of the first line; a last line
without a newline keeps all its bytes). Places are byte offsets of line starts. The
lines looked for are :class:`Lines`: one bytes string, each line followed by ``\\n``,
never a list of them (a hunk may have millions of lines).

Exact matches in a file with one kind of line ending (LF only, or CRLF throughout) are
found with one ``bytes.find`` of the lines joined with that ending, on the file's bytes
themselves: nothing is built per line. Other comparisons (a tier that ignores some
whitespace), and files that mix line endings, go through :class:`_Codes`: each line's
key under the comparison is given a 4-byte code from its hash, and the file becomes a
string of codes in which a run of lines is again one ``bytes.find``, each place found
then compared line by line. Either way a search takes time linear in the part of the
file it looks through (hashes are salted per process, so lines cannot be made to share
codes on purpose), and the codes take 4 bytes a line.

A search may be bounded (``before``): places are looked for only up to there, so that a
caller looking at many places in turn (the hunks of a patch) looks at each part of the
file a bounded number of times. Line numbers and line offsets are turned into each
other through :class:`_LineIndex`, the line number at every ``_STEP``-th byte, never by
counting from the start of the file.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence

from boris.files.lines import CHUNK
from boris.files.sniff import UTF8_BOM

#: A way of comparing lines: a line's text to the key it is compared by.
Tier = Callable[[bytes], bytes]

# What "whitespace" is at a line's ends: ASCII whitespace, as near_miss compares lines.
_BLANK = b" \t\r\x0b\x0c"
# A code: the bits of a hash kept (7 of each byte), and the high bit of its top byte.
_BITS = 0x7F7F7F7F
_MARK = 0x80000000
# Bytes between two places the line index keeps; a call of LineFile.after walks at most
# this many lines itself.
_STEP = 1024
_WALKED = 64
# The bytes of lines of a pattern turned into codes (or compared) at once, about.
_PIECE = 1 << 16
# Whitespace ending a line (before its newline, or the end of the file).
_TRAILING_BLANKS = re.compile(rb"[ \t\r\x0b\x0c]+\n")
# Every blank but CR made one byte, NUL (a NUL in the file is then taken for a blank:
# that only sends a search the slower way).
_ONE_BLANK = bytes.maketrans(b" \t\x0b\x0c", b"\x00\x00\x00\x00")


def exact(line: bytes) -> bytes:
    return line


def trailing(line: bytes) -> bytes:
    """A line without its trailing whitespace."""
    return line.rstrip(_BLANK)


def around(line: bytes) -> bytes:
    """A line without whitespace at either end."""
    return line.strip(_BLANK)


class Lines:
    """Lines to look for: their texts, each followed by ``\\n``, in one bytes string."""

    def __init__(self, text: bytes) -> None:
        assert not text or text.endswith(b"\n"), text[-20:]
        self.text = text
        self.count = text.count(b"\n")
        self._stripped: Lines | None = None
        self._index: _LineIndex | None = None

    @classmethod
    def of(cls, lines: Sequence[bytes]) -> Lines:
        return cls(b"".join(line + b"\n" for line in lines))

    def head(self, count: int) -> Lines:
        """The first ``count`` lines."""
        if count >= self.count:
            return self
        head = Lines(self.text[: self._lines().offset_of(count)])
        if self._stripped is not None:  # it is the head of the stripped lines
            head._stripped = self._stripped.head(count)
        return head

    def _lines(self) -> _LineIndex:
        if self._index is None:
            self._index = _LineIndex(self.text, 0, self.count, tail=False)
        return self._index

    def line(self, index: int) -> bytes:
        """The text of line ``index`` (from 0)."""
        return self.head(index + 1).text[:-1].rpartition(b"\n")[2]

    def leading(self, most: int) -> list[bytes]:
        """The texts of the first lines, up to the first that is not blank and at most
        ``most`` of them: all a hint about the first non-blank line needs."""
        texts = []
        for text in self.pieces(most):
            texts.append(text)
            if text.strip(_BLANK):
                break
        return texts

    def pieces(self, most: int) -> Iterator[bytes]:
        """The texts of the lines, one at a time, at most ``most``."""
        start = 0
        for _ in range(min(most, self.count)):
            end = self.text.index(b"\n", start)
            yield self.text[start:end]
            start = end + 1

    def chunks(self) -> Iterator[bytes]:
        """The lines, about ``_PIECE`` bytes of them at a time, each followed by ``\n``."""
        for start, stop in _spans(self.text, 0, _PIECE):
            yield self.text[start:stop]

    def blocks(self) -> Iterator[list[bytes]]:
        """The texts of the lines, a list of about ``_PIECE`` bytes of them at a time."""
        for chunk in self.chunks():
            yield chunk[:-1].split(b"\n")

    def without_trailing_blanks(self) -> Lines:
        """The lines, each without its trailing whitespace."""
        if self._stripped is None:
            self._stripped = Lines(_TRAILING_BLANKS.sub(b"\n", self.text))
        return self._stripped

    def joined(self, ending: bytes) -> bytes:
        """The lines joined with ``ending``, which also follows the last one."""
        return self.text if ending == b"\n" else self.text.replace(b"\n", ending)


def _spans(data: bytes, start: int, size: int) -> Iterator[tuple[int, int]]:
    """From ``start`` to the end of ``data``, spans of whole lines of a little over
    ``size`` bytes (the last may end without a newline)."""
    while start < len(data):
        stop = data.find(b"\n", start + size) + 1 or len(data)
        yield start, stop
        start = stop


def _after_lines(text: bytes, start: int, count: int) -> int:
    """The offset after ``count`` lines from ``start`` (or the end of ``text``)."""
    end = start
    for _ in range(count):
        newline = text.find(b"\n", end)
        if newline < 0:
            return len(text)
        end = newline + 1
    return end


class LineFile:
    """A file's bytes, searched for runs of lines."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
        #: The offset of the first line.
        self.start = len(self.bom)
        #: The file has a last line without a newline.
        self.tail = len(data) > self.start and not data.endswith(b"\n")
        newlines = data.count(b"\n")
        self.count = newlines + self.tail
        crlf = data.count(b"\r\n")
        #: The file's one line ending (LF if it has none), None if it mixes LF and CRLF.
        self.ending: bytes | None = b"\n" if not crlf else b"\r\n" if crlf == newlines else None
        #: The line ending added lines take: CRLF only in a file that uses it throughout.
        self.eol = b"\r\n" if self.ending == b"\r\n" else b"\n"
        self._codes: dict[Tier, _Codes] = {}
        self._index: _LineIndex | None = None
        # From where to where no line is known to end in whitespace (nowhere yet).
        self._no_blank_ended = (self.start, self.start)

    # --- lines at an offset, and their numbers

    def line_end(self, offset: int) -> int:
        """The offset just past the line starting at ``offset`` (and its newline)."""
        newline = self.data.find(b"\n", offset)
        return len(self.data) if newline < 0 else newline + 1

    def text_at(self, offset: int) -> bytes:
        """The text of the line starting at ``offset``."""
        newline = self.data.find(b"\n", offset)
        if newline < 0:
            return self.data[offset:]
        return self.data[offset:newline].removesuffix(b"\r")

    def number(self, offset: int) -> int:
        """How many lines come before ``offset`` (a line start, or the end of the file):
        the number of the line that ends there."""
        return self.index.number(offset)

    def offset_of(self, line: int) -> int:
        """The offset of line ``line`` (from 0); the end of the file past the last."""
        return self.index.offset_of(line)

    def after(self, offset: int, count: int) -> int:
        """The offset ``count`` lines after ``offset`` (a line start)."""
        if count <= _WALKED:
            return _after_lines(self.data, offset, count)
        return self.offset_of(self.number(offset) + count)

    @property
    def index(self) -> _LineIndex:
        if self._index is None:
            self._index = _LineIndex(self.data, self.start, self.count, tail=self.tail)
        return self._index

    def last_lines(self, count: int) -> int:
        """The offset of the first of the file's last ``count`` lines; -1 if it has fewer."""
        if count > self.count:
            return -1
        if count == 0:
            return len(self.data)
        return self.offset_of(self.count - count)

    def matches_at(self, offset: int, lines: Lines, tier: Tier) -> bool:
        """Whether ``lines`` are the lines from ``offset`` on, under ``tier``: ``offset``
        is a line start with at least ``lines.count`` lines from it."""
        for wanted in lines.chunks():
            end = self.after(offset, wanted.count(b"\n"))
            have = self.data[offset:end].replace(b"\r\n", b"\n")
            if not have.endswith(b"\n"):  # the file's last line: all its bytes are its text
                have += b"\n"
            offset = end
            if have == wanted:  # the same bytes: equal however lines are compared
                continue
            if tier is exact:
                return False
            texts = have[:-1].split(b"\n")
            if [tier(text) for text in texts] != [tier(text) for text in wanted[:-1].split(b"\n")]:
                return False
        return True

    # --- searching

    def find(self, lines: Lines, offset: int, tier: Tier, before: int | None = None) -> int:
        """The first place from ``offset`` (a line start), and before ``before`` if
        given, where ``lines`` (one or more) occur under ``tier``; -1 if none."""
        if before is None:
            before = len(self.data) + 1
        if before <= offset:
            return -1
        if self.ending is not None:
            if tier is exact:
                return self._find_bytes(lines, offset, before)
            if tier is trailing:
                return self._find_trailing(lines, offset, before)
        return self._codes_of(tier).find(lines, offset, before)

    def _find_trailing(self, lines: Lines, offset: int, before: int) -> int:
        """:meth:`find` without trailing whitespace, on the bytes where no line ends in
        whitespace: the lines looked for, without theirs, are found as they are. Where
        the file has such a line before that place, through the codes."""
        found = self._find_bytes(lines.without_trailing_blanks(), offset, before)
        # An earlier place could only match through a line of the file that ends in
        # whitespace, among the lines a place before this one covers.
        end = found if found >= 0 else min(before, len(self.data))
        if not self._blank_ended(offset, self.after(end, lines.count)):
            return found
        return self._codes_of(trailing).find(lines, offset, before)

    def _blank_ended(self, start: int, end: int) -> bool:
        """Whether a line of the file between ``start`` and ``end`` (line starts, or the
        end of the file) ends in whitespace (CRLF files: before the CR)."""
        if end <= start:
            return False
        # Searches from one place with other ends (a hunk's lines halved for a hint)
        # look at each part once.
        known_start, known_end = self._no_blank_ended
        if known_start == start and end <= known_end:
            return False
        scan = known_end if known_start == start else start
        if self._blank_ended_in(scan, end):
            return True
        self._no_blank_ended = (start, end)
        return False

    def _blank_ended_in(self, start: int, end: int) -> bool:
        # One pass: every kind of blank made one byte, then one search for it before a
        # line ending (five searches of the bytes as they are would be five passes), a
        # piece at a time (a copy of a piece, not of the file); pieces overlap by the
        # two bytes before a newline.
        if self.ending == b"\r\n":
            needles: tuple[bytes, ...] = (b"\x00\r\n", b"\r\r\n")
        else:  # a CR before an LF would make the file one that mixes line endings
            needles = (b"\x00\n",)
        at = start
        while at < end:
            stop = min(at + _PIECE, end)
            region = self.data[max(start, at - 2) : stop].translate(_ONE_BLANK)
            if any(needle in region for needle in needles):
                return True
            at = stop
        last = self.data[end - 1 : end].translate(_ONE_BLANK)
        return end >= len(self.data) and self.tail and last in (b"\x00", b"\r")

    def places(
        self, lines: Lines, offset: int, tier: Tier, before: int | None, most: int
    ) -> list[int]:
        """The first ``most`` places, as :meth:`find` finds them one after the other."""
        found: list[int] = []
        while len(found) < most:
            place = self.find(lines, offset, tier, before)
            if place < 0:
                break
            found.append(place)
            offset = self.line_end(place)
        return found

    def _find_bytes(self, lines: Lines, offset: int, before: int) -> int:
        assert self.ending is not None
        pattern = lines.joined(self.ending)
        data = self.data
        if offset == self.start and data.startswith(pattern, offset):
            return offset
        # A "\n" before the lines makes every place found a line start.
        found = data.find(b"\n" + pattern, max(offset - 1, 0), before - 1 + len(pattern))
        if found >= 0:
            return found + 1
        if self.tail:  # the lines may end with the file's last line, which has no newline
            joined = pattern[: -len(self.ending)]
            place = len(data) - len(joined)
            if (
                offset <= place < before
                and (place == self.start or data[place - 1 : place] == b"\n")
                and data.endswith(joined)
            ):
                return place
        return -1

    def forget(self) -> None:
        """Drop the codes made for searches: they take memory in proportion to the file,
        and an error raised from a search keeps this object alive as long as its
        traceback lives."""
        self._codes.clear()
        self._index = None

    def _codes_of(self, tier: Tier) -> _Codes:
        if tier not in self._codes:
            self._codes[tier] = _Codes(self, tier)
        return self._codes[tier]


class _LineIndex:
    """The number of the line at every ``_STEP``-th byte of a text (from ``start``, its
    first line's offset): the number of the line at an offset is one count of newlines
    within a step, the offset of a line one bisection and a walk within a step. Made
    with a count per step, at the speed of memchr."""

    def __init__(self, data: bytes, start: int, count: int, *, tail: bool) -> None:
        self._data = data
        self._start = start
        self._count = count  # lines, the last without a newline counted if ``tail``
        self._tail = tail
        numbers = array("q", [0])  # lines before each step's first byte
        for at in range(start, len(data) - _STEP, _STEP):
            numbers.append(numbers[-1] + data.count(b"\n", at, at + _STEP))
        self._numbers = numbers

    def number(self, offset: int) -> int:
        if offset <= self._start:
            return 0
        step = min((offset - self._start) // _STEP, len(self._numbers) - 1)
        at = self._start + step * _STEP
        counted = self._numbers[step] + self._data.count(b"\n", at, offset)
        return counted + (self._tail and offset >= len(self._data))

    def offset_of(self, line: int) -> int:
        if line <= 0:
            return self._start
        if line >= self._count:
            return len(self._data)
        # The step holding the newline that ends line ``line - 1``.
        step = bisect_left(self._numbers, line) - 1
        at = self._start + step * _STEP
        return _after_lines(self._data, at, line - self._numbers[step])


class _Codes:
    """The file's lines under one tier as a string of codes, 4 bytes a line: 28 bits of
    the hash of the line's key, in four bytes of which only one, the same in every code,
    has its high bit set (so a run of codes is only found at a line). Equal keys have
    equal codes; a place whose codes match is compared line by line, so unequal keys
    that share a code cost a little time, never a wrong answer."""

    def __init__(self, file: LineFile, tier: Tier) -> None:
        self._file = file
        self._tier = tier
        parts = []
        for start, stop in _spans(file.data, file.start, CHUNK):
            block = file.data[start:stop]
            texts = block.split(b"\n")
            tail = texts.pop()  # b"" after a final newline, else the last line
            if b"\r" in block:
                texts = [text[:-1] if text.endswith(b"\r") else text for text in texts]
            if tail:
                texts.append(tail)  # all its bytes are its text
            parts.append(_encode(texts, tier))
        self._encoded = b"".join(parts)

    def find(self, lines: Lines, offset: int, before: int) -> int:
        needle = b"".join(_encode(block, self._tier) for block in lines.blocks())
        file = self._file
        found = 4 * file.number(offset)
        # The codes of a place before ``before`` (at the latest, the line holding the
        # byte before it) end by here.
        end = 4 * file.number(min(before, len(file.data)) - 1) + len(needle)
        while True:
            found = self._encoded.find(needle, found, end)
            if found < 0:
                return -1
            place = file.offset_of(found // 4)
            if file.matches_at(place, lines, self._tier):
                return place
            found += 4  # another line with the same code


def _encode(texts: list[bytes], tier: Tier) -> bytes:
    """The codes of lines, 4 bytes each, in the machine's byte order (the byte with the
    high bit is the same one of the four in every code either way)."""
    if tier is trailing:  # the tiers spelled out: no call per line
        texts = [text.rstrip(_BLANK) for text in texts]
    elif tier is around:
        texts = [text.strip(_BLANK) for text in texts]
    else:
        assert tier is exact
    return array("I", [hash(key) & _BITS | _MARK for key in texts]).tobytes()
