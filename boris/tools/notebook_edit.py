"""The notebook_edit tool: replace, insert or delete one cell of a Jupyter notebook, keeping
every byte outside that cell (boris.files.notebook.files)."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.files.notebook import files as notebook_files
from boris.session import Session, current_session
from boris.tools import destructive, served

PathArg = Annotated[
    str,
    Field(
        description="The notebook (.ipynb) to edit: absolute, or relative to the working directory."
    ),
]
CellArg = Annotated[
    int | str,
    Field(
        description="The cell: its id, or its number (1-based, as view shows it). For "
        "insert, the cell after which the new one goes; 0 inserts it first."
    ),
]
NewSource = Annotated[
    str | None,
    Field(description="The cell's new source (replace, insert); not used by delete."),
]
EditMode = Annotated[
    notebook_files.EditMode,
    Field(description="replace (the default) the cell's source, insert a new cell, or delete it."),
]
CellType = Annotated[
    notebook_files.CellType | None,
    Field(
        description="code or markdown: required for insert; for replace, changes the "
        "cell's type (default: keep it)."
    ),
]

DESCRIPTION = """\
Edit one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, or \
delete it.

- view the notebook first: it shows each cell as `[cell N] type id=...` followed by its \
source; N or the id is what cell takes.
- new_source is the whole source of the cell, without line numbers. Replacing a code \
cell clears its outputs and execution count.
- insert puts a new cell after cell (0 = first) and needs cell_type.
- Only that cell changes in the file: every other byte is kept as it was, and the \
result is checked with nbformat before the atomic write.
- Returns the edited cell as view shows it; syntax errors the edit brings into a code \
cell are listed after it."""

#: Added to the description while view-before-edit is on.
VIEW_FIRST = "\n- The notebook must have been viewed in this session first (view tool)."


@tool(
    "notebook_edit",
    annotations=destructive("Edit a notebook cell"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def notebook_edit(
    path: PathArg,
    cell: CellArg,
    new_source: NewSource = None,
    edit_mode: EditMode = "replace",
    cell_type: CellType = None,
    session: Session = Depends(current_session),
) -> str:
    files = session.files
    return await session.blocking(
        lambda: notebook_files.edit_notebook(files, path, cell, edit_mode, new_source, cell_type)
    )
