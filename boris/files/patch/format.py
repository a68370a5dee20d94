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

A patch may be as large as a file (``--max-file-size``), millions of lines: it is read
without an object per line. Where the lines of an added file or the body of a hunk end
is found with one search for the first line that cannot belong to it, and they are kept
as one string, a slice of the patch; only header and ``@@`` lines are looked at one by
one. (A regular expression repeated over the lines would do, but Python's engine keeps
a backtracking point for each repetition: a gigabyte for a few million lines.) A patch holds at most
``MAX_FILES`` sections and ``MAX_HUNKS`` hunks.
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
#: The hunks one patch may hold, all files together.
MAX_HUNKS = 10_000

# The first line of a heredoc a patch may come wrapped in, as Codex accepts it.
_HEREDOC_STARTS = frozenset({"<<EOF", "<<'EOF'", '<<"EOF"'})
# "@@ -12,7 +12,8 @@": a unified diff's hunk header, which this format does not have.
_UNIFIED_RANGES = re.compile(r"-\d+(,\d+)? \+\d+(,\d+)? @@")
# Characters of a patch line quoted in a message.
_QUOTED = 80
# The first line that ends a run of lines: of an added file (all "+…"), of a hunk (" …",
# "-…", "+…" or empty), as its first character, or the newline before it.
_NOT_ADDED = "+"
_NOT_ADDED_AFTER = re.compile(r"\n[^+]")
_HUNK_STARTS = " -+\n"
_NOT_HUNK_AFTER = re.compile(r"\n[^ +\-\n]")
# A line that is not blank: whitespace (as str.strip() sees it) up to a character that
# is not; its start is the line's.
_FILLED_LINE = re.compile(r"^[^\S\n]*\S", re.M)

Kind = Literal[" ", "-", "+"]


@dataclass(frozen=True)
class Hunk:
    """One hunk of an update: where to look, and its lines."""

    #: Texts of its ``@@`` lines, in order: each is looked for after the one before.
    anchors: tuple[str, ...]
    #: Its lines as the patch gives them, each ending in ``"\n"``: ``" "`` and a context
    #: line, ``"-"`` and a removed one, ``"+"`` and an added one; an empty line is an
    #: empty context line.
    body: str
    #: It ends in ``*** End of File``: its lines end the file.
    at_end: bool


@dataclass(frozen=True)
class FileChange:
    """One section of a patch."""

    action: Literal["add", "delete", "update"]
    path: str
    #: The patch line of its header.
    line: int
    #: Add: the text of the new file, each line ending in "\n".
    content: str = ""
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
    # A line's CR before its newline is not part of it (a patch may come with CRLF); the
    # markers are read without blanks at their ends, a CR ending the patch among them.
    text = text.replace("\r\n", "\n")
    reader = _Reader(text)
    return reader.sections()


