"""The apply_patch tool: add, update, move and delete files with one patch in the envelope
GPT-family models are trained on, all files or none (boris.files.patch.files)."""

from __future__ import annotations

import threading
from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.files.patch import files as patch_files
from boris.session import Session, current_session
from boris.tools import SYNTAX_CHECKED, destructive, served

DESCRIPTION = (
    """\
Add, update, move and delete files with one patch: every file changes, or none does.

*** Begin Patch
*** Add File: src/new.py
+print("every line of a new file starts with +")
*** Update File: src/app.py
@@ def greet():
     name = "world"
-    print("Hi")
+    print("Hello", name)
*** Update File: src/old_name.py
*** Move to: src/new_name.py
@@
-import os
+import sys
*** Delete File: src/obsolete.py
*** End Patch

- Paths are absolute or relative to the working directory.
- A hunk starts with `@@`, optionally followed by a line of the file to look after \
(such as its function's first line); then lines starting with ` ` (context, kept), `-` \
(removed) or `+` (added). Give about 3 lines of context around each change; hunks go \
in file order.
- Context and removed lines must match the file exactly (trailing whitespace aside). \
Without an `@@` line they must occur once after the previous hunk; with one, the first \
place after that line is taken.
- `*** End of File` after a hunk's lines says they end the file.
- Encoding, line endings (LF or CRLF), final newline and permissions are kept.
- Returns one line per file: `A path` (added), `M path` (updated), `M old -> new` \
(moved), `D path` (deleted).
- """
    + SYNTAX_CHECKED
)

#: Added to the description while view-before-edit is on.
VIEW_FIRST = (
    "\n- A file must have been viewed in this session before the patch updates, moves or "
    "deletes it."
)


@tool(
    "apply_patch",
    annotations=destructive("Apply a patch to files"),
    description=DESCRIPTION,
)
@served(view_first=VIEW_FIRST)
async def apply_patch(
    patch: Annotated[
        str,
        Field(
            description="The whole patch, from '*** Begin Patch' to '*** End Patch'.",
        ),
    ],
    session: Session = Depends(current_session),
) -> str:
    files = session.files
    stop = threading.Event()  # set when the call is cancelled: the patch is undone
    return await session.blocking(
        lambda: patch_files.apply_patch(files, patch, stop), stop, settle=True
    )
