"""Where a file tool's path leads, held by a descriptor of its directory that was verified.

The scope check approves a resolved path string. Were the tool then to open that string,
a process replacing a directory on it with a symlink in between would lead the tool out
of the allowed directories. So the file tools open nothing by name: they open the
resolved parent directory, verify that the descriptor is that very directory (the path
the kernel reports for it, or else a walk from ``/`` that refuses every symlink), and
open, create, rename and remove the last component relative to that descriptor, never
following a symlink there. When a directory on the path turns out to have been swapped,
the path is resolved and checked again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from boris.errors import BorisError, Code, io_error

# O_PATH (Linux) opens a directory without needing read permission on it and without
# any effect of opening; a descriptor made so serves every *at call used here.
_DIRECTORY = os.O_DIRECTORY | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
# A directory that is read (listed, fsynced, made) needs a real read descriptor.
_READ_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
#: Opening a path's last component: never through a symlink, never blocking on a FIFO.
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
#: How often a path is resolved again when a directory on it was swapped meanwhile.
_ATTEMPTS = 3
#: Mode of a directory made for a new file, whatever the umask.
NEW_DIRECTORY_MODE = 0o755


class Swapped(Exception):
    """A symlink now stands where the resolved path had a directory."""


if sys.platform == "linux":

    def descriptor_path(fd: int) -> str | None:
        """The path the kernel reports for an open descriptor, where it can tell."""
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None

elif sys.platform == "darwin":
    import fcntl

    def descriptor_path(fd: int) -> str | None:
        """The path the kernel reports for an open descriptor, where it can tell."""
        try:
            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
        except OSError:
            return None
        return os.fsdecode(raw.partition(b"\0")[0])

else:

    def descriptor_path(fd: int) -> str | None:
        """No portable way to ask: the callers walk the path instead."""
        return None


def open_directory(path: str) -> int:
    """A descriptor of the directory ``path`` (absolute, symlink-free), verified to be it.

    Raises Swapped when a symlink stands on the path now, OSError when the directory
    cannot be opened (FileNotFoundError, NotADirectoryError for a file on the way).
    """
    try:
        fd = os.open(path, _DIRECTORY)
    except OSError:
        return walk_directory(path)  # it tells a swap from a real absence
    if descriptor_path(fd) == path:
        return fd
    os.close(fd)
    # The kernel named another path (a swap, or a spelling it normalises differently,
    # like a case-insensitive file system), or cannot name one: settle it by walking.
    return walk_directory(path)


def walk_directory(path: str) -> int:
    """Open ``path`` one component at a time from ``/``, refusing to follow any symlink."""
    fd = os.open("/", _DIRECTORY)
    try:
        for name in path.split("/"):
            if not name:
                continue
            try:
                child = os.open(name, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _changing(fd, name):
                    raise Swapped(path) from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _changing(directory: int, name: str) -> bool:
    """Whether ``name``, just refused as no directory, is a symlink or a directory now."""
    try:
        mode = os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode
    except OSError:
        return False
    return stat.S_ISLNK(mode) or stat.S_ISDIR(mode)


@dataclass
class Place:
    """A resolved path and a verified descriptor of the directory nearest to it.

    ``directory`` is the path's parent, or, when the parent does not exist (yet), the
    deepest existing ancestor, with ``missing`` the components between the two.
    """

    path: str
    name: str
    directory: int
    missing: tuple[str, ...]
    #: The path was given ending in "/": it can only name a directory.
    as_directory: bool = False
    _made: list[tuple[int, str]] = field(default_factory=list)
    _held: list[int] = field(default_factory=list)

    def lstat(self) -> os.stat_result | None:
        """The last component's own stat; None when it (or its parent) does not exist."""
        if self.missing:
            return None
        try:
            return os.stat(self.name, dir_fd=self.directory, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open(self) -> tuple[int, os.stat_result]:
        """Open the last component for reading; FileNotFoundError when there is none."""
        if self.missing:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.path)
        fd = os.open(self.name, READ_FLAGS, dir_fd=self.directory)
        try:
            return fd, os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise

    def make_parents(self) -> None:
        """Create the missing directories (mode 0755) and hold the parent's descriptor.

        Each one is made and then opened relative to the one before without following
        a symlink, so nothing that appears meanwhile can lead elsewhere. On failure the
        directories made are removed again and the Place is as it was.
        """
        location = os.path.dirname(self.path)
        directory = self.directory
        made_before = len(self._made)
        try:
            for depth, name in enumerate(self.missing):
                try:
                    os.mkdir(name, NEW_DIRECTORY_MODE, dir_fd=directory)
                    made = True
                except FileExistsError:
                    made = False
                try:
                    child = os.open(name, _READ_DIRECTORY, dir_fd=directory)
                except OSError as exc:
                    if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                        here = _prefix(location, len(self.missing) - depth - 1)
                        raise NotADirectoryError(
                            errno.ENOTDIR, f"{here} exists and is not a directory", here
                        ) from None
                    raise
                self._held.append(child)
                if made:
                    self._made.append((directory, name))
                    os.fchmod(child, NEW_DIRECTORY_MODE)
                directory = child
        except BaseException:
            self._remove_made(made_before)
            raise
        if directory != self.directory:
            # The ancestor's descriptor stays open (removing what was made needs it) and
            # is closed with the others.
            self._held.append(self.directory)
        self.directory = directory
        self.missing = ()

    def remove_made(self) -> None:
        """Remove the directories :meth:`make_parents` made, if they are still empty."""
        self._remove_made(0)

    def _remove_made(self, keep: int) -> None:
        while len(self._made) > keep:
            parent, name = self._made.pop()
            with contextlib.suppress(OSError):
                os.rmdir(name, dir_fd=parent)

    def close(self) -> None:
        # Each descriptor once: closing a number twice could close another thread's file.
        for fd in dict.fromkeys((*self._held, self.directory)):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._held.clear()


