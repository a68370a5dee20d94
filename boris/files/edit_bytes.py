"""Replace and insert on a file's bytes, so nothing outside the edited region changes.

The file is never decoded for the edit itself: ``old_str`` and ``new_str`` are encoded to
UTF-8 and matched against the raw bytes. Because UTF-8 is self-synchronising, a byte match
of valid UTF-8 is exactly a text match, and invalid bytes, a BOM, CR characters and a
missing final newline anywhere else in the file survive untouched. Non-ASCII text is
never written into a file that is not UTF-8, where its UTF-8 bytes would sit among
bytes of another encoding.

These functions do no I/O: boris.files.edit_files reads and writes around them. When
``old_str`` is not found, boris.files.near_miss says where the file nearly holds it.
"""

from __future__ import annotations

import codecs
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.lines import CHUNK, count_lines
from boris.files.near_miss import line_of, near_miss
from boris.files.sniff import UTF8_BOM
from boris.text import LONE_SURROGATE

# How many occurrences an ambiguity message lists by line number.
_LISTED_OCCURRENCES = 10


@dataclass(frozen=True)
class Edit:
    """The whole new content, where the new text sits in it, and how many places changed."""

    data: bytes
    begin: int
    end: int
    count: int


def encode_argument(name: str, value: str) -> bytes:
    """A text argument as UTF-8; a lone surrogate (possible in JSON) is the caller's error."""
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise BorisError(
            Code.INVALID_INPUT,
            f"{name}: {LONE_SURROGATE}",
        ) from None


def uses_crlf(data: bytes) -> bool:
    """Whether every line break in ``data`` is CRLF (and there is at least one)."""
    crlf = data.count(b"\r\n")
    return crlf > 0 and crlf == data.count(b"\n")


