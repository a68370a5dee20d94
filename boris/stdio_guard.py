"""Answer malformed STDIO input with JSON-RPC errors instead of silence.

The MCP SDK's STDIO transport drops a line that is not a JSON-RPC message and logs it;
a client that sent it waits forever. The guard sits between the real stdin/stdout and
the SDK, on two pipes: a reader thread passes every valid message through unchanged and
answers anything else with a JSON-RPC error (``-32700`` parse error, ``-32600`` invalid
request); a writer thread copies the SDK's output to the real stdout a whole line at a
time, slotting the error replies in between lines so they never split a message.
"""

from __future__ import annotations

import json
import os
import queue
import select
import threading
from typing import Any

_CHUNK = 1 << 16


def _error_reply(line: bytes) -> bytes | None:
    """The error reply for a line that is not a JSON-RPC message, or None if it is one."""
    if not line.strip():
        return None  # blank lines are harmless
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError:
        pass
    request_id: Any = None
    try:
        data = json.loads(line)
    except ValueError:
        code, message = -32700, "Parse error"
    else:
        code, message = -32600, "Invalid Request"
        if isinstance(data, dict) and isinstance(data.get("id"), (str, int)):
            request_id = data["id"]
    reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(reply).encode() + b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class StdioGuard:
    """Installs itself on fds 0 and 1; :meth:`close` flushes everything and restores them."""

    def __init__(self) -> None:
        self._real_in = os.dup(0)
        self._real_out = os.dup(1)
        read_in, self._to_server = os.pipe()
        self._from_server, write_out = os.pipe()
        self._wake_read, self._wake_write = os.pipe()
        self._stop_read, self._stop_write = os.pipe()
        os.dup2(read_in, 0)
        os.dup2(write_out, 1)
        os.close(read_in)
        os.close(write_out)
        self._errors: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._closing = threading.Event()
        self._reader = threading.Thread(target=self._pump_input, name="stdio-in", daemon=True)
        self._writer = threading.Thread(target=self._pump_output, name="stdio-out", daemon=True)
        self._reader.start()
        self._writer.start()

    def _pump_input(self) -> None:
        pending = b""
        try:
            while True:
                ready, _, _ = select.select([self._real_in, self._stop_read], [], [])
                if self._stop_read in ready:
                    break
                chunk = os.read(self._real_in, _CHUNK)
                if not chunk:
                    if pending and _error_reply(pending) is None:
                        _write_all(self._to_server, pending)
                    break
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    reply = _error_reply(line)
                    if reply is None:
                        _write_all(self._to_server, line + b"\n")
                    else:
                        self._errors.put(reply)
                        os.write(self._wake_write, b"!")
        except OSError:
            pass  # the server is gone; nothing left to feed
        finally:
            os.close(self._to_server)  # EOF for the server

    def stop_input(self) -> None:
        """End the server's input now, as if the client had closed stdin."""
        os.write(self._stop_write, b"!")

    def _pump_output(self) -> None:
        pending = b""
        while True:
            # Once closing, the server has written everything: drain what is buffered
            # in the pipe without waiting for an EOF that a leftover descriptor could delay.
            timeout = 0 if self._closing.is_set() else None
            ready, _, _ = select.select([self._from_server, self._wake_read], [], [], timeout)
            if not ready:
                break
            if self._wake_read in ready:
                os.read(self._wake_read, _CHUNK)
            if self._from_server in ready:
                chunk = os.read(self._from_server, _CHUNK)
                if not chunk:
                    break
                pending += chunk
                cut = pending.rfind(b"\n") + 1
                if cut:
                    _write_all(self._real_out, pending[:cut])
                    pending = pending[cut:]
            if not pending:  # between messages: safe to answer malformed input
                while not self._errors.empty():
                    _write_all(self._real_out, self._errors.get())
        _write_all(self._real_out, pending)

    def close(self) -> None:
        """Deliver whatever the server wrote, then give fds 0 and 1 back."""
        self._closing.set()
        os.write(self._wake_write, b"!")
        self._writer.join(timeout=5)
        os.dup2(self._real_out, 1)
        os.dup2(self._real_in, 0)