class _Reader:
    """Reads a patch's text from line to line, by offsets: ``at`` is where the current
    line starts, ``number`` its number (from 1). ``_end`` is where the End Patch line
    starts: nothing from there on is part of a section."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._hunks = 0
        first = self._filled_after(0)
        if first is None:
            raise invalid(1, f"the patch is empty; it starts with {shown(BEGIN)}")
        last = text.rstrip().rfind("\n") + 1  # the last line that is not blank
        if self._line(first).strip() in _HEREDOC_STARTS and self._line(last).strip().endswith(
            "EOF"
        ):
            inner_first = self._filled_after(self._next(first))
            inner_last = self._filled_before(last)
            if inner_first is not None and inner_last is not None and inner_first < inner_last:
                # A heredoc's lines around the patch: the patch is what they enclose.
                first, last = inner_first, inner_last
        if self._line(first).strip() != BEGIN:
            raise invalid(
                self._number_of(first),
                f"the patch must start with {shown(BEGIN)}, not {shown(self._line(first))}",
            )
        if last == first or self._line(last).strip() != END:
            raise invalid(
                self._number_of(last),
                f"the patch must end with {shown(END)}, not {shown(self._line(last))}",
            )
        self._end = last
        self.at = self._next(first)
        self.number = self._number_of(self.at)

    # --- moving through the text

    def _line(self, at: int) -> str:
        """The line starting at ``at``, without its newline."""
        newline = self._text.find("\n", at)
        return self._text[at:] if newline < 0 else self._text[at:newline]

    def _next(self, at: int) -> int:
        """Where the line after the one at ``at`` starts."""
        newline = self._text.find("\n", at)
        return len(self._text) if newline < 0 else newline + 1

    def _filled_after(self, at: int) -> int | None:
        """The start of the first line at or after ``at`` that is not blank."""
        found = _FILLED_LINE.search(self._text, at)
        return None if found is None else found.start()

    def _filled_before(self, at: int) -> int | None:
        """The start of the last line before ``at`` (a line start) that is not blank."""
        stripped = self._text[:at].rstrip()  # a copy only of what is before ``at``
        if not stripped:
            return None
        return stripped.rfind("\n") + 1

    def _number_of(self, at: int) -> int:
        return self._text.count("\n", 0, at) + 1

    def _go(self, at: int) -> None:
        """Move to the line starting at ``at`` (at or after the current one)."""
        self.number += self._text.count("\n", self.at, at)
        self.at = at

    @property
    def _more(self) -> bool:
        return self.at < self._end

    @property
    def _current(self) -> str:
        return self._line(self.at)

    def _run(self, starts: str, ends: re.Pattern[str]) -> str:
        """The lines from here that each start with one of ``starts`` (an empty line
        starts with its newline), up to the first line that ``ends`` finds (by its
        newline before it); they are passed."""
        text, at = self._text, self.at
        if at >= self._end or text[at] not in starts:
            return ""
        found = ends.search(text, at, self._end)
        end = self._end if found is None else found.start() + 1
        self._go(end)
        return text[at:end]

    def _skip_blank_lines(self) -> None:
        """Pass the lines from here that are blank (whitespace only)."""
        found = _FILLED_LINE.search(self._text, self.at, self._end)
        self._go(self._end if found is None else found.start())

    # --- the sections

    def sections(self) -> list[FileChange]:
        changes: list[FileChange] = []
        previous: FileChange | None = None
        while self._more:
            header = self._current.strip()
            if header in (ADD.strip(), DELETE.strip(), UPDATE.strip()):
                raise invalid(self.number, f"{shown(header)} needs a path after it")
            if len(changes) == MAX_FILES:
                raise invalid(
                    self.number,
                    f"a patch changes at most {MAX_FILES} files; split it into several",
                )
            if header.startswith(ADD):
                change = self._add()
            elif header.startswith(DELETE):
                change = FileChange("delete", self._path(DELETE), self.number)
                self._go(self._next(self.at))
            elif header.startswith(UPDATE):
                change = self._update()
            else:
                raise self._misplaced(previous)
            changes.append(change)
            previous = change
        if not changes:
            raise invalid(
                self._number_of(self._end),
                f"the patch changes no file: give at least one {shown(ADD + '<path>')}, "
                f"{shown(UPDATE + '<path>')} or {shown(DELETE + '<path>')} section",
            )
        return changes

    def _path(self, marker: str) -> str:
        return self._current.strip()[len(marker) :].strip()

    def _add(self) -> FileChange:
        path, number = self._path(ADD), self.number
        self._go(self._next(self.at))
        added = self._run(_NOT_ADDED, _NOT_ADDED_AFTER)
        # Each line without its "+": the newline before it goes, but for the first.
        content = added[1:].replace("\n+", "\n")
        return FileChange("add", path, number, content=content)

    def _update(self) -> FileChange:
        path, number = self._path(UPDATE), self.number
        self._go(self._next(self.at))
        move_to, move_line = None, 0
        if self._more and self._current.strip() == MOVE.strip():
            raise invalid(self.number, f"{shown(MOVE.strip())} needs a path after it")
        if self._more and self._current.strip().startswith(MOVE):
            move_to, move_line = self._path(MOVE), self.number
            self._go(self._next(self.at))
        hunks: list[Hunk] = []
        while self._more:
            self._skip_blank_lines()  # blank lines between hunks
            if not self._more or self._current.startswith("*"):
                break  # the next section, or a marker out of place
            hunks.append(self._hunk(first=not hunks))
        if not hunks and move_to is None:
            raise invalid(
                number,
                f"{shown(UPDATE + path)} has no hunks: give its changes as '@@' hunks "
                "of ' ' context, '-' removed and '+' added lines",
            )
        return FileChange(
            "update", path, number, move_to=move_to, move_line=move_line, hunks=tuple(hunks)
        )

    def _hunk(self, first: bool) -> Hunk:
        start = self.number
        if self._hunks == MAX_HUNKS:
            raise invalid(start, f"a patch holds at most {MAX_HUNKS} hunks; split it into several")
        self._hunks += 1
        anchors: list[str] = []
        while self._more and self._current.startswith("@@"):
            anchors.extend(_anchor(self._current, self.number))
            self._go(self._next(self.at))
        if self.number == start and not first:
            raise invalid(
                self.number, f"expected '@@' to start the next hunk, got {shown(self._current)}"
            )
        body = self._run(_HUNK_STARTS, _NOT_HUNK_AFTER)
        # (At the end of the patch the current line is "*** End Patch".)
        at_end = self._current.rstrip() == END_OF_FILE
        if at_end:
            if not body:
                raise invalid(self.number, f"{shown(END_OF_FILE)} must follow the lines of a hunk")
            self._go(self._next(self.at))
        elif self._more and not self._current.startswith(("@@", "*")):
            raise invalid(
                self.number,
                "each line of a hunk starts with ' ' (context), '-' (removed) or "
                f"'+' (added); got {shown(self._current)}",
            )
        if not body:
            raise invalid(start, "this hunk has no lines")
        return Hunk(tuple(anchors), body, at_end)

    def _misplaced(self, previous: FileChange | None) -> BorisError:
        """The error for a line where a section header belongs."""
        line, number = self._current, self.number
        header = line.strip()
        if previous is not None and previous.action == "add" and not header.startswith("*"):
            return invalid(
                number,
                f"every line of an added file starts with '+' (an empty line is a lone "
                f"'+'); got {shown(line)}",
            )
        if header.startswith(MOVE):
            return invalid(
                number, f"{shown(MOVE.strip())} must come right after its Update File line"
            )
        if header.rstrip() == END_OF_FILE:
            return invalid(number, f"{shown(END_OF_FILE)} must follow the lines of a hunk")
        if header.startswith("@@") or line[:1] in ("-", "+", " "):
            return invalid(number, f"a hunk belongs to an {shown(UPDATE + '<path>')} section")
        if header == BEGIN:
            return invalid(number, f"a second {shown(BEGIN)}: send one patch per call")
        if header == END:
            return invalid(number, f"{shown(END)} must be the patch's last line")
        return invalid(
            number,
            f"expected {shown(ADD + '<path>')}, {shown(UPDATE + '<path>')}, "
            f"{shown(DELETE + '<path>')} or {shown(END)}; got {shown(line)}",
        )


def _anchor(line: str, number: int) -> list[str]:
    """The anchor an ``@@`` line gives: none for ``@@`` alone."""
    if not line[2:].strip():
        return []
    if not line.startswith("@@ "):
        raise invalid(
            number,
            f"a hunk starts with '@@' alone or '@@ ' and a line of the file; got {shown(line)}",
        )
    text = line[3:]
    if _UNIFIED_RANGES.match(text):
        raise invalid(
            number,
            f"{shown(line)} is a unified diff's hunk header: this format has no line "
            "numbers; start the hunk with '@@' alone, or '@@ ' and a line of the file it "
            "comes after (such as the first line of its function)",
        )
    return [text]
