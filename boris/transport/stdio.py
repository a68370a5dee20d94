"""The STDIO transport: one client on stdin/stdout, one JSON-RPC message per line, each
read once, all answered; signals end it cleanly.

The MCP SDK's own STDIO transport drops a line it cannot use (the client then waits
forever), takes a line of any length, and ends the session at the first reply it cannot
encode. Boris reads and writes the pipes itself and hands the SDK's low-level server
whole messages:

- input is read in chunks and a line is assembled in one buffer, the newline looked for
  only in the bytes just read: a long message costs linear time;
- a line longer than the message limit (boris.transport.jsonrpc.max_message_size) is
  refused with a JSON-RPC error carrying its request id (found in its first or last
  bytes: boris.transport.prescan), and the rest of it is skipped without being kept;
- each line is parsed once (boris.transport.jsonrpc.read_message), in the reading
  thread; what is not a message gets its JSON-RPC error instead of silence, and the
  server gets the message itself, not its text;
- one writer sends every reply as one whole line; a reply that cannot be encoded is
  replaced by an error reply to the same request, and the session goes on.

While serving, fd 0 reads /dev/null and fd 1 writes to stderr, so nothing the tools run
can read the client's input or write into the protocol stream.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR, JSONRPCError, JSONRPCMessage, JSONRPCResponse
from pydantic_core import PydanticSerializationError

from boris.seams.fastmcp import low_level_server
from boris.transport.jsonrpc import (
    Refusal,
    encode,
    error_reply,
    max_message_size,
    read_message,
    too_large,
)
from boris.transport.prescan import HEAD, TAIL, id_from_end, id_from_start, request_id

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from fastmcp import FastMCP

    from boris.settings import Settings

log = logging.getLogger("boris.stdio")

_CHUNK = 1 << 16


@dataclass(frozen=True)
class TooLong:
    """Stands for a line longer than the limit, in place of its bytes: the id of the
    request it carries, as far as its first or last bytes show it."""

    request_id: int | str | None


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
        self._limit = limit
        self._chunk = b""
        self._start = 0  # where the unread part of _chunk begins
        self._pending = bytearray()  # the start of a line whose end has not arrived
        self._skipping = False  # in a line longer than the limit
        self._reported = False  # ... which was reported already
        self._tail = b""  # ... whose last bytes so far are these
        self._ended = False

    def next(self) -> bytes | TooLong | None:
        """The next line, a :class:`TooLong`, or None at the end of input. Blocks."""
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
            if self._ended or not self._read():
                self._ended = True
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

    def _read(self) -> bool:
        """Read the next chunk; False at the end of input or when told to stop."""
        ready, _, _ = select.select([self._fd, self._stop_fd], [], [])
        if self._stop_fd in ready:
            return False
        self._chunk = os.read(self._fd, _CHUNK)
        return bool(self._chunk)

    def _take_pending(self) -> bytes:
        # bytes, not the buffer: pydantic's parser copies a bytearray before reading it.
        line = bytes(self._pending)
        self._pending = bytearray()
        return line


class StdioGuard:
    """Takes over fds 0 and 1; :meth:`serve` runs a server on them, :meth:`close` gives
    them back."""

    def __init__(self, max_message: int) -> None:
        self.max_message = max_message
        self._real_in = os.dup(0)
        self._real_out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr either
            os.dup2(devnull, 1)
        os.close(devnull)
        self._stop_read, self._stop_write = os.pipe()
        self._output_open = True
        self._lines = LineReader(self._real_in, self._stop_read, max_message)

    def stop_input(self) -> None:
        """End the server's input now, as if the client had closed stdin."""
        os.write(self._stop_write, b"!")

    def close(self) -> None:
        """Give fds 0 and 1 back."""
        os.dup2(self._real_out, 1)
        os.dup2(self._real_in, 0)

    async def serve(self, mcp: FastMCP[Any]) -> None:
        """Serve one client until its input ends (EOF or :meth:`stop_input`)."""
        from fastmcp.server.context import reset_transport, set_transport

        to_server, server_input = anyio.create_memory_object_stream[SessionMessage | Exception]()
        server_output, to_client = anyio.create_memory_object_stream[SessionMessage]()
        token = set_transport("stdio")
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._pump_input, to_server, server_output.clone())
                tasks.start_soon(self._pump_output, to_client)
                # The low-level server fastmcp wraps takes other streams than the SDK's.
                server = low_level_server(mcp)
                options = server.create_initialization_options()
                try:
                    await server.run(server_input, server_output, options)
                finally:
                    self.stop_input()  # should the server stop first, so does the reader
        finally:
            reset_transport(token)

    # --- input ----------------------------------------------------------------------

    async def _pump_input(
        self,
        to_server: MemoryObjectSendStream[SessionMessage | Exception],
        replies: MemoryObjectSendStream[SessionMessage],
    ) -> None:
        async with to_server, replies:
            while True:
                item = await anyio.to_thread.run_sync(self._next_message)
                if item is None:
                    return
                if isinstance(item, Refusal):
                    await replies.send(SessionMessage(item.reply))
                else:
                    await to_server.send(SessionMessage(item))

    def _next_message(self) -> JSONRPCMessage | Refusal | None:
        """The next message, or the error that answers the next line without the server;
        None at the end of input. Blocks: runs in a worker thread."""
        while (line := self._lines.next()) is not None:
            if isinstance(line, TooLong):
                return too_large(self.max_message, line.request_id)
            if line and not line.isspace():  # blank lines are harmless
                return read_message(line)
        return None

    # --- output ---------------------------------------------------------------------

    async def _pump_output(self, from_server: MemoryObjectReceiveStream[SessionMessage]) -> None:
        async with from_server:
            async for session_message in from_server:
                if not self._output_open:
                    continue
                data = _encode(session_message.message)
                if data is not None:
                    try:
                        await anyio.to_thread.run_sync(_write_line, self._real_out, data)
                    except OSError as exc:
                        # The client is gone: stop reading too, and keep draining the
                        # server's output so that it can finish.
                        log.info("stdout closed (%s), ending the session", exc)
                        self._output_open = False
                        self.stop_input()


