"""apply_patch over generated files and patches, against a model of the format written here.

The model is an editor: it reads a file as a list of lines with their endings, picks
hunks (context, removed and added lines), writes them in the envelope as a model of the
GPT family would (a few lines of context, an ``@@`` line where one picks the right
place, ``*** End of File`` at the end, blank context lines sometimes without their
space). Where each hunk lands is found by the README's rule, written here on the list of
lines (each hunk looked for in its region, from the end of the one before to where the
next is first found; exact places first, then without trailing whitespace; once without
an ``@@`` line, the first place with one; an ``@@`` line as the first line equal to it,
whitespace at either end aside; blank context lines ending a hunk dropped if it is not
found with them), and the bytes it expects are computed from its list of lines, not from
the patch. It also knows when the tool must refuse: lines that occur twice in a hunk's
region, non-ASCII text for a file that is not UTF-8, a line it garbled on purpose, a file
added over one that exists. Then: a patch that applies gives the model's bytes for every
file; a patch that fails leaves every file's bytes and inode as they were, and no file
more or less (README "apply_patch").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from boris.errors import BorisError
from boris.session import Session
from boris.tools import apply_patch as apply_patch_tool
from boris.tools import view as view_tool
from tests.support.models import Line, lines_of
from tests.support.sessions import in_loop, session_in_tempdir
from tests.support.strategies import line_files

apply_patch = in_loop(apply_patch_tool.apply_patch)
view = in_loop(view_tool.view)

ADDED = ["new", "", "  more", "ünï", "tail"]
MISSING = "no such line anywhere"
#: A file no section names.
UNTOUCHED = {"keep.txt": b"keep\n"}
#: The error each reason to refuse gives.
CODES = {
    "ambiguous": "[STR_REPLACE_AMBIGUOUS]",
    "not found": "[STR_REPLACE_NOT_FOUND]",
    "encoding": "[INVALID_INPUT]",
    "exists": "[INVALID_INPUT]",
}
#: ASCII whitespace at a line's ends, as the tool compares lines.
BLANK = b" \t\r\x0b\x0c"


def valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass
class Hunk:
    start: int  # first line of its context
    lines: list[tuple[str, bytes]]  # (" " | "-" | "+", text)
    anchor: bytes | None = None
    at_end: bool = False

    def old(self) -> list[bytes]:
        return [text for kind, text in self.lines if kind != "+"]


@dataclass
class Update:
    """The model's change of one file: its hunks, and whether the tool must refuse them."""

    hunks: list[Hunk] = field(default_factory=list)
    #: Why the tool must refuse them, if it must.
    reasons: list[str] = field(default_factory=list)


def occurrences(texts: list[bytes], old: list[bytes], start: int) -> list[int]:
    return [i for i in range(start, len(texts) - len(old) + 1) if texts[i : i + len(old)] == old]


def exact(text: bytes) -> bytes:
    return text


def trailing(text: bytes) -> bytes:
    return text.rstrip(BLANK)


def around(text: bytes) -> bytes:
    return text.strip(BLANK)


Key = Callable[[bytes], bytes]
Lines = list[tuple[str, bytes]]


def places(texts: list[bytes], old: list[bytes], start: int, stop: int, key: Key) -> list[int]:
    """Where ``old`` occurs under ``key``, starting at ``start`` or later and before ``stop``."""
    return [
        i
        for i in range(start, min(stop, len(texts) - len(old) + 1))
        if all(key(texts[i + j]) == key(line) for j, line in enumerate(old))
    ]


def olds(lines: Lines) -> list[bytes]:
    return [text for kind, text in lines if kind != "+"]


def variants(hunk: Hunk) -> list[Lines]:
    """A hunk's lines as given, and without the empty context lines ending it (as many as
    leave one old line), if there are any."""
    lines, blank = hunk.lines, 0
    while blank < len(hunk.old()) - 1 and lines[len(lines) - 1 - blank] == (" ", b""):
        blank += 1
    return [lines, lines[: len(lines) - blank]] if blank else [lines]


class Refused(Exception):
    """The rule finds no place for a hunk, or two: why."""


def after_anchor(texts: list[bytes], hunk: Hunk, position: int) -> int:
    """Where a hunk is looked for after its @@ line (if any), from ``position``."""
    if hunk.anchor is None:
        return position
    found = [i for i in range(position, len(texts)) if around(texts[i]) == around(hunk.anchor)]
    if not found:
        raise Refused("not found")
    return found[0] + 1


