"""The view tool: a file with line numbers, an image, a binary notice, or a directory tree
(boris.files.view_path)."""

from __future__ import annotations

import threading
from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.errors import BorisError, Code
from boris.files import view_path
from boris.session import Session, current_session
from boris.tools import Described, Mention, ViewContent, as_content, read_only, served

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
        "part of a file (cell numbers for a notebook); an end past the last line is "
        "clamped, and -1 means the last line. Ignored for directories.",
    ),
]
Symbol = Annotated[
    str | SkipJsonSchema[None],
    Field(
        description="Instead of view_range: the name of one definition to show whole: a "
        'name ("run") or a qualified one ("Server.run"), looked for in the file, or in '
        "every file below the directory, that path names."
    ),
]

DESCRIPTION = Described(
    """\
Read a file or list a directory.

- A text file comes back with line numbers: the number, a tab, then the line. Without \
view_range at most 2000 lines are shown (a note gives the total); use view_range \
[start, end] to read other parts. Lines longer than 2000 characters are cut.
- Images (PNG, JPEG, GIF, WebP, BMP, ICO, SVG) come back as images; other binary files \
as a note with their size.
- A Jupyter notebook (.ipynb) comes back as its cells: a `[cell N] type id=...` line, \
the numbered source, then the outputs as `| ` lines (long ones cut), their images as \
images; view_range then selects cells.""",
    Mention("notebook_edit", " Edit cells with notebook_edit."),
    """
- symbol shows the lines of one definition (a class, a function, ...) instead of a \
view_range, numbered as usual (in a notebook, the cell that holds it); a name defined \
more than once is refused with the list of its definitions, so that a qualified name \
can be given.""",
    Mention("symbols", " The symbols tool lists the definitions of a file or a tree."),
    """
- A directory comes back as a tree two levels deep; .git and node_modules are left out, \
other hidden entries are shown, symlinks show their target.
- Relative paths are resolved against the working directory (which bash's cd changes).""",
)

#: Added to the description while view-before-edit is on.
VIEW_FIRST = "\n- A file must be viewed in this session before str_replace or create_file \
may change it."


@tool(
    "view",
    annotations=read_only("View a file or directory"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def view(
    path: PathArg,
    view_range: ViewRange = None,
    symbol: Symbol = None,
    session: Session = Depends(current_session),
) -> ViewContent:
    files = session.files
    if symbol is None:
        return await session.blocking(lambda: as_content(view_path.view(files, path, view_range)))
    stop = threading.Event()

    def by_symbol() -> ViewContent:
        if view_range is not None:
            raise BorisError(
                Code.INVALID_INPUT,
                "give symbol or view_range, not both: symbol shows a definition's lines",
            )
        from boris.structure.locate import locate  # on first use: not needed to start

        found = locate(files, path, symbol, stop)
        lines = [found.start, found.end] if found.cell is None else [found.cell, found.cell]
        return as_content(view_path.view(files, found.path, lines))

    # A symbol may be looked for in a whole tree: a cancelled call stops the search.
    return await session.blocking(by_symbol, stop)
