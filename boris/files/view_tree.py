"""view's directory listing: a tree two levels deep, cut to fit the output cap.

Entries are sorted by name; directories end in ``/``, symlinks show ``name -> target``;
the entries no listing shows (``.git``, ``node_modules``) and denied ones are left
out. A listing is read through the directory's open descriptor, and subdirectories
are opened relative to it without following symlinks, so a swap cannot lead it
outside the scope.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter

from boris.errors import io_error
from boris.files.scope import SKIPPED_NAMES, PathScope
from boris.text import LIMIT, printable

_BRANCH, _LAST_BRANCH, _PIPE, _BLANK = "├── ", "└── ", "│   ", "    "
# How far the entries read may run past the room before the surplus is dropped: the
# sort that drops them is then paid once per this many characters of names.
_PRUNE_SLACK = 1 << 16


def list_directory(resolved: str, directory: int, scope: PathScope) -> str:
    """A two-level tree of ``resolved``, read through its open descriptor ``directory``.

    Denied entries are left out like hidden ones. Subdirectories are opened relative to
    ``directory`` without following symlinks, so a swap cannot lead the listing outside.
    A tree longer than LIMIT characters is cut after the last whole entry line that
    fits, and a last line counts the entries of both levels left out. However big the
    directory, only the entries that could be shown are kept; the others are counted.
    """
    name = _shown(os.path.basename(resolved)) if resolved != "/" else ""
    listing = _Listing(f"{name}/\n")
    try:
        top, total = _first_entries(directory, resolved, scope, listing.room, len(_BRANCH))
    except OSError as exc:
        raise io_error("list", resolved, exc) from None
    for index, entry in enumerate(top):
        last = index == total - 1
        if not listing.add((_LAST_BRANCH if last else _BRANCH) + _label(entry, directory)):
            after = top[index - 1].name if index else None
            return listing.cut(_count_after(directory, resolved, scope, after))
        if not entry.is_dir(follow_symlinks=False):
            continue
        path = os.path.join(resolved, entry.name)
        try:
            with _subdirectory(directory, entry.name) as child_fd:
                children, count = _first_entries(
                    child_fd, path, scope, listing.room, 2 * len(_BRANCH)
                )
                labels = [_label(child, child_fd) for child in children]
        except OSError:
            continue  # an unreadable subdirectory is shown without its contents
        indent = _BLANK if last else _PIPE
        for child_index, label in enumerate(labels):
            connector = _LAST_BRANCH if child_index == count - 1 else _BRANCH
            if not listing.add(indent + connector + label):
                later = _count_after(directory, resolved, scope, entry.name)
                return listing.cut(count - child_index + later)
    return listing.text()


class _Listing:
    """The lines of a listing so far, never more than LIMIT characters."""

    def __init__(self, header: str) -> None:
        self._lines = [header]
        self._size = len(header)

    @property
    def room(self) -> int:
        return LIMIT - self._size

    def add(self, line: str) -> bool:
        """Add ``line`` (and its newline) if it fits; whether it did."""
        if self._size + len(line) + 1 > LIMIT:
            return False
        self._lines.append(line + "\n")
        self._size += len(line) + 1
        return True

    def text(self) -> str:
        return "".join(self._lines)

    def cut(self, left_out: int) -> str:
        return (
            self.text() + f"\n[Truncated: {left_out} more entries not shown. "
            "View a subdirectory, or use glob.]"
        )


_SUBDIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@contextmanager
def _subdirectory(directory: int, name: str) -> Iterator[int]:
    """The subdirectory ``name`` of ``directory`` opened without following a symlink."""
    fd = os.open(name, _SUBDIRECTORY, dir_fd=directory)
    try:
        yield fd
    finally:
        os.close(fd)


def _visible(directory: int, path: str, scope: PathScope) -> Iterator[os.DirEntry[str]]:
    """The entries of the open ``directory`` (at ``path``) a listing may show."""
    with os.scandir(directory) as scan:
        for entry in scan:
            if entry.name not in SKIPPED_NAMES and not scope.denies(os.path.join(path, entry.name)):
                yield entry


def _first_entries(
    directory: int, path: str, scope: PathScope, room: int, indent: int
) -> tuple[list[os.DirEntry[str]], int]:
    """The entries of ``directory`` in name order, as many as could fit in ``room``
    characters, and how many it has in all.

    A line takes at least ``indent`` characters, the name and a newline, so entries
    sorting after the ones that fill the room are never shown: they are dropped as the
    directory is read, and a directory of any size costs memory for a few thousand.
    """
    kept: list[tuple[str, os.DirEntry[str]]] = []
    total = size = 0
    for entry in _visible(directory, path, scope):
        total += 1
        kept.append((entry.name, entry))
        size += indent + len(entry.name) + 1
        if size > 2 * room + _PRUNE_SLACK:
            kept, size = _could_fit(kept, room, indent)
    kept, _ = _could_fit(kept, room, indent)
    return [entry for _, entry in kept], total


# Control characters in a name would break the tree (a newline could even forge an
# entry): each is shown as "?", as ls -q does, which keeps the name a glob matching it.
_CONTROL = {code: "?" for code in (*range(0x20), 0x7F)}


def _shown(name: str) -> str:
    """A name as a listing shows it: valid text, on one line."""
    return printable(name).translate(_CONTROL)


def _could_fit(
    kept: list[tuple[str, os.DirEntry[str]]], room: int, indent: int
) -> tuple[list[tuple[str, os.DirEntry[str]]], int]:
    """The first of ``kept`` by name until their lines overflow ``room``, and their size."""
    kept.sort(key=itemgetter(0))
    size = 0
    for index, (name, _) in enumerate(kept):
        if size > room:
            return kept[:index], size
        size += indent + len(_shown(name)) + 1
    return kept, size


def _count_after(directory: int, path: str, scope: PathScope, after: str | None) -> int:
    """The entries of ``directory`` whose names sort after ``after`` (all when None),
    each with the entries of its own if it is a directory."""
    count = 0
    for entry in _visible(directory, path, scope):
        if after is not None and entry.name <= after:
            continue
        count += 1
        if entry.is_dir(follow_symlinks=False):
            try:
                with _subdirectory(directory, entry.name) as child:
                    count += sum(1 for _ in _visible(child, os.path.join(path, entry.name), scope))
            except OSError:
                pass  # shown without contents, so it has none to leave out
    return count


def _label(entry: os.DirEntry[str], directory: int) -> str:
    name = _shown(entry.name)
    if entry.is_symlink():
        try:
            return f"{name} -> {_shown(os.readlink(entry.name, dir_fd=directory))}"
        except OSError:
            return f"{name} -> ?"
    if entry.is_dir(follow_symlinks=False):
        return name + "/"
    return name