def probe(texts: list[bytes], hunks: list[Hunk], index: int, position: int) -> int:
    """Where hunk ``index`` is first found from ``position``: the end of the region of the
    one before (past the end of the file: no bound)."""
    endless = len(texts) + 1
    if index >= len(hunks):
        return endless
    hunk = hunks[index]
    if hunk.anchor is not None:
        found = [i for i in range(position, len(texts)) if around(texts[i]) == around(hunk.anchor)]
        return found[0] if found else endless
    if not hunk.old():
        return endless
    if hunk.at_end:
        start = len(texts) - len(hunk.old())
        return start if start >= position else endless
    found = places(texts, olds(variants(hunk)[-1]), position, endless, trailing)
    return found[0] if found else endless


def locate(texts: list[bytes], hunks: list[Hunk], index: int, position: int) -> tuple[int, Lines]:
    """Where hunk ``index`` lands when looked for from ``position``, and its lines as
    applied there; Refused if it cannot."""
    hunk = hunks[index]
    position = after_anchor(texts, hunk, position)
    if not hunk.old():
        return (position if hunk.anchor is not None and not hunk.at_end else len(texts)), hunk.lines
    if hunk.at_end:
        for lines in variants(hunk):
            start = len(texts) - len(olds(lines))
            if start >= position and any(
                places(texts, olds(lines), start, start + 1, key) for key in (exact, trailing)
            ):
                return start, lines
        raise Refused("not found")
    lenient = variants(hunk)[-1]
    first = places(texts, olds(lenient), position, len(texts) + 1, trailing)
    if not first:
        raise Refused("not found")
    stop = probe(texts, hunks, index + 1, first[0] + len(olds(lenient)))
    for lines in variants(hunk):
        for key in (exact, trailing):
            found = places(texts, olds(lines), first[0], stop, key)
            if found:
                if hunk.anchor is None and len(found) > 1:
                    raise Refused("ambiguous")
                return found[0], lines
    raise AssertionError("the lenient place matches")


def landings(data: bytes, hunks: list[Hunk]) -> list[tuple[int, Lines]]:
    """Where each hunk lands, in order; Refused for the first that cannot."""
    _, lines, _ = lines_of(data)
    texts = [text for text, _ in lines]
    found: list[tuple[int, Lines]] = []
    position = 0
    for index, hunk in enumerate(hunks):
        if any(not t.isascii() for k, t in hunk.lines if k == "+") and not valid_utf8(data):
            raise Refused("encoding")
        start, applied = locate(texts, hunks, index, position)
        found.append((start, applied))
        position = start + len(olds(applied))
    return found


@st.composite
def updates(draw: st.DrawFn, data: bytes) -> Update:
    """Hunks for ``data``, in file order, as the model writes them."""
    _, lines, _ = lines_of(data)
    texts = [text for text, _ in lines]
    count = len(texts)
    update = Update()
    position = 0  # where the model means the next hunk to be
    for _ in range(draw(st.integers(1, 3))):
        if position > count:
            break
        start = draw(st.integers(position, count))
        before = draw(st.integers(0, 3))
        removed = draw(st.integers(0, 3))
        after = draw(st.integers(0, 3))
        if before + removed + after == 0 and count:
            before = 1  # lines alone would go to the end of the file
        kept_before = texts[start : start + before]
        gone = texts[start + before : start + before + removed]
        kept_after = texts[start + before + len(gone) : start + before + len(gone) + after]
        old = kept_before + gone + kept_after
        if not old and start < count:
            continue
        if not all(valid_utf8(text) for text in old):
            continue  # a patch is text: the model cannot quote such a line
        added = [a.encode() for a in draw(st.lists(st.sampled_from(ADDED), max_size=3))]
        if not old and not added:
            continue  # a hunk has lines
        hunk = Hunk(
            start,
            [(" ", t) for t in kept_before]
            + [("-", t) for t in gone]
            + [("+", t) for t in added]
            + [(" ", t) for t in kept_after],
        )
        end = start + len(old)
        if end == count and draw(st.booleans()):
            hunk.at_end = True
        elif old:
            unique = occurrences(texts, old, position) == [start]
            line_before = texts[start - 1] if start > position else b""
            if (
                (not unique or draw(st.booleans()))
                and line_before.strip()
                and valid_utf8(line_before)
            ):
                hunk.anchor = line_before  # the line before the hunk as its @@ line
        update.hunks.append(hunk)
        position = end
    if update.hunks and draw(st.integers(0, 9)) == 0:
        garbled = [h for h in update.hunks if h.old()]
        if garbled:
            hunk = draw(st.sampled_from(garbled))
            index = draw(st.sampled_from([i for i, (k, _) in enumerate(hunk.lines) if k != "+"]))
            hunk.lines[index] = (hunk.lines[index][0], MISSING.encode())
    try:
        landings(data, update.hunks)
    except Refused as refused:
        update.reasons.append(str(refused))
    return update


