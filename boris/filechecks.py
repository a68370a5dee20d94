"""The checks the file tools share, and the read-edit-write cycle of str_replace and insert.

Every file tool checks in the same order: invalid input, then ``ACCESS_DENIED`` (the
session's resolve), then ``PATH_NOT_FOUND``, then ``FILE_NOT_VIEWED``, then the size limit,
then the operation itself. Only a call that passes all of them touches the disk.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from boris.errors import Code, ToolFailure, io_error
from boris.fileio import human_size, open_regular, write_atomic
from boris.session import Session


def stat_existing(resolved: str) -> os.stat_result:
    """The stat of an existing path; ``PATH_NOT_FOUND`` when there is nothing there."""
    try:
        return os.stat(resolved)
    except (FileNotFoundError, NotADirectoryError):
        raise ToolFailure(Code.PATH_NOT_FOUND, f"{resolved} does not exist") from None
    except OSError as exc:
        raise io_error("stat", resolved, exc) from None


def require_viewed(session: Session, resolved: str, action: str) -> None:
    """``FILE_NOT_VIEWED`` unless view-before-edit is off or the session has seen the file.

    ``action`` is ``editing`` or ``overwriting``; the wording is fixed by the spec.
    """
    if session.settings.require_view_before_edit and not session.has_viewed(resolved):
        raise ToolFailure(
            Code.FILE_NOT_VIEWED,
            f"file {resolved} must be viewed before {action}. Use the view tool first.",
        )


def check_size(size: int, limit: int, subject: str) -> None:
    """``FILE_TOO_LARGE`` when ``size`` bytes exceed ``--max-file-size``."""
    if size > limit:
        raise ToolFailure(
            Code.FILE_TOO_LARGE,
            f"{subject} {human_size(size)} ({size} bytes), over the {human_size(limit)} "
            "limit set by --max-file-size",
        )


def not_a_file(resolved: str, info: os.stat_result, tool: str) -> ToolFailure | None:
    """The error for a path that exists but is not a regular file, if it is not one."""
    if stat.S_ISDIR(info.st_mode):
        return ToolFailure(
            Code.INVALID_INPUT, f"{resolved} is a directory; {tool} works on files only"
        )
    if not stat.S_ISREG(info.st_mode):
        return ToolFailure(Code.INVALID_INPUT, f"{resolved} is not a regular file")
    return None


@dataclass(frozen=True)
class EditTarget:
    """An existing file read for editing, with what its replacement must keep."""

    path: str
    data: bytes
    mode: int
    owner: tuple[int, int]


def load_for_edit(session: Session, resolved: str, tool: str) -> EditTarget:
    """Read an in-scope file to edit, after the existence, view and size checks."""
    info = stat_existing(resolved)
    problem = not_a_file(resolved, info, tool)
    if problem is not None:
        raise problem
    require_viewed(session, resolved, "editing")
    limit = session.settings.max_file_size
    check_size(info.st_size, limit, f"{resolved} is")
    try:
        stream, info = open_regular(resolved)
        with stream:
            data = stream.read(limit + 1)
    except OSError as exc:
        raise io_error("read", resolved, exc) from None
    check_size(len(data), limit, f"{resolved} is")  # it may have grown since the stat
    return EditTarget(
        path=resolved,
        data=data,
        mode=stat.S_IMODE(info.st_mode),
        owner=(info.st_uid, info.st_gid),
    )


def save_edit(session: Session, target: EditTarget, data: bytes) -> None:
    """Write an edited file atomically, keeping its mode and owner; mark it viewed."""
    check_size(len(data), session.settings.max_file_size, "the edited file would be")
    try:
        require_writable(target.path)
        write_atomic(target.path, data, target.mode, target.owner)
    except OSError as exc:
        raise write_failure(target.path, exc, existed=True) from None
    session.mark_viewed(target.path)


def require_writable(path: str) -> None:
    """Refuse to replace a file its permissions say we may not write.

    The rename of an atomic write needs only the directory to be writable; without
    this check a read-only file would be replaced where an in-place write would fail.
    """
    if not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


class _PathLocks:
    """One lock per path being edited, so concurrent edits of a file cannot lose one.

    Entries live only while someone holds or waits for them.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, path: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(path, (threading.Lock(), 0))
            self._locks[path] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[path]
                if users == 1:
                    del self._locks[path]
                else:
                    self._locks[path] = (lock, users - 1)


#: Serialises the read-modify-write of str_replace, insert and create_file per file.
editing = _PathLocks().hold


def write_failure(path: str, exc: OSError, *, existed: bool) -> ToolFailure:
    """``IO_ERROR`` for a failed write, saying that nothing was lost."""
    reason = exc.strerror or str(exc)
    outcome = "the file is unchanged" if existed else "no file was created"
    return ToolFailure(Code.IO_ERROR, f"could not write {path}: {reason}; {outcome}")
