"""The hunks of an apply_patch update applied to a file's bytes, changing only the lines
they add and remove.

A hunk's context and removed lines (its *old* lines) must equal consecutive lines of
the file (boris.files.patch.line_search says what a line's text is): exactly, or else once
trailing whitespace is ignored on both sides (the tolerance Codex has at line ends;
indentation always counts). Hunks are looked for in order, each from where the
previous one ended (and after its ``@@`` lines), up to where the next hunk is first
found (for the last one, the end of the file): its *region*. Within its region, places
where the old lines match exactly win over places where they match only without
trailing whitespace. Without an ``@@`` line the old lines must occur once in the region;
with one, the first place is taken. An occurrence beyond the next hunk is no rival:
hunks go in file order, so it could only be meant if the next hunk were meant
elsewhere too. An ``@@`` line is found as the first line from there equal to it,
whitespace at either end aside (it only says where to look, and changes nothing). A
hunk ending in ``*** End of File`` must end the file; a hunk with no old lines goes
after its ``@@`` line, or at the end of the file. As Codex does, empty context lines
ending a hunk (often blank lines typed between hunks) may stand for nothing.

So every search is bounded by the next hunk's place, and the whole patch costs time
linear in the file plus the patch, however many hunks it has. The call can be
cancelled (``stop``): it looks between hunks.

Kept lines keep their own bytes (trailing spaces, CR and all); added lines take the
file's line ending (CRLF in a file that uses CRLF throughout), and a file that did not
end in a newline still does not. The new content is put together from slices of the
old one and runs of added lines: nothing is built per line of the file or of the hunk.

No I/O here: boris.files.patch.files reads and writes around it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.edit_bytes import is_utf8
from boris.files.near_miss import quote, similar_line
from boris.files.patch.format import Hunk
from boris.files.patch.line_search import LineFile, Lines, Tier, around, exact, trailing
from boris.stop import Stop, check

# Places of an ambiguous hunk counted, and listed by line number, in its message.
_COUNTED = 100
_LISTED = 10
#: How a hunk's lines are compared with the file's, from the strictest.
_HUNK_TIERS: tuple[Tier, ...] = (exact, trailing)
# Lines looked at for the first non-blank one of a hunk, for a hint.
_HINT_LINES = 1000

# Where a run of a hunk's lines of one kind ends (the newline before the next line of
# another kind): context lines (" …" or empty), removed lines, added lines. Runs are
# found by searching, not by a regular expression repeated over the lines, whose
# backtracking points would take memory for every line.
_RUN_ENDS = {
    " ": re.compile(r"\n[-+]"),
    "-": re.compile(r"\n[^-]"),
    "+": re.compile(r"\n[^+]"),
}
_ADDED = re.compile(r"^\+([^\n]*)$", re.M)
# Pieces of a hunk's old lines joined into one string at a time.
_JOINED = 1024


class _File(LineFile):
    """The file being patched."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self._utf8: bool | None = None

    def first(self, lines: Lines, offset: int, tiers: Sequence[Tier]) -> int:
        """Where ``lines`` first occur from ``offset`` under the strictest of ``tiers``
        that finds them anywhere; -1 if none does (for messages)."""
        for tier in tiers:
            found = self.find(lines, offset, tier)
            if found >= 0:
                return found
        return -1

    def is_utf8(self) -> bool:
        if self._utf8 is None:
            self._utf8 = is_utf8(self.data)
        return self._utf8


@dataclass(frozen=True)
class _Variant:
    """A hunk's lines as applied: its body, and its old lines."""

    body: str
    old: Lines


class _Lines:
    """What a hunk looks for, made from its body once: its variants (the lines as given,
    and without the empty context lines that end it), the most lenient last."""

    def __init__(self, hunk: Hunk) -> None:
        self.hunk = hunk
        body = hunk.body
        full = _variant(body)
        self.variants = [full]
        # Empty context lines ending the hunk (an empty line, or a lone space), as many
        # as leave one old line.
        end, blank = len(body), 0
        while blank < full.old.count - 1:
            start = body.rfind("\n", 0, end - 1) + 1
            if body[start:end] not in ("\n", " \n"):
                break
            end, blank = start, blank + 1
        if blank:
            self.variants.append(_variant(body[:end]))
        self.lenient = self.variants[-1]

    @property
    def has_old(self) -> bool:
        return self.variants[0].old.count > 0


def _variant(body: str) -> _Variant:
    return _Variant(body, Lines(_old_text(body).encode()))


def _runs(body: str) -> Iterator[tuple[str, str]]:
    """The runs of lines of one kind in a hunk's body: ``" "`` (context, an empty line
    counting as one), ``"-"`` or ``"+"``, and the run's lines as they are in the body."""
    at = 0
    while at < len(body):
        kind = "-" if body[at] == "-" else "+" if body[at] == "+" else " "
        found = _RUN_ENDS[kind].search(body, at)
        end = len(body) if found is None else found.start() + 1
        yield kind, body[at:end]
        at = end


