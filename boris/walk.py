"""The directory walk grep and glob share: name order, depth first, .gitignore-aware.

What every walk skips, silently: ``.git`` and ``node_modules`` at any depth, entries a
``.gitignore`` excludes (git's rules, every level, plus the ignore files of the root's
ancestors up to the enclosing repository), entries a deny pattern matches, symlinks
whose target is out of scope, and broken symlinks. Whether a symlinked directory is
entered is the caller's choice: grep follows them (each real directory once, so a
link cycle ends), glob lists them without entering.

The walk is the hot loop of both tools (tens of thousands of entries per call), so it
leans on what ``os.scandir`` already knows: entry types come from the directory
listing and a stat is only made for symlinks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

from boris.errors import ToolFailure
from boris.pathscope import PathScope

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

#: Directories no search looks into, whatever the ignore files say.
SKIPPED_NAMES = frozenset({".git", "node_modules"})

#: The largest .gitignore read; a bigger one is not a real ignore file.
_MAX_IGNORE_FILE = 1 << 20


@dataclass(frozen=True, slots=True)
class _IgnoreLevel:
    """The rules of one .gitignore file and how to phrase a path relative to its directory.

    A path ``rel`` (relative to the walk root) is checked as ``lead + rel[cut:]``:
    for an ignore file inside the walk ``cut`` strips the directory's own prefix; for
    an ancestor of the root ``lead`` prepends the root's path below that ancestor.
    """

    spec: GitIgnoreSpec
    lead: str
    cut: int


Levels = tuple[_IgnoreLevel, ...]


def is_ignored(levels: Levels, rel: str, is_dir: bool) -> bool:
    """git's verdict for ``rel``: the deepest ignore file with a matching rule decides,
    and inside one file the last matching rule (a ``!`` rule re-includes)."""
    path = printable(rel + "/" if is_dir else rel)  # pathspec's re2 needs valid UTF-8
    for level in reversed(levels):
        verdict = level.spec.check_file(level.lead + path[level.cut :], separators=()).include
        if verdict is not None:
            return verdict
    return False


def _read_ignore_file(path: str) -> GitIgnoreSpec | None:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_MAX_IGNORE_FILE)
    except OSError:
        return None
    lines = raw.decode("utf-8", "replace").splitlines()
    spec = _compile_ignore_lines(lines)
    if spec is None:  # some line is not a valid pattern: git skips those, so do we
        valid = [line for line in lines if _compile_ignore_lines([line]) is not None]
        spec = _compile_ignore_lines(valid)
    return spec if spec is not None and len(spec) else None


def _compile_ignore_lines(lines: list[str]) -> GitIgnoreSpec | None:
    import warnings

    from pathspec import GitIgnoreSpec

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. re's FutureWarning on "[[" in a class
            return GitIgnoreSpec.from_lines(lines)
    except Exception:  # pathspec and its re2 backend raise several kinds
        return None


def _repository_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` holding a ``.git`` entry."""
    current = directory
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ancestor_levels(root: str, scope: PathScope) -> Levels:
    """The ignore rules that reach ``root`` from above: the .gitignore files of its
    ancestors, from the enclosing repository's root down to its parent.

    Outside a repository no ancestor applies. When these rules ignore the root or a
    directory on the way down to it (someone searches inside ``build/`` on purpose),
    they are left out: an explicitly named directory is searched, as ripgrep does.
    """
    repo = _repository_root(root)
    if repo is None or repo == root:
        return ()
    chain = [root]
    while chain[-1] != repo:
        chain.append(os.path.dirname(chain[-1]))
    chain.reverse()  # repository root first, the search root last
    loaded: list[tuple[str, GitIgnoreSpec]] = []
    for directory in chain:
        if loaded and _ignored_from_above(loaded, directory):
            return ()
        if directory == root:
            break
        ignore_file = os.path.join(directory, ".gitignore")
        if not os.path.isfile(ignore_file) or not scope.permits(os.path.realpath(ignore_file)):
            continue
        spec = _read_ignore_file(ignore_file)
        if spec is not None:
            loaded.append((directory, spec))
    return tuple(
        _IgnoreLevel(spec, os.path.relpath(root, directory) + "/", 0) for directory, spec in loaded
    )


def _ignored_from_above(loaded: list[tuple[str, GitIgnoreSpec]], directory: str) -> bool:
    for base, spec in reversed(loaded):
        below = os.path.relpath(directory, base) + "/"
        verdict = spec.check_file(below, separators=()).include
        if verdict is not None:
            return verdict
    return False


