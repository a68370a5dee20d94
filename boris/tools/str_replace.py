"""The str_replace tool: replace an exact, unique piece of a file, keeping every other byte."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from pydantic import Field

from boris.errors import BorisError, Code
from boris.files import edit as edits
from boris.files.display import edit_snippet
from boris.files.editing import edit_file, editing
from boris.files.place import locate
from boris.session import Session, current_session
from boris.settings import Settings
from boris.toolset import ToolDef

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

DESCRIPTION = """\
Replace text in an existing file.

- old_str must match the file exactly, character for character, whitespace and \
indentation included (copy it from view output, without the line-number prefix).
- Unless replace_all is true, old_str must occur exactly once; add surrounding lines \
to make it unique. An empty new_str deletes old_str.
- The file's encoding, line endings (LF or CRLF), final newline and permissions are kept; \
the write is atomic.
- Returns the edited region with line numbers and a few lines of context."""

_VIEW_FIRST = "\n- The file must have been viewed in this session first (view tool)."


def str_replace(
    path: PathArg,
    old_str: OldStr,
    new_str: NewStr = "",
    replace_all: ReplaceAll = False,
    session: Session = Depends(current_session),
) -> str:
    return replace_in_file(session, path, old_str, new_str, replace_all)


def definition(settings: Settings) -> ToolDef:
    description = DESCRIPTION + (_VIEW_FIRST if settings.require_view_before_edit else "")
    return ToolDef(
        fn=str_replace,
        title="Replace text in a file",
        description=description,
        read_only=False,
    )


def replace_in_file(
    session: Session, path: str, old_str: str, new_str: str, replace_all: bool
) -> str:
    """What str_replace (and the editor's str_replace command) does and returns."""
    if old_str == "":
        raise BorisError(
            Code.INVALID_INPUT,
            "old_str: must not be empty; give the exact text to replace "
            "(to write a whole file, use create_file)",
        )
    old = edits.encode_argument("old_str", old_str)
    new = edits.encode_argument("new_str", new_str)
    if old_str == new_str:
        # Refused before the file is even looked at: the call cannot change anything,
        # and a rewrite would still give the file a new inode and modification time.
        raise BorisError(
            Code.INVALID_INPUT, "old_str and new_str are identical: nothing to replace"
        )
    applied: list[edits.Edit] = []  # the edit as last applied, for the result

    with locate(session.resolve, path) as place, editing(place.path):

        def apply(data: bytes) -> bytes:
            applied.append(edits.replace(data, old, new, replace_all, place.path))
            return applied[-1].data

        edit_file(session, place, "str_replace", apply)
    edit = applied[-1]
    if replace_all:
        return f"Replaced {edit.count} occurrences in {place.path}"
    return f"Replaced in {place.path}\n\n" + edit_snippet(edit.data, edit.begin, edit.end)