def _encode(message: JSONRPCMessage) -> bytes | None:
    """A message as one JSON line; an error reply instead if it cannot be encoded."""
    try:
        return encode(message)
    except PydanticSerializationError as exc:
        log.warning("a reply could not be encoded as JSON: %s", exc)
        if not isinstance(message, JSONRPCResponse | JSONRPCError) or message.id is None:
            return None  # a notification, or an answer to nobody: dropped
        text = "Internal error: the reply could not be encoded as JSON"
        try:
            return encode(error_reply(INTERNAL_ERROR, text, message.id))
        except PydanticSerializationError:  # the id itself cannot be encoded
            return encode(error_reply(INTERNAL_ERROR, text))


def _write_line(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.write(fd, b"\n")


# --- serving ---------------------------------------------------------------------

#: Seconds a STDIO server may spend cleaning up after a signal before it exits anyway.
_SIGNAL_GRACE = 7.0


async def serve_stdio(mcp: FastMCP[Any], settings: Settings) -> None:
    """Serve one client on stdin/stdout until EOF or a signal; close its session on the way out.

    Left alone, SIGTERM would end the process without cleanup. Cancelling the server
    is not enough either: stdin is read in a worker thread that only returns with the
    next chunk, so the lifespan's cleanup would wait for it. On a signal the guard ends
    the server's input instead, the lifespan closes the session (its background tasks
    terminated, then killed if they linger), and the process exits with 128+signal.
    """
    received: list[int] = []
    guard = StdioGuard(max_message_size(settings.max_file_size))
    try:
        async with anyio.create_task_group() as group:

            async def watch_signals() -> None:
                with anyio.open_signal_receiver(
                    signal.SIGTERM, signal.SIGINT, signal.SIGHUP
                ) as signals:
                    async for signum in signals:
                        received.append(signum)
                        log.info("received %s, shutting down", signal.Signals(signum).name)
                        _exit_after(_SIGNAL_GRACE, 128 + signum)
                        # EOF lets the transport end on its own; its stdin reader sits
                        # in a thread that a cancellation alone would wait for.
                        guard.stop_input()
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch_signals)
            await guard.serve(mcp)
            group.cancel_scope.cancel()
    finally:
        guard.close()
    if received:
        sys.stderr.flush()
        os._exit(128 + received[0])


def _exit_after(seconds: float, code: int) -> None:
    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.start()
