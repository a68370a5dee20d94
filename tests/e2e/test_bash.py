"""The bash tool where the server process is the point: its environment, progress on the
wire, and the official SDK client over real STDIO pipes (README "Tools").

Everything else about bash is tested in process: tests/tools/test_bash.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import RawStdio, ok_text, raw_stdio, sdk_stdio_client, stdio_client

pytestmark = pytest.mark.anyio


async def bash(client: Client[Any], command: str, **arguments: Any) -> str:
    result = await client.call_tool("bash", {"command": command, **arguments}, raise_on_error=False)
    return ok_text(result)


async def test_commands_see_the_users_fastmcp_settings(tmp_path: Path) -> None:
    # The server overrides a few FASTMCP_* variables for itself; a user developing a
    # fastmcp server through bash must get their own values back (or none).
    env = {"FASTMCP_ENV_FILE": "mine.env"}
    async with stdio_client(workdir=tmp_path, env=env) as client:
        text = await bash(
            client, 'echo "$FASTMCP_ENV_FILE ${FASTMCP_LOG_ENABLED-unset}"', timeout=10000
        )
        # fastmcp settings the server made for itself do not leak into commands.
        leaked = await bash(client, 'echo "[${FASTMCP_LOG_ENABLED-unset}]"')
    assert text == "exit_code: 0\n\nstdout:\nmine.env unset\n"
    assert leaked == "exit_code: 0\n\nstdout:\n[unset]\n"


def _raw_call(server: RawStdio, request_id: int, meta: dict[str, Any] | None) -> list[Any]:
    """Every message the server writes for one tools/call, up to and including its reply."""
    params: dict[str, Any] = {"name": "bash", "arguments": {"command": "echo a; echo b"}}
    if meta is not None:
        params["_meta"] = meta
    server.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    messages = []
    while True:
        message = server.receive()
        messages.append(message)
        if message.get("id") == request_id:
            return messages


def test_progress_only_with_a_progress_token(tmp_path: Path) -> None:
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        without = _raw_call(server, 2, None)
        with_token = _raw_call(server, 3, {"progressToken": "tok"})
    assert [m.get("method") for m in without] == [None]
    progress = [m["params"] for m in with_token if m.get("method") == "notifications/progress"]
    assert progress == [
        {"progressToken": "tok", "progress": 1.0, "message": "a"},
        {"progressToken": "tok", "progress": 2.0, "message": "b"},
    ]
    assert with_token[-1]["result"]["content"][0]["text"] == "exit_code: 0\n\nstdout:\na\nb\n"


async def test_official_sdk_client(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    async with sdk_stdio_client(workdir=tmp_path) as client:
        first = await client.call_tool("bash", {"command": "cd sub && echo in"})
        assert ok_text(first) == "exit_code: 0\n\nstdout:\nin\n"
        second = await client.call_tool("bash", {"command": "pwd"})
        assert ok_text(second) == f"exit_code: 0\n\nstdout:\n{tmp_path / 'sub'}\n"
