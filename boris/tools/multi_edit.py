"""The multi_edit tool: several str_replace edits of one file, applied in order and written
at once, or not at all (boris.files.edit_files)."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import BaseModel, ConfigDict, Field

from boris.files import edit_files
from boris.session import Session, current_session
from boris.tools import SYNTAX_CHECKED, destructive, served
from boris.tools.str_replace import VIEW_FIRST, NewStr, OldStr, PathArg, ReplaceAll

#: Edits one call may carry.
MAX_EDITS = 100


class Replacement(BaseModel):
    """One edit: the arguments str_replace takes, with its defaults."""

    model_config = ConfigDict(extra="forbid", strict=True)

    old_str: OldStr
    new_str: NewStr = ""
    replace_all: ReplaceAll = False


DESCRIPTION = f"""\
Make several replacements in one file at once: all of them, or none.

- edits is a list of 1 to {MAX_EDITS} {{old_str, new_str, replace_all}} with the same \
rules as str_replace; each applies to the result of the edits before it, so a later \
old_str must match the text as the earlier edits left it.
- If any edit fails (not found, not unique), the file is left untouched and the error \
says which one (`edit 2 of 3: ...`); fix that edit and send the whole list again.
- The file's encoding, line endings (LF or CRLF), final newline and permissions are kept; \
the write is atomic.
- Returns each edited region with line numbers and a few lines of context.
- Prefer it to several str_replace calls on the same file.
- {SYNTAX_CHECKED}"""


@tool(
    "multi_edit",
    annotations=destructive("Make several replacements in a file"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def multi_edit(
    path: PathArg,
    edits: Annotated[
        list[Replacement],
        Field(
            min_length=1,
            max_length=MAX_EDITS,
            description="The replacements, applied in order.",
        ),
    ],
    session: Session = Depends(current_session),
) -> str:
    steps = [(edit.old_str, edit.new_str, edit.replace_all) for edit in edits]
    files = session.files
    return await session.blocking(lambda: edit_files.multi_replace(files, path, steps))
