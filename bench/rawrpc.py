"""A Boris server on STDIO pipes, spoken to in raw JSON-RPC (no client library in the figures).

Shared by the benchmarks in this directory.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from procs import clean_env, stop_process

INITIALIZE_PARAMS = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"},
}


def boris_command(workdir: str | Path) -> list[str]:
    return [sys.executable, "-m", "boris", "--transport", "stdio", "--workdir", str(workdir)]


class RawServer:
    """Spawns ``command`` (see :func:`boris_command`) with pipes; ``initialize()``
    performs the handshake. Use it in a ``with`` block (or call ``stop()``) so the
    server is ended whatever happens."""

    def __init__(
        self, command: Sequence[str], env: dict[str, str] | None = None, cwd: str | None = None
    ) -> None:
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env if env is not None else clean_env(),
            cwd=cwd,  # another checkout's directory: ``-m boris`` imports its boris first
        )
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.next_id = 1

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()

    def reply(self, request_id: int) -> dict[str, Any]:
        """The next message answering ``request_id`` (notifications are skipped)."""
        while True:
            line = self.stdout.readline()
            if not line:
                raise RuntimeError("boris closed its stdout")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                return message

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        request_id = self.next_id
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.reply(request_id)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        result: dict[str, Any] = reply["result"]
        return result

    def initialize(self) -> RawServer:
        self.request("initialize", INITIALIZE_PARAMS)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """The text of a tool call's result; an error result raises."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        text: str = result["content"][0]["text"]
        if result.get("isError"):
            raise RuntimeError(text)
        return text

    def stop(self) -> None:
        """Close the pipe (a STDIO server exits on it); SIGTERM, then SIGKILL, by pid if it
        does not."""
        with contextlib.suppress(OSError):  # the server may be gone already
            self.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            stop_process(self.proc)
        self.stdout.close()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
