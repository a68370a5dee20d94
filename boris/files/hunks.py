"""The hunks of an apply_patch update applied to a file's bytes, changing only the lines
they add and remove.

The file is read as lines split at ``\\n``; a line's text is what comes before its
``\\n`` and the ``\\r`` of a CRLF (a UTF-8 BOM is not part of the first line). A hunk's
context and removed lines (its *old* lines) must equal consecutive lines of the file,
exactly, or else, when no place matches exactly, once trailing whitespace is ignored
on both sides (the tolerance Codex has at line ends; indentation always counts). Each
hunk is looked for after the previous one, and after its ``@@`` lines; an ``@@`` line
is found as a line of the file (indentation aside: it only says where to look, and
changes nothing). Without an ``@@`` line a hunk's old lines must occur once where it is
looked for; with one, the first place after it is taken. A hunk ending in
``*** End of File`` must end the file; a hunk with no old lines goes after its ``@@``
line, or at the end of the file.

Kept lines keep their own bytes (trailing spaces, CR and all); added lines take the
file's line ending (CRLF in a file that uses CRLF throughout), and a file that did not
end in a newline still does not. Lines are found in linear time whatever the file and
the hunk: each line is given a code, equal lines the same one, so that a hunk's lines
are a byte string to find in the file's (``bytes.find``).

No I/O here: boris.files.patching reads and writes around it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.edit import is_utf8, uses_crlf
from boris.files.near_miss import quote, similar_line
from boris.files.patch_format import Hunk, Kind
from boris.files.sniff import UTF8_BOM

# What "trailing whitespace" is: ASCII whitespace, as near_miss compares lines.
_BLANK = b" \t\r\x0b\x0c"
# Places of an ambiguous hunk counted, and listed by line number, in its message.
_COUNTED = 100
_LISTED = 10

Tier = Callable[[bytes], bytes]


def _exact(line: bytes) -> bytes:
    return line


def _trailing(line: bytes) -> bytes:
    return line.rstrip(_BLANK)


def _around(line: bytes) -> bytes:
    return line.strip(_BLANK)


#: How a hunk's lines are compared with the file's, from the strictest; an @@ line may
#: also differ in its indentation.
_HUNK_TIERS: tuple[Tier, ...] = (_exact, _trailing)
_ANCHOR_TIERS: tuple[Tier, ...] = (_exact, _trailing, _around)


class _Codes:
    """The file's lines under one way of comparing them, as a string of codes: each
    distinct line gets a code of ``width`` bytes whose first byte alone has its high
    bit set, so a run of codes can only be found at a line boundary."""

    def __init__(self, keys: list[bytes]) -> None:
        self.width = 4 if len(keys) < 1 << 28 else 5
        self._codes: dict[bytes, bytes] = {}
        codes = self._codes
        self._encoded = b"".join(
            [codes.get(key) or codes.setdefault(key, self._code(len(codes))) for key in keys]
        )

    def _code(self, number: int) -> bytes:
        groups = [(number >> (7 * shift)) & 0x7F for shift in range(self.width - 1, -1, -1)]
        groups[0] |= 0x80
        return bytes(groups)

    def find(self, keys: Sequence[bytes], start: int) -> int:
        """The first line from ``start`` where lines equal to ``keys`` begin, or -1."""
        codes = []
        for key in keys:
            code = self._codes.get(key)
            if code is None:
                return -1  # no line of the file is that line
            codes.append(code)
        found = self._encoded.find(b"".join(codes), start * self.width)
        return -1 if found < 0 else found // self.width


class _File:
    """A file's bytes as lines, with the codes of each way of comparing them."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
        body = data[len(self.bom) :]
        #: Lines that end in a newline, without it (with the CR of a CRLF).
        self.ended = body.split(b"\n")
        #: The last line when it has no newline, else b"".
        self.tail = self.ended.pop()
        self.count = len(self.ended) + bool(self.tail)
        #: Each line's text: without its line ending.
        self.texts = [line[:-1] if line.endswith(b"\r") else line for line in self.ended]
        if self.tail:
            self.texts.append(self.tail)
        self.eol = b"\r\n" if uses_crlf(body) else b"\n"
        self._codes: dict[Tier, _Codes] = {}
        self._utf8: bool | None = None

    def find(self, lines: Sequence[bytes], start: int, tiers: Sequence[Tier]) -> tuple[int, Tier]:
        """Where ``lines`` first occur from line ``start`` under the strictest of
        ``tiers`` that finds them, and that tier; -1 if none does."""
        for tier in tiers:
            found = self.codes(tier).find([tier(line) for line in lines], start)
            if found >= 0:
                return found, tier
        return -1, _exact

    def codes(self, tier: Tier) -> _Codes:
        if tier not in self._codes:
            keys = self.texts if tier is _exact else [tier(text) for text in self.texts]
            self._codes[tier] = _Codes(keys)
        return self._codes[tier]

    def is_utf8(self) -> bool:
        if self._utf8 is None:
            self._utf8 = is_utf8(self.data)
        return self._utf8

    def lines(self, begin: int, end: int) -> tuple[bytes, int]:
        """Lines ``begin``..``end - 1`` as they are in the file, each with its line
        ending (a last line without one gets the file's), and the length of the last
        line's ending."""
        if begin >= end:
            return b"", 0
        ended = min(end, len(self.ended))
        parts = []
        if begin < ended:
            parts.append(b"\n".join(self.ended[begin:ended]) + b"\n")
        if end > len(self.ended):  # the tail
            parts.append(self.tail + self.eol)
            return b"".join(parts), len(self.eol)
        return b"".join(parts), 2 if self.ended[end - 1].endswith(b"\r") else 1


