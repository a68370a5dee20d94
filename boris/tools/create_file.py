"""The create_file tool: write a whole file, creating missing parent directories."""

from __future__ import annotations

import errno
import os
import stat
from typing import Annotated

from fastmcp.dependencies import Depends
from pydantic import Field

from boris.errors import BorisError, Code, io_error
from boris.files import edit as edits
from boris.files.editing import (
    check_size,
    editing,
    not_a_file,
    redo_once_if_changed,
    require_viewed,
    write_failure,
)
from boris.files.place import Place, locate, names_directory
from boris.files.writing import replace_existing, write_new
from boris.session import Session, current_session
from boris.settings import Settings
from boris.toolset import ToolDef

#: Mode of a file create_file makes, whatever the umask.
NEW_FILE_MODE = 0o644

PathArg = Annotated[
    str,
    Field(
        description="The file to write: absolute, or relative to the working directory. "
        "Missing parent directories are created."
    ),
]
Content = Annotated[
    str,
    Field(description="The complete content of the file, written exactly as given."),
]

DESCRIPTION = """\
Create a file with the given content, or overwrite an existing file completely.

- Missing parent directories are created (mode 0755); a new file gets mode 0644, an \
overwritten file keeps its mode.
- The write is atomic: the old content is replaced whole or not at all.
- To change part of an existing file, prefer str_replace."""

_VIEW_FIRST = "\n- Overwriting an existing file requires viewing it first in this session."


def create_file(
    path: PathArg,
    content: Content,
    session: Session = Depends(current_session),
) -> str:
    return create(session, path, content)


def definition(settings: Settings) -> ToolDef:
    description = DESCRIPTION + (_VIEW_FIRST if settings.require_view_before_edit else "")
    return ToolDef(
        fn=create_file,
        title="Create or overwrite a file",
        description=description,
        read_only=False,
    )


def create(session: Session, path: str, content: str) -> str:
    """What create_file (and the editor's create command) does and returns."""
    data = edits.encode_argument("content", content)
    if names_directory(path):
        raise BorisError(
            Code.INVALID_INPUT,
            f"{os.path.join(session.cwd, path)} names a directory (it ends in /); "
            "create_file writes files only",
        )
    with locate(session.resolve, path) as place, editing(place.path):
        redo_once_if_changed(place, lambda: _write(session, place, data))
    session.mark_viewed(place.path)
    return f"Created {place.path} ({len(data)} bytes)"


def _write(session: Session, place: Place, data: bytes) -> None:
    try:
        info = place.lstat()
        if info is not None and stat.S_ISLNK(info.st_mode):  # resolve leaves only a loop
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), place.path)
    except OSError as exc:
        raise io_error("stat", place.path, exc) from None
    if info is not None:
        problem = not_a_file(place, info, "create_file")
        if problem is not None:
            raise problem
        require_viewed(session, place.path, "overwriting")
    check_size(len(data), session.settings.max_file_size, "content is")
    try:
        if info is None:
            write_new(place, data, NEW_FILE_MODE)
        else:
            replace_existing(place, info, data)
    except OSError as exc:
        raise write_failure(place.path, exc, existed=info is not None) from None
