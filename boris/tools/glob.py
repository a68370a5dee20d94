"""The glob tool: find files and directories by name pattern, newest first
(boris.search.glob)."""

from __future__ import annotations

import threading
from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.session import Session, current_session
from boris.text import LIMIT
from boris.tools import UNLISTED, read_only, served

DESCRIPTION = """\
Find files and directories whose path matches a glob pattern.

Syntax: * (any characters but /), ** (any number of directories), ?, {a,b}, [abc], \
[a-z], [!abc]; \\ makes the next character ordinary. The pattern is matched against \
each path relative to the search directory and against each name, so "*.py" finds \
Python files at any depth and "src/**/test_*.py" only those under src; a pattern \
ending in / finds directories only. Results are relative paths, newest first, \
one per line; .git, node_modules and entries ignored by .gitignore, .ignore or \
.rgignore are skipped, other hidden files are included, symlinked directories are \
listed but not entered. type limits results to files or directories. Nothing found \
gives "No files found"."""

COMPAT_DESCRIPTION = f"""\
- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time, newest first
- Use this tool when you need to find files by name patterns
- Skips .git, node_modules and files ignored by .gitignore, .ignore or .rgignore
- Output is capped at {LIMIT} characters"""

ANNOTATIONS = read_only("Find files by name")

_PATTERN = 'The glob pattern to match files against (e.g. "**/*.py", "*.{ts,tsx}").'
_PATH = "The directory to search in. Defaults to the current working directory."
_TYPE = 'Only return "file"s or only "directory"s. Default: both.'


@tool("glob", annotations=ANNOTATIONS, description=DESCRIPTION)
async def glob(
    pattern: Annotated[str, Field(description=_PATTERN)],
    path: Annotated[str | SkipJsonSchema[None], Field(description=_PATH)] = None,
    type: Annotated[str | SkipJsonSchema[None], Field(description=_TYPE)] = None,
    session: Session = Depends(current_session),
) -> str:
    return await _find(session, pattern, path, type)


@tool("glob", annotations=ANNOTATIONS, description=COMPAT_DESCRIPTION)
@served(compat=True)
async def glob_compat(
    pattern: Annotated[str, Field(description=_PATTERN)],
    path: Annotated[
        str | SkipJsonSchema[None],
        Field(
            description="The directory to search in. If not specified, the current working "
            "directory is used. Omit it rather than passing null or an empty string."
        ),
    ] = None,
    # Understood, but the compat schema lists pattern and path only.
    type: Annotated[str | None, UNLISTED] = None,
    session: Session = Depends(current_session),
) -> str:
    return await _find(session, pattern, path, type)


async def _find(session: Session, pattern: str, path: str | None, kind: str | None) -> str:
    """glob in a worker thread; a cancelled call stops its walk."""
    files = session.files
    stop = threading.Event()

    def run() -> str:
        from boris.search import glob  # on first use: it is not needed to start

        return glob.find(files, pattern, path, kind, stop)

    return await session.blocking(run, stop)
