"""The view tool: a file with line numbers, an image, a binary notice, or a directory tree."""

from __future__ import annotations

import base64
import os
import stat
import sys
from typing import Annotated, BinaryIO

from fastmcp.dependencies import Depends
from mcp_types import ImageContent
from pydantic import Field

from boris.errors import Code, ToolFailure, io_error
from boris.filechecks import check_size, not_a_file, open_existing
from boris.fileio import MAX_VIEW_LINES, format_lines, human_size, read_lines
from boris.pathscope import PathScope
from boris.place import locate
from boris.session import Session, current_session
from boris.settings import Settings
from boris.sniff import SNIFF_BYTES, image_type, is_svg, looks_binary
from boris.tools import ToolDef
from boris.walk import printable

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
        raise ToolFailure(Code.INVALID_INPUT, f"view_range start must be 1 or more, got {start}")
    if start > end:
        raise ToolFailure(
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
        raise ToolFailure(
            Code.INVALID_INPUT, f"start {start} exceeds total lines {window.total} in {resolved}"
        )
    return format_lines(window.lines, start)


# --- directories ---------------------------------------------------------------------


def list_directory(resolved: str, directory: int, scope: PathScope) -> str:
    """A two-level tree of ``resolved``, read through its open descriptor ``directory``.

    Denied entries are left out like hidden ones. Subdirectories are opened relative to
    ``directory`` without following symlinks, so a swap cannot lead the listing outside.
    """
    try:
        entries = _entries(directory, resolved, scope)
    except OSError as exc:
        raise io_error("list", resolved, exc) from None
    name = printable(os.path.basename(resolved)) if resolved != "/" else ""
    out = [f"{name}/\n"]
    for index, entry in enumerate(entries):
        last = index == len(entries) - 1
        out.append(("└── " if last else "├── ") + _label(entry, directory) + "\n")
        if entry.is_dir(follow_symlinks=False):
            try:
                children = _child_labels(directory, entry.name, resolved, scope)
            except OSError:
                continue  # an unreadable subdirectory is shown without its contents
            indent = "    " if last else "│   "
            for child_index, label in enumerate(children):
                connector = "└── " if child_index == len(children) - 1 else "├── "
                out.append(indent + connector + label + "\n")
    return "".join(out)


_SUBDIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _child_labels(directory: int, name: str, resolved: str, scope: PathScope) -> list[str]:
    """The labels of the subdirectory ``name``'s entries; OSError if it cannot be read."""
    subdirectory = os.open(name, _SUBDIRECTORY, dir_fd=directory)
    try:
        path = os.path.join(resolved, name)
        return [_label(child, subdirectory) for child in _entries(subdirectory, path, scope)]
    finally:
        os.close(subdirectory)


def _entries(directory: int, path: str, scope: PathScope) -> list[os.DirEntry[str]]:
    with os.scandir(directory) as scan:
        entries = [
            e
            for e in scan
            if e.name not in HIDDEN_ENTRIES and not scope.denies(os.path.join(path, e.name))
        ]
    entries.sort(key=lambda e: e.name)
    return entries


def _label(entry: os.DirEntry[str], directory: int) -> str:
    name = printable(entry.name)
    if entry.is_symlink():
        try:
            return f"{name} -> {printable(os.readlink(entry.name, dir_fd=directory))}"
        except OSError:
            return f"{name} -> ?"
    if entry.is_dir(follow_symlinks=False):
        return name + "/"
    return name
