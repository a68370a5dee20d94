"""The hunks of an apply_patch update applied to a file's bytes, changing only the lines
they add and remove.

A hunk's context and removed lines (its *old* lines) must equal consecutive lines of
the file (boris.files.line_search says what a line's text is): exactly, or else, when
no place matches exactly, once trailing whitespace is ignored on both sides (the
tolerance Codex has at line ends; indentation always counts). Each hunk is looked for
after the previous one, and after its ``@@`` lines; an ``@@`` line is found as a line
of the file (indentation aside: it only says where to look, and changes nothing).
Without an ``@@`` line a hunk's old lines must occur once where it is looked for; with
one, the first place after it is taken. A hunk ending in ``*** End of File`` must end
the file; a hunk with no old lines goes after its ``@@`` line, or at the end of the
file.

Kept lines keep their own bytes (trailing spaces, CR and all); added lines take the
file's line ending (CRLF in a file that uses CRLF throughout), and a file that did not
end in a newline still does not. The new content is put together from slices of the
old one and the added lines: nothing is built per line of the file.

No I/O here: boris.files.patch_files reads and writes around it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.edit_bytes import is_utf8
from boris.files.line_search import LineFile, Tier, around, exact, trailing
from boris.files.near_miss import quote, similar_line
from boris.files.patch_format import Hunk, Kind

# Places of an ambiguous hunk counted, and listed by line number, in its message.
_COUNTED = 100
_LISTED = 10

#: How a hunk's lines are compared with the file's, from the strictest; an @@ line may
#: also differ in its indentation.
_HUNK_TIERS: tuple[Tier, ...] = (exact, trailing)
_ANCHOR_TIERS: tuple[Tier, ...] = (exact, trailing, around)


class _File(LineFile):
    """The file being patched: its lines, searched tier by tier."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self._utf8: bool | None = None

    def first(self, lines: Sequence[bytes], offset: int, tiers: Sequence[Tier]) -> tuple[int, Tier]:
        """Where ``lines`` first occur from ``offset`` under the strictest of ``tiers``
        that finds them, and that tier; -1 if none does."""
        for tier in tiers:
            found = self.find(lines, offset, tier)
            if found >= 0:
                return found, tier
        return -1, exact

    def is_utf8(self) -> bool:
        if self._utf8 is None:
            self._utf8 = is_utf8(self.data)
        return self._utf8


class _Output:
    """The new content, put together from runs of the file and added lines."""

    def __init__(self, file: _File) -> None:
        self._file = file
        self._parts: list[bytes] = [file.bom]
        self._last_ending = 0
        self.cursor = file.start  # the first byte of the file not yet kept or removed

    def keep(self, end: int) -> None:
        """Keep the file from the cursor up to ``end`` (a line start, or its end)."""
        if end <= self.cursor:
            return
        run = self._file.data[self.cursor : end]
        self._parts.append(run)
        if run.endswith(b"\n"):
            self._last_ending = 2 if run.endswith(b"\r\n") else 1
        else:  # the last line, without a newline: lines may follow it now
            self._parts.append(self._file.eol)
            self._last_ending = len(self._file.eol)
        self.cursor = end

    def keep_line(self) -> None:
        self.keep(self._file.line_end(self.cursor))

    def remove_line(self) -> None:
        self.cursor = self._file.line_end(self.cursor)

    def add(self, text: bytes) -> None:
        self._parts.append(text + self._file.eol)
        self._last_ending = len(self._file.eol)

    def result(self) -> bytes:
        self.keep(len(self._file.data))
        data = b"".join(self._parts)
        if self._file.tail and self._last_ending:
            # The file did not end in a newline: its new last line has none either.
            data = data[: -self._last_ending]
        return data


@dataclass(frozen=True)
class _Place:
    """Where a hunk is looked for: from ``offset`` (a line start), ``since`` what."""

    offset: int
    since: str = ""

    def where(self, file: _File) -> str:
        if self.offset <= file.start:
            return "in the file"
        return f"after line {file.number(self.offset)} ({self.since})"


