"""The apply_patch format: a patch's text read into the file changes it asks for.

The envelope GPT-family models are trained to edit with::

    *** Begin Patch
    *** Add File: <path>            every following line is "+" and a line of the new file
    *** Delete File: <path>         nothing follows
    *** Update File: <path>
    *** Move to: <path>             optional, right after Update File
    @@ <a line of the file>         a hunk: "@@" alone, or with a line it comes after
     context line                   " " kept, "-" removed, "+" added
    *** End of File                 optional, ends a hunk that must end the file
    *** End Patch

Read as Codex reads it, lenient only where it is: spaces around the envelope's marker
lines and section headers, blank lines before and after the patch, a patch wrapped in a
heredoc's ``<<'EOF'`` … ``EOF`` lines, a first hunk without its ``@@`` line, an empty
line inside a hunk meaning an empty context line, blank lines between hunks. Beyond
Codex, several ``@@`` lines in a row each narrow the search (Codex's instructions teach
them), and an update that only moves a file needs no hunk. Anything else that does not
fit is refused with ``PATCH_INVALID`` naming the line, nothing having been looked at on
disk. Lines are numbered as in the argument, from 1.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from boris.errors import BorisError, Code

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
#: The files one patch may change.
MAX_FILES = 100

# The first line of a heredoc a patch may come wrapped in, as Codex accepts it.
_HEREDOC_STARTS = frozenset({"<<EOF", "<<'EOF'", '<<"EOF"'})
# "@@ -12,7 +12,8 @@": a unified diff's hunk header, which this format does not have.
_UNIFIED_RANGES = re.compile(r"-\d+(,\d+)? \+\d+(,\d+)? @@")
# Characters of a patch line quoted in a message.
_QUOTED = 80

Kind = Literal[" ", "-", "+"]


@dataclass(frozen=True)
class Hunk:
    """One hunk of an update: where to look, and its lines."""

    #: The patch line of its first line.
    line: int
    #: Texts of its ``@@`` lines, in order: each is looked for after the one before.
    anchors: tuple[str, ...]
    #: Its lines: ``" "`` context, ``"-"`` removed, ``"+"`` added, with their text.
    lines: tuple[tuple[Kind, str], ...]
    #: It ends in ``*** End of File``: its lines end the file.
    at_end: bool

    @property
    def old(self) -> list[str]:
        """The lines the file has where the hunk applies: context and removed."""
        return [text for kind, text in self.lines if kind != "+"]


@dataclass(frozen=True)
class FileChange:
    """One section of a patch."""

    action: Literal["add", "delete", "update"]
    path: str
    #: The patch line of its header.
    line: int
    #: Add: the lines of the new file.
    content: tuple[str, ...] = ()
    #: Update: where the file moves, and the line that says so.
    move_to: str | None = None
    move_line: int = 0
    hunks: tuple[Hunk, ...] = ()


def invalid(line: int, message: str) -> BorisError:
    return BorisError(Code.PATCH_INVALID, f"line {line}: {message}")


def shown(text: str) -> str:
    """A patch line quoted in a message, as a JSON string, cut when long."""
    if len(text) > _QUOTED:
        return json.dumps(text[:_QUOTED], ensure_ascii=False) + " (cut)"
    return json.dumps(text, ensure_ascii=False)


def parse(text: str) -> list[FileChange]:
    """The changes a patch asks for, in its order; ``PATCH_INVALID`` if it is malformed."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    first, last = _envelope(lines)
    return _Reader(lines, last).sections(first + 1)


def _envelope(lines: list[str]) -> tuple[int, int]:
    """The indexes of the ``*** Begin Patch`` and ``*** End Patch`` lines."""
    filled = [index for index, line in enumerate(lines) if line.strip()]
    if not filled:
        raise invalid(1, f"the patch is empty; it starts with {shown(BEGIN)}")
    first, last = filled[0], filled[-1]
    if (
        lines[first].strip() in _HEREDOC_STARTS
        and lines[last].strip().endswith("EOF")
        and len(filled) >= 4
    ):
        # A heredoc's lines around the patch: the patch is what they enclose.
        inner = [index for index in filled if first < index < last]
        first, last = inner[0], inner[-1]
    if lines[first].strip() != BEGIN:
        raise invalid(
            first + 1, f"the patch must start with {shown(BEGIN)}, not {shown(lines[first])}"
        )
    if last == first or lines[last].strip() != END:
        raise invalid(last + 1, f"the patch must end with {shown(END)}, not {shown(lines[last])}")
    return first, last


