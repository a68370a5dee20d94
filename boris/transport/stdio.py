"""The STDIO transport: one client on stdin/stdout, one JSON-RPC message per line, each
read once, all answered; signals end it cleanly.

The MCP SDK's own STDIO transport drops a line it cannot use (the client then waits
forever), takes a line of any length, and ends the session at the first reply it cannot
encode. Boris reads and writes the pipes itself and hands the SDK's low-level server
whole messages:

- input is read in chunks and a line is assembled in one buffer, the newline looked for
  only in the bytes just read: a long message costs linear time (boris.transport.lines);
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

The server may take over from the answers given while the app was loading
(boris.early.stdio): the same pipes and line reader, and what was read but not answered
yet, in order.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

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
from boris.transport.lines import Pipes, TooLong, Woken

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from fastmcp import FastMCP

    from boris.settings import Settings

log = logging.getLogger("boris.stdio")


class HandedOver(Protocol):
    """What the answers given while the app was loading (boris.early) hand the server."""

    #: What the server reads before the pipe: the messages answered early that changed
    #: the connection's state (under ids of their own), then those left unanswered.
    items: Sequence[bytes | TooLong]

    def answered(self, message: JSONRPCMessage) -> bool:
        """Whether ``message``, from the server, answers one of those already answered
        (it is not sent)."""
        ...


class StdioGuard:
    """Serves on the client's pipes (:class:`~boris.transport.lines.Pipes`): :meth:`serve`
    runs a server on them, after the messages handed over from the answers given while
    the app was loading (boris.early), if any."""

    def __init__(self, pipes: Pipes, handed_over: HandedOver | None = None) -> None:
        self.pipes = pipes
        self.max_message = pipes.max_message
        self._output_open = True
        self._handed_over = handed_over
        self._pending = list(handed_over.items) if handed_over is not None else []

    def stop_input(self) -> None:
        """End the server's input now, as if the client had closed stdin."""
        self.pipes.stop_input()

    async def serve(self, mcp: FastMCP[Any]) -> None:
        """Serve one client until its input ends (EOF or :meth:`stop_input`)."""
        from fastmcp.server.context import reset_transport, set_transport

        to_server, server_input = anyio.create_memory_object_stream[SessionMessage | Exception]()
        server_output, to_client = anyio.create_memory_object_stream[SessionMessage]()
        # Before the reader starts: the SDK runs a request's handler in the context of
        # the task that sent the request in.
        token = set_transport("stdio")
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._pump_input, to_server, server_output.clone())
                tasks.start_soon(self._pump_output, to_client)
                try:
                    await run_server(mcp, server_input, server_output)
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
        while (line := self._next_line()) is not None:
            assert not isinstance(line, Woken)  # only the early answers are woken
            if isinstance(line, TooLong):
                return too_large(self.max_message, line.request_id)
            if line and not line.isspace():  # blank lines are harmless
                return read_message(line)
        return None

    def _next_line(self) -> bytes | TooLong | Woken | None:
        """What was handed over first, then the lines of the pipe."""
        if self._pending:
            return self._pending.pop(0)
        return self.pipes.lines.next()

    # --- output ---------------------------------------------------------------------

    async def _pump_output(self, from_server: MemoryObjectReceiveStream[SessionMessage]) -> None:
        async with from_server:
            async for session_message in from_server:
                if not self._output_open:
                    continue
                handed_over = self._handed_over
                if handed_over is not None and handed_over.answered(session_message.message):
                    continue
                data = _encode(session_message.message)
                if data is not None:
                    try:
                        await anyio.to_thread.run_sync(self.pipes.write_line, data)
                    except OSError as exc:
                        # The client is gone: stop reading too, and keep draining the
                        # server's output so that it can finish.
                        log.info("stdout closed (%s), ending the session", exc)
                        self._output_open = False
                        self.stop_input()


async def run_server(
    mcp: FastMCP[Any],
    server_input: MemoryObjectReceiveStream[SessionMessage | Exception],
    server_output: MemoryObjectSendStream[SessionMessage],
) -> None:
    """The app's server on STDIO's streams until ``server_input`` ends, within fastmcp's
    ``set_transport("stdio")``: the one way it runs over STDIO (the answers given while
    the app loads are built from it too, boris.early.generate)."""
    # The low-level server fastmcp wraps takes other streams than the SDK's.
    server = low_level_server(mcp)
    options = server.create_initialization_options()
    await server.run(server_input, server_output, options)


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


# --- serving ---------------------------------------------------------------------

#: Seconds a STDIO server may spend cleaning up after a signal before it exits anyway.
_SIGNAL_GRACE = 7.0


async def serve_stdio(
    mcp: FastMCP[Any],
    settings: Settings,
    pipes: Pipes | None = None,
    handed_over: HandedOver | None = None,
) -> None:
    """Serve one client on stdin/stdout until EOF or a signal; close its session on the way out.

    Left alone, SIGTERM would end the process without cleanup. Cancelling the server
    is not enough either: stdin is read in a worker thread that only returns with the
    next chunk, so the lifespan's cleanup would wait for it. On a signal the guard ends
    the server's input instead, the lifespan closes the session (its background tasks
    terminated, then killed if they linger), and the process exits with 128+signal.
    """
    received: list[int] = []
    pipes = pipes or Pipes(max_message_size(settings.max_file_size))
    guard = StdioGuard(pipes, handed_over)
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
        pipes.close()
    if received:
        sys.stderr.flush()
        os._exit(128 + received[0])


def _exit_after(seconds: float, code: int) -> None:
    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.start()
