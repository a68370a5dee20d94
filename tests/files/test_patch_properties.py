"""apply_patch over generated files and patches, against a model of the format written here.

The model is an editor that knows where it changes each file: it reads a file as a list
of lines with their endings, picks hunks (context, removed and added lines), writes them
in the envelope as a model of the GPT family would (a few lines of context, an ``@@``
line where one picks the right place, ``*** End of File`` at the end, blank context lines
sometimes without their space), and computes the bytes it expects from its list of
lines, not from the patch. It also knows when the tool must refuse: lines that occur
twice where a hunk without an ``@@`` line is looked for, non-ASCII text for a file that
is not UTF-8, a line it garbled on purpose, a file added over one that exists. Then:
a patch that applies gives the model's bytes for every file; a patch that fails leaves
every file's bytes and inode as they were, and no file more or less (README
"apply_patch").
"""

from __future__ import annotations

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
    "garbled": "[STR_REPLACE_NOT_FOUND]",
    "encoding": "[INVALID_INPUT]",
    "exists": "[INVALID_INPUT]",
}


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


@st.composite
def updates(draw: st.DrawFn, data: bytes) -> Update:
    """Hunks for ``data``, in file order, as the model writes them."""
    _, lines, _ = lines_of(data)
    texts = [text for text, _ in lines]
    count = len(texts)
    update = Update()
    position = 0  # where the tool looks for the next hunk
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
                # The line before the hunk as its @@ line, if the tool then finds this
                # place: the first after that line's first occurrence.
                after_anchor = texts.index(line_before, position) + 1
                if occurrences(texts, old, after_anchor)[:1] == [start]:
                    hunk.anchor = line_before
            if hunk.anchor is None and not unique:
                update.reasons.append("ambiguous")
        if any(not t.isascii() for t in added) and not valid_utf8(data):
            update.reasons.append("encoding")
        update.hunks.append(hunk)
        position = end
    if update.hunks and not update.reasons and draw(st.integers(0, 9)) == 0:
        garbled = [h for h in update.hunks if h.old()]
        if garbled:
            hunk = draw(st.sampled_from(garbled))
            index = draw(st.sampled_from([i for i, (k, _) in enumerate(hunk.lines) if k != "+"]))
            hunk.lines[index] = (hunk.lines[index][0], MISSING.encode())
            update.reasons.append("garbled")
    return update


def expected(data: bytes, update: Update) -> bytes:
    """The file as the model means it: its lines with each hunk's region replaced."""
    bom, lines, ended = lines_of(data)
    eol = b"\r\n" if data.count(b"\r\n") == data.count(b"\n") > 0 else b"\n"
    result: list[Line] = []
    cursor = 0
    for hunk in update.hunks:
        start = hunk.start if hunk.old() or not lines else len(lines)
        result += lines[cursor:start]
        cursor = start
        for kind, text in hunk.lines:
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
