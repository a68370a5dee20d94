"""The grep tool: regular-expression search of file contents (boris.search.grep).

Two schemas share one search. The default one names its arguments in words; the compat
one (``--anthropic-compat``) uses Claude Code's names (``glob``, ``-i``, ``-n``, ``-A``,
``-B``, ``-C``). Either mode also understands the other's names without listing them
(:data:`COMPAT_NAMES`, applied by boris.edge), so a client that speaks either dialect
is understood.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.session import Session, current_session
from boris.text import LIMIT
from boris.tools import read_only, served

#: The compat name of each argument that has one. Each mode's schema lists one name of
#: a pair; the other is understood as well and, when given, wins.
COMPAT_NAMES = {
    "include": "glob",
    "case_insensitive": "-i",
    "line_numbers": "-n",
    "context_before": "-B",
    "context_after": "-A",
    "context": "-C",
}

Count = Annotated[int, Field(ge=0)]

ANNOTATIONS = read_only("Search file contents")

DESCRIPTION = f"""\
Search file contents with a regular expression (RE2 syntax, the dialect of Go's \
regexp: no backreferences or lookaround, linear-time matching).

Searches one file or a directory tree. Skips .git and node_modules, files ignored by \
.gitignore, .ignore or .rgignore, binary files and files over the server's size limit.
- output_mode "files_with_matches" (default): matching file paths, newest first.
- output_mode "content": matching lines as path:LINE:text (path:text without line \
numbers), with optional context lines shown as path-LINE-text and "--" between groups.
- output_mode "count": path:N, the number of matching lines per file.
Paths are relative to the searched directory. Filter files with include (a glob such \
as "*.py" or "src/**/*.ts") and/or type (e.g. "py", "js", "rust"). head_limit and \
offset page through long results; output over {LIMIT} characters is cut at a line, \
with a last line giving the offset to continue from. No match gives an empty \
result."""

COMPAT_DESCRIPTION = (
    """\
A fast content search tool for any codebase size, built on RE2 regular expressions.

Usage:
- ALWAYS use grep for content searches instead of running grep or rg through bash: it \
is faster, skips ignored and binary files, and honours the server's path restrictions.
- Supports full regex syntax (e.g. "log.*Error", "function\\s+\\w+"). Literal braces \
need escaping: use "interface\\{\\}" to find "interface{}" in Go code.
- Filter files with the glob parameter (e.g. "*.js", "**/*.tsx") or the type \
parameter (e.g. "js", "py", "rust").
- Output modes: "content" shows matching lines, "files_with_matches" (default) shows \
only file paths, newest first, "count" shows match counts per file.
- Patterns match within single lines by default. For patterns that span lines, like \
"struct \\{[\\s\\S]*?field", set multiline: true.
- Use head_limit and offset to page through large results. Output is capped at \
"""
    + f"{LIMIT} characters; a cut result ends with the offset to continue from."
)

# Parameter descriptions shared by both schemas.
_PATTERN = "The regular expression to search for (RE2 syntax)."
_PATH = "File or directory to search. Defaults to the current working directory."
_INCLUDE = (
    "Only search files whose path relative to the search directory, or whose name, "
    'matches this glob (e.g. "*.py", "src/**/*.ts", "*.{js,jsx}").'
)
_TYPE = (
    "Only search files of this type: c, cpp, css, go, html, java, js, json, markdown (md), "
    "py (python), rust, ts (typescript), yaml."
)
_MODE = 'One of "files_with_matches" (default), "content" or "count".'
_HEAD_LIMIT = (
    "Show only the first N output lines (content) or entries (other modes), "
    "after offset. 0 means no limit."
)
_OFFSET = "Skip the first N output lines or entries before applying head_limit."
_MULTILINE = (
    "Let the pattern span lines: it is matched against the whole file, '.' matches "
    "newlines and ^/$ still match at every line. Every line a match touches is a match "
    "line. Needed for a pattern with a literal newline (\\n)."
)


@tool("grep", annotations=ANNOTATIONS, description=DESCRIPTION)
@served(name_pairs=COMPAT_NAMES)
async def grep(
    pattern: Annotated[str, Field(description=_PATTERN)],
    path: Annotated[str | SkipJsonSchema[None], Field(description=_PATH)] = None,
    include: Annotated[str | SkipJsonSchema[None], Field(description=_INCLUDE)] = None,
    type: Annotated[str | SkipJsonSchema[None], Field(description=_TYPE)] = None,
    output_mode: Annotated[str, Field(description=_MODE)] = "files_with_matches",
    line_numbers: Annotated[bool, Field(description="Show line numbers in content output.")] = True,
    context_before: Annotated[
        Count | SkipJsonSchema[None],
        Field(description="Lines of context to show before each match (content)."),
    ] = None,
    context_after: Annotated[
        Count | SkipJsonSchema[None],
        Field(description="Lines of context to show after each match (content)."),
    ] = None,
    context: Annotated[
        Count,
        Field(description="Lines of context before and after each match (content)."),
    ] = 0,
    case_insensitive: Annotated[bool, Field(description="Ignore case.")] = False,
    multiline: Annotated[bool, Field(description=_MULTILINE)] = False,
    head_limit: Annotated[Count, Field(description=_HEAD_LIMIT)] = 0,
    offset: Annotated[Count, Field(description=_OFFSET)] = 0,
    session: Session = Depends(current_session),
) -> str:
    return await _search(
        session,
        pattern=pattern,
        path=path,
        include=include,
        include_name="include",
        file_type=type,
        output_mode=output_mode,
        line_numbers=line_numbers,
        before=context_before,
        after=context_after,
        context=context,
        case_insensitive=case_insensitive,
        multiline=multiline,
        head_limit=head_limit,
        offset=offset,
    )


@tool("grep", annotations=ANNOTATIONS, description=COMPAT_DESCRIPTION)
@served(compat=True, name_pairs=COMPAT_NAMES)
async def grep_compat(
    pattern: Annotated[str, Field(description=_PATTERN)],
    path: Annotated[str | SkipJsonSchema[None], Field(description=_PATH)] = None,
    glob: Annotated[str | SkipJsonSchema[None], Field(description=_INCLUDE)] = None,
    output_mode: Annotated[
        str,
        Field(
            description='Output mode: "content" shows matching lines (supports -A/-B/-C '
            'context, -n line numbers, head_limit), "files_with_matches" shows file paths '
            '(supports head_limit), "count" shows match counts (supports head_limit). '
            'Defaults to "files_with_matches".'
        ),
    ] = "files_with_matches",
    flag_b: Annotated[
        Count | SkipJsonSchema[None],
        Field(
            alias="-B",
            description="Number of lines to show before each match. Requires output_mode: "
            '"content", ignored otherwise.',
        ),
    ] = None,
    flag_a: Annotated[
        Count | SkipJsonSchema[None],
        Field(
            alias="-A",
            description="Number of lines to show after each match. Requires output_mode: "
            '"content", ignored otherwise.',
        ),
    ] = None,
    flag_c: Annotated[
        Count,
        Field(
            alias="-C",
            description="Number of lines to show before and after each match. Requires "
            'output_mode: "content", ignored otherwise.',
        ),
    ] = 0,
    context: Annotated[Count, Field(description="Alias for -C.")] = 0,
    flag_n: Annotated[
        bool,
        Field(
            alias="-n",
            description='Show line numbers in output. Requires output_mode: "content", '
            "ignored otherwise. Defaults to true.",
        ),
    ] = True,
    flag_i: Annotated[bool, Field(alias="-i", description="Case insensitive search.")] = False,
    type: Annotated[
        str | SkipJsonSchema[None],
        Field(
            description="File type to search (c, cpp, css, go, html, java, js, json, "
            "markdown, py, rust, ts, yaml). More efficient than glob for standard file "
            "types."
        ),
    ] = None,
    head_limit: Annotated[
        Count,
        Field(
            description="Limit output to the first N lines/entries: output lines for "
            '"content", file paths for "files_with_matches", entries for "count". '
            "0 means unlimited."
        ),
    ] = 0,
    offset: Annotated[
        Count,
        Field(description="Skip the first N lines/entries before applying head_limit."),
    ] = 0,
    multiline: Annotated[
        bool,
        Field(
            description="Enable multiline mode where . matches newlines and patterns can "
            "span lines. Default: false."
        ),
    ] = False,
    session: Session = Depends(current_session),
) -> str:
    return await _search(
        session,
        pattern=pattern,
        path=path,
        include=glob,
        include_name="glob",
        file_type=type,
        output_mode=output_mode,
        line_numbers=flag_n,
        before=flag_b,
        after=flag_a,
        context=max(context, flag_c),  # "context" is listed as another name for -C
        case_insensitive=flag_i,
        multiline=multiline,
        head_limit=head_limit,
        offset=offset,
    )


async def _search(session: Session, **arguments: Any) -> str:
    """grep in a worker thread, with the arguments of boris.search.grep.Request; a
    cancelled call stops the search (and the workers it keeps busy)."""
    files = session.files
    stop = threading.Event()

    def run() -> str:
        from boris.search import grep  # on first use: it is not needed to start

        return grep.run(files, grep.Request(**arguments), stop)

    return await session.blocking(run, stop)
