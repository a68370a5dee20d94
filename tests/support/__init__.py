"""What the tests share. This module: spawning real Boris servers and connecting real MCP
clients to them; every server binds 127.0.0.1 on a free port (HTTP) or talks over real
pipes (STDIO), and is stopped by its own pid when the test ends.

The package's other modules, by topic: ``calls`` (tool calls through a client),
``sessions`` (tool functions called in this process), ``models`` (plain models the file
tools are checked against), ``strategies`` (hypothesis strategies for files),
``files`` (per-test directories, sample files, a tiny tmpfs, server memory), ``trees``
(directory trees for the search tests), ``notebooks`` (notebooks as their writers write
them), ``pids`` (processes a command started), ``tasks`` (background tasks),
``interpose`` (watching a server's file operations). The in-process app and client are
tests/support/inprocess.py's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import mcp
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp_types import TextContent

from boris import toolset

BORIS = [sys.executable, "-m", "boris"]
#: The tools a server started without flags serves, from the list of tools (the list
#: itself is checked by hand in tests/tools/test_tools_list.py).
DEFAULT_TOOLS = list(toolset.served(compat=False))
REPO = Path(__file__).resolve().parents[2]
#: The release the package declares, read from its source rather than asked of Boris (the
#: one `__version__ = ` line of boris/__init__.py, which pyproject.toml names as the version).
_VERSION_LINE = re.search(
    r'^__version__ = "([^"]+)"$', (REPO / "boris" / "__init__.py").read_text(), re.M
)
assert _VERSION_LINE is not None
VERSION: str = _VERSION_LINE.group(1)


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a spawned server gets: ours minus any BORIS_* setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BORIS_")}
    env.update(extra or {})
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop_process(proc: subprocess.Popen[Any], timeout: float = 15) -> None:
    """End a process we started, by its pid: SIGTERM, then SIGKILL if it lingers."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@dataclass
class HttpServer:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