class _Reader:
    """Reads the sections between the envelope's lines; ``end`` is the End Patch line."""

    def __init__(self, lines: list[str], end: int) -> None:
        self._lines = lines
        self._end = end

    def sections(self, index: int) -> list[FileChange]:
        changes: list[FileChange] = []
        previous: FileChange | None = None
        while index < self._end:
            header = self._lines[index].strip()
            if header in (ADD.strip(), DELETE.strip(), UPDATE.strip()):
                raise invalid(index + 1, f"{shown(header)} needs a path after it")
            if len(changes) == MAX_FILES:
                raise invalid(
                    index + 1,
                    f"a patch changes at most {MAX_FILES} files; split it into several",
                )
            if header.startswith(ADD):
                change, index = self._add(index)
            elif header.startswith(DELETE):
                change = FileChange("delete", self._path(index, DELETE), index + 1)
                index += 1
            elif header.startswith(UPDATE):
                change, index = self._update(index)
            else:
                raise self._misplaced(index, previous)
            changes.append(change)
            previous = change
        if not changes:
            raise invalid(
                self._end + 1,
                f"the patch changes no file: give at least one {shown(ADD + '<path>')}, "
                f"{shown(UPDATE + '<path>')} or {shown(DELETE + '<path>')} section",
            )
        return changes

    def _path(self, index: int, marker: str) -> str:
        return self._lines[index].strip()[len(marker) :].strip()

    def _add(self, index: int) -> tuple[FileChange, int]:
        path = self._path(index, ADD)
        content = []
        following = index + 1
        while following < self._end and self._lines[following].startswith("+"):
            content.append(self._lines[following][1:])
            following += 1
        return FileChange("add", path, index + 1, content=tuple(content)), following

    def _update(self, index: int) -> tuple[FileChange, int]:
        path = self._path(index, UPDATE)
        following = index + 1
        move_to, move_line = None, 0
        if following < self._end and self._lines[following].strip() == MOVE.strip():
            raise invalid(following + 1, f"{shown(MOVE.strip())} needs a path after it")
        if following < self._end and self._lines[following].strip().startswith(MOVE):
            move_to, move_line = self._path(following, MOVE), following + 1
            following += 1
        hunks: list[Hunk] = []
        while following < self._end:
            line = self._lines[following]
            if not line.strip():
                following += 1  # a blank line between hunks
                continue
            if line.startswith("*"):
                break  # the next section, or a marker out of place
            hunk, following = self._hunk(following, first=not hunks)
            hunks.append(hunk)
        if not hunks and move_to is None:
            raise invalid(
                index + 1,
                f"{shown(UPDATE + path)} has no hunks: give its changes as '@@' hunks "
                "of ' ' context, '-' removed and '+' added lines",
            )
        change = FileChange(
            "update", path, index + 1, move_to=move_to, move_line=move_line, hunks=tuple(hunks)
        )
        return change, following

    def _hunk(self, index: int, first: bool) -> tuple[Hunk, int]:
        start = index
        anchors: list[str] = []
        while index < self._end and self._lines[index].startswith("@@"):
            anchors.extend(_anchor(self._lines[index], index))
            index += 1
        if index == start and not first:
            raise invalid(
                index + 1,
                f"expected '@@' to start the next hunk, got {shown(self._lines[index])}",
            )
        body: list[tuple[Kind, str]] = []
        at_end = False
        while index < self._end:
            line = self._lines[index]
            if line.rstrip() == END_OF_FILE:
                if not body:
                    raise invalid(
                        index + 1, f"{shown(END_OF_FILE)} must follow the lines of a hunk"
                    )
                at_end = True
                index += 1
                break
            if line.startswith(("@@", "*")):
                break
            if not line:
                body.append((" ", ""))  # an empty context line without its space
            elif line[0] in " -+":
                kind: Kind = " " if line[0] == " " else "-" if line[0] == "-" else "+"
                body.append((kind, line[1:]))
            else:
                raise invalid(
                    index + 1,
                    "each line of a hunk starts with ' ' (context), '-' (removed) or "
                    f"'+' (added); got {shown(line)}",
                )
            index += 1
        if not body:
            raise invalid(start + 1, "this hunk has no lines")
        return Hunk(start + 1, tuple(anchors), tuple(body), at_end), index

    def _misplaced(self, index: int, previous: FileChange | None) -> BorisError:
        """The error for a line where a section header belongs."""
        line = self._lines[index]
        header = line.strip()
        if previous is not None and previous.action == "add" and not header.startswith("*"):
            return invalid(
                index + 1,
                f"every line of an added file starts with '+' (an empty line is a lone "
                f"'+'); got {shown(line)}",
            )
        if header.startswith(MOVE):
            return invalid(
                index + 1, f"{shown(MOVE.strip())} must come right after its Update File line"
            )
        if header.rstrip() == END_OF_FILE:
            return invalid(index + 1, f"{shown(END_OF_FILE)} must follow the lines of a hunk")
        if header.startswith("@@") or line[:1] in ("-", "+", " "):
            return invalid(index + 1, f"a hunk belongs to an {shown(UPDATE + '<path>')} section")
        if header == BEGIN:
            return invalid(index + 1, f"a second {shown(BEGIN)}: send one patch per call")
        if header == END:
            return invalid(index + 1, f"{shown(END)} must be the patch's last line")
        return invalid(
            index + 1,
            f"expected {shown(ADD + '<path>')}, {shown(UPDATE + '<path>')}, "
            f"{shown(DELETE + '<path>')} or {shown(END)}; got {shown(line)}",
        )


def _anchor(line: str, index: int) -> list[str]:
    """The anchor an ``@@`` line gives: none for ``@@`` alone."""
    if not line[2:].strip():
        return []
    if not line.startswith("@@ "):
        raise invalid(
            index + 1,
            f"a hunk starts with '@@' alone or '@@ ' and a line of the file; got {shown(line)}",
        )
    text = line[3:]
    if _UNIFIED_RANGES.match(text):
        raise invalid(
            index + 1,
            f"{shown(line)} is a unified diff's hunk header: this format has no line "
            "numbers; start the hunk with '@@' alone, or '@@ ' and a line of the file it "
            "comes after (such as the first line of its function)",
        )
    return [text]
