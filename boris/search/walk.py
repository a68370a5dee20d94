"""The directory walk grep and glob share: name order, depth first, ignore-file-aware.

What every walk skips, silently: ``.git`` and ``node_modules`` at any depth, entries the
ignore files exclude (``.gitignore``, ``.ignore``, ``.rgignore`` and a repository's
``info/exclude``, at every level and above the root, as ripgrep reads them: see
boris.search.ignores), entries a deny pattern matches, symlinks whose target is out
of scope, and broken symlinks. Whether a symlinked directory is entered is the
caller's choice: grep follows them (each real directory once, so a
link cycle ends), glob lists them without entering.

The walk is the hot loop of both tools (tens of thousands of entries per call), so it
leans on what ``os.scandir`` already knows: entry types come from the directory
listing and a stat is only made for symlinks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import TypeVar

from boris.errors import BorisError
from boris.files.scope import SKIPPED_NAMES, PathScope
from boris.search.ignores import Levels, ancestor_levels, is_ignored, levels_inside
from boris.stop import Stop, check

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
    # Name order is the order of the names' bytes, as git and ripgrep have it. For
    # ASCII names it is the order of the strings; not so once a name holds a byte
    # that is not UTF-8 (a lone surrogate, between U+D7FF and U+E000) or a
    # character past U+FFFF.
    if not "".join(map(_BY_NAME, entries)).isascii():
        entries.sort(key=_name_bytes)
    return entries


_BY_NAME = attrgetter("name")


def _name_bytes(entry: os.DirEntry[str]) -> bytes:
    return os.fsencode(entry.name)


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
    stop: Stop | None = None,
) -> Iterator[Found]:
    """Every entry below the directory ``root`` (resolved, in scope), depth first,
    entries of each directory in name order, subject to the skips in the module doc.

    Directories are yielded before their contents. With ``follow_symlinks`` a
    symlinked directory is entered unless its real path was already entered (cycles,
    duplicates) or is out of scope; without it, it is yielded and not entered.
    ``names``, when given, is a cheap pre-filter on entry names: entries it rejects
    are not yielded (directories are still entered), which spares the caller most
    of the walk's work in a name search. The walk raises
    :class:`~boris.stop.Stopped` soon after ``stop`` is set.
    """
    entries = _sorted_entries(root)
    if entries is None:
        return
    visited = {root}
    levels = levels_inside(ancestor_levels(root, scope), root, "", entries, scope)
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
            check(stop)
            children = _sorted_entries(entry.path)
            if children is None:
                continue
            child_prefix = rel + "/"
            child_levels = levels_inside(levels, entry.path, child_prefix, children, scope)
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
    except BorisError:
        return None


_Found = TypeVar("_Found")


def newest_first(found: Iterable[tuple[_Found, int]]) -> list[_Found]:
    """What a walk found, by modification time (``st_mtime_ns``), newest first; equal
    times keep walk order (the sort is stable)."""
    return [item for item, _ in sorted(found, key=lambda pair: -pair[1])]
