"""Clients of the 2026-07-28 revision that nobody here wrote, against a real server (README
"Using it over HTTP"): the TypeScript SDK's client pinned to the revision, over HTTP and
over STDIO, and the Python SDK's client in its 2026-07-28 mode over HTTP. Each keeps its
state across calls without a session (the server's workspace), while a handshake client
on the same server keeps its own.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    BORIS,
    DEFAULT_TOOLS,
    HttpServer,
    http_client,
    http_server,
    ok_text,
    sdk_http_client,
    server_env,
)
from tests.support.ts_client import run_ts_client

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
STARTED = re.compile(r"task_id: ([0-9a-f]{32})\nCommand started in background\.")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
def server(workdir: Path) -> Iterator[HttpServer]:
    with http_server(workdir=workdir) as server:
        yield server


def texts(result: dict[str, Any]) -> str:
    """The one text block of a tool result as a client printed it, which must not be an
    error."""
    assert result.get("isError") is not True, result
    (block,) = result["content"]
    text: str = block["text"]
    return text


def scenario_steps(directory: Path) -> list[list[Any]]:
    """What every client does: discover, list the tools, change directory and find it kept,
    start a background task and read it back, view a file and then edit it."""
    target = directory / "notes.txt"
    target.write_text("alpha\nbeta\n")
    return [
        ["discover"],
        ["listTools"],
        ["call", "bash", {"command": "cd /tmp"}],
        ["call", "bash", {"command": "pwd"}],
        ["call", "bash", {"command": "echo from-the-task", "run_in_background": True}],
        ["readTask", 4],
        ["call", "view", {"path": str(target)}],
        ["call", "str_replace", {"path": str(target), "old_str": "beta", "new_str": "gamma"}],
    ]


FINISHED = "status: completed\nexit_code: 0\n\nstdout:\nfrom-the-task\n"


def check_scenario(done: dict[str, Any], workdir: Path, directory: Path) -> None:
    """What the TypeScript client saw doing :func:`scenario_steps`."""
    connection = done["connection"]
    assert (connection["era"], connection["version"]) == ("modern", MODERN)
    assert connection["server"]["name"] == "boris"
    assert connection["instructions"] == f"Working directory: {workdir}"
    discover, tools, cd, pwd, started, read, view, replaced = done["results"]
    assert discover["supportedVersions"] == [MODERN]
    assert discover["instructions"] == f"Working directory: {workdir}"
    assert discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "boris"
    assert [tool["name"] for tool in tools["tools"]] == DEFAULT_TOOLS
    assert texts(cd) == "exit_code: 0\n"
    assert texts(pwd) == "exit_code: 0\n\nstdout:\n/tmp\n"
    assert STARTED.fullmatch(texts(started)), started
    assert texts(read) == FINISHED
    assert texts(view) == "1\talpha\n2\tbeta\n"
    assert texts(replaced).startswith(f"Replaced in {directory / 'notes.txt'}\n")
    assert (directory / "notes.txt").read_text() == "alpha\ngamma\n"


async def test_the_typescript_client_over_http(
    server: HttpServer, workdir: Path, tmp_path: Path
) -> None:
    async with http_client(server.url) as handshake:
        # A handshake client at the same time, in a directory of its own.
        ok_text(await handshake.call_tool("bash", {"command": f"cd '{tmp_path}'"}))
        plan = {"transport": "http", "url": server.url, "pin": MODERN}
        check_scenario(
            run_ts_client({**plan, "steps": scenario_steps(tmp_path)}), workdir, tmp_path
        )
        # Another connection of the same client: the workspace kept the cwd.
        again = run_ts_client({**plan, "steps": [["call", "bash", {"command": "pwd"}]]})
        assert texts(again["results"][0]) == "exit_code: 0\n\nstdout:\n/tmp\n"
        # The handshake session's cwd is its own.
        pwd = ok_text(await handshake.call_tool("bash", {"command": "pwd"}))
        assert pwd == f"exit_code: 0\n\nstdout:\n{tmp_path}\n"


def test_the_typescript_client_over_stdio(tmp_path: Path) -> None:
    plan = {
        "transport": "stdio",
        "command": sys.executable,
        "args": [*BORIS[1:], "--transport", "stdio", "--workdir", str(tmp_path)],
        "env": server_env(),
        "pin": MODERN,
    }
    check_scenario(run_ts_client({**plan, "steps": scenario_steps(tmp_path)}), tmp_path, tmp_path)


async def test_the_python_sdk_client_in_its_2026_mode_over_http(
    server: HttpServer, workdir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("alpha\nbeta\n")
    async with (
        sdk_http_client(server.url) as handshake,
        sdk_http_client(server.url, mode=MODERN) as client,
    ):
        ok_text(await handshake.call_tool("bash", {"command": f"cd '{tmp_path}'"}))
        assert client.protocol_version == MODERN
        # Pinned, the client connects without a round trip; it asks when told to.
        discover = await client.session.send_discover(MODERN)
        assert discover["instructions"] == f"Working directory: {workdir}"
        assert discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "boris"
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == DEFAULT_TOOLS
        assert [tool.name for tool in (await handshake.list_tools()).tools] == DEFAULT_TOOLS
        assert ok_text(await client.call_tool("bash", {"command": "cd /tmp"})) == "exit_code: 0\n"
        pwd = ok_text(await client.call_tool("bash", {"command": "pwd"}))
        assert pwd == "exit_code: 0\n\nstdout:\n/tmp\n"
        started = ok_text(
            await client.call_tool(
                "bash", {"command": "echo from-the-task", "run_in_background": True}
            )
        )
        match = STARTED.fullmatch(started)
        assert match, started
        arguments = {"task_id": match.group(1), "block": True, "timeout": 30000}
        assert ok_text(await client.call_tool("task_output", arguments)) == FINISHED
        assert ok_text(await client.call_tool("view", {"path": str(target)})) == (
            "1\talpha\n2\tbeta\n"
        )
        edit = {"path": str(target), "old_str": "beta", "new_str": "gamma"}
        assert ok_text(await client.call_tool("str_replace", edit)).startswith("Replaced in ")
        assert target.read_text() == "alpha\ngamma\n"
        pwd = ok_text(await handshake.call_tool("bash", {"command": "pwd"}))
        assert pwd == f"exit_code: 0\n\nstdout:\n{tmp_path}\n"
