"""What view shows of a path: a file's lines, an image, a binary notice, or a directory tree.

A file is shown in the view line format (boris.files.lines): at most
``MAX_VIEW_LINES`` lines, with a range or without, and a range is read line by line up
to its end (or the line after the last shown), so a large file is never loaded to show
some of its lines. Nothing is read past
``--max-file-size`` (+ 1 byte), even of a file that grows while it is read. Images are
recognised by their first bytes (SVG by its name) and returned whole; other binary
files get a note with their size. A notebook (``.ipynb``) is read whole and shown as
its cells (boris.files.notebook.view), ``view_range`` then selecting cells; one that
nbformat does not accept is shown as text after a line saying why. A file shown is
marked viewed; a directory listing (boris.files.view_tree) marks nothing.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import BinaryIO

from boris.errors import BorisError, Code, io_error
from boris.files.access import FileAccess
from boris.files.lines import (
    MAX_VIEW_LINES,
    Image,
    format_lines,
    human_size,
    read_lines,
    read_up_to,
)
from boris.files.notebook.format import NotNotebook, identity, is_notebook_name, parse
from boris.files.notebook.view import NotebookView, render
from boris.files.place import locate, not_a_file, open_existing
from boris.files.sniff import SNIFF_BYTES, image_type, is_svg, looks_binary
from boris.files.view_tree import list_directory

#: A range's end of -1, "to the end of the file", once checked.
_TO_THE_END = sys.maxsize


def view(access: FileAccess, path: str, view_range: list[int] | None) -> str | Image | NotebookView:
    """What view (and the editor's view command) returns; marks a viewed file."""
    line_range = _check_range(view_range)
    with locate(access.resolve, path) as place:
        fd, info = open_existing(place, "view")
        try:
            if stat.S_ISDIR(info.st_mode):
                return list_directory(place.path, fd, access.scope)
            problem = not_a_file(place, info, "view")
            if problem is not None:
                raise problem
            # Unbuffered: each read asks the file for what it needs, no more.
            with os.fdopen(fd, "rb", buffering=0, closefd=False) as stream:
                result = _view_file(access, stream, info, place.path, path, line_range)
        finally:
            os.close(fd)
        access.mark_viewed(place.path, info)
    return result


def _check_range(view_range: list[int] | None) -> tuple[int, int] | None:
    if view_range is None:
        return None
    start, end = view_range
    if end == -1:  # "to the end of the file", as Claude's text editor tool spells it
        end = _TO_THE_END
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
    access: FileAccess,
    stream: BinaryIO,
    info: os.stat_result,
    resolved: str,
    given: str,
    line_range: tuple[int, int] | None,
) -> str | Image | NotebookView:
    access.check_size(info.st_size, f"{resolved} is")
    try:
        head = stream.read(SNIFF_BYTES)
        mime = image_type(head) or ("image/svg+xml" if is_svg(resolved) or is_svg(given) else None)
        if mime is not None:
            data = head + stream.read(access.max_size + 1 - len(head))
            access.check_size(len(data), f"{resolved} is")
            return Image(data, mime)
        if looks_binary(head):
            return f"Binary file ({human_size(info.st_size)})"
        stream.seek(0)
        not_cells = None  # why a notebook is shown as text
        if is_notebook_name(resolved) or is_notebook_name(given):
            data = read_up_to(stream.fileno(), access.max_size + 1)
            if len(data) > access.max_size:
                access.check_size(len(data), f"{resolved} grew while it was read: at least")
            try:
                notebook = parse(data, identity(info))
            except NotNotebook as exc:
                not_cells = f"[Shown as text, not as notebook cells: {exc.reason}]\n"
                stream.seek(0)
            else:
                return render(notebook, line_range, resolved)
        # No further than the limit, whatever the size was: the file may be growing.
        if line_range is None:
            window = read_lines(stream, 1, MAX_VIEW_LINES, count_all=True, limit=access.max_size)
        else:
            # One line more than an answer shows tells whether the range goes on.
            start, end = line_range
            wanted = min(end, start + MAX_VIEW_LINES)
            window = read_lines(stream, start, wanted, limit=access.max_size)
    except OSError as exc:
        raise io_error("read", resolved, exc) from None
    if window.too_long:
        access.check_size(access.max_size + 1, f"{resolved} grew while it was read: at least")
    if line_range is None:
        text = format_lines(window.lines, 1)
        total = window.total or 0
        if total > MAX_VIEW_LINES:
            text += (
                f"\n[Truncated: file has {total} lines. Use view_range to read specific sections.]"
            )
        return (not_cells or "") + text
    start, end = line_range
    if window.total is not None and start > window.total:
        raise BorisError(
            Code.INVALID_INPUT, f"start {start} exceeds total lines {window.total} in {resolved}"
        )
    lines = window.lines
    if len(lines) <= MAX_VIEW_LINES:
        return (not_cells or "") + format_lines(lines, start)
    # The range is wider than one answer holds, and the file goes on past its part.
    last = start + MAX_VIEW_LINES - 1
    if end == _TO_THE_END:  # said in words: "1--1" and "[2001, -1]" read as typos
        asked = f"lines {start} to the end of the file"
        going_on = f"a view_range starting at {last + 1}"
    else:
        asked = f"{start}-{end}"
        going_on = f"view_range [{last + 1}, {end}]"
    return (
        (not_cells or "")
        + format_lines(lines[:MAX_VIEW_LINES], start)
        + f"\n[Truncated: showing lines {start}-{last} of the requested {asked}. "
        f"Use {going_on} to read on.]"
    )