def _without_kind(kind: str, run: str) -> str:
    """A run's lines without the character of their kind (an empty line has none)."""
    return ("\n" + run).replace("\n" + kind, "\n")[1:]


def _old_text(body: str) -> str:
    """A hunk's context and removed lines, without their kind, each ending in a newline."""
    pieces: list[str] = []
    for kind, run in _runs(body):
        if kind != "+":
            pieces.append(_without_kind(kind, run))
            if len(pieces) == _JOINED:
                pieces = ["".join(pieces)]
    return "".join(pieces)


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

    def keep_lines(self, count: int) -> None:
        self.keep(self._file.after(self.cursor, count))

    def remove_lines(self, count: int) -> None:
        self.cursor = self._file.after(self.cursor, count)

    def add(self, text: bytes) -> None:
        """Add lines: their texts, each followed by ``\\n``."""
        eol = self._file.eol
        self._parts.append(text.replace(b"\n", eol))
        self._last_ending = len(eol)

    def apply(self, body: str) -> None:
        """The runs of a hunk's body, from the cursor."""
        for kind, run in _runs(body):
            if kind == " ":
                self.keep_lines(run.count("\n"))
            elif kind == "-":
                self.remove_lines(run.count("\n"))
            else:
                self.add(_without_kind(kind, run).encode())

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


def apply_hunks(data: bytes, hunks: Sequence[Hunk], path: str, stop: Stop | None = None) -> bytes:
    """``data`` with ``hunks`` applied in order; STR_REPLACE_NOT_FOUND,
    STR_REPLACE_AMBIGUOUS or INVALID_INPUT (non-ASCII text for a file that is not
    UTF-8) naming the hunk that cannot apply; :class:`~boris.stop.Stopped` once
    ``stop`` is set."""
    file = _File(data)
    try:
        return _Patching(file, hunks, path, stop).run()
    finally:
        file.forget()


class _Patching:
    """The hunks of one file, applied in turn."""

    def __init__(self, file: _File, hunks: Sequence[Hunk], path: str, stop: Stop | None) -> None:
        self.file = file
        self.hunks = hunks
        self.path = path
        self.stop = stop
        self._lines: dict[int, _Lines] = {}
        # The last first lenient place found: (hunk index, from offset) -> place.
        self._seen: tuple[int, int, int] | None = None

    def lines(self, index: int) -> _Lines:
        if index not in self._lines:
            self._lines = {index: _Lines(self.hunks[index])}  # only the one in hand
        return self._lines[index]

    def run(self) -> bytes:
        file = self.file
        out = _Output(file)
        place = _Place(file.start)
        total = len(self.hunks)
        for index, hunk in enumerate(self.hunks):
            check(self.stop)
            number = index + 1
            label = f"{self.path}: hunk {number} of {total}"
            _check_encoding(file, hunk, label)
            for anchor in hunk.anchors:
                found = file.find(Lines.of([anchor.encode()]), place.offset, around)
                if found < 0:
                    raise _anchor_missing(file, anchor, place, label)
                since = f"its @@ line {json.dumps(anchor, ensure_ascii=False)}"
                place = _Place(file.line_end(found), since)
            lines = self.lines(index)
            if lines.has_old:
                start, variant = self._locate(index, place, f"hunk {number}", label)
                body = variant.body
            else:
                start = place.offset if hunk.anchors and not hunk.at_end else len(file.data)
                body = hunk.body
            assert start >= out.cursor, (start, out.cursor)  # each hunk after the one before
            out.keep(start)
            out.apply(body)
            place = _Place(out.cursor, f"the end of hunk {number}")
        return out.result()

    def _locate(self, index: int, place: _Place, name: str, label: str) -> tuple[int, _Variant]:
        """Where hunk ``index``'s old lines are, and its lines as applied there."""
        file, lines = self.file, self.lines(index)
        hunk = lines.hunk
        if hunk.at_end:
            for variant in lines.variants:
                start = file.last_lines(variant.old.count)
                if start >= place.offset and any(
                    file.matches_at(start, variant.old, tier) for tier in _HUNK_TIERS
                ):
                    return start, variant
            raise _old_missing(file, hunk, lines.variants[0].old, place, name, label)
        lenient = self._first(index, place.offset)
        if lenient < 0:
            raise _old_missing(file, hunk, lines.variants[0].old, place, name, label)
        following = self._probe(index + 1, file.after(lenient, lines.lenient.old.count))
        for variant in lines.variants:
            for tier in _HUNK_TIERS:
                start = file.find(variant.old, lenient, tier, following)
                if start < 0:
                    continue
                if not hunk.anchors:
                    self._require_once(variant.old, start, tier, place, following, label)
                return start, variant
        raise AssertionError("the lenient place matches the last variant")

    def _first(self, index: int, offset: int) -> int:
        """The first place from ``offset`` where hunk ``index`` matches most leniently."""
        if self._seen is not None and self._seen[:2] == (index, offset):
            return self._seen[2]
        found = self.file.find(self.lines(index).lenient.old, offset, trailing)
        self._seen = (index, offset, found)
        return found

    def _probe(self, index: int, offset: int) -> int:
        """Where hunk ``index`` is first found from ``offset``: the end of the region of
        the hunk before it (past the end of the file: no bound)."""
        file = self.file
        unbounded = len(file.data) + 1
        if index >= len(self.hunks):
            return unbounded
        hunk = self.hunks[index]
        if hunk.anchors:
            found = file.find(Lines.of([hunk.anchors[0].encode()]), offset, around)
        elif not self.lines(index).has_old:
            return unbounded  # its lines go at the end of the file
        elif hunk.at_end:
            found = file.last_lines(self.lines(index).variants[0].old.count)
            found = found if found >= offset else -1
        else:
            found = self._first(index, offset)
        return found if found >= 0 else unbounded

    def _require_once(
        self, old: Lines, start: int, tier: Tier, place: _Place, before: int, label: str
    ) -> None:
        file = self.file
        places = file.places(old, start, tier, before, _COUNTED + 1)
        if len(places) == 1:
            return
        count = f"more than {_COUNTED}" if len(places) > _COUNTED else str(len(places))
        listed = ", ".join(str(file.number(offset) + 1) for offset in places[:_LISTED])
        if len(places) > _LISTED:
            listed += ", …"
        where = place.where(file)
        if before <= len(file.data):
            where += f", before line {file.number(before) + 1} (where the next hunk is found)"
        raise BorisError(
            Code.STR_REPLACE_AMBIGUOUS,
            f"{label}: its context and removed lines occur {count} times {where} "
            f"(at lines {listed}); add context lines to make them unique, or start the hunk "
            "with an '@@ ' line naming a line before it, such as the first line of its "
            "function or class (the first place after that line is taken)",
        )