def expected(data: bytes, update: Update) -> bytes:
    """The file as the model means it: its lines with each hunk's region replaced, where
    the rule lands it."""
    bom, lines, ended = lines_of(data)
    eol = b"\r\n" if data.count(b"\r\n") == data.count(b"\n") > 0 else b"\n"
    result: list[Line] = []
    cursor = 0
    for start, applied in landings(data, update.hunks):
        result += lines[cursor:start]
        cursor = start
        for kind, text in applied:
            if kind == "+":
                result.append((text, eol))
            else:
                if kind == " ":
                    result.append(lines[cursor])
                cursor += 1
    result += lines[cursor:]
    out = [(text, ending or eol) for text, ending in result]
    if out and not ended:
        out[-1] = (out[-1][0], b"")
    return bom + b"".join(text + ending for text, ending in out)


def hunk_text(hunk: Hunk, bare_blank: bool) -> list[str]:
    out = [f"@@ {hunk.anchor.decode()}" if hunk.anchor is not None else "@@"]
    for kind, text in hunk.lines:
        line = kind + text.decode()
        out.append("" if bare_blank and line == " " else line)
    if hunk.at_end:
        out.append("*** End of File")
    return out


@dataclass
class Case:
    files: dict[str, bytes]
    sections: list[str]
    after: dict[str, bytes]
    reasons: list[str]
    features: set[str] = field(default_factory=set)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    contents = draw(st.lists(line_files(), min_size=1, max_size=3))
    names = {f"f{n}.txt": data for n, data in enumerate(contents)}
    after = {**names, **UNTOUCHED}
    sections: list[str] = []
    reasons: list[str] = []
    features: set[str] = set()
    bare_blank = draw(st.booleans())
    for name, data in names.items():
        action = draw(st.sampled_from(["update", "update", "move", "delete"]))
        if action == "delete":
            sections.append(f"*** Delete File: {name}")
            del after[name]
            continue
        update = draw(updates(data))
        reasons += update.reasons
        features |= {"@@ line" for h in update.hunks if h.anchor is not None}
        features |= {"End of File" for h in update.hunks if h.at_end}
        features |= {"hunks" for _ in update.hunks[1:]}
        header = [f"*** Update File: {name}"]
        target = name
        if action == "move":
            target = draw(st.sampled_from([f"moved-{name}", f"sub/dir/{name}"]))
            header.append(f"*** Move to: {target}")
            del after[name]
        body = [line for hunk in update.hunks for line in hunk_text(hunk, bare_blank)]
        if not body and action == "update":
            body = ["@@", "+appended"]  # an update needs a hunk
            update.hunks.append(Hunk(0, [("+", b"appended")]))
        sections.append("\n".join(header + body))
        if not update.reasons:
            after[target] = expected(data, update)
    if draw(st.integers(0, 3)) == 0:
        name = "new.txt"
        if not reasons and draw(st.integers(0, 3)) == 0:
            name = "keep.txt"  # not named by another section: it just exists
            reasons.append("exists")
        content = draw(st.lists(st.sampled_from(ADDED), max_size=3))
        sections.append("\n".join([f"*** Add File: {name}", *("+" + c for c in content)]))
        after[name] = "".join(c + "\n" for c in content).encode()
    return Case({**names, **UNTOUCHED}, sections, after, reasons, features)


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(path.relative_to(root)): (path.read_bytes(), path.stat().st_ino)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def run(session: Session, case: Case, crlf: bool) -> str:
    for name in case.files:
        view(path=name, session=session)
    text = "\n".join(["*** Begin Patch", *case.sections, "*** End Patch"])
    try:
        return apply_patch(patch=text.replace("\n", "\r\n") if crlf else text, session=session)
    except BorisError as failure:
        return str(failure)


@given(cases(), st.booleans())
def test_a_patch_gives_the_models_bytes_or_changes_nothing(case: Case, crlf: bool) -> None:
    with session_in_tempdir() as (session, root):
        for name, data in case.files.items():
            (root / name).write_bytes(data)
        before = snapshot(root)
        result = run(session, case, crlf)
        after = snapshot(root)
    for feature in case.features:
        event(feature)
    if not case.reasons:
        event("applied")
        assert not result.startswith("["), result
        assert {name: data for name, (data, _) in after.items()} == case.after
    else:
        assert after == before
        assert result.startswith("["), result
        if len(set(case.reasons)) == 1:
            event(f"refused: {case.reasons[0]}")
            assert result.startswith(CODES[case.reasons[0]]), result