def apply_hunks(data: bytes, hunks: Sequence[Hunk], path: str) -> bytes:
    """``data`` with ``hunks`` applied in order; STR_REPLACE_NOT_FOUND,
    STR_REPLACE_AMBIGUOUS or INVALID_INPUT (non-ASCII text for a file that is not
    UTF-8) naming the hunk that cannot apply."""
    file = _File(data)
    try:
        return _apply(file, hunks, path)
    finally:
        file.forget()


def _apply(file: _File, hunks: Sequence[Hunk], path: str) -> bytes:
    out = _Output(file)
    place = _Place(file.start)
    for number, hunk in enumerate(hunks, 1):
        label = f"{path}: hunk {number} of {len(hunks)}"
        lines = [(kind, text.encode()) for kind, text in hunk.lines]
        _check_encoding(file, lines, label)
        for anchor in hunk.anchors:
            found = file.first([anchor.encode()], place.offset, _ANCHOR_TIERS)[0]
            if found < 0:
                raise _anchor_missing(file, anchor, place, label)
            since = f"its @@ line {json.dumps(anchor, ensure_ascii=False)}"
            place = _Place(file.line_end(found), since)
        if any(kind != "+" for kind, _ in lines):
            start, lines = _find_old(file, hunk, lines, place, f"hunk {number}", label)
        else:
            start = place.offset if hunk.anchors and not hunk.at_end else len(file.data)
        assert start >= out.cursor, (start, out.cursor)  # each hunk after the one before
        out.keep(start)
        for kind, text in lines:
            if kind == " ":
                out.keep_line()
            elif kind == "-":
                out.remove_line()
            else:
                out.add(text)
        place = _Place(out.cursor, f"the end of hunk {number}")
    return out.result()


def _check_encoding(file: _File, lines: list[tuple[Kind, bytes]], label: str) -> None:
    if all(text.isascii() for kind, text in lines if kind == "+") or file.is_utf8():
        return
    raise BorisError(
        Code.INVALID_INPUT,
        f"{label}: its added lines have non-ASCII characters, but the file is not valid "
        "UTF-8 (it is in another encoding): written as UTF-8 they would mix two "
        "encodings in one file. Use ASCII text only, or convert the file to UTF-8 "
        "first; nothing was changed.",
    )


def _old(lines: list[tuple[Kind, bytes]]) -> list[bytes]:
    return [text for kind, text in lines if kind != "+"]


def _find_old(
    file: _File,
    hunk: Hunk,
    lines: list[tuple[Kind, bytes]],
    place: _Place,
    name: str,
    label: str,
) -> tuple[int, list[tuple[Kind, bytes]]]:
    """Where the hunk's old lines are, and its lines as applied there."""
    tried = lines
    while True:
        old = _old(tried)
        if hunk.at_end:
            start = file.last_lines(len(old))
            if start >= place.offset and any(
                file.matches_at(start, old, tier) for tier in _HUNK_TIERS
            ):
                return start, tried
        else:
            start, tier = file.first(old, place.offset, _HUNK_TIERS)
            if start >= 0:
                if not hunk.anchors:
                    _require_once(file, old, start, tier, place, label)
                return start, tried
        # As Codex does: empty context lines at the end (often blank lines typed to
        # separate hunks) may stand for nothing; try once without them.
        if tried is lines:
            blank = 0
            while blank < len(old) - 1 and lines[len(lines) - 1 - blank] == (" ", b""):
                blank += 1
            if blank:
                tried = lines[: len(lines) - blank]
                continue
        raise _old_missing(file, hunk.at_end, old, place, name, label)