def match_line_endings(data: bytes, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """The CRLF convenience: in a CRLF file, strings written with bare LF mean CRLF.

    Applies only when the file uses CRLF throughout and neither string contains a CRLF
    of its own; then both are matched and written with CRLF, keeping the file CRLF.
    """
    if b"\r\n" in old or b"\r\n" in new or (b"\n" not in old and b"\n" not in new):
        return old, new
    if not uses_crlf(data):
        return old, new
    return old.replace(b"\n", b"\r\n"), new.replace(b"\n", b"\r\n")


#: Refuses a content size (bytes, what they are): FileAccess.check_size.
SizeCheck = Callable[[int, str], None]


def replace(
    data: bytes,
    old: bytes,
    new: bytes,
    replace_all: bool,
    path: str,
    check_size: SizeCheck | None = None,
) -> Edit:
    """Replace the one occurrence of ``old`` (or every one, with ``replace_all``).

    ``check_size`` judges the size of the result before it is built: replacing many
    short matches by a long text could otherwise take far more memory than any file.

    Raises INVALID_INPUT for non-ASCII ``new`` in a file that is not UTF-8,
    STR_REPLACE_NOT_FOUND (with a near-miss hint when a line resembles ``old``) or
    STR_REPLACE_AMBIGUOUS (with the count and where the occurrences are).
    Occurrences that overlap count as distinct: ``aa`` in ``aaa`` is ambiguous.
    """
    old, new = match_line_endings(data, old, new)
    require_same_encoding(data, new, "new_str", path)
    first = data.find(old)
    if first < 0:
        raise BorisError(Code.STR_REPLACE_NOT_FOUND, not_found_message(data, old, path))
    if replace_all:
        count = data.count(old)
        if check_size is not None:
            check_size(len(data) + count * (len(new) - len(old)), "the edited file would be")
        return Edit(data.replace(old, new), first, first + len(new), count)
    if data.find(old, first + 1) >= 0:
        raise BorisError(Code.STR_REPLACE_AMBIGUOUS, _ambiguous_message(data, old, first, path))
    edited = b"".join((data[:first], new, data[first + len(old) :]))
    return Edit(edited, first, first + len(new), 1)


@dataclass(frozen=True)
class Change:
    """One replacement of a multi-edit: ``old`` by ``new``, once or everywhere."""

    old: bytes
    new: bytes
    replace_all: bool


#: Edited regions a multi-edit keeps track of for its result; beyond this it shows none.
MAX_REGIONS = 1000

Region = tuple[int, int]


def replace_each(
    data: bytes,
    changes: Sequence[Change],
    path: str,
    check_size: SizeCheck,
    total: int | None = None,
) -> tuple[bytes, list[Region] | None]:
    """Apply ``changes`` in order, each to the result of the one before, as :func:`replace`.

    Returns the new content and where it was edited: sorted, disjoint byte ranges of
    the result that do not touch (None when there are more than ``MAX_REGIONS``). An
    error names the change it comes from (``edit 2 of 3: ``); ``check_size`` bounds
    every intermediate content, before it is made. ``total`` is the number of edits the
    messages count (the changes may be the first few of them).
    """
    regions: list[Region] | None = []
    total = len(changes) if total is None else total
    for number, change in enumerate(changes, 1):
        try:
            old, new = match_line_endings(data, change.old, change.new)
            edit = replace(data, old, new, change.replace_all, path, check_size)
            check_size(len(edit.data), "the edited file would be")
        except BorisError as error:
            raise BorisError(error.code, f"edit {number} of {total}: {error.message}") from None
        if regions is not None:
            starts = (
                _occurrences(data, old, edit.begin, MAX_REGIONS + 1)
                if change.replace_all
                else [edit.begin]
            )
            regions = _moved(regions, starts, len(old), len(new))
        data = edit.data
    return data, regions


def _occurrences(data: bytes, old: bytes, first: int, most: int) -> list[int]:
    """Where ``data.replace(old, …)`` replaces, from ``first``: at most ``most`` offsets."""
    starts = [first]
    while len(starts) < most:
        following = data.find(old, starts[-1] + len(old))
        if following < 0:
            break
        starts.append(following)
    return starts


def _moved(
    regions: list[Region], starts: list[int], old_len: int, new_len: int
) -> list[Region] | None:
    """``regions`` after replacing ``old_len`` bytes at each of ``starts`` by ``new_len``
    bytes, plus the replaced places, merged where they touch; None past MAX_REGIONS."""
    if len(starts) > MAX_REGIONS:
        return None
    shift = new_len - old_len
    ends = [start + old_len for start in starts]

    def moved(offset: int, inner: int) -> int:
        # Spans ending at or before ``offset`` shift it; inside a span it goes to
        # that span's new start (inner=0) or end (inner=new_len).
        before = bisect_right(ends, offset)
        if before < len(starts) and starts[before] < offset:
            return starts[before] + before * shift + inner
        return offset + before * shift

    placed = [(start + i * shift, start + i * shift + new_len) for i, start in enumerate(starts)]
    placed += [(moved(begin, 0), moved(end, new_len)) for begin, end in regions]
    placed.sort()
    merged: list[Region] = []
    for begin, end in placed:
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((begin, end))
    return merged if len(merged) <= MAX_REGIONS else None


def insert(data: bytes, line: int, text: bytes, path: str, name: str = "new_str") -> Edit:
    """Insert ``text`` as whole lines after line ``line`` (0 = before the first line).

    The inserted lines take the file's line ending (bare LF in ``text`` becomes CRLF in a
    CRLF file). A BOM stays first, and a file without a final newline still has none.
    ``name`` is the argument ``text`` came from, for the messages.
    """
    total = count_lines(data)
    if line > total:
        raise BorisError(
            Code.INVALID_INPUT,
            f"insert_line {line} exceeds total lines {total} in {path}; "
            f"use 0 to {total} (0 inserts before the first line)",
        )
    require_same_encoding(data, text, name, path)
    crlf = uses_crlf(data)
    eol = b"\r\n" if crlf else b"\n"
    if crlf and b"\r\n" not in text:
        text = text.replace(b"\n", b"\r\n")
    if line == total and line > 0 and not data.endswith(b"\n"):
        # After an unterminated last line: break that line, and leave the inserted
        # last line unterminated so the file still ends without a newline.
        if text.endswith(b"\n"):
            text = text[:-2] if text.endswith(b"\r\n") else text[:-1]
        edited = data + eol + text
        return Edit(edited, len(data) + len(eol), len(edited), 1)
    terminated = text if text.endswith(b"\n") else text + eol
    if line == 0:
        offset = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    else:
        offset = _offset_after_line(data, line)
    edited = b"".join((data[:offset], terminated, data[offset:]))
    return Edit(edited, offset, offset + len(terminated), 1)


def _offset_after_line(data: bytes, line: int) -> int:
    """The offset just past the newline that ends line ``line`` (which has one).

    Whole blocks of lines are skipped by counting their newlines, so only the lines of
    the last block are stepped over one by one.
    """
    offset, remaining = 0, line
    while True:
        newlines = data.count(b"\n", offset, offset + CHUNK)
        if newlines >= remaining:
            break
        remaining -= newlines
        offset += CHUNK
    for _ in range(remaining):
        offset = data.find(b"\n", offset) + 1
    return offset


# --- encodings -------------------------------------------------------------------------


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 (a BOM is), checked without decoding it whole."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for offset in range(0, len(data), CHUNK):
            decoder.decode(view[offset : offset + CHUNK], final=offset + CHUNK >= len(data))
    except UnicodeDecodeError:
        return False
    return True


def require_same_encoding(data: bytes, text: bytes, name: str, path: str) -> None:
    """Refuse to write non-ASCII ``text`` (UTF-8 bytes) into a file that is not UTF-8.

    ASCII is the same bytes in UTF-8 and every encoding a text file is likely to be in,
    so ASCII text is always safe; other characters would be UTF-8 among bytes of
    another encoding, and the file would no longer read right in either.
    """
    if text.isascii() or is_utf8(data):
        return
    raise BorisError(
        Code.INVALID_INPUT,
        f"{name} has non-ASCII characters, but {path} is not valid UTF-8 (it is in another "
        "encoding): written as UTF-8 they would mix two encodings in one file. Use ASCII "
        "text only, or convert the file to UTF-8 first; the file is unchanged.",
    )


# --- messages --------------------------------------------------------------------------


def _ambiguous_message(data: bytes, old: bytes, first: int, path: str) -> str:
    positions = [first]
    while len(positions) < _LISTED_OCCURRENCES:
        following = data.find(old, positions[-1] + 1)
        if following < 0:
            break
        positions.append(following)
    # Non-overlapping count as replace_all would see it; overlaps only matter when
    # they are all there is, and then they are few (fewer than len(old)).
    count = data.count(old)
    if count < 2:
        count = len(positions)
    lines = sorted({line_of(data, p) for p in positions})
    where = ", ".join(str(n) for n in lines)
    if count > _LISTED_OCCURRENCES:
        where += ", …"
    label = "line" if len(lines) == 1 else "lines"
    return (
        f"old_str occurs {count} times in {path} ({label} {where}); add surrounding lines "
        "to make it unique, or set replace_all to replace every occurrence"
    )


def not_found_message(data: bytes, old: bytes, path: str) -> str:
    parts = [
        f"old_str was not found in {path}. It must match the file exactly, "
        "whitespace and line breaks included."
    ]
    if not old.isascii() and not is_utf8(data):
        parts.append(
            f"{path} is not valid UTF-8 (it is in another encoding), and old_str has "
            "non-ASCII characters, which are looked for as UTF-8: the file does not "
            "store them that way. Match on ASCII text only."
        )
    hint = near_miss(data, old)
    if hint:
        parts.append(hint)
    return "\n".join(parts)
