"""The grep tool: regular-expression search of file contents (engine in boris.search).

Two schemas share one search. The default one names its parameters in words; the
compat one (``--anthropic-compat``) uses Claude Code's names (``glob``, ``-i``, ``-n``,
``-A``, ``-B``, ``-C``). Each function also accepts the other set's names without
showing them, so a client that speaks either dialect is understood.
"""

from __future__ import annotations

import os
import stat
from typing import Annotated

from fastmcp.dependencies import Depends
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.errors import BorisError, Code, io_error
from boris.search.globs import pattern_problem
from boris.session import Session, current_session
from boris.settings import Settings
from boris.shell.capture import LIMIT
from boris.toolset import ToolDef

Count = Annotated[int, Field(ge=0)]

DESCRIPTION = f"""\
Search file contents with a regular expression (RE2 syntax, the dialect of Go's \
regexp: no backreferences or lookaround, linear-time matching).

Searches one file or a directory tree. Skips .git and node_modules, files ignored by \
.gitignore, binary files and files over the server's size limit.
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


def grep(
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
    # The compat names, accepted but not shown.
    glob: str | None = None,
    flag_i: Annotated[bool | None, Field(alias="-i")] = None,
    flag_n: Annotated[bool | None, Field(alias="-n")] = None,
    flag_a: Annotated[int | None, Field(alias="-A")] = None,
    flag_b: Annotated[int | None, Field(alias="-B")] = None,
    flag_c: Annotated[int | None, Field(alias="-C")] = None,
    session: Session = Depends(current_session),
) -> str:
    return search(
        session,
        pattern=pattern,
        path=path,
        include=_pick("glob", glob, "include", include),
        file_type=type,
        output_mode=output_mode,
        line_numbers=_given(flag_n, line_numbers),
        before=_count("-B", flag_b, context_before),
        after=_count("-A", flag_a, context_after),
        context=_count("-C", flag_c, context) or 0,
        case_insensitive=_given(flag_i, case_insensitive),
        multiline=multiline,
        head_limit=head_limit,
        offset=offset,
    )


def grep_compat(
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
    # The default-mode names, accepted but not shown.
    include: str | None = None,
    context_before: int | None = None,
    context_after: int | None = None,
    line_numbers: bool | None = None,
    case_insensitive: bool | None = None,
    session: Session = Depends(current_session),
) -> str:
    return search(
        session,
        pattern=pattern,
        path=path,
        include=_pick("include", include, "glob", glob),
        file_type=type,
        output_mode=output_mode,
        line_numbers=_given(line_numbers, flag_n),
        before=_count("context_before", context_before, flag_b),
        after=_count("context_after", context_after, flag_a),
        context=max(context, flag_c),
        case_insensitive=_given(case_insensitive, flag_i),
        multiline=multiline,
        head_limit=head_limit,
        offset=offset,
    )


_DEFAULT_HIDDEN = ("glob", "-i", "-n", "-A", "-B", "-C")
_COMPAT_HIDDEN = ("include", "context_before", "context_after", "line_numbers", "case_insensitive")


def _given(hidden: bool | None, shown: bool) -> bool:
    return shown if hidden is None else hidden


def _count(name: str, hidden: int | None, shown: int | None) -> int | None:
    if hidden is None:
        return shown
    if hidden < 0:
        raise BorisError(Code.INVALID_INPUT, f"{name}: Input should be greater than or equal to 0")
    return hidden


def _pick(
    hidden_name: str, hidden: str | None, shown_name: str, shown: str | None
) -> tuple[str, str | None]:
    """The include glob and the name it came by (for error messages)."""
    if hidden:
        return hidden_name, hidden
    return shown_name, shown


def search(
    session: Session,
    *,
    pattern: str,
    path: str | None,
    include: tuple[str, str | None],
    file_type: str | None,
    output_mode: str,
    line_numbers: bool,
    before: int | None,
    after: int | None,
    context: int,
    case_insensitive: bool,
    multiline: bool,
    head_limit: int,
    offset: int,
) -> str:
    """Validate a grep call in either dialect and run it."""
    from boris.search import engine, matching

    if not pattern:
        raise BorisError(Code.INVALID_INPUT, "pattern: must not be empty")
    try:
        matcher = matching.compiled(pattern, case_insensitive, multiline)
    except matching.PatternError as exc:
        raise BorisError(
            Code.GREP_INVALID_PATTERN, f'invalid regular expression "{pattern}": {exc}'
        ) from None
    if output_mode not in engine.OUTPUT_MODES:
        raise BorisError(
            Code.GREP_INVALID_OUTPUT_MODE,
            f'invalid output_mode "{output_mode}"; use one of: {", ".join(engine.OUTPUT_MODES)}',
        )
    type_filter = None
    if file_type:
        type_filter = engine.file_type_filter(file_type)
        if type_filter is None:
            raise BorisError(
                Code.INVALID_INPUT,
                f'unknown type "{file_type}"; valid types: {engine.type_names()}',
            )
    include_name, include_glob = include
    include_matcher, include_has_slash = None, False
    if include_glob:
        problem = pattern_problem(include_glob)
        if problem:
            raise BorisError(Code.INVALID_INPUT, f'{include_name}: {problem} in "{include_glob}"')
        try:
            include_matcher, include_has_slash = engine.compile_include(include_glob)
        except ValueError as exc:
            raise BorisError(
                Code.INVALID_INPUT, f'{include_name}: {exc} in "{include_glob}"'
            ) from None

    # The cwd too is checked: bash may have left it outside the allowed directories.
    root = session.resolve("." if path is None else path)
    try:
        info = os.stat(root)
    except FileNotFoundError:
        raise BorisError(Code.PATH_NOT_FOUND, f"path does not exist: {root}") from None
    except OSError as exc:
        raise io_error("read", root, exc) from None
    label = None
    if not stat.S_ISDIR(info.st_mode):
        if not stat.S_ISREG(info.st_mode):
            raise BorisError(
                Code.INVALID_INPUT, f"{root} is neither a regular file nor a directory"
            )
        limit = session.settings.max_file_size
        if info.st_size > limit:
            raise BorisError(
                Code.FILE_TOO_LARGE,
                f"{root} is {info.st_size} bytes, over the --max-file-size limit of {limit} bytes",
            )
        label = path

    # A side given on its own (0 too) wins over the symmetric context, as in ripgrep.
    before = context if before is None else before
    after = context if after is None else after
    wanted = offset + head_limit if head_limit else None
    task = matching.FileTask(
        pattern=pattern,
        case_insensitive=case_insensitive,
        multiline=multiline,
        output_mode=output_mode,
        max_size=session.settings.max_file_size,
        line_numbers=line_numbers,
        before=before,
        after=after,
        budget=wanted,
        max_chars=LIMIT,
        skipped=offset,
    )
    query = engine.Query(
        task=task,
        matcher=matcher,
        include=include_matcher,
        include_has_slash=include_has_slash,
        file_type=type_filter,
        head_limit=head_limit,
        offset=offset,
    )
    try:
        return engine.grep(root, label, query, session.scope)
    except OSError as exc:
        raise io_error("search", root, exc) from None


def definition(settings: Settings) -> ToolDef:
    if settings.anthropic_compat:
        return ToolDef(
            fn=grep_compat,
            title="Search file contents",
            read_only=True,
            description=COMPAT_DESCRIPTION,
            hidden_arguments=_COMPAT_HIDDEN,
        )
    return ToolDef(
        fn=grep,
        title="Search file contents",
        read_only=True,
        description=DESCRIPTION,
        hidden_arguments=_DEFAULT_HIDDEN,
    )