def _prefix(path: str, strip: int) -> str:
    for _ in range(strip):
        path = os.path.dirname(path)
    return path


@contextlib.contextmanager
def locate(resolve: Callable[[str], str], path: str) -> Iterator[Place]:
    """The Place of ``path``, which ``resolve`` resolves and checks against the scope.

    A path whose directory was swapped for a symlink meanwhile is resolved and checked
    again, a few times; a path that keeps changing is an ``IO_ERROR``.
    """
    resolved = ""
    for _ in range(_ATTEMPTS):
        resolved = resolve(path)
        try:
            place = _place(resolved, names_directory(path))
        except Swapped:
            continue
        except OSError as exc:
            raise io_error("open", resolved, exc) from None
        try:
            yield place
        finally:
            place.close()
        return
    raise BorisError(Code.IO_ERROR, f"{resolved} kept changing while being opened; try again")


def names_directory(path: str) -> bool:
    """Whether ``path`` as given can only name a directory: it ends in ``/`` or ``/.``."""
    return path.endswith(("/", "/."))


def _place(resolved: str, as_directory: bool) -> Place:
    parent, name = os.path.split(resolved)
    if not name:  # "/" itself
        parent, name = "/", "."
    missing: list[str] = []
    while True:
        try:
            fd = open_directory(parent)
            break
        except (FileNotFoundError, NotADirectoryError):
            if parent == "/":
                raise
            parent, last = os.path.split(parent)
            missing.append(last)
    return Place(resolved, name, fd, tuple(reversed(missing)), as_directory)


def temporary_name(name: str, suffix: str) -> str:
    """A hidden name beside ``name`` for a temporary copy, within the 255-byte name limit."""
    short = name
    while len(os.fsencode(short)) > 64:
        short = short[:-1]
    return f".{short}.{secrets.token_hex(4)}{suffix}"


def create_exclusive(directory: int, name: str, suffix: str) -> tuple[str, int]:
    """Create a new empty file (mode 0600) beside ``name``; its name and a write descriptor."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        candidate = temporary_name(name, suffix)
        try:
            return candidate, os.open(candidate, flags, 0o600, dir_fd=directory)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", name)


def fsync_directory(directory: int) -> None:
    """Make renames and removals in ``directory`` durable, where the file system can."""
    # Some file systems refuse to fsync a directory; the data is safe then anyway.
    with contextlib.suppress(OSError):
        fd = os.open(".", _READ_DIRECTORY, dir_fd=directory)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def entry_stat(place: Place) -> os.stat_result | None:
    """What is at ``place`` (not following a symlink), None if nothing; a symlink left
    there after resolving is a loop (ELOOP); any error is IO_ERROR."""
    try:
        info = place.lstat()
        if info is not None and stat.S_ISLNK(info.st_mode):  # resolve leaves only a loop
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), place.path)
    except OSError as exc:
        raise io_error("stat", place.path, exc) from None
    return info


def open_existing(place: Place, tool: str) -> tuple[int, os.stat_result]:
    """A read descriptor of the regular file or directory at ``place``, and its stat.

    Anything else there (a FIFO, socket or device) is refused without being opened:
    opening a device can have effects of its own.
    """
    try:
        info = place.lstat()
        if info is None:
            raise FileNotFoundError(place.path)
        if stat.S_ISLNK(info.st_mode):  # resolve leaves only a loop
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), place.path)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            problem = not_a_file(place, info, tool)
            assert problem is not None
            raise problem
        return place.open()
    except (FileNotFoundError, NotADirectoryError):
        raise BorisError(Code.PATH_NOT_FOUND, f"{place.path} does not exist") from None
    except OSError as exc:
        raise io_error("read", place.path, exc) from None


def not_a_file(place: Place, info: os.stat_result, tool: str) -> BorisError | None:
    """The error for a path that exists but is not a regular file, if it is not one."""
    if stat.S_ISDIR(info.st_mode):
        return BorisError(
            Code.INVALID_INPUT, f"{place.path} is a directory; {tool} works on files only"
        )
    if place.as_directory:  # "a.txt/": the system's "Not a directory"
        return BorisError(Code.INVALID_INPUT, f"{place.path}/ is not a directory")
    if not stat.S_ISREG(info.st_mode):
        return BorisError(Code.INVALID_INPUT, f"{place.path} is not a regular file")
    return None