class _Output:
    """The new content, built from runs of the file's lines and added lines."""

    def __init__(self, file: _File) -> None:
        self._file = file
        self._parts: list[bytes] = [file.bom]
        self._last_ending = 0
        self.cursor = 0  # the first line of the file not yet kept or removed

    def keep(self, end: int) -> None:
        """Keep the lines from the cursor up to ``end``."""
        text, ending = self._file.lines(self.cursor, end)
        if text:
            self._parts.append(text)
            self._last_ending = ending
        self.cursor = max(self.cursor, end)

    def remove(self) -> None:
        self.cursor += 1

    def add(self, text: bytes) -> None:
        self._parts.append(text + self._file.eol)
        self._last_ending = len(self._file.eol)

    def result(self) -> bytes:
        self.keep(self._file.count)
        data = b"".join(self._parts)
        if self._file.tail and self._last_ending:
            # The file did not end in a newline: its new last line has none either.
            data = data[: -self._last_ending]
        return data


@dataclass(frozen=True)
class _Place:
    """Where a hunk is looked for: from line ``line`` (0-based), ``since`` what."""

    line: int = 0
    since: str = ""

    def where(self) -> str:
        return "in the file" if self.line == 0 else f"after line {self.line} ({self.since})"


def apply_hunks(data: bytes, hunks: Sequence[Hunk], path: str) -> bytes:
    """``data`` with ``hunks`` applied in order; STR_REPLACE_NOT_FOUND,
    STR_REPLACE_AMBIGUOUS or INVALID_INPUT (non-ASCII text for a file that is not
    UTF-8) naming the hunk that cannot apply."""
    file = _File(data)
    out = _Output(file)
    place = _Place()
    for number, hunk in enumerate(hunks, 1):
        label = f"{path}: hunk {number} of {len(hunks)}"
        lines = [(kind, text.encode()) for kind, text in hunk.lines]
        _check_encoding(file, lines, label)
        for anchor in hunk.anchors:
            found = file.find([anchor.encode()], place.line, _ANCHOR_TIERS)[0]
            if found < 0:
                raise _anchor_missing(file, anchor, place, label)
            place = _Place(found + 1, f"its @@ line {json.dumps(anchor, ensure_ascii=False)}")
        if any(kind != "+" for kind, _ in lines):
            start, lines = _find_old(file, hunk, lines, place, f"hunk {number}", label)
        else:
            start = place.line if hunk.anchors and not hunk.at_end else file.count
        out.keep(start)
        for kind, text in lines:
            if kind == " ":
                out.keep(out.cursor + 1)
            elif kind == "-":
                out.remove()
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
            start = file.count - len(old)
            if start >= place.line and any(
                all(tier(a) == tier(b) for a, b in zip(file.texts[start:], old, strict=True))
                for tier in _HUNK_TIERS
            ):
                return start, tried
        else:
            start, tier = file.find(old, place.line, _HUNK_TIERS)
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
    codes = file.codes(tier)
    keys = [tier(line) for line in old]
    places = [start]
    while len(places) <= _COUNTED:
        following = codes.find(keys, places[-1] + 1)
        if following < 0:
            break
        places.append(following)
    if len(places) == 1:
        return
    count = f"more than {_COUNTED}" if len(places) > _COUNTED else str(len(places))
    listed = ", ".join(str(line + 1) for line in places[:_LISTED])
    if len(places) > _LISTED:
        listed += ", …"
    raise BorisError(
        Code.STR_REPLACE_AMBIGUOUS,
        f"{label}: its context and removed lines occur {count} times {place.where()} "
        f"(at lines {listed}); add context lines to make them unique, or start the hunk "
        "with an '@@ ' line naming a line before it, such as the first line of its "
        "function or class (the first place after that line is taken)",
    )


