"""A file's lines: read a chunk at a time (``CHUNK``), shown in the view line format, and
shown around an edit (snippets); with the size and the image a view shows.

Shared by view, str_replace, create_file and the compat editor, so the four show lines
the same way:

- lines are split on ``\\n`` only; a CR before it is not shown, a lone CR is content;
- the view line format: right-aligned number (width of the last number shown), a tab,
  the line decoded as UTF-8 (invalid bytes shown as U+FFFD), cut at 2000 characters;
- a line too long to need more than its head (LONG_LINE_BYTES) is read without being
  kept: its head and its length in characters are (LongLine), shown as it would be.

Writing is :mod:`boris.files.writing`'s; opening, :mod:`boris.files.place`'s.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from boris.files.sniff import UTF8_BOM

#: A displayed line longer than this many characters is cut.
MAX_LINE_CHARS = 2000
#: A file viewed without a range shows at most this many lines.
MAX_VIEW_LINES = 2000
#: Lines of context shown either side of an edit.
CONTEXT_LINES = 4

#: Files are read, checked and decoded this many bytes at a time, so a file (or a single
#: line) of any length never needs more than one chunk of working memory beyond what is
#: kept: never a second copy of a large file, as a str or as a list of its lines.
CHUNK = 1 << 18
# Every character takes at least one byte: a line of at most this many bytes cannot
# need cutting, whatever it decodes to.
_SHORT_LINE_BYTES = MAX_LINE_CHARS
#: A line longer than this many bytes is not kept whole as it is read (LongLine): its
#: first bytes are, enough for what view shows of it whatever they decode to (a
#: character takes at most 4 bytes; a byte order mark and a character cut at the end
#: take the rest), and its length is counted.
LONG_LINE_BYTES = 4 * MAX_LINE_CHARS + 8
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Image:
    """An image's bytes and MIME type, as view returns it (a file, or a notebook's output)."""

    data: bytes
    mime_type: str


@dataclass(frozen=True)
class LongLine:
    """A line longer than LONG_LINE_BYTES as view reads it, without keeping it: its
    first LONG_LINE_BYTES bytes, and its length in characters as view counts them (its
    bytes decoded as UTF-8, an invalid byte as U+FFFD; a final CR not counted, a byte
    order mark counted). Shown as the line itself would be: it is always cut."""

    head: bytes
    chars: int


class _LineReader:
    """A line read a piece at a time: kept whole up to LONG_LINE_BYTES bytes, beyond
    that only its head and a running count of its characters (a piece of working
    memory at a time, never the line)."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._size = 0
        self._head = b""
        self._decoder: codecs.IncrementalDecoder | None = None
        self._chars = 0
        self._last = b""

    def add(self, piece: bytes) -> None:
        if self._decoder is not None:
            self._count(piece)
            return
        self._pieces.append(piece)
        self._size += len(piece)
        if self._size > LONG_LINE_BYTES:
            kept = b"".join(self._pieces)
            self._pieces = []
            self._head = kept[:LONG_LINE_BYTES]
            self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
            self._count(kept)

    def _count(self, piece: bytes) -> None:
        assert self._decoder is not None
        if not piece:
            return
        self._last = piece[-1:]
        if piece.isascii() and not self._decoder.getstate()[0]:
            self._chars += len(piece)  # no character begun before it: one per byte
        else:
            self._chars += len(self._decoder.decode(piece))

    def line(self) -> bytes | LongLine:
        """The line read: its bytes, or a LongLine."""
        if self._decoder is None:
            return b"".join(self._pieces)
        chars = self._chars + len(self._decoder.decode(b"", final=True))
        # A CR ends whatever character came before it: it alone is not counted.
        return LongLine(self._head, chars - (self._last == b"\r"))


def read_line(piece: bytes) -> bytes | LongLine:
    """A line read in one piece, as :func:`read_lines` keeps it."""
    if len(piece) <= LONG_LINE_BYTES:
        return piece
    reader = _LineReader()
    reader.add(piece)
    return reader.line()