#: What the walk yields per entry: ``(rel, is_dir, entry)``. ``rel`` is the display
#: path below the root, ``/``-joined; ``is_dir`` the entry's type after following a
#: symlink; ``entry`` the ``os.DirEntry``: its ``path`` is the one to open (through
#: any followed symlinked directory), its ``stat()`` is cached. A plain tuple: a walk
#: makes tens of thousands of them.
Found = tuple[str, bool, os.DirEntry[str]]


def _sorted_entries(directory: str) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)
    except OSError:
        return None  # unreadable or vanished: skipped like git would
    entries.sort(key=_BY_NAME)
    return entries


_BY_NAME = attrgetter("name")


@dataclass(slots=True)
class _Frame:
    entries: Iterator[os.DirEntry[str]]
    prefix: str  # display path of this directory plus "/", "" at the root
    real: str  # symlink-free path of this directory, with a trailing "/"
    levels: Levels


def walk(
    root: str,
    scope: PathScope,
    *,
    follow_symlinks: bool,
    names: Callable[[str], object] | None = None,
) -> Iterator[Found]:
    """Every entry below the directory ``root`` (resolved, in scope), depth first,
    entries of each directory in name order, subject to the skips in the module doc.

    Directories are yielded before their contents. With ``follow_symlinks`` a
    symlinked directory is entered unless its real path was already entered (cycles,
    duplicates) or is out of scope; without it, it is yielded and not entered.
    ``names``, when given, is a cheap pre-filter on entry names: entries it rejects
    are not yielded (directories are still entered), which spares the caller most
    of the walk's work in a name search.
    """
    entries = _sorted_entries(root)
    if entries is None:
        return
    visited = {root}
    levels = _with_ignore_file(ancestor_levels(root, scope), root, "", entries)
    stack = [_Frame(iter(entries), "", root.rstrip("/") + "/", levels)]
    denies = scope.denies if scope.deny_patterns else None
    skipped = SKIPPED_NAMES
    while stack:
        frame = stack[-1]
        prefix, parent, levels = frame.prefix, frame.real, frame.levels
        for entry in frame.entries:
            name = entry.name
            if name in skipped or (denies is not None and denies(parent + name)):
                continue
            if entry.is_symlink():
                target = _symlink_target(entry, scope)
                if target is None:
                    continue
                is_dir = entry.is_dir()
                enter = is_dir and follow_symlinks
                real_dir = target
            else:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    continue
                enter = is_dir
                real_dir = parent + name if is_dir else ""
            wanted = names is None or names(name)
            if not (wanted or enter):
                continue
            rel = prefix + name
            if levels and is_ignored(levels, rel, is_dir):
                continue
            if wanted:
                yield rel, is_dir, entry
            # Each real directory is entered once: a symlink cycle ends there.
            if not enter or real_dir in visited:
                continue
            visited.add(real_dir)
            children = _sorted_entries(entry.path)
            if children is None:
                continue
            child_prefix = rel + "/"
            child_levels = _with_ignore_file(levels, entry.path, child_prefix, children)
            stack.append(_Frame(iter(children), child_prefix, real_dir + "/", child_levels))
            break
        else:
            stack.pop()


def _symlink_target(entry: os.DirEntry[str], scope: PathScope) -> str | None:
    """The real path behind a symlink if it exists, is a file or directory and is in
    scope; None to skip the entry."""
    try:
        mode = entry.stat().st_mode
    except OSError:
        return None  # broken link
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        return None
    try:
        return scope.resolve(entry.path, "/")  # resolved in full, then checked
    except ToolFailure:
        return None


def _with_ignore_file(
    levels: Levels, directory: str, prefix: str, entries: list[os.DirEntry[str]]
) -> Levels:
    for entry in entries:
        if entry.name == ".gitignore":
            break
    else:
        return levels
    if not entry.is_file():
        return levels
    spec = _read_ignore_file(os.path.join(directory, ".gitignore"))
    if spec is None:
        return levels
    return (*levels, _IgnoreLevel(spec, "", len(prefix)))


def printable(path: str) -> str:
    """``path`` (or any text) safe to put in a JSON reply: bytes that were not UTF-8 in a
    file name (kept by Python as lone surrogates U+DC80..U+DCFF) become U+FFFD, and so
    does any other lone surrogate."""
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        import re

        path = re.sub("[\ud800-\udc7f\udd00-\udfff]", "\ufffd", path)
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path