def _old_missing(
    file: _File, at_end: bool, old: list[bytes], place: _Place, name: str, label: str
) -> BorisError:
    if at_end:
        head = f"{label}: its context and removed lines are not the last lines of the file"
        if place.line:
            head += f" after line {place.line} ({place.since})"
        head += " ('*** End of File' says they are)."
    else:
        head = (
            f"{label}: its context and removed lines were not found {place.where()}. "
            "They must match lines of the file exactly, apart from trailing whitespace."
        )
    parts = [head]
    elsewhere = file.find(old, 0, _HUNK_TIERS)[0]
    if 0 <= elsewhere < place.line:
        parts.append(
            f"They are at line {elsewhere + 1}, before that: hunks go in the order of the "
            "file, each after the one before it and after its @@ lines."
        )
    elif elsewhere >= 0:
        parts.append(
            f"They are at line {elsewhere + 1}, which is not the end of the file: leave out "
            "'*** End of File', or give the file's last lines."
        )
    else:
        if not all(line.isascii() for line in old) and not file.is_utf8():
            parts.append(
                "The file is not valid UTF-8 (it is in another encoding), and these lines "
                "have non-ASCII characters, which are looked for as UTF-8: the file does not "
                "store them that way. Match on ASCII text only."
            )
        hint = _partly_found(file, old, place.line, name) or similar_line(file.data, old, name)
        if hint:
            parts.append(hint)
    return BorisError(Code.STR_REPLACE_NOT_FOUND, "\n".join(parts))


def _partly_found(file: _File, old: list[bytes], start: int, name: str) -> str | None:
    """Where the most leading lines of ``old`` are found from line ``start``, and the
    line that differs next: found by halving, a few searches of the file."""
    found, at = 0, -1  # old[:found] is at line ``at``; old[:missing] is nowhere
    missing = len(old)
    while missing - found > 1:
        middle = (found + missing) // 2
        line = file.find(old[:middle], start, (_trailing,))[0]
        if line >= 0:
            found, at = middle, line
        else:
            missing = middle
    if not found:
        return None
    first = at + 1
    matched = (
        f"Line {first} matches the first line of {name}"
        if found == 1
        else f"Lines {first}-{first + found - 1} match the first {found} lines of {name}"
    )
    differing = at + found
    if differing >= file.count:
        return f"{matched}, but {name} continues past the end of the file."
    return (
        f"{matched}, but line {differing + 1} differs (both shown as JSON strings):\n"
        f"  line {differing + 1}: {quote(file.texts[differing])}\n"
        f"  {name}: {quote(old[found])}"
    )


def _anchor_missing(file: _File, anchor: str, place: _Place, label: str) -> BorisError:
    text = anchor.encode()
    parts = [
        f"{label}: its @@ line {json.dumps(anchor, ensure_ascii=False)} was not found "
        f"{place.where()}. An @@ line gives a line of the file (such as the first line of "
        "a function) after which the hunk is looked for."
    ]
    elsewhere = file.find([text], 0, _ANCHOR_TIERS)[0]
    if 0 <= elsewhere < place.line:
        parts.append(
            f"It is at line {elsewhere + 1}, before that: hunks go in the order of the file."
        )
    else:
        hint = similar_line(file.data, [text], "the @@ line", single=True)
        if hint:
            parts.append(hint)
    return BorisError(Code.STR_REPLACE_NOT_FOUND, "\n".join(parts))
