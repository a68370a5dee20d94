"""A small MCP client on raw HTTP/1.1 over asyncio streams, for load figures that measure
the server rather than a client library.

One keep-alive connection per MCP session. A POST's answer is read as
``application/json`` or as an SSE stream (``text/event-stream``): ``data:`` lines are
gathered into events until the JSON-RPC response carrying the request's id arrives; the
rest of the stream is then drained so the connection can carry the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = "2025-11-25"

#: Longest wait for any one answer before it counts as a failure.
REPLY_TIMEOUT = 120.0


class ProtocolError(Exception):
    """An answer that is not what the protocol says (status, headers, framing)."""


@dataclass
class Head:
    status: int
    headers: dict[str, str]  # names in lower case


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    message: dict[str, Any] | None  # the JSON-RPC response; None for a 202 or a body-less answer
    arrived: float  # perf_counter() when the response was complete


class Connection:
    """One HTTP/1.1 keep-alive connection to ``host:port``."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _streams(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    async def send(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Head:
        reader, writer = await self._streams()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        raw = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = raw.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise ProtocolError(f"bad status line {status_line!r}")
        found: dict[str, str] = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                found[name.strip().lower()] = value.strip()
        return Head(int(parts[1]), found)

    async def body(self, head: Head) -> AsyncIterator[bytes]:
        """The body of the answer whose head was just read, in pieces as they come."""
        reader, _ = await self._streams()
        if head.headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # no trailers are sent: the final CRLF
                    break
                chunk = await reader.readexactly(size + 2)
                yield chunk[:-2]
        elif "content-length" in head.headers:
            remaining = int(head.headers["content-length"])
            while remaining:
                piece = await reader.read(min(remaining, 65536))
                if not piece:
                    raise ProtocolError("connection closed inside a body")
                remaining -= len(piece)
                yield piece
        elif head.status not in (204, 304) and head.status >= 200:
            while piece := await reader.read(65536):  # delimited by the end of the connection
                yield piece
            await self.close()
        if head.headers.get("connection", "").lower() == "close":
            await self.close()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()
        self._reader = self._writer = None


def _sse_events(buffer: bytearray) -> list[str]:
    """Take the complete events out of ``buffer``; each event's joined ``data:`` lines."""
    events: list[str] = []
    while True:
        # An event ends at a blank line; lines end in CRLF, LF or CR (CR alone is not used
        # by the servers measured here, so it is not looked for).
        end = buffer.find(b"\n\n")
        crlf = buffer.find(b"\r\n\r\n")
        if crlf != -1 and (end == -1 or crlf < end):
            block, cut = bytes(buffer[:crlf]), crlf + 4
        elif end != -1:
            block, cut = bytes(buffer[:end]), end + 2
        else:
            return events
        del buffer[:cut]
        data = [
            line[5:].removeprefix(" ")
            for line in block.decode().replace("\r\n", "\n").split("\n")
            if line.startswith("data:")
        ]
        if data:
            events.append("\n".join(data))


class McpSession:
    """An MCP session over streamable HTTP at ``http://host:port/mcp``."""

    def __init__(self, host: str, port: int, path: str = "/mcp") -> None:
        self.connection = Connection(host, port)
        self.path = path
        self.session_id: str | None = None
        self.next_id = 1

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
            headers["MCP-Protocol-Version"] = PROTOCOL_VERSION
        return headers

    async def post(self, message: dict[str, Any]) -> Reply:
        return await asyncio.wait_for(self._post(message), REPLY_TIMEOUT)

    async def _post(self, message: dict[str, Any]) -> Reply:
        body = json.dumps(message).encode()
        head = await self.connection.send("POST", self.path, self._headers(), body)
        kind = head.headers.get("content-type", "").split(";")[0].strip().lower()
        wanted = message.get("id")
        response: dict[str, Any] | None = None
        arrived = 0.0
        if kind == "text/event-stream":
            buffer = bytearray()
            async for piece in self.connection.body(head):
                if response is not None:
                    continue  # drain the rest of the stream
                buffer += piece
                for data in _sse_events(buffer):
                    event = json.loads(data)
                    if event.get("id") == wanted and ("result" in event or "error" in event):
                        response, arrived = event, time.perf_counter()
                        break
        else:
            raw = b"".join([piece async for piece in self.connection.body(head)])
            arrived = time.perf_counter()
            if raw and kind == "application/json":
                response = json.loads(raw)
            elif raw and head.status < 300:
                raise ProtocolError(f"HTTP {head.status} with a {kind or 'untyped'} body")
        if wanted is not None and head.status == 200 and response is None:
            raise ProtocolError("the answer ended without the JSON-RPC response")
        return Reply(head.status, head.headers, response, arrived)

    async def request(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """The ``result`` of a request, and the perf_counter() when it arrived."""
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        reply = await self.post(message)
        if reply.status != 200 or reply.message is None:
            raise ProtocolError(f"{method}: HTTP {reply.status}: {reply.message}")
        if "error" in reply.message:
            raise ProtocolError(f"{method}: JSON-RPC error {reply.message['error']}")
        result: dict[str, Any] = reply.message["result"]
        return result, reply.arrived

    async def initialize(self) -> None:
        """The handshake: initialize, take the session id, notifications/initialized."""
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "boris-bench", "version": "0"},
        }
        message = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        reply = await self.post(message)
        if reply.status != 200 or reply.message is None or "result" not in reply.message:
            raise ProtocolError(f"initialize: HTTP {reply.status}: {reply.message}")
        self.session_id = reply.headers.get("mcp-session-id")
        if not self.session_id:
            raise ProtocolError("initialize: no Mcp-Session-Id header")
        reply = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if reply.status != 202:
            raise ProtocolError(f"notifications/initialized: HTTP {reply.status}")

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool, float]:
        """A tools/call: its text, whether it is an error result, and when it arrived."""
        result, arrived = await self.request("tools/call", {"name": tool, "arguments": arguments})
        texts = [block.get("text", "") for block in result.get("content", [])]
        return "".join(texts), bool(result.get("isError")), arrived

    async def delete(self) -> int:
        """End the session (DELETE); the HTTP status."""
        head = await asyncio.wait_for(
            self.connection.send("DELETE", self.path, self._headers(), b""), REPLY_TIMEOUT
        )
        async for _ in self.connection.body(head):
            pass
        return head.status

    async def close(self) -> None:
        """Close the connection (the session goes on: the next request opens another)."""
        await self.connection.close()
