"""Spawning real Boris servers and connecting real MCP clients to them.

Every server binds 127.0.0.1 on a free port (HTTP) or talks over real pipes (STDIO),
and is stopped by its own pid when the test ends.
"""

from __future__ import annotations

import contextlib
import json
import os
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
from typing import Any

import mcp
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from mcp_types import TextContent

BORIS = [sys.executable, "-m", "boris"]
REPO = Path(__file__).resolve().parent.parent


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
    url: str, token: str | None = None, mode: str = "auto"
) -> AsyncIterator[Client[StreamableHttpTransport]]:
    """A fastmcp Client (default mode, so the fallback to a real session is exercised)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = StreamableHttpTransport(url, headers=headers)
    async with Client(transport, mode=mode, timeout=60) as client:
        yield client


@contextlib.asynccontextmanager
async def sdk_stdio_client(
    *args: str, workdir: str | Path | None = None, env: Mapping[str, str] | None = None
) -> AsyncIterator[mcp.Client]:
    """The official MCP SDK client over STDIO."""
    argv = [*BORIS[1:], "--transport", "stdio"]
    if workdir is not None:
        argv += ["--workdir", str(workdir)]
    params = mcp.StdioServerParameters(command=BORIS[0], args=[*argv, *args], env=server_env(env))
    async with mcp.Client(params) as client:
        yield client


@contextlib.asynccontextmanager
async def sdk_http_client(url: str, token: str | None = None) -> AsyncIterator[mcp.Client]:
    """The official MCP SDK client over streamable HTTP."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        mcp.Client(streamable_http_client(url, http_client=http)) as client,
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


def json_body(body: bytes) -> Any:
    """Decode a JSON or single-event SSE response body."""
    text = body.decode()
    if text.startswith(("event:", "data:", "id:", ":")):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return json.loads(text)
