"""The view tool: a file with line numbers, an image, a binary notice, or a directory tree."""

from __future__ import annotations

import base64
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import Annotated, BinaryIO

from fastmcp.dependencies import Depends
from mcp_types import ImageContent
from pydantic import Field

from boris.errors import BorisError, Code, io_error
from boris.files.display import MAX_VIEW_LINES, format_lines, human_size, read_lines
from boris.files.editing import check_size, not_a_file, open_existing
from boris.files.place import locate
from boris.files.scope import PathScope
from boris.files.sniff import SNIFF_BYTES, image_type, is_svg, looks_binary
from boris.session import Session, current_session
from boris.settings import Settings
from boris.shell.capture import LIMIT
from boris.text import printable
from boris.toolset import ToolDef

PathArg = Annotated[
    str,
    Field(
        description="The file or directory to view: absolute, or relative to the working directory."
    ),
]
ViewRange = Annotated[
    list[int] | None,
    Field(
        min_length=2,
        max_length=2,
        description="Optional [start, end] line numbers (1-based, inclusive) to show only "
        "part of a file; an end past the last line is clamped, and -1 means the last line. "
        "Ignored for directories.",
    ),
]

#: Directory entries never shown in a listing.
HIDDEN_ENTRIES = frozenset({".git", "node_modules"})

DESCRIPTION = """\
Read a file or list a directory.

- A text file comes back with line numbers: the number, a tab, then the line. Without \
view_range at most 2000 lines are shown (a note gives the total); use view_range \
[start, end] to read other parts. Lines longer than 2000 characters are cut.
- Images (PNG, JPEG, GIF, WebP, BMP, ICO, SVG) come back as images; other binary files \
as a note with their size.
- A directory comes back as a tree two levels deep; .git and node_modules are left out, \
other hidden entries are shown, symlinks show their target.
- Relative paths are resolved against the working directory (which bash's cd changes)."""

_VIEW_FIRST = "\n- A file must be viewed in this session before str_replace or create_file \
may change it."


def view(
    path: PathArg,
    view_range: ViewRange = None,
    session: Session = Depends(current_session),
) -> str | ImageContent:
    return view_path(session, path, view_range)


def definition(settings: Settings) -> ToolDef:
    description = DESCRIPTION + (_VIEW_FIRST if settings.require_view_before_edit else "")
    return ToolDef(
        fn=view, title="View a file or directory", description=description, read_only=True
    )


def view_path(session: Session, path: str, view_range: list[int] | None) -> str | ImageContent:
    """What view (and the editor's view command) returns; marks a viewed file."""
    line_range = _check_range(view_range)
    with locate(session.resolve, path) as place:
        fd, info = open_existing(place, "view")
        try:
            if stat.S_ISDIR(info.st_mode):
                return list_directory(place.path, fd, session.scope)
            problem = not_a_file(place, info, "view")
            if problem is not None:
                raise problem
            with os.fdopen(fd, "rb", closefd=False) as stream:
                result = _view_file(
                    stream, info, place.path, path, line_range, session.settings.max_file_size
                )
        finally:
            os.close(fd)
        session.mark_viewed(place.path)
    return result


def _check_range(view_range: list[int] | None) -> tuple[int, int] | None:
    if view_range is None:
        return None
    start, end = view_range
    if end == -1:  # "to the end of the file", as Claude's text editor tool spells it
        end = sys.maxsize
    if start < 1:
        raise BorisError(Code.INVALID_INPUT, f"view_range start must be 1 or more, got {start}")
    if start > end:
        raise BorisError(
            Code.INVALID_INPUT,
            f"view_range start {start} is greater than end {end}; give [start, end] "
            "with start <= end",
        )
    return start, end


def _view_file(
    stream: BinaryIO,
    info: os.stat_result,
    resolved: str,
    given: str,
    line_range: tuple[int, int] | None,
    limit: int,
) -> str | ImageContent:
    check_size(info.st_size, limit, f"{resolved} is")
    try:
        head = stream.read(SNIFF_BYTES)
        mime = image_type(head) or ("image/svg+xml" if is_svg(resolved) or is_svg(given) else None)
        if mime is not None:
            data = head + stream.read(limit + 1 - len(head))
            check_size(len(data), limit, f"{resolved} is")
            encoded = base64.b64encode(data).decode("ascii")
            return ImageContent(type="image", data=encoded, mime_type=mime)
        if looks_binary(head):
            return f"Binary file ({human_size(info.st_size)})"
        stream.seek(0)
        if line_range is None:
            window = read_lines(stream, 1, MAX_VIEW_LINES, count_all=True)
        else:
            window = read_lines(stream, *line_range)
    except OSError as exc:
        raise io_error("read", resolved, exc) from None
    if line_range is None:
        text = format_lines(window.lines, 1)
        total = window.total or 0
        if total > MAX_VIEW_LINES:
            text += (
                f"\n[Truncated: file has {total} lines. Use view_range to read specific sections.]"
            )
        return text
    start = line_range[0]
    if window.total is not None and start > window.total:
        raise BorisError(
            Code.INVALID_INPUT, f"start {start} exceeds total lines {window.total} in {resolved}"
        )
    return format_lines(window.lines, start)


# --- directories ---------------------------------------------------------------------

_BRANCH, _LAST_BRANCH, _PIPE, _BLANK = "├── ", "└── ", "│   ", "    "
# How far the entries read may run past the room before the surplus is dropped: the
# sort that drops them is then paid once per this many characters of names.
_PRUNE_SLACK = 1 << 16