def _require_once(
    file: _File, old: list[bytes], start: int, tier: Tier, place: _Place, label: str
) -> None:
    places = [start]
    while len(places) <= _COUNTED:
        following = file.find_after(old, places[-1], tier)
        if following < 0:
            break
        places.append(following)
    if len(places) == 1:
        return
    count = f"more than {_COUNTED}" if len(places) > _COUNTED else str(len(places))
    listed = ", ".join(str(file.number(offset) + 1) for offset in places[:_LISTED])
    if len(places) > _LISTED:
        listed += ", …"
    raise BorisError(
        Code.STR_REPLACE_AMBIGUOUS,
        f"{label}: its context and removed lines occur {count} times {place.where(file)} "
        f"(at lines {listed}); add context lines to make them unique, or start the hunk "
        "with an '@@ ' line naming a line before it, such as the first line of its "
        "function or class (the first place after that line is taken)",
    )


def _old_missing(
    file: _File, at_end: bool, old: list[bytes], place: _Place, name: str, label: str
) -> BorisError:
    if at_end:
        head = f"{label}: its context and removed lines are not the last lines of the file"
        if place.offset > file.start:
            head += f" after line {file.number(place.offset)} ({place.since})"
        head += " ('*** End of File' says they are)."
    else:
        head = (
            f"{label}: its context and removed lines were not found {place.where(file)}. "
            "They must match lines of the file exactly, apart from trailing whitespace."
        )
    parts = [head]
    elsewhere = file.first(old, file.start, _HUNK_TIERS)[0]
    if 0 <= elsewhere < place.offset:
        parts.append(
            f"They are at line {file.number(elsewhere) + 1}, before that: hunks go in the "
            "order of the file, each after the one before it and after its @@ lines."
        )
    elif elsewhere >= 0:
        parts.append(
            f"They are at line {file.number(elsewhere) + 1}, which is not the end of the "
            "file: leave out '*** End of File', or give the file's last lines."
        )
    else:
        if not all(line.isascii() for line in old) and not file.is_utf8():
            parts.append(
                "The file is not valid UTF-8 (it is in another encoding), and these lines "
                "have non-ASCII characters, which are looked for as UTF-8: the file does not "
                "store them that way. Match on ASCII text only."
            )
        hint = _partly_found(file, old, place.offset, name) or similar_line(file.data, old, name)
        if hint:
            parts.append(hint)
    return BorisError(Code.STR_REPLACE_NOT_FOUND, "\n".join(parts))


def _partly_found(file: _File, old: list[bytes], offset: int, name: str) -> str | None:
    """Where the most leading lines of ``old`` are found from ``offset``, and the line
    that differs next: found by halving, a few searches of the file."""
    found, at = 0, -1  # old[:found] is at ``at``; old[:missing] is nowhere
    missing = len(old)
    while missing - found > 1:
        middle = (found + missing) // 2
        place = file.find(old[:middle], offset, trailing)
        if place >= 0:
            found, at = middle, place
        else:
            missing = middle
    if not found:
        return None
    first = file.number(at) + 1
    matched = (
        f"Line {first} matches the first line of {name}"
        if found == 1
        else f"Lines {first}-{first + found - 1} match the first {found} lines of {name}"
    )
    differing = at
    for _ in range(found):
        differing = file.line_end(differing)
    if differing >= len(file.data):
        return f"{matched}, but {name} continues past the end of the file."
    number = first + found
    return (
        f"{matched}, but line {number} differs (both shown as JSON strings):\n"
        f"  line {number}: {quote(file.text_at(differing))}\n"
        f"  {name}: {quote(old[found])}"
    )


def _anchor_missing(file: _File, anchor: str, place: _Place, label: str) -> BorisError:
    text = anchor.encode()
    parts = [
        f"{label}: its @@ line {json.dumps(anchor, ensure_ascii=False)} was not found "
        f"{place.where(file)}. An @@ line gives a line of the file (such as the first line "
        "of a function) after which the hunk is looked for."
    ]
    elsewhere = file.first([text], file.start, _ANCHOR_TIERS)[0]
    if 0 <= elsewhere < place.offset:
        parts.append(
            f"It is at line {file.number(elsewhere) + 1}, before that: hunks go in the "
            "order of the file."
        )
    else:
        hint = similar_line(file.data, [text], "the @@ line", single=True)
        if hint:
            parts.append(hint)
    return BorisError(Code.STR_REPLACE_NOT_FOUND, "\n".join(parts))
