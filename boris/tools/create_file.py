"""The create_file tool: write a whole file, creating missing parent directories
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
    Field(
        description="The file to write: absolute, or relative to the working directory. "
        "Missing parent directories are created."
    ),
]
Content = Annotated[
    str,
    Field(description="The complete content of the file, written exactly as given."),
]

DESCRIPTION = (
    """\
Create a file with the given content, or overwrite an existing file completely.

- Missing parent directories are created (mode 0755); a new file gets mode 0644, an \
overwritten file keeps its mode.
- The write is atomic: the old content is replaced whole or not at all.
- To change part of an existing file, prefer str_replace.
- """
    + SYNTAX_CHECKED
)

#: Added to the description while view-before-edit is on.
VIEW_FIRST = "\n- Overwriting an existing file requires viewing it first in this session."


@tool(
    "create_file",
    annotations=destructive("Create or overwrite a file"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def create_file(
    path: PathArg,
    content: Content,
    session: Session = Depends(current_session),
) -> str:
    files = session.files
    return await session.blocking(lambda: edit_files.create(files, path, content))
