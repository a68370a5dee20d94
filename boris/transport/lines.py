"""STDIO's pipes without the server: fds 0 and 1 taken over (:class:`Pipes`) and the
client's input cut into lines (:class:`LineReader`).

Standard library only: the answers given while the app is still loading (boris.early)
read and write through the very pipes and reader the server then goes on with
(boris.transport.stdio), so that no byte of input is read twice or lost between the two.
"""

from __future__ import annotations

import os
import select

from boris.transport.prescan import HEAD, TAIL, id_from_end, id_from_start, request_id

_CHUNK = 1 << 16


class TooLong:
    """Stands for a line longer than the limit, in place of its bytes: the id of the
    request it carries, as far as its first or last bytes show it."""

    __slots__ = ("request_id",)

    def __init__(self, request_id: int | str | None) -> None:
        self.request_id = request_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TooLong) and other.request_id == self.request_id

    def __hash__(self) -> int:
        return hash((TooLong, self.request_id))

    def __repr__(self) -> str:
        return f"TooLong({self.request_id!r})"


class Woken:
    """What :meth:`LineReader.next` returns when its wake descriptor became readable
    while it waited for input; the line it was reading, if any, goes on at the next call."""


WOKEN = Woken()


class LineReader:
    """The lines of a file descriptor (without their newline), each bytes, as they come.

    Input is read in chunks; only the bytes just read are searched for a newline. A
    line within one chunk is sliced out of it; a longer one grows one buffer, turned
    into bytes once it is complete. A line longer than ``limit`` is reported as
    :class:`TooLong` and the rest of it is skipped without being kept: at once if its
    first bytes show its request id, else when it ends (only its last bytes are kept,
    to look for the id there). Nothing here holds on to a line it has returned: the
    caller's copy is the only one.
    """

    def __init__(self, fd: int, stop_fd: int, limit: int) -> None:
        self._fd = fd
        self._stop_fd = stop_fd
        #: A descriptor that, once readable, makes a wait for input return WOKEN.
        self.wake_fd: int | None = None
        self._limit = limit
        self._chunk = b""
        self._start = 0  # where the unread part of _chunk begins
        self._pending = bytearray()  # the start of a line whose end has not arrived
        self._skipping = False  # in a line longer than the limit
        self._reported = False  # ... which was reported already
        self._tail = b""  # ... whose last bytes so far are these
        self._ended = False

    def waiting(self) -> bool:
        """Whether input waits to be read: a whole line already read, or bytes in the pipe."""
        if self._chunk.find(b"\n", self._start) >= 0:
            return True
        return bool(select.select([self._fd], [], [], 0)[0])

    def next(self) -> bytes | TooLong | Woken | None:
        """The next line, a :class:`TooLong`, or None at the end of input; WOKEN if
        :attr:`wake_fd` became readable first. Blocks."""
        while True:
            end = self._chunk.find(b"\n", self._start)
            if end >= 0:
                piece = memoryview(self._chunk)[self._start : end]
                self._start = end + 1
                if self._skipping:
                    self._skipping = False
                    if self._reported:
                        continue
                    self._keep_tail(piece)
                    return TooLong(id_from_end(self._tail))
                if len(self._pending) + len(piece) > self._limit:
                    head, self._tail = self._ends(piece)
                    self._pending = bytearray()
                    return TooLong(request_id(head, self._tail))
                if not self._pending:
                    return bytes(piece)
                self._pending += piece
                return self._take_pending()
            # No newline in what is left of the chunk: keep it (or skip it), read more.
            piece = memoryview(self._chunk)[self._start :]
            if piece and self._skipping:
                self._keep_tail(piece)
            elif piece and len(self._pending) + len(piece) > self._limit:
                head, self._tail = self._ends(piece)
                self._pending = bytearray()
                self._skipping = True
                found = id_from_start(head)
                self._reported = found is not None
                if self._reported:
                    self._chunk, self._start = b"", 0
                    return TooLong(found)
            elif piece:
                self._pending += piece
            self._chunk, self._start = b"", 0
            if not self._ended:
                outcome = self._read()
                if outcome is WOKEN:
                    return WOKEN
                self._ended = not outcome
            if self._ended:
                if self._skipping and not self._reported:  # its end never came
                    self._reported = True
                    return TooLong(id_from_end(self._tail))
                if self._pending and not self._skipping:
                    return self._take_pending()  # a last line without a newline
                return None

    def _ends(self, piece: memoryview) -> tuple[bytes, bytes]:
        """The first and last bytes (see boris.transport.prescan) of the line made of
        what is pending and ``piece``."""
        pending = self._pending
        head = bytes(pending[:HEAD]) + bytes(piece[: max(0, HEAD - len(pending))])
        if len(piece) >= TAIL:
            return head, bytes(piece[-TAIL:])
        return head, bytes(pending[len(pending) - (TAIL - len(piece)) :]) + bytes(piece)

    def _keep_tail(self, piece: memoryview) -> None:
        self._tail = (self._tail + bytes(piece[-TAIL:]))[-TAIL:]

    def _read(self) -> bool | Woken:
        """Read the next chunk; False at the end of input or when told to stop, WOKEN
        when woken first."""
        watched = [self._fd, self._stop_fd]
        if self.wake_fd is not None:
            watched.append(self.wake_fd)
        ready, _, _ = select.select(watched, [], [])
        if self._stop_fd in ready:
            return False
        if self.wake_fd is not None and self.wake_fd in ready:
            return WOKEN
        self._chunk = os.read(self._fd, _CHUNK)
        return bool(self._chunk)

    def _take_pending(self) -> bytes:
        # bytes, not the buffer: pydantic's parser copies a bytearray before reading it.
        line = bytes(self._pending)
        self._pending = bytearray()
        return line


class Pipes:
    """Takes over fds 0 and 1: while Boris serves, fd 0 reads /dev/null and fd 1 writes
    to stderr, so that nothing the tools run can read the client's input or write into
    the protocol stream; the client's pipes are :attr:`real_in` and :attr:`real_out`.
    :meth:`close` gives them back."""

    def __init__(self, max_message: int) -> None:
        self.max_message = max_message
        self.real_in = os.dup(0)
        self.real_out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr either
            os.dup2(devnull, 1)
        os.close(devnull)
        self._stop_read, self._stop_write = os.pipe()
        self.lines = LineReader(self.real_in, self._stop_read, max_message)

    def stop_input(self) -> None:
        """End the input now, as if the client had closed stdin."""
        os.write(self._stop_write, b"!")

    def close(self) -> None:
        """Give fds 0 and 1 back."""
        os.dup2(self.real_out, 1)
        os.dup2(self.real_in, 0)

    def write_line(self, data: bytes) -> None:
        """``data`` and a newline to the client, whole."""
        view = memoryview(data)
        while view:
            view = view[os.write(self.real_out, view) :]
        os.write(self.real_out, b"\n")
