"""The str_replace tool: replace an exact, unique piece of a file, keeping every other byte
(boris.files.edit_files)."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.files import edit_files
from boris.session import Session, current_session
from boris.tools import SYNTAX_CHECKED, destructive, served

PathArg = Annotated[
    str,
    Field(description="The file to edit: absolute, or relative to the working directory."),
]
OldStr = Annotated[
    str,
    Field(
        description="The exact text to replace, whitespace and indentation included. "
        "Unless replace_all is true it must occur exactly once: include enough "
        "surrounding lines to make it unique."
    ),
]
NewStr = Annotated[
    str,
    Field(description="The text to put in place of old_str; omit it to delete old_str."),
]
ReplaceAll = Annotated[
    bool,
    Field(description="Replace every occurrence of old_str instead of exactly one."),
]

DESCRIPTION = (
    """\
Replace text in an existing file.

- old_str must match the file exactly, character for character, whitespace and \
indentation included (copy it from view output, without the line-number prefix).
- Unless replace_all is true, old_str must occur exactly once; add surrounding lines \
to make it unique. An empty new_str deletes old_str.
- The file's encoding, line endings (LF or CRLF), final newline and permissions are kept; \
the write is atomic.
- Returns the edited region with line numbers and a few lines of context.
- """
    + SYNTAX_CHECKED
)

#: Added to the description while view-before-edit is on.
VIEW_FIRST = "\n- The file must have been viewed in this session first (view tool)."


@tool(
    "str_replace",
    annotations=destructive("Replace text in a file"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def str_replace(
    path: PathArg,
    old_str: OldStr,
    new_str: NewStr = "",
    replace_all: ReplaceAll = False,
    session: Session = Depends(current_session),
) -> str:
    files = session.files
    return await session.blocking(
        lambda: edit_files.replace(files, path, old_str, new_str, replace_all)
    )
