"""The compat str_replace_editor tool: view, str_replace, create and insert in one tool.

Each command calls the very function the split tool calls, so its result is the split
tool's result byte for byte. Only insert is the editor's own, and it runs on the same
checks, atomic write and snippet as str_replace (boris.files.edit_files).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.errors import BorisError, Code
from boris.files import edit_files, view_path
from boris.session import Session, current_session
from boris.tools import (
    SYNTAX_CHECKED,
    Described,
    Mention,
    ViewContent,
    as_content,
    destructive,
    served,
)
from boris.tools.view import ViewRange

Command = Annotated[
    Literal["view", "str_replace", "create", "insert"],
    Field(description="The command to run: view, str_replace, create or insert."),
]
PathArg = Annotated[
    str,
    Field(
        description="Absolute path to the file or directory (a relative path is resolved "
        "against the working directory)."
    ),
]
OldStr = Annotated[
    str | None,
    Field(
        description="Required for str_replace: the exact text to replace, whitespace "
        "included; it must occur exactly once unless replace_all is true."
    ),
]
NewStr = Annotated[
    str | None,
    Field(
        description="For str_replace: the replacement text (omit it to delete old_str). "
        "Required for insert: the text to insert."
    ),
]
ReplaceAll = Annotated[
    bool,
    Field(description="For str_replace: replace every occurrence of old_str."),
]
FileText = Annotated[
    str | None,
    Field(description="Required for create: the complete content of the file."),
]
InsertLine = Annotated[
    Annotated[int, Field(ge=0)] | None,
    Field(
        description="Required for insert: the line after which new_str is inserted "
        "(0 inserts before the first line)."
    ),
]
InsertText = Annotated[
    str | None,
    Field(description="For insert: another name for new_str."),
]

DESCRIPTION = Described(
    """\
Tool for viewing, creating and editing files.
* `view` shows a file with line numbers (`N<TAB>line`), or a directory as a tree two \
levels deep (.git and node_modules left out). Pass `view_range` [start, end] to see part \
of a long file; without it at most 2000 lines are shown, and any line is cut after 2000 \
characters. Images come back as images; other binary files as a note with their size.
* `view` on a Jupyter notebook (`.ipynb`) shows its cells with their outputs, and \
`view_range` selects cells""",
    Mention("notebook_edit", "; edit cells with the `notebook_edit` tool"),
    """.
* `create` writes `file_text` to `path`, creating missing parent directories. It \
replaces an existing file completely.
* `str_replace` replaces `old_str` with `new_str`. `old_str` must match the file exactly, \
whitespace and indentation included, and occur exactly once unless `replace_all` is \
true: include enough context to make it unique.
* `insert` inserts `new_str` as whole lines after line `insert_line` (0 = top of file).
* Edits keep the file's encoding, line endings and permissions, are written atomically, \
and return the edited region with line numbers.
* Relative paths are resolved against the working directory.
* """
    + SYNTAX_CHECKED,
)

#: Added to the description while view-before-edit is on.
VIEW_FIRST = "\n* View a file before `str_replace` or `insert` on it, or before `create` \
overwrites it; an edit of a file not viewed in this session is refused."


@tool(
    "str_replace_editor",
    annotations=destructive("View and edit files"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def str_replace_editor(
    command: Command,
    path: PathArg,
    view_range: ViewRange = None,
    old_str: OldStr = None,
    new_str: NewStr = None,
    replace_all: ReplaceAll = False,
    file_text: FileText = None,
    insert_line: InsertLine = None,
    insert_text: InsertText = None,
    session: Session = Depends(current_session),
) -> ViewContent:
    files = session.files

    def run() -> ViewContent:
        if command == "view":
            return as_content(view_path.view(files, path, view_range))
        if command == "str_replace":
            if old_str is None:
                raise _missing("old_str", command)
            return edit_files.replace(files, path, old_str, new_str or "", replace_all)
        if command == "create":
            if file_text is None:
                raise _missing("file_text", command)
            return edit_files.create(files, path, file_text)
        if new_str is not None and insert_text is not None and new_str != insert_text:
            raise BorisError(
                Code.INVALID_INPUT, "new_str and insert_text name the same text; give only one"
            )
        if insert_line is None:
            raise _missing("insert_line", command)
        if new_str is not None:
            return edit_files.insert(files, path, insert_line, new_str)
        if insert_text is not None:
            return edit_files.insert(files, path, insert_line, insert_text, "insert_text")
        raise _missing("new_str", command)

    return await session.blocking(run)


def _missing(argument: str, command: str) -> BorisError:
    return BorisError(
        Code.INVALID_INPUT, f"{argument}: missing required argument for the {command} command"
    )
