"""glob: the paths below a directory whose relative path or name matches a pattern,
newest first.

The walk is grep's (boris.search.walk: ignore files, skipped and denied entries), except
that symlinked directories are listed and not entered. A pattern ending in ``/``
matches directories only, as in .gitignore.
"""

from __future__ import annotations

import os

from boris.errors import BorisError, Code
from boris.files.access import FileAccess
from boris.files.scope import PathScope
from boris.patterns.glob_match import GlobError, compile_walk_glob
from boris.patterns.glob_syntax import pattern_problem, strip_trailing_slashes
from boris.search.walk import newest_first, walk
from boris.stop import Stop
from boris.text import lines_within, printable

NOTHING_FOUND = "No files found"

KINDS = ("file", "directory")


def find(
    access: FileAccess,
    pattern: str,
    path: str | None,
    kind: str | None,
    stop: Stop | None = None,
) -> str:
    """Check a glob call's arguments and run it; raises
    :class:`~boris.stop.Stopped` soon after ``stop`` is set."""
    if not pattern:
        raise BorisError(Code.INVALID_INPUT, "pattern: must not be empty")
    problem = pattern_problem(pattern)
    if problem:
        raise BorisError(Code.GLOB_INVALID_PATTERN, f'{problem} in "{pattern}"')
    if kind is not None and kind not in KINDS:
        raise BorisError(
            Code.GLOB_INVALID_TYPE, f'invalid type "{kind}"; use "file" or "directory"'
        )
    # The cwd too is checked: bash may have left it outside the allowed directories.
    root = access.resolve("." if path is None else path)
    if not os.path.isdir(root):
        return NOTHING_FOUND
    try:
        paths = matching_paths(root, pattern, kind, access.scope, stop)
    except GlobError as exc:
        raise BorisError(Code.GLOB_INVALID_PATTERN, f'{exc} in "{pattern}"') from None
    return render(paths)


def matching_paths(
    root: str, pattern: str, kind: str | None, scope: PathScope, stop: Stop | None = None
) -> list[str]:
    """Relative paths below ``root`` matching ``pattern``, newest first (ties in walk order)."""
    directories_only = pattern.endswith("/")
    if directories_only:
        pattern = strip_trailing_slashes(pattern)
    match, has_slash = compile_walk_glob(pattern)
    absolute = pattern.startswith("/")
    want_dirs = kind != "file"
    want_files = kind != "directory" and not directories_only
    hits: list[tuple[str, int]] = []
    # Without a "/" only the name can match: let the walk filter by name.
    by_name = not (absolute or has_slash)
    for rel, is_dir, entry in walk(
        root, scope, follow_symlinks=False, names=match if by_name else None, stop=stop
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
        hits.append((rel, mtime))
    return [printable(rel) for rel in newest_first(hits)]


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
