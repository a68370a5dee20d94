"""Writing files without losing a byte, and without changing which file a name is.

- A new file is written to a temporary file beside it, fsynced and renamed into place.
- An existing file is replaced the same way only where the rename keeps its identity:
  it has a single link, and the copy could be given the file's owner and group.
  Otherwise (hard links, another user's file) it is written in place, after a backup
  copy beside it that is fsynced first and removed once the new content is synced; a
  write that fails midway is undone from the backup. Either way a crash leaves the old
  content or the new one.
- A file never gains privileges by being written: a copy that takes another file's place
  or content (a moved file's new name) gets that file's owner and group, or else loses
  its set-user-ID and set-group-ID bits.
- A file moved without a change is renamed, once: it keeps its inode, owner and all.
- Just before replacing, the file must still be as it was read (inode, size, mtime);
  if not, :class:`Changed` is raised and nothing is written.

Each write is made in two steps, so that several writes (a patch) can be made ready, all
of them, before the first one takes effect: :func:`prepare_new`, :func:`prepare_replace`
and :func:`prepare_move` do the slow part (the copy written and synced, or the backup
made) and leave the file as it is; :meth:`Pending.commit` then puts the result in place,
:meth:`Pending.discard` drops it. :func:`write_new` and :func:`replace_existing` do both.

The names that may be left beside a file if the process is killed (README "Writing
files"): ``.NAME.XXXXXXXX.tmp``, a new content not yet in place; ``.NAME.XXXXXXXX.bak``,
the old content of a file being written in place.

Everything happens relative to a :class:`~boris.files.place.Place`'s verified directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import Protocol

from boris.errors import BorisError, Code
from boris.files.place import Place, create_exclusive, fsync_directory

# Copies go through memory in pieces of this size.
_COPY_CHUNK = 1 << 20
# Errors of posix_fallocate that say there is no room; any other means "cannot tell".
_NO_ROOM = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
#: The bits a file loses when it cannot keep its owner and group.
SET_ID_BITS = stat.S_ISUID | stat.S_ISGID


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


class Pending(Protocol):
    """A write made ready: nothing at the file's name has changed yet."""

    def commit(self) -> None:
        """Put the new content in place. Raises Changed (nothing done) if the file is
        no longer as read, OSError if the write fails, with the original intact."""

    def discard(self) -> None:
        """Drop what was made ready; the file stays as it is."""


def write_new(place: Place, data: bytes, mode: int) -> None:
    """Create the file at ``place`` (and its missing parents) with ``data`` and ``mode``.

    Raises Changed if a file appeared at the name meanwhile. On any failure the
    directories made for it are removed again and no file is left behind.
    """
    _done(prepare_new(place, data, mode))


def replace_existing(place: Place, read: os.stat_result, data: bytes) -> None:
    """Give the file at ``place``, as it was when ``read``, the content ``data``.

    Keeps its permission bits, owner, group and links. Raises Changed (nothing
    written) if the file is no longer as read, OSError if the write fails, with the
    original content intact.
    """
    _done(prepare_replace(place, read, data))


def _done(pending: Pending) -> None:
    try:
        pending.commit()
    except BaseException:
        pending.discard()
        raise


def prepare_new(
    place: Place, data: bytes, mode: int, owner_of: os.stat_result | None = None
) -> Pending:
    """A new file at ``place`` (its missing parents made now) with ``data`` and ``mode``.

    With ``owner_of`` (the file whose content or place it takes) it gets that file's
    owner and group, or else ``mode`` without its set-user-ID and set-group-ID bits.
    """
    place.make_parents()
    try:
        temp = _write_temporary(place, data, mode, owner_of, required=False)
    except BaseException:
        place.remove_made()
        raise
    return _Renamed(place, temp, None)


def prepare_replace(place: Place, read: os.stat_result, data: bytes) -> Pending:
    """The new content ``data`` for the file at ``place``, as it was when ``read``:
    a copy to rename over it where that keeps its identity, else a backup to write in
    place after."""
    if not os.access(place.name, os.W_OK, dir_fd=place.directory):
        # A rename needs only the directory writable: the file's own mode decides.
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), place.path)
    if read.st_nlink == 1:
        try:
            temp = _write_temporary(place, data, stat.S_IMODE(read.st_mode), read, required=True)
        except _OwnerNotKept:
            pass
        else:
            return _Renamed(place, temp, read)
    return _InPlace.prepare(place, read, data)


