"""Writing files without losing a byte, and without changing which file a name is.

- A new file is written to a temporary file beside it, fsynced and renamed into place.
- An existing file is replaced the same way only where the rename keeps its identity:
  it has a single link, and the copy could be given the file's owner and group.
  Otherwise (hard links, another user's file) it is written in place, after a backup
  copy beside it that is fsynced first and removed once the new content is synced; a
  write that fails midway is undone from the backup. Either way a crash leaves the old
  content or the new one.
- Just before replacing, the file must still be as it was read (inode, size, mtime);
  if not, :class:`Changed` is raised and nothing is written.

Everything happens relative to a :class:`~boris.files.place.Place`'s verified directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from boris.errors import BorisError, Code
from boris.files.place import Place, create_exclusive, fsync_directory

# Copies go through memory in pieces of this size.
_COPY_CHUNK = 1 << 20
# Errors of posix_fallocate that say there is no room; any other means "cannot tell".
_NO_ROOM = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})


class Changed(Exception):
    """The file is no longer as it was when read: another writer got there first."""


def same_state(first: os.stat_result, second: os.stat_result) -> bool:
    """Whether two stats show the same file with the same size and modification time."""
    return (
        first.st_dev == second.st_dev
        and first.st_ino == second.st_ino
        and first.st_size == second.st_size
        and first.st_mtime_ns == second.st_mtime_ns
    )


def write_new(place: Place, data: bytes, mode: int) -> None:
    """Create the file at ``place`` (and its missing parents) with ``data`` and ``mode``.

    Raises Changed if a file appeared at the name meanwhile. On any failure the
    directories made for it are removed again and no file is left behind.
    """
    try:
        place.make_parents()
        temp = _write_temporary(place, data, mode, None)
        try:
            if place.lstat() is not None:
                raise Changed(place.path)
            os.replace(temp, place.name, src_dir_fd=place.directory, dst_dir_fd=place.directory)
        except BaseException:
            _remove(place, temp)
            raise
    except BaseException:
        place.remove_made()
        raise
    fsync_directory(place.directory)


def replace_existing(place: Place, read: os.stat_result, data: bytes) -> None:
    """Give the file at ``place``, as it was when ``read``, the content ``data``.

    Keeps its permission bits, owner, group and links. Raises Changed (nothing
    written) if the file is no longer as read, OSError if the write fails, with the
    original content intact.
    """
    if not os.access(place.name, os.W_OK, dir_fd=place.directory):
        # A rename needs only the directory writable: the file's own mode decides.
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), place.path)
    if read.st_nlink == 1 and _replace_by_rename(place, read, data):
        return
    _write_in_place(place, read, data)


def _replace_by_rename(place: Place, read: os.stat_result, data: bytes) -> bool:
    """Rename a new copy over the file; False (nothing done) if it cannot get the owner."""
    try:
        temp = _write_temporary(place, data, stat.S_IMODE(read.st_mode), read)
    except _OwnerNotKept:
        return False
    try:
        _check_unchanged(place, read)
        os.replace(temp, place.name, src_dir_fd=place.directory, dst_dir_fd=place.directory)
    except BaseException:
        _remove(place, temp)
        raise
    fsync_directory(place.directory)
    return True


class _OwnerNotKept(Exception):
    """The temporary copy cannot be given the original's owner and group."""


def _write_temporary(place: Place, data: bytes, mode: int, owner_of: os.stat_result | None) -> str:
    """A synced temporary file beside ``place`` holding ``data``; its name."""
    temp, fd = create_exclusive(place.directory, place.name, ".tmp")
    try:
        if owner_of is not None:
            mine = os.fstat(fd)
            wanted = (owner_of.st_uid, owner_of.st_gid)
            if (mine.st_uid, mine.st_gid) != wanted:
                try:
                    os.fchown(fd, *wanted)
                except PermissionError:
                    raise _OwnerNotKept from None
        _write_all(fd, data, 0)
        os.fchmod(fd, mode)  # after fchown, which may clear the set-id bits
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _remove(place, temp)
        raise
    os.close(fd)
    return temp


def _write_in_place(place: Place, read: os.stat_result, data: bytes) -> None:
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(place.name, flags, dir_fd=place.directory)
    try:
        if not same_state(os.fstat(fd), read):
            raise Changed(place.path)
        backup = _make_backup(place, fd, read.st_size)
        try:
            _check_unchanged(place, read)
            _overwrite(place, fd, data, read.st_size, backup)
        except _BackupKept as kept:
            raise BorisError(
                Code.IO_ERROR,
                f"could not write {place.path}: {kept.reason}; its old content is kept in "
                f"{os.path.join(os.path.dirname(place.path), backup)}",
            ) from None
        except BaseException:
            _remove(place, backup)
            raise
    finally:
        os.close(fd)
    _remove(place, backup)
    fsync_directory(place.directory)


def _make_backup(place: Place, fd: int, size: int) -> str:
    """A synced copy of the file's ``size`` bytes beside it, durable before it is needed."""
    backup, backup_fd = create_exclusive(place.directory, place.name, ".bak")
    try:
        try:
            _copy(fd, backup_fd, size)
            os.fsync(backup_fd)
        finally:
            os.close(backup_fd)
        fsync_directory(place.directory)
    except BaseException:
        _remove(place, backup)
        raise
    return backup


class _BackupKept(Exception):
    """An in-place write failed midway and could not be undone: the backup is the original."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _overwrite(place: Place, fd: int, data: bytes, old_size: int, backup: str) -> None:
    """Write ``data`` over the file's content; undo from ``backup`` if that fails midway."""
    if len(data) > old_size:
        _claim_room(fd, len(data), old_size)
    try:
        _write_all(fd, data, 0)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    except OSError as exc:
        try:
            source = os.open(
                backup, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.directory
            )
            try:
                _copy(source, fd, old_size)
            finally:
                os.close(source)
            os.ftruncate(fd, old_size)
            os.fsync(fd)
        except OSError:
            raise _BackupKept(exc.strerror or str(exc)) from exc
        raise


def _claim_room(fd: int, size: int, old_size: int) -> None:
    """Allocate the room the new content needs before the first byte is overwritten.

    A full disk or the file size limit then fails the write while the original is
    whole. Where the file system cannot allocate ahead, the write goes on without.
    """
    if not hasattr(os, "posix_fallocate"):
        return
    try:
        os.posix_fallocate(fd, 0, size)
    except OSError as exc:
        if exc.errno in _NO_ROOM:
            with contextlib.suppress(OSError):
                if os.fstat(fd).st_size != old_size:
                    os.ftruncate(fd, old_size)
            raise


def _check_unchanged(place: Place, read: os.stat_result) -> None:
    try:
        now = os.stat(place.name, dir_fd=place.directory, follow_symlinks=False)
    except FileNotFoundError:
        raise Changed(place.path) from None
    if not same_state(now, read):
        raise Changed(place.path)


def _write_all(fd: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view = view[written:]
        offset += written


def _copy(source: int, target: int, size: int) -> None:
    """Copy the first ``size`` bytes of ``source`` to the start of ``target``."""
    offset = 0
    while offset < size:
        chunk = os.pread(source, min(_COPY_CHUNK, size - offset), offset)
        if not chunk:
            break
        _write_all(target, chunk, offset)
        offset += len(chunk)


def _remove(place: Place, name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=place.directory)
