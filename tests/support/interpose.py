"""Watching, and acting inside, another process's file operations (Linux).

A fanotify permission event holds a process inside its ``open`` (or ``read``) of a
regular file until we answer. Marking a directory for ``FAN_OPEN_PERM`` on its children
lets a test do something at the moment the server opens a file there, before the
server's ``open`` returns: deterministic, without sleeps or timing loops. fanotify needs
CAP_SYS_ADMIN; the tests that use it skip without it, and only then (see Unavailable).

inotify reports every open in a directory, FIFOs and devices included, as it happens:
what a call opened can be read once the call has returned.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_FAN_CLASS_CONTENT = 0x04
_FAN_CLOEXEC = 0x01
_FAN_MARK_ADD = 0x01
_FAN_OPEN_PERM = 0x00010000
_FAN_ACCESS_PERM = 0x00020000
_FAN_EVENT_ON_CHILD = 0x08000000
_FAN_ONDIR = 0x40000000
_FAN_ALLOW = 0x01
_AT_FDCWD = -100
# struct fanotify_event_metadata: event_len, vers, reserved, metadata_len, mask, fd, pid
_EVENT = struct.Struct("=IBBHQii")
_RESPONSE = struct.Struct("=iI")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.fanotify_mark.argtypes = [
    ctypes.c_int,
    ctypes.c_uint,
    ctypes.c_uint64,
    ctypes.c_int,
    ctypes.c_char_p,
]


class Unavailable(Exception):
    """The kernel facility cannot be used here at all (the only reason to skip a test)."""


#: Errors that mean fanotify permission events cannot work here: no CAP_SYS_ADMIN
#: (EPERM), no fanotify (ENOSYS), no permission events in this kernel (EINVAL), or a
#: filesystem that cannot be watched (EOPNOTSUPP, ENODEV, EXDEV). Anything else (a
#: missing directory, a limit reached) is a failure, not a reason to skip.
_FANOTIFY_MISSING = {
    errno.EPERM,
    errno.ENOSYS,
    errno.EINVAL,
    errno.EOPNOTSUPP,
    errno.ENODEV,
    errno.EXDEV,
}


def _failure(missing: set[int], what: str, path: Path | None = None) -> Exception:
    """The error of the libc call that just failed: Unavailable where the facility
    cannot work here, else the OSError to fail the test with."""
    error = ctypes.get_errno()
    if error in missing:
        return Unavailable(f"{what}: {os.strerror(error)}")
    return OSError(error, f"{what}: {os.strerror(error)}", None if path is None else str(path))


@contextmanager
def on_open(
    directory: Path, react: Callable[[str], None], *, itself: bool = False, reads: bool = False
) -> Iterator[list[str]]:
    """Call ``react(name)`` whenever any process opens a file directly in ``directory``
    (with ``reads``: whenever it reads one, at each read).

    With ``itself``, opens of ``directory`` itself count too (``name`` is its name).
    The opening process waits inside ``open`` (or ``read``) until ``react`` returns.
    Yields the list of names opened so far. Raises Unavailable where fanotify cannot be
    used. An error in ``react`` is raised when the block ends; the open is allowed either
    way. ``react`` must not open a file in ``directory`` itself (that open would wait for
    ``react``): write through descriptors opened before, or rename files in.
    """
    fan = _libc.fanotify_init(_FAN_CLASS_CONTENT | _FAN_CLOEXEC, os.O_RDONLY | os.O_CLOEXEC)
    if fan < 0:
        raise _failure(_FANOTIFY_MISSING, "fanotify_init")
    wake_read, wake_write = os.pipe()
    try:
        event = _FAN_ACCESS_PERM if reads else _FAN_OPEN_PERM
        mask = event | _FAN_EVENT_ON_CHILD | (_FAN_ONDIR if itself else 0)
        if _libc.fanotify_mark(fan, _FAN_MARK_ADD, mask, _AT_FDCWD, os.fsencode(directory)) != 0:
            raise _failure(_FANOTIFY_MISSING, "fanotify_mark", directory)
        opened: list[str] = []
        errors: list[BaseException] = []

        def serve() -> None:
            while True:
                ready, _, _ = select.select([fan, wake_read], [], [])
                if wake_read in ready:
                    return
                buffer = os.read(fan, 4096)
                offset = 0
                while offset < len(buffer):
                    length, _, _, _, _, fd, _ = _EVENT.unpack_from(buffer, offset)
                    offset += length
                    try:
                        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
                        opened.append(name)
                        react(name)
                    except BaseException as exc:  # raised in the test, never lost here
                        errors.append(exc)
                    finally:
                        os.write(fan, _RESPONSE.pack(fd, _FAN_ALLOW))
                        os.close(fd)

        thread = threading.Thread(target=serve, name="fanotify")
        thread.start()
        try:
            yield opened
        finally:
            os.write(wake_write, b"x")
            thread.join(timeout=30)
        assert not thread.is_alive()
        if errors:
            raise errors[0]
    finally:
        os.close(fan)  # any event still pending is allowed by the kernel
        os.close(wake_read)
        os.close(wake_write)


_IN_OPEN = 0x20
_IN_EVENT = struct.Struct("=iIII")  # wd, mask, cookie, len; then the name


@contextmanager
def watching_opens(directory: Path) -> Iterator[Callable[[], list[str]]]:
    """Yields a function giving the names opened in ``directory`` since the block began."""
    fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:
        raise _failure({errno.ENOSYS}, "inotify_init1")
    try:
        if _libc.inotify_add_watch(fd, os.fsencode(directory), _IN_OPEN) < 0:
            raise _failure(set(), "inotify_add_watch", directory)
        seen: list[str] = []

        def opened() -> list[str]:
            while True:
                try:
                    buffer = os.read(fd, 65536)
                except BlockingIOError:
                    return list(seen)
                offset = 0
                while offset < len(buffer):
                    _, mask, _, length = _IN_EVENT.unpack_from(buffer, offset)
                    start = offset + _IN_EVENT.size
                    if mask & _IN_OPEN and length:
                        seen.append(os.fsdecode(buffer[start : start + length].rstrip(b"\0")))
                    offset = start + length

        yield opened
    finally:
        os.close(fd)