def prepare_move(source: Place, read: os.stat_result, target: Place) -> Pending:
    """The file at ``source``, as it was when ``read``, renamed to ``target`` (its
    missing parents made now), once: the file itself moves, owner, mode and all."""
    target.make_parents()
    return _Moved(source, read, target)


class _OwnerNotKept(Exception):
    """The temporary copy cannot be given the original's owner and group."""


class _Renamed:
    """A synced copy beside the file, renamed over it (or into its free name) on commit."""

    def __init__(self, place: Place, temp: str, read: os.stat_result | None) -> None:
        self._place = place
        self._temp = temp
        self._read = read  # None: the name must still be free

    def commit(self) -> None:
        place = self._place
        if self._read is None:
            if place.lstat() is not None:
                raise Changed(place.path)
        else:
            _check_unchanged(place, self._read)
        os.replace(self._temp, place.name, src_dir_fd=place.directory, dst_dir_fd=place.directory)
        fsync_directory(place.directory)

    def discard(self) -> None:
        _remove(self._place, self._temp)
        if self._read is None:
            self._place.remove_made()


class _Moved:
    """A file renamed to its new name on commit."""

    def __init__(self, source: Place, read: os.stat_result, target: Place) -> None:
        self._source = source
        self._read = read
        self._target = target

    def commit(self) -> None:
        source, target = self._source, self._target
        _check_unchanged(source, self._read)
        if target.lstat() is not None:
            raise Changed(target.path)
        os.rename(
            source.name, target.name, src_dir_fd=source.directory, dst_dir_fd=target.directory
        )
        fsync_directory(target.directory)
        fsync_directory(source.directory)

    def discard(self) -> None:
        self._target.remove_made()


class _InPlace:
    """A file written in place on commit, after the backup made ready beside it."""

    def __init__(self, place: Place, read: os.stat_result, data: bytes, fd: int, backup: str):
        self._place = place
        self._read = read
        self._data = data
        self._fd: int | None = fd
        self._backup = backup

    @classmethod
    def prepare(cls, place: Place, read: os.stat_result, data: bytes) -> _InPlace:
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(place.name, flags, dir_fd=place.directory)
        try:
            if not same_state(os.fstat(fd), read):
                raise Changed(place.path)
            backup = _make_backup(place, fd, read.st_size)
        except BaseException:
            os.close(fd)
            raise
        return cls(place, read, data, fd, backup)

    def commit(self) -> None:
        place, backup, fd = self._place, self._backup, self._fd
        assert fd is not None
        _check_unchanged(place, self._read)
        try:
            _overwrite(place, fd, self._data, self._read.st_size, backup)
        except _BackupKept as kept:
            self._backup = ""  # it is the original now: it stays
            raise BorisError(
                Code.IO_ERROR,
                f"could not write {place.path}: {kept.reason}; its old content is kept in "
                f"{os.path.join(os.path.dirname(place.path), backup)}",
            ) from None
        self.discard()
        fsync_directory(place.directory)

    def discard(self) -> None:
        if self._backup:
            _remove(self._place, self._backup)
            self._backup = ""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _write_temporary(
    place: Place, data: bytes, mode: int, owner_of: os.stat_result | None, *, required: bool
) -> str:
    """A synced temporary file beside ``place`` holding ``data``; its name.

    With ``owner_of`` it gets that file's owner and group; where it cannot, it raises
    _OwnerNotKept if ``required``, else loses the set-id bits of ``mode``.
    """
    temp, fd = create_exclusive(place.directory, place.name, ".tmp")
    try:
        if owner_of is not None:
            mine = os.fstat(fd)
            wanted = (owner_of.st_uid, owner_of.st_gid)
            if (mine.st_uid, mine.st_gid) != wanted:
                try:
                    os.fchown(fd, *wanted)
                except PermissionError:
                    if required:
                        raise _OwnerNotKept from None
                    mode &= ~SET_ID_BITS  # another owner's privileges must not pass on
        _write_all(fd, data, 0)
        os.fchmod(fd, mode)  # after fchown, which may clear the set-id bits
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _remove(place, temp)
        raise
    os.close(fd)
    return temp


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
