"""The checks the file tools share, and the read-edit-write cycle of the editing tools.

Every file tool checks in the same order: invalid input, then ``ACCESS_DENIED`` (the
session's resolve), then ``PATH_NOT_FOUND``, then ``FILE_NOT_VIEWED``, then the size limit,
then the operation itself. Only a call that passes all of them touches the disk.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from boris.errors import BorisError, Code, io_error
from boris.files.display import human_size, read_up_to
from boris.files.place import Place
from boris.files.writing import Changed, replace_existing
from boris.session import Session


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


def require_viewed(session: Session, resolved: str, action: str) -> None:
    """``FILE_NOT_VIEWED`` unless view-before-edit is off or the session has seen the file.

    ``action`` is ``editing`` or ``overwriting``; the wording is fixed by the spec.
    """
    if session.settings.require_view_before_edit and not session.has_viewed(resolved):
        raise BorisError(
            Code.FILE_NOT_VIEWED,
            f"file {resolved} must be viewed before {action}. Use the view tool first.",
        )


def check_size(size: int, limit: int, subject: str) -> None:
    """``FILE_TOO_LARGE`` when ``size`` bytes exceed ``--max-file-size``."""
    if size > limit:
        raise BorisError(
            Code.FILE_TOO_LARGE,
            f"{subject} {human_size(size)} ({size} bytes), over the {human_size(limit)} "
            "limit set by --max-file-size",
        )


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


def edit_file(session: Session, place: Place, tool: str, edit: Callable[[bytes], bytes]) -> bytes:
    """Read the file at ``place``, apply ``edit`` to its bytes, write the result back.

    After the existence, view and size checks. If another writer changed the file
    between the read and the write, the edit is redone once on the new content (so
    ``edit`` must depend on nothing but its argument). Returns the bytes written.
    """

    def attempt() -> bytes:
        data, info = _read_for_edit(session, place, tool)
        edited = edit(data)
        check_size(len(edited), session.settings.max_file_size, "the edited file would be")
        try:
            replace_existing(place, info, edited)
        except OSError as exc:
            raise write_failure(place.path, exc, existed=True) from None
        return edited

    written = redo_once_if_changed(place, attempt)
    session.mark_viewed(place.path)
    return written


_T = TypeVar("_T")


def redo_once_if_changed(place: Place, attempt: Callable[[], _T]) -> _T:
    """``attempt()``, once more if the file changed under it, then ``IO_ERROR``."""
    for _ in range(2):
        try:
            return attempt()
        except Changed:
            continue
    raise BorisError(Code.IO_ERROR, f"{place.path} changed while being edited; view it again")


def _read_for_edit(session: Session, place: Place, tool: str) -> tuple[bytes, os.stat_result]:
    fd, info = open_existing(place, tool)
    try:
        problem = not_a_file(place, info, tool)
        if problem is not None:
            raise problem
        require_viewed(session, place.path, "editing")
        limit = session.settings.max_file_size
        check_size(info.st_size, limit, f"{place.path} is")
        try:
            data = read_up_to(fd, limit + 1)
        except OSError as exc:
            raise io_error("read", place.path, exc) from None
    finally:
        os.close(fd)
    check_size(len(data), limit, f"{place.path} is")  # it may have grown since the stat
    return data, info


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


def write_failure(path: str, exc: OSError, *, existed: bool) -> BorisError:
    """``IO_ERROR`` for a failed write, saying that nothing was lost."""
    reason = exc.strerror or str(exc)
    outcome = "the file is unchanged" if existed else "no file was created"
    return BorisError(Code.IO_ERROR, f"could not write {path}: {reason}; {outcome}")
