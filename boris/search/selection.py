"""Which files a search looks at: the root a call names (a directory, or one file), and
the files of the walk below it that pass the ``include`` and ``type`` filters.

grep and the code-structure search (boris.structure) select their files alike, so both
take them from here: the same checks, in the same order, with the same messages.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from boris.errors import BorisError, Code, io_error
from boris.files.access import FileAccess
from boris.files.scope import PathScope
from boris.patterns.glob_match import compile_walk_glob
from boris.patterns.glob_syntax import pattern_problem
from boris.search.filetypes import NameFilter, file_type_filter, type_names
from boris.search.walk import walk
from boris.stop import Stop
from boris.text import printable


@dataclass(frozen=True)
class FileFilter:
    """The ``include`` glob and the ``type`` filter of a call; both must pass."""

    include: Callable[[str], object] | None = None
    #: Whether the include glob holds a "/": it is then matched against the path too.
    include_has_slash: bool = False
    file_type: NameFilter | None = None

    def wants(self, rel: str) -> bool:
        """Whether the file at ``rel`` (below the root, or a single file's name) passes."""
        name = rel.rpartition("/")[2]
        if self.file_type is not None and not self.file_type(name):
            return False
        if self.include is None:
            return True
        return bool((self.include_has_slash and self.include(rel)) or self.include(name))


def file_filter(include: str | None, include_name: str, file_type: str | None) -> FileFilter:
    """The filter of a call's ``type`` and include glob (``include_name`` is the name the
    glob came as, for messages); ``INVALID_INPUT`` for an unknown type or a bad glob."""
    type_filter = None
    if file_type:
        type_filter = file_type_filter(file_type)
        if type_filter is None:
            raise BorisError(
                Code.INVALID_INPUT, f'unknown type "{file_type}"; valid types: {type_names()}'
            )
    test, has_slash = include_filter(include, include_name)
    return FileFilter(test, has_slash, type_filter)


def include_filter(pattern: str | None, name: str) -> tuple[Callable[[str], object] | None, bool]:
    """The include filter (see :func:`~boris.patterns.glob_match.compile_walk_glob`); none
    for no or an empty pattern."""
    if not pattern:
        return None, False
    problem = pattern_problem(pattern)
    if problem:
        raise BorisError(Code.INVALID_INPUT, f'{name}: {problem} in "{pattern}"')
    try:
        return compile_walk_glob(pattern)
    except ValueError as exc:
        raise BorisError(Code.INVALID_INPUT, f'{name}: {exc} in "{pattern}"') from None


def search_root(access: FileAccess, path: str | None) -> tuple[str, str | None]:
    """The resolved root of a search and, for a single file, how output shows it (the
    path as given); None for a directory. ``ACCESS_DENIED``, ``PATH_NOT_FOUND``,
    ``INVALID_INPUT`` for what is neither a file nor a directory, ``FILE_TOO_LARGE``
    for a file over the size limit."""
    # The cwd too is checked: bash may have left it outside the allowed directories.
    root = access.resolve("." if path is None else path)
    try:
        info = os.stat(root)
    except FileNotFoundError:
        raise BorisError(Code.PATH_NOT_FOUND, f"path does not exist: {root}") from None
    except OSError as exc:
        raise io_error("read", root, exc) from None
    if stat.S_ISDIR(info.st_mode):
        return root, None
    if not stat.S_ISREG(info.st_mode):
        raise BorisError(Code.INVALID_INPUT, f"{root} is neither a regular file nor a directory")
    limit = access.max_size
    if info.st_size > limit:
        raise BorisError(
            Code.FILE_TOO_LARGE,
            f"{root} is {info.st_size} bytes, over the --max-file-size limit of {limit} bytes",
        )
    return root, path


def single_file(path: str, label: str, files: FileFilter) -> Iterator[tuple[str, str]]:
    """``(label, path)`` for a single-file search, if the file passes the filters."""
    if files.wants(label.rpartition("/")[2]):
        yield printable(label), path


def tree_files(
    root: str, files: FileFilter, scope: PathScope, stop: Stop | None = None
) -> Iterator[tuple[str, str]]:
    """``(label, path)`` for the regular files of the walk that pass the include and
    type filters; the label is how output shows the file (a name that is not UTF-8
    with U+FFFD, as every output must be valid text). FIFOs, sockets and devices are
    left out by their directory entry's type, never opened."""
    for label, entry in tree_entries(root, files, scope, stop):
        yield label, entry.path


def tree_entries(
    root: str, files: FileFilter, scope: PathScope, stop: Stop | None = None
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """As :func:`tree_files`, with each file's directory entry (its ``stat()`` cached)."""
    file_type, include = files.file_type, files.include
    by_path = include is not None and files.include_has_slash
    names: Callable[[str], object] | None = None
    if file_type is not None and include is not None and not by_path:
        names = lambda name: file_type(name) and include(name)  # noqa: E731
    elif file_type is not None:
        names = file_type
    elif include is not None and not by_path:
        names = include
    # The walk filters by name where it can; a pattern with a "/" needs the path too.
    for rel, is_dir, entry in walk(root, scope, follow_symlinks=True, names=names, stop=stop):
        if is_dir or (by_path and not files.wants(rel)):
            continue
        try:
            regular = entry.is_file()  # through a symlink; the listing knows the rest
        except OSError:
            continue
        if regular:
            yield rel if rel.isascii() else printable(rel), entry