def _wait_healthy(server: HttpServer, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"server exited with {server.proc.returncode}:\n{server.stderr()}")
        try:
            with urllib.request.urlopen(f"{server.base}/health", timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server did not become healthy:\n{server.stderr()}")


@contextlib.contextmanager
def http_server(
    *args: str,
    workdir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = BORIS,
    cwd: str | Path | None = None,
) -> Iterator[HttpServer]:
    """A real Boris serving streamable HTTP on 127.0.0.1 at a free port."""
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="boris-http-", suffix=".log")[1])
    argv = [*command, "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    if workdir is not None:
        argv += ["--workdir", str(workdir)]
    with log.open("wb") as errors:
        proc = subprocess.Popen(
            [*argv, *args],
            stdin=subprocess.DEVNULL,
            stdout=errors,
            stderr=errors,
            env=server_env(env),
            cwd=cwd,
        )
    server = HttpServer(proc=proc, port=port, log=log)
    try:
        _wait_healthy(server)
        yield server
    finally:
        stop_process(proc)


def stdio_transport(
    *args: str,
    workdir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = BORIS,
    cwd: str | Path | None = None,
) -> StdioTransport:
    argv = [*command[1:], "--transport", "stdio"]
    if workdir is not None:
        argv += ["--workdir", str(workdir)]
    return StdioTransport(
        command=command[0],
        args=[*argv, *args],
        env=server_env(env),
        cwd=str(cwd) if cwd else None,
        keep_alive=False,
    )


@contextlib.asynccontextmanager
async def stdio_client(
    *args: str,
    workdir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = BORIS,
    cwd: str | Path | None = None,
    mode: str = "auto",
) -> AsyncIterator[Client[StdioTransport]]:
    """A fastmcp Client (default mode: it first tries the stateless protocol) over STDIO."""
    transport = stdio_transport(*args, workdir=workdir, env=env, command=command, cwd=cwd)
    async with Client(transport, mode=mode, timeout=60) as client:
        yield client


@contextlib.asynccontextmanager
async def http_client(
    url: str, token: str | None = None, mode: str = "legacy"
) -> AsyncIterator[Client[StreamableHttpTransport]]:
    """A fastmcp Client over streamable HTTP: by default a handshake client, which gets a
    session of its own (fastmcp's own default, ``"auto"``, speaks the 2026-07-28
    revision to Boris and is served from the server's workspace, as is
    ``"2026-07-28"``)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = StreamableHttpTransport(url, headers=headers)
    async with Client(transport, mode=mode, timeout=60) as client:
        yield client


@contextlib.asynccontextmanager
async def sdk_stdio_client(
    *args: str, workdir: str | Path | None = None, env: Mapping[str, str] | None = None
) -> AsyncIterator[mcp.Client]:
    """The official MCP SDK client over STDIO."""
    argv = [*BORIS, "--transport", "stdio"]
    if workdir is not None:
        argv += ["--workdir", str(workdir)]
    async with sdk_client_of([*argv, *args], env=env) as client:
        yield client


@contextlib.asynccontextmanager
async def sdk_client_of(
    command: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | Path | None = None
) -> AsyncIterator[mcp.Client]:
    """The official MCP SDK client over STDIO to the server ``command`` starts, as a
    client configured with that command starts it (``env`` over ours, less BORIS_*)."""
    params = mcp.StdioServerParameters(
        command=command[0], args=list(command[1:]), env=server_env(env), cwd=cwd
    )
    async with mcp.Client(params) as client:
        yield client


@contextlib.asynccontextmanager
async def sdk_http_client(
    url: str, token: str | None = None, mode: str = "legacy"
) -> AsyncIterator[mcp.Client]:
    """The official MCP SDK client over streamable HTTP: by default a handshake client,
    with a session of its own; ``mode="2026-07-28"`` (or the SDK's default, ``"auto"``)
    speaks the revision without sessions."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        mcp.Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def text_of(result: Any) -> str:
    """The single text block of a tool result (fastmcp or SDK result object)."""
    content = result.content
    assert len(content) == 1, content
    block = content[0]
    assert isinstance(block, TextContent), block
    return block.text


def error_text(result: Any) -> str:
    """The text of a result that must be an error."""
    assert result.is_error, result
    return text_of(result)


def ok_text(result: Any) -> str:
    """The text of a result that must not be an error."""
    assert not result.is_error, text_of(result)
    return text_of(result)


def http_request(
    method: str,
    url: str,
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request; returns status, lower-cased headers and body (4xx/5xx too)."""
    request = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                response.read(),
            )
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

#: The ``_meta`` every request of the 2026-07-28 revision carries: its version and the
#: client's capabilities (no handshake says them once).
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
}


def json_body(body: bytes) -> Any:
    """Decode a JSON or single-event SSE response body."""
    text = body.decode()
    if text.startswith(("event:", "data:", "id:", ":")):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return json.loads(text)


class RawSession:
    """An MCP session driven by plain HTTP requests: no GET stream, an explicit DELETE."""

    def __init__(self, url: str) -> None:
        self.url = url
        status, headers, body = http_request(
            "POST", url, MCP_HEADERS, json.dumps(INITIALIZE).encode()
        )
        assert status == 200, body
        self.id = headers["mcp-session-id"]
        self.headers = {
            **MCP_HEADERS,
            "Mcp-Session-Id": self.id,
            "Mcp-Protocol-Version": INITIALIZE["params"]["protocolVersion"],  # type: ignore[index]
        }
        self._next_id = 1
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        status, _, _ = self.post(initialized)
        assert status == 202

    def post(self, message: dict[str, Any] | bytes) -> tuple[int, dict[str, str], bytes]:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        return http_request("POST", self.url, self.headers, body)

    def call(self, tool: str, **arguments: Any) -> Any:
        self._next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self._next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        status, _, body = self.post(message)
        assert status == 200, body
        return json_body(body)

    def text(self, tool: str, **arguments: Any) -> str:
        result = self.call(tool, **arguments)["result"]
        assert result["isError"] is False, result
        text: str = result["content"][0]["text"]
        return text

    def delete(self) -> int:
        status, _, _ = http_request("DELETE", self.url, self.headers)
        return status


class RawStdio:
    """A Boris process on STDIO pipes, spoken to in raw bytes and JSON-RPC lines.

    Every read has a deadline, so a message the server never answers fails the test
    instead of hanging it.
    """

    def __init__(self, proc: subprocess.Popen[bytes], errors: IO[bytes]) -> None:
        assert proc.stdin is not None
        assert proc.stdout is not None
        self.proc = proc
        self._errors = errors
        self.stdin = proc.stdin
        self._out = proc.stdout.fileno()
        self._pending = b""

    def stderr(self) -> str:
        """What the server has written to stderr so far."""
        self._errors.seek(0)
        return self._errors.read().decode(errors="replace")

    def send(self, message: dict[str, Any] | bytes) -> None:
        """One line: a message as JSON, or raw bytes as given (a newline is added)."""
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.stdin.write(data + b"\n")
        self.stdin.flush()

    def line(self, timeout: float = 30) -> bytes:
        """The next line the server writes (without its newline)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            assert left > 0, f"no reply within {timeout} s"
            if select.select([self._out], [], [], left)[0]:
                chunk = os.read(self._out, 1 << 16)
                assert chunk, "the server closed its stdout"
                self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def receive(self, timeout: float = 30) -> dict[str, Any]:
        """The next message; every stdout line must be one JSON-RPC message."""
        message: dict[str, Any] = json.loads(self.line(timeout))
        return message

    def rest(self, timeout: float = 30) -> bytes:
        """Everything the server still writes until it closes stdout."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"stdout still open after {timeout} s"
            if select.select([self._out], [], [], left)[0]:
                chunk = os.read(self._out, 1 << 16)
                if not chunk:
                    rest, self._pending = self._pending, b""
                    return rest
                self._pending += chunk

    def silent(self, timeout: float = 0.5) -> bool:
        """Whether the server writes nothing within ``timeout`` seconds."""
        return not self._pending and not select.select([self._out], [], [], timeout)[0]

    def reply(self, request_id: int | str, timeout: float = 60) -> dict[str, Any]:
        """The next message answering ``request_id`` (notifications are skipped)."""
        message: dict[str, Any] = json.loads(self.reply_line(request_id, timeout))
        return message

    def reply_line(self, request_id: int | str, timeout: float = 60) -> bytes:
        """The line of the next message answering ``request_id``, as the server wrote it."""
        while True:
            line = self.line(timeout)
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return line

    def initialize(self) -> None:
        self.send(INITIALIZE)
        assert self.reply(1)["result"]["serverInfo"]["name"] == "boris"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def loaded(self, request_id: int, meta: dict[str, Any] | None = None) -> None:
        """Return once the app has loaded: a tools/call waits for it, where initialize
        and tools/list may be answered while it loads (boris.early). The call names no
        tool, and changes nothing; ``meta`` is its ``_meta`` (a 2026-07-28 envelope)."""
        params: dict[str, Any] = {"name": "no such tool", "arguments": {}}
        if meta is not None:
            params["_meta"] = meta
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        assert self.reply(request_id)["result"]["isError"] is True

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The result of one tools/call (arguments as JSON values)."""
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        result: dict[str, Any] = self.reply(request_id)["result"]
        return result


@contextlib.contextmanager
def raw_stdio(
    *args: str,
    workdir: str | Path,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = BORIS,
    cwd: str | Path | None = None,
) -> Iterator[RawStdio]:
    """A Boris (``command``) on STDIO pipes (stderr to a temporary file), stopped by its
    pid at the end."""
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            [*command, "--transport", "stdio", "--workdir", str(workdir), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=server_env(env),
            cwd=cwd,
        )
        try:
            yield RawStdio(proc, errors)
        finally:
            stop_process(proc)