def text_line(text: str, start: int, end: int) -> bytes | LongLine:
    """``text[start:end]`` (one line) as :func:`read_lines` would keep its UTF-8 bytes (a
    lone surrogate written as its three bytes, which decode to three U+FFFD), without
    copying a long line."""
    # A character takes at most 4 bytes: a line of at most this many is not long.
    if end - start <= LONG_LINE_BYTES // 4:
        return text[start:end].encode("utf-8", "surrogatepass")
    surrogates = sum(1 for _ in _SURROGATE.finditer(text, start, end))
    chars = end - start + 2 * surrogates - (text[end - 1] == "\r")
    head = text[start : start + LONG_LINE_BYTES // 4].encode("utf-8", "surrogatepass")
    return LongLine(head, chars)


def human_size(size: int) -> str:
    """``512 bytes``, ``2.4 KB``, ``10.0 MB``, ``1.5 GB`` (1024-based)."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if round(value, 1) < 1024 or unit == "GB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


# --- display -------------------------------------------------------------------------


def display_line(raw: bytes) -> str:
    """One line (without its ``\\n``) as view shows it: CR dropped, decoded, cut at 2000."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) <= _SHORT_LINE_BYTES:
        return raw.decode("utf-8", "replace")
    if raw.isascii():
        head, total = raw[:MAX_LINE_CHARS].decode("ascii"), len(raw)
    else:
        head, total = _decode_head(raw)
        if total <= MAX_LINE_CHARS:
            return head
    return f"{head}... [truncated, {total} chars total]"


def _decode_head(raw: bytes) -> tuple[str, int]:
    """The first MAX_LINE_CHARS characters of ``raw`` and its length in characters.

    Decodes chunk by chunk so a line of many megabytes costs one chunk of memory.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    head = ""
    total = 0
    for offset in range(0, len(raw), CHUNK):
        text = decoder.decode(raw[offset : offset + CHUNK], final=offset + CHUNK >= len(raw))
        if len(head) < MAX_LINE_CHARS:
            head += text[: MAX_LINE_CHARS - len(head)]
        total += len(text)
    return head, total


def _display_long(line: LongLine, first: bool) -> str:
    """A LongLine as :func:`display_line` shows the line it stands for (the byte order
    mark of line 1 not shown)."""
    head, chars = line.head, line.chars
    if first and head.startswith(UTF8_BOM):
        head, chars = head[len(UTF8_BOM) :], chars - 1
    # Not final: a character cut at the end of the head is left out, not replaced.
    shown = codecs.getincrementaldecoder("utf-8")("replace").decode(head)[:MAX_LINE_CHARS]
    return f"{shown}... [truncated, {chars} chars total]"


def format_lines(lines: Sequence[bytes | LongLine], first: int) -> str:
    """Lines numbered from ``first`` in the view format, each ending in a newline.

    A UTF-8 byte order mark at the start of line 1 is not shown.
    """
    if not lines:
        return ""
    width = len(str(first + len(lines) - 1))
    out = []
    for number, raw in enumerate(lines, first):
        if isinstance(raw, LongLine):
            shown = _display_long(raw, number == 1)
        else:
            if number == 1 and raw.startswith(UTF8_BOM):
                raw = raw[len(UTF8_BOM) :]
            shown = display_line(raw)
        out.append(f"{number:>{width}}\t{shown}\n")
    return "".join(out)


# --- reading -------------------------------------------------------------------------


@dataclass
class LineWindow:
    """Lines read from a file (a long one as a LongLine), and its total line count when
    the whole file was read; ``too_long`` if the stream went on past the ``limit`` it
    was read with (its lines and total then tell nothing)."""

    lines: list[bytes | LongLine]
    total: int | None
    too_long: bool = False


def read_lines(
    stream: BinaryIO,
    start: int,
    end: int,
    *,
    count_all: bool = False,
    chunk_size: int = CHUNK,
    limit: int | None = None,
) -> LineWindow:
    """Lines ``start``..``end`` (1-based, inclusive) of a binary stream, without their ``\\n``.

    Reads chunk by chunk: chunks before ``start`` are only counted, and reading stops
    once line ``end`` is complete unless ``count_all`` asks for the total line count.
    A line may be of any length: one longer than LONG_LINE_BYTES is kept as a LongLine,
    what view shows of it. A final line without ``\\n`` counts; the empty
    remainder after a final ``\\n`` does not. With a ``limit``, at most ``limit + 1``
    bytes are read: a stream longer than that (a file that grew since its size was
    checked) gives a window that is ``too_long``.
    """
    lines: list[bytes | LongLine] = []
    pending: _LineReader | None = None  # the wanted line being read, begun in a chunk before
    number = 1  # the line the read position is in
    at_line_start = True
    left = sys.maxsize if limit is None else limit + 1  # bytes that may still be read
    while True:
        if number > end and not count_all:
            return LineWindow(lines, None)
        chunk = stream.read(min(chunk_size, left))
        if not chunk:
            break
        left -= len(chunk)
        if not left:
            return LineWindow([], None, too_long=True)
        at_line_start = chunk.endswith(b"\n")
        if number > end:
            number += chunk.count(b"\n")
            continue
        position = 0
        if number < start:
            newlines = chunk.count(b"\n")
            if number + newlines < start:
                number += newlines
                continue
            while number < start:
                position = chunk.index(b"\n", position) + 1
                number += 1
        while number <= end:
            newline = chunk.find(b"\n", position)
            if newline < 0:
                if position < len(chunk):
                    if pending is None:
                        pending = _LineReader()
                    pending.add(chunk[position:])
                break
            if pending is None:
                lines.append(read_line(chunk[position:newline]))
            else:
                pending.add(chunk[position:newline])
                lines.append(pending.line())
                pending = None
            number += 1
            position = newline + 1
        else:
            number += chunk.count(b"\n", position)
    if pending is not None:
        lines.append(pending.line())
    return LineWindow(lines, number - 1 if at_line_start else number)


def count_lines(data: bytes) -> int:
    """Lines in ``data``, counted as :func:`read_lines` counts them."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def edit_snippet(data: bytes, begin: int, end: int) -> str:
    """The region ``data[begin:end]`` plus CONTEXT_LINES lines either side, in view format.

    The region's lines are shown whole however many they are; the window is clamped to
    the file, and a final newline does not add an empty line.
    """
    return _snippet(data, begin, end, data.count(b"\n", 0, begin) + 1)


def _snippet(data: bytes, begin: int, end: int, first: int) -> str:
    """:func:`edit_snippet`, the line ``begin`` is in being ``first``."""
    last = first + (data.count(b"\n", begin, end - 1) if end > begin else 0)
    shown_first = first
    offset = data.rfind(b"\n", 0, begin) + 1
    while shown_first > 1 and shown_first > first - CONTEXT_LINES:
        offset = data.rfind(b"\n", 0, offset - 1) + 1
        shown_first -= 1
    lines = []
    number = shown_first
    while number <= last + CONTEXT_LINES and offset < len(data):
        newline = data.find(b"\n", offset)
        if newline < 0:
            lines.append(data[offset:])
            break
        lines.append(data[offset:newline])
        offset = newline + 1
        number += 1
    return format_lines(lines, shown_first)


class EditSnippets:
    """:func:`edit_snippet` of each of ``regions`` (sorted, disjoint byte ranges), one
    snippet for regions whose windows of lines overlap or touch.

    The file's lines are counted once, in one pass over the regions (not from the start
    of the file for each), and a snippet is only made when it is iterated to: a caller
    that shows the first few makes only those.
    """

    def __init__(self, data: bytes, regions: Sequence[tuple[int, int]]) -> None:
        self._data = data
        #: Each snippet's region: begin, end, its first line, the last line of its window.
        self._groups: list[tuple[int, int, int, int]] = []
        line, counted = 1, 0  # the line at offset ``counted``
        for begin, end in regions:
            line += data.count(b"\n", counted, begin)
            counted = begin
            last = line + (data.count(b"\n", begin, end - 1) if end > begin else 0)
            if self._groups and line - CONTEXT_LINES <= self._groups[-1][3] + 1:
                group_begin, _, group_first, _ = self._groups[-1]
                self._groups[-1] = (group_begin, end, group_first, last + CONTEXT_LINES)
            else:
                self._groups.append((begin, end, line, last + CONTEXT_LINES))

    def __len__(self) -> int:
        return len(self._groups)

    def __iter__(self) -> Iterator[str]:
        for begin, end, first, _ in self._groups:
            yield _snippet(self._data, begin, end, first)


def read_up_to(fd: int, size: int) -> bytes:
    """At most ``size`` bytes from ``fd``'s position, fewer at the end of the file."""
    chunks = []
    while size > 0:
        chunk = os.read(fd, min(size, CHUNK * 64))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