def list_directory(resolved: str, directory: int, scope: PathScope) -> str:
    """A two-level tree of ``resolved``, read through its open descriptor ``directory``.

    Denied entries are left out like hidden ones. Subdirectories are opened relative to
    ``directory`` without following symlinks, so a swap cannot lead the listing outside.
    A tree longer than LIMIT characters is cut after the last whole entry line that
    fits, and a last line counts the entries of both levels left out. However big the
    directory, only the entries that could be shown are kept; the others are counted.
    """
    name = _shown(os.path.basename(resolved)) if resolved != "/" else ""
    listing = _Listing(f"{name}/\n")
    try:
        top, total = _first_entries(directory, resolved, scope, listing.room, len(_BRANCH))
    except OSError as exc:
        raise io_error("list", resolved, exc) from None
    for index, entry in enumerate(top):
        last = index == total - 1
        if not listing.add((_LAST_BRANCH if last else _BRANCH) + _label(entry, directory)):
            after = top[index - 1].name if index else None
            return listing.cut(_count_after(directory, resolved, scope, after))
        if not entry.is_dir(follow_symlinks=False):
            continue
        path = os.path.join(resolved, entry.name)
        try:
            with _subdirectory(directory, entry.name) as child_fd:
                children, count = _first_entries(
                    child_fd, path, scope, listing.room, 2 * len(_BRANCH)
                )
                labels = [_label(child, child_fd) for child in children]
        except OSError:
            continue  # an unreadable subdirectory is shown without its contents
        indent = _BLANK if last else _PIPE
        for child_index, label in enumerate(labels):
            connector = _LAST_BRANCH if child_index == count - 1 else _BRANCH
            if not listing.add(indent + connector + label):
                later = _count_after(directory, resolved, scope, entry.name)
                return listing.cut(count - child_index + later)
    return listing.text()


class _Listing:
    """The lines of a listing so far, never more than LIMIT characters."""

    def __init__(self, header: str) -> None:
        self._lines = [header]
        self._size = len(header)

    @property
    def room(self) -> int:
        return LIMIT - self._size

    def add(self, line: str) -> bool:
        """Add ``line`` (and its newline) if it fits; whether it did."""
        if self._size + len(line) + 1 > LIMIT:
            return False
        self._lines.append(line + "\n")
        self._size += len(line) + 1
        return True

    def text(self) -> str:
        return "".join(self._lines)

    def cut(self, left_out: int) -> str:
        return (
            self.text() + f"\n[Truncated: {left_out} more entries not shown. "
            "View a subdirectory, or use glob.]"
        )


_SUBDIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@contextmanager
def _subdirectory(directory: int, name: str) -> Iterator[int]:
    """The subdirectory ``name`` of ``directory`` opened without following a symlink."""
    fd = os.open(name, _SUBDIRECTORY, dir_fd=directory)
    try:
        yield fd
    finally:
        os.close(fd)


def _visible(directory: int, path: str, scope: PathScope) -> Iterator[os.DirEntry[str]]:
    """The entries of the open ``directory`` (at ``path``) a listing may show."""
    with os.scandir(directory) as scan:
        for entry in scan:
            if entry.name not in HIDDEN_ENTRIES and not scope.denies(
                os.path.join(path, entry.name)
            ):
                yield entry


def _first_entries(
    directory: int, path: str, scope: PathScope, room: int, indent: int
) -> tuple[list[os.DirEntry[str]], int]:
    """The entries of ``directory`` in name order, as many as could fit in ``room``
    characters, and how many it has in all.

    A line takes at least ``indent`` characters, the name and a newline, so entries
    sorting after the ones that fill the room are never shown: they are dropped as the
    directory is read, and a directory of any size costs memory for a few thousand.
    """
    kept: list[tuple[str, os.DirEntry[str]]] = []
    total = size = 0
    for entry in _visible(directory, path, scope):
        total += 1
        kept.append((entry.name, entry))
        size += indent + len(entry.name) + 1
        if size > 2 * room + _PRUNE_SLACK:
            kept, size = _could_fit(kept, room, indent)
    kept, _ = _could_fit(kept, room, indent)
    return [entry for _, entry in kept], total


# Control characters in a name would break the tree (a newline could even forge an
# entry): each is shown as "?", as ls -q does, which keeps the name a glob matching it.
_CONTROL = {code: "?" for code in (*range(0x20), 0x7F)}


def _shown(name: str) -> str:
    """A name as a listing shows it: valid text, on one line."""
    return printable(name).translate(_CONTROL)


def _could_fit(
    kept: list[tuple[str, os.DirEntry[str]]], room: int, indent: int
) -> tuple[list[tuple[str, os.DirEntry[str]]], int]:
    """The first of ``kept`` by name until their lines overflow ``room``, and their size."""
    kept.sort(key=itemgetter(0))
    size = 0
    for index, (name, _) in enumerate(kept):
        if size > room:
            return kept[:index], size
        size += indent + len(_shown(name)) + 1
    return kept, size


def _count_after(directory: int, path: str, scope: PathScope, after: str | None) -> int:
    """The entries of ``directory`` whose names sort after ``after`` (all when None),
    each with the entries of its own if it is a directory."""
    count = 0
    for entry in _visible(directory, path, scope):
        if after is not None and entry.name <= after:
            continue
        count += 1
        if entry.is_dir(follow_symlinks=False):
            try:
                with _subdirectory(directory, entry.name) as child:
                    count += sum(1 for _ in _visible(child, os.path.join(path, entry.name), scope))
            except OSError:
                pass  # shown without contents, so it has none to leave out
    return count


def _label(entry: os.DirEntry[str], directory: int) -> str:
    name = _shown(entry.name)
    if entry.is_symlink():
        try:
            return f"{name} -> {_shown(os.readlink(entry.name, dir_fd=directory))}"
        except OSError:
            return f"{name} -> ?"
    if entry.is_dir(follow_symlinks=False):
        return name + "/"
    return name
