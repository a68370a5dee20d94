"""Where a run of whole lines occurs in a file's bytes, compared exactly or more leniently.

A file is read as lines split at ``\\n``; a line's text is what comes before its ``\\n``
and the ``\\r`` of a CRLF (a UTF-8 BOM is not part of the first line; a last line
without a newline keeps all its bytes). Places are byte offsets of line starts.

Exact matches in a file with one kind of line ending (LF only, or CRLF throughout) are
found with one ``bytes.find`` of the lines joined with that ending, on the file's bytes
themselves: nothing is built per line. Other comparisons (a tier that ignores some
whitespace), and files that mix line endings, go through :class:`_Codes`: each line's
key under the comparison is given a 4-byte code from its hash, and the file becomes a
string of codes in which a run of lines is again one ``bytes.find``, each place found
then compared line by line. Either way a search takes time linear in the file (hashes
are salted per process, so lines cannot be made to share codes on purpose), and the
codes take 4 bytes a line.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence

from boris.files.lines import CHUNK
from boris.files.sniff import UTF8_BOM

#: A way of comparing lines: a line's text to the key it is compared by.
Tier = Callable[[bytes], bytes]

# What "whitespace" is at a line's ends: ASCII whitespace, as near_miss compares lines.
_BLANK = b" \t\r\x0b\x0c"
# A code: the bits of a hash kept (7 of each byte), and the first byte's high bit.
_BITS = 0x7F7F7F7F
_MARK = 0x80000000


def exact(line: bytes) -> bytes:
    return line


def trailing(line: bytes) -> bytes:
    """A line without its trailing whitespace."""
    return line.rstrip(_BLANK)


def around(line: bytes) -> bytes:
    """A line without whitespace at either end."""
    return line.strip(_BLANK)


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

    # --- lines at an offset

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
        return self.data.count(b"\n", 0, offset) + (self.tail and offset >= len(self.data))

    def last_lines(self, count: int) -> int:
        """The offset of the first of the file's last ``count`` lines; -1 if it has fewer."""
        if count > self.count:
            return -1
        if count == 0:
            return len(self.data)
        end = len(self.data) if self.tail else len(self.data) - 1
        start = end
        for _ in range(count):
            newline = self.data.rfind(b"\n", 0, end)
            start = newline + 1 if newline >= 0 else self.start
            end = newline
        return start

    def matches_at(self, offset: int, lines: Sequence[bytes], tier: Tier) -> bool:
        """Whether ``lines`` are the lines from ``offset`` on, under ``tier``."""
        for line in lines:
            if offset >= len(self.data) or tier(self.text_at(offset)) != tier(line):
                return False
            offset = self.line_end(offset)
        return True

    # --- searching

    def find(self, lines: Sequence[bytes], offset: int, tier: Tier) -> int:
        """The first place from ``offset`` (a line start) where ``lines`` occur under
        ``tier``; -1 if none."""
        if tier is exact and self.ending is not None:
            return self._find_bytes(lines, offset, inclusive=True)
        return self._codes_of(tier).find(lines, offset)

    def find_after(self, lines: Sequence[bytes], offset: int, tier: Tier) -> int:
        """The first place after ``offset`` (where they occur) where ``lines`` occur."""
        if tier is exact and self.ending is not None:
            return self._find_bytes(lines, offset, inclusive=False)
        return self._codes_of(tier).find(lines, offset, after=True)

    def _find_bytes(self, lines: Sequence[bytes], offset: int, inclusive: bool) -> int:
        assert self.ending is not None
        joined = self.ending.join(lines)
        pattern = joined + self.ending
        data = self.data
        if inclusive and offset == self.start and data.startswith(pattern, offset):
            return offset
        # A "\n" before the lines makes every place found a line start.
        since = offset - 1 if inclusive and offset > self.start else offset
        found = data.find(b"\n" + pattern, since)
        if found >= 0:
            return found + 1
        if self.tail:  # the lines may end with the file's last line, which has no newline
            place = len(data) - len(joined)
            if (
                (place > offset or (inclusive and place == offset))
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

    def _codes_of(self, tier: Tier) -> _Codes:
        if tier not in self._codes:
            self._codes[tier] = _Codes(self, tier)
        return self._codes[tier]


class _Codes:
    """The file's lines under one tier as a string of codes, 4 bytes a line: 28 bits of
    the hash of the line's key, in four bytes of which only the first has its high bit
    set (so a run of codes is only found at a line). Equal keys have equal codes; a
    place whose codes match is compared line by line, so unequal keys that share a code
    cost a little time, never a wrong answer. The line starts of each block of the file
    are kept, to turn a line back into an offset without counting from the start."""

    def __init__(self, file: LineFile, tier: Tier) -> None:
        self._file = file
        self._tier = tier
        self._blocks: list[tuple[int, int]] = []  # (first line, its offset) per block
        parts = []
        data, offset, line = file.data, file.start, 0
        while offset < len(data):
            newline = data.find(b"\n", min(offset + CHUNK, len(data)) - 1)
            stop = len(data) if newline < 0 else newline + 1
            block = data[offset:stop]
            texts = block.split(b"\n")
            tail = texts.pop()  # b"" after a final newline, else the last line
            if b"\r" in block:
                texts = [text[:-1] if text.endswith(b"\r") else text for text in texts]
            if tail:
                texts.append(tail)  # all its bytes are its text
            self._blocks.append((line, offset))
            if tier is trailing:  # the common tiers spelled out: no call per line
                keys = [text.rstrip(_BLANK) for text in texts]
            elif tier is not exact:
                keys = [tier(text) for text in texts]
            else:
                keys = texts
            parts.append(_as_bytes([code & _BITS | _MARK for code in map(hash, keys)]))
            line += len(texts)
            offset = stop
        self._encoded = b"".join(parts)

    def find(self, lines: Sequence[bytes], offset: int, after: bool = False) -> int:
        needle = _as_bytes([hash(self._tier(line)) & _BITS | _MARK for line in lines])
        found = 4 * (self._file.number(offset) + after)
        while True:
            found = self._encoded.find(needle, found)
            if found < 0:
                return -1
            place = self._offset_of(found // 4)
            if self._file.matches_at(place, lines, self._tier):
                return place
            found += 4  # another line with the same code

    def _offset_of(self, line: int) -> int:
        first, offset = self._blocks[bisect_right(self._blocks, (line, sys.maxsize)) - 1]
        for _ in range(line - first):
            offset = self._file.line_end(offset)
        return offset


def _as_bytes(codes: list[int]) -> bytes:
    """Codes as 4 bytes each, the byte with the high bit first."""
    packed = array("I", codes)
    if sys.byteorder == "little":
        packed.byteswap()
    return packed.tobytes()