def _check_encoding(file: _File, hunk: Hunk, label: str) -> None:
    if hunk.body.isascii() or file.is_utf8():
        return
    if all(added.group(1).isascii() for added in _ADDED.finditer(hunk.body)):
        return
    raise BorisError(
        Code.INVALID_INPUT,
        f"{label}: its added lines have non-ASCII characters, but the file is not valid "
        "UTF-8 (it is in another encoding): written as UTF-8 they would mix two "
        "encodings in one file. Use ASCII text only, or convert the file to UTF-8 "
        "first; nothing was changed.",
    )


def _old_missing(
    file: _File, hunk: Hunk, old: Lines, place: _Place, name: str, label: str
) -> BorisError:
    if hunk.at_end:
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
    elsewhere = file.first(old, file.start, _HUNK_TIERS)
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
        if not old.text.isascii() and not file.is_utf8():
            parts.append(
                "The file is not valid UTF-8 (it is in another encoding), and these lines "
                "have non-ASCII characters, which are looked for as UTF-8: the file does not "
                "store them that way. Match on ASCII text only."
            )
        hint = _partly_found(file, old, place.offset, name) or similar_line(
            file.data, old.leading(_HINT_LINES), name
        )
        if hint:
            parts.append(hint)
    return BorisError(Code.STR_REPLACE_NOT_FOUND, "\n".join(parts))


def _partly_found(file: _File, old: Lines, offset: int, name: str) -> str | None:
    """Where the most leading lines of ``old`` are found from ``offset``, and the line
    that differs next: found by halving, a few searches of the file."""
    # old[:found] is at ``at`` (once found is more than 0); old[:missing] is nowhere.
    found, missing = 0, old.count
    at: int
    while missing - found > 1:
        middle = (found + missing) // 2
        place = file.find(old.head(middle), offset, trailing)
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
    differing = file.after(at, found)
    if differing >= len(file.data):
        return f"{matched}, but {name} continues past the end of the file."
    number = first + found
    return (
        f"{matched}, but line {number} differs (both shown as JSON strings):\n"
        f"  line {number}: {quote(file.text_at(differing))}\n"
        f"  {name}: {quote(old.line(found))}"
    )


def _anchor_missing(file: _File, anchor: str, place: _Place, label: str) -> BorisError:
    text = anchor.encode()
    parts = [
        f"{label}: its @@ line {json.dumps(anchor, ensure_ascii=False)} was not found "
        f"{place.where(file)}. An @@ line gives a line of the file (such as the first line "
        "of a function) after which the hunk is looked for."
    ]
    elsewhere = file.find(Lines.of([text]), file.start, around)
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
