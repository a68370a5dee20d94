"""The glob tool: find files and directories by name pattern, newest first."""

from __future__ import annotations

import os
from typing import Annotated

from fastmcp.dependencies import Depends
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.errors import BorisError, Code
from boris.files.scope import PathScope
from boris.search.globs import pattern_problem, strip_trailing_slashes
from boris.session import Session, current_session
from boris.settings import Settings
from boris.shell.capture import LIMIT, lines_within
from boris.toolset import ToolDef

NOTHING_FOUND = "No files found"

KINDS = ("file", "directory")

DESCRIPTION = """\
Find files and directories whose path matches a glob pattern.

Syntax: * (any characters but /), ** (any number of directories), ?, {a,b}, [abc], \
[a-z], [!abc]; \\ makes the next character ordinary. The pattern is matched against \
each path relative to the search directory and against each name, so "*.py" finds \
Python files at any depth and "src/**/test_*.py" only those under src; a pattern \
ending in / finds directories only. Results are relative paths, newest first, \
one per line; .git, node_modules and gitignored entries are skipped, other hidden \
files are included, symlinked directories are listed but not entered. type limits \
results to files or directories. Nothing found gives "No files found"."""

COMPAT_DESCRIPTION = f"""\
- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time, newest first
- Use this tool when you need to find files by name patterns
- Skips .git, node_modules and files ignored by .gitignore
- Output is capped at {LIMIT} characters"""

_PATTERN = 'The glob pattern to match files against (e.g. "**/*.py", "*.{ts,tsx}").'
_PATH = "The directory to search in. Defaults to the current working directory."
_TYPE = 'Only return "file"s or only "directory"s. Default: both.'


def glob(
    pattern: Annotated[str, Field(description=_PATTERN)],
    path: Annotated[str | SkipJsonSchema[None], Field(description=_PATH)] = None,
    type: Annotated[str | SkipJsonSchema[None], Field(description=_TYPE)] = None,
    session: Session = Depends(current_session),
) -> str:
    return find(session, pattern, path, type)


def glob_compat(
    pattern: Annotated[str, Field(description=_PATTERN)],
    path: Annotated[
        str | SkipJsonSchema[None],
        Field(
            description="The directory to search in. If not specified, the current working "
            "directory is used. Omit it rather than passing null or an empty string."
        ),
    ] = None,
    type: str | None = None,  # accepted, not shown: the compat schema has pattern and path
    session: Session = Depends(current_session),
) -> str:
    return find(session, pattern, path, type)


def find(session: Session, pattern: str, path: str | None, kind: str | None) -> str:
    """Validate a glob call and run it."""
    if not pattern:
        raise BorisError(Code.INVALID_INPUT, "pattern: must not be empty")
    problem = pattern_problem(pattern)
    if problem:
        raise BorisError(Code.GLOB_INVALID_PATTERN, f'{problem} in "{pattern}"')
    if kind is not None and kind not in KINDS:
        raise BorisError(
            Code.GLOB_INVALID_TYPE, f'invalid type "{kind}"; use "file" or "directory"'
        )
    from boris.search.globs import GlobError

    # The cwd too is checked: bash may have left it outside the allowed directories.
    root = session.resolve("." if path is None else path)
    if not os.path.isdir(root):
        return NOTHING_FOUND
    try:
        paths = matching_paths(root, pattern, kind, session.scope)
    except GlobError as exc:
        raise BorisError(Code.GLOB_INVALID_PATTERN, f'{exc} in "{pattern}"') from None
    return render(paths)


def matching_paths(root: str, pattern: str, kind: str | None, scope: PathScope) -> list[str]:
    """Relative paths below ``root`` matching ``pattern``, newest first (ties in walk order).

    A pattern ending in ``/`` matches directories only, as in .gitignore."""
    from boris.search.engine import compile_include
    from boris.search.walk import walk
    from boris.text import printable

    directories_only = pattern.endswith("/")
    if directories_only:
        pattern = strip_trailing_slashes(pattern)
    match, has_slash = compile_include(pattern)
    absolute = pattern.startswith("/")
    want_dirs = kind != "file"
    want_files = kind != "directory" and not directories_only
    hits: list[tuple[int, int, str]] = []
    # Without a "/" only the name can match: let the walk filter by name.
    by_name = not (absolute or has_slash)
    for rel, is_dir, entry in walk(
        root, scope, follow_symlinks=False, names=match if by_name else None
    ):
        if not (want_dirs if is_dir else want_files):
            continue
        if not by_name and not (
            match(os.path.join(root, rel)) if absolute else match(rel) or match(entry.name)
        ):
            continue
        try:
            mtime = entry.stat().st_mtime_ns
        except OSError:
            continue  # vanished meanwhile
        hits.append((-mtime, len(hits), rel))
    hits.sort()  # newest first; equal times keep walk order
    return [printable(rel) for _, _, rel in hits]


def render(paths: list[str]) -> str:
    """The result: the paths, cut at a line boundary to fit ``LIMIT`` characters."""
    if not paths:
        return NOTHING_FOUND
    shown = lines_within(paths)
    if shown == len(paths):
        return "\n".join(paths)
    size = sum(len(path) for path in paths) + len(paths) - 1
    return (
        "\n".join(paths[:shown]) + f"\n\n[Truncated: {len(paths)} paths matched ({size} "
        f"characters), showing the first {shown}. Use a more specific pattern or path.]"
    )


def definition(settings: Settings) -> ToolDef:
    if settings.anthropic_compat:
        return ToolDef(
            fn=glob_compat,
            title="Find files by name",
            read_only=True,
            description=COMPAT_DESCRIPTION,
            hidden_arguments=("type",),
        )
    return ToolDef(fn=glob, title="Find files by name", read_only=True, description=DESCRIPTION)
