"""Session lifecycle end to end, with real server processes (README "Using it over HTTP").

Sessions are observed through bash: the cwd it tracks, the background tasks it starts,
and the processes those leave behind, which must be gone once their session ends
(client DELETE, idle timeout, SIGTERM, STDIO EOF). Pids are checked in /proc.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import (
    BORIS,
    INITIALIZE,
    HttpServer,
    RawSession,
    error_text,
    http_client,
    http_server,
    ok_text,
    sdk_http_client,
    server_env,
    stdio_client,
)
from tests.support.pids import pid_alive, pids_in, wait_gone

pytestmark = pytest.mark.anyio

STARTED = re.compile(r"task_id: ([0-9a-f]{32})\nCommand started in background\.")
# A background task that shows its shell's pid and a grandchild's pid, then waits.
TWO_PIDS = "echo $$; sleep 300 & echo $!; wait"
# The same with job control on: the grandchild is a job in a process group of its own.
TWO_PIDS_JOB = f"set -m; {TWO_PIDS}"
# Foreground commands that leave a process running after they return: in the command's
# process group, and as a job in a process group of its own.
LEFTOVERS = ["sleep 300 & echo $!", "set -m; sleep 300 & echo $!"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with http_server(workdir=tmp_path_factory.mktemp("sessions")) as server:
        yield server


async def call(client: Any, tool: str, **arguments: Any) -> Any:
    """One tool call through a fastmcp Client or the official SDK client."""
    if isinstance(client, Client):
        return await client.call_tool(tool, arguments, raise_on_error=False)
    return await client.call_tool(tool, arguments)


async def bash(client: Any, command: str) -> str:
    return ok_text(await call(client, "bash", command=command))


async def start_background(client: Any, command: str) -> str:
    text = ok_text(await call(client, "bash", command=command, run_in_background=True))
    match = STARTED.fullmatch(text)
    assert match, text
    return match.group(1)


async def background_pids(client: Any, task_id: str, count: int = 2) -> list[int]:
    """Poll a running task until its output shows ``count`` pids."""
    deadline = time.monotonic() + 30
    while True:
        text = ok_text(await call(client, "task_output", task_id=task_id))
        assert text.startswith("status: running\n"), text
        pids = pids_in(text)
        if len(pids) >= count:
            return pids
        assert time.monotonic() < deadline, text
        await anyio.sleep(0.05)


async def leftover_pid(client: Any, command: str = LEFTOVERS[0]) -> int:
    """A foreground command that leaves `sleep 300 &` running after it returns."""
    (pid,) = pids_in(await bash(client, command))
    assert pid_alive(pid)
    return pid


async def session_processes(client: Any) -> list[int]:
    """Start every kind of process a session must end (background tasks and what
    foreground commands left, with and without job control); returns their pids."""
    pids = []
    for command in (TWO_PIDS, TWO_PIDS_JOB):
        pids += await background_pids(client, await start_background(client, command))
    for command in LEFTOVERS:
        pids.append(await leftover_pid(client, command))
    return pids


# --- isolation and state ---------------------------------------------------------------


async def test_two_http_sessions_are_isolated(server: HttpServer, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    async with http_client(server.url) as first, sdk_http_client(server.url) as second:
        assert await bash(first, f"cd '{tmp_path / 'a'}'") == "exit_code: 0\n"
        assert await bash(second, f"cd '{tmp_path / 'b'}'") == "exit_code: 0\n"
        assert await bash(first, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path / 'a'}\n"
        assert await bash(second, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path / 'b'}\n"

        mine = await start_background(first, "echo first; sleep 300")
        theirs = await start_background(second, "echo second; sleep 300")
        assert mine != theirs
        # Another session's task id is unknown here, in both directions.
        for client, task_id in ((second, mine), (first, theirs)):
            for tool in ("task_output", "task_stop"):
                assert error_text(await call(client, tool, task_id=task_id)) == (
                    f"[BASH_TASK_NOT_FOUND] no background task {task_id!r} in this session; "
                    "a finished task's output can be read only once"
                )
        pids = []
        for client, task_id in ((first, mine), (second, theirs)):
            text = ok_text(await call(client, "task_output", task_id=task_id))
            assert text.startswith("status: running\n"), text
            pids += await background_pids(client, task_id, count=0)


async def test_fastmcp_client_in_default_mode_keeps_its_state(
    server: HttpServer, tmp_path: Path
) -> None:
    # The default mode speaks the 2026-07-28 revision, which has no sessions: every call
    # is served from the server's workspace, and the state survives between calls.
    (tmp_path / "sub").mkdir()
    async with http_client(server.url, mode="auto") as client:
        assert client.initialize_result is None  # no handshake
        assert await bash(client, f"cd '{tmp_path}'") == "exit_code: 0\n"
        assert await bash(client, "cd sub") == "exit_code: 0\n"
        assert await bash(client, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path / 'sub'}\n"
        task_id = await start_background(client, "echo hi")
        deadline = time.monotonic() + 30
        while (text := ok_text(await call(client, "task_output", task_id=task_id))).startswith(
            "status: running"
        ):
            assert time.monotonic() < deadline
            await anyio.sleep(0.05)
        assert text == "status: completed\nexit_code: 0\n\nstdout:\nhi\n"


async def test_official_sdk_client_keeps_its_session(server: HttpServer, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    async with sdk_http_client(server.url) as client:
        assert await bash(client, f"cd '{tmp_path}/sub'") == "exit_code: 0\n"
        assert await bash(client, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path / 'sub'}\n"


async def test_stdio_default_mode_keeps_cwd_and_tasks(tmp_path: Path) -> None:
    # Over STDIO the default mode is stateless per request; the one STDIO session is
    # keyed on a constant, so the state persists anyway.
    (tmp_path / "sub").mkdir()
    async with stdio_client(workdir=tmp_path) as client:
        assert await bash(client, "cd sub") == "exit_code: 0\n"
        assert await bash(client, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path / 'sub'}\n"
        task_id = await start_background(client, "sleep 300")
        text = ok_text(await call(client, "task_output", task_id=task_id))
        assert text == "status: running\n"


def test_shell_choice_is_logged(server: HttpServer) -> None:
    assert re.search(r"boris \S+, shell /bin/bash, workdir ", server.stderr())


# --- DELETE ----------------------------------------------------------------------------


def raw_session_processes(session: RawSession) -> list[int]:
    found = []
    for command in (TWO_PIDS, TWO_PIDS_JOB):
        match = STARTED.fullmatch(session.text("bash", command=command, run_in_background=True))
        assert match
        deadline = time.monotonic() + 30
        while len(pids := pids_in(session.text("task_output", task_id=match.group(1)))) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        found += pids
    for command in LEFTOVERS:
        (leftover,) = pids_in(session.text("bash", command=command))
        found.append(leftover)
    return found


async def test_delete_ends_the_sessions_processes(server: HttpServer) -> None:
    session = RawSession(server.url)
    pids = raw_session_processes(session)
    assert all(pid_alive(pid) for pid in pids)
    assert session.delete() == 200
    assert await wait_gone(pids) == []
    # The session is gone: its id is refused.
    status, _, _ = session.post({"jsonrpc": "2.0", "id": 99, "method": "tools/list"})
    assert status == 404


async def test_closing_a_fastmcp_client_ends_its_processes(server: HttpServer) -> None:
    async with http_client(server.url) as client:
        pids = await session_processes(client)
    assert await wait_gone(pids) == []


async def test_delete_during_a_call_kills_the_command(server: HttpServer, tmp_path: Path) -> None:
    session = RawSession(server.url)
    pid_file = tmp_path / "pids"
    command = f"echo $$ > {pid_file}; sleep 300 & echo $! >> {pid_file}; wait"

    def long_call() -> None:
        # The reply never comes as a result: the session is deleted under it.
        session.post(
            {
                "jsonrpc": "2.0",
                "id": 50,
                "method": "tools/call",
                "params": {"name": "bash", "arguments": {"command": command}},
            }
        )

    async with anyio.create_task_group() as group:
        group.start_soon(anyio.to_thread.run_sync, long_call)
        deadline = time.monotonic() + 30
        while len(pids_in(pid_file.read_text() if pid_file.exists() else "")) < 2:
            assert time.monotonic() < deadline
            await anyio.sleep(0.05)
        assert session.delete() == 200
    pids = pids_in(pid_file.read_text())
    assert await wait_gone(pids) == []


async def test_delete_ends_a_blocking_task_output(server: HttpServer, tmp_path: Path) -> None:
    """A session's end stops a task_output that waits for one of its tasks: the request
    does not stay open for its ten-minute timeout."""
    session = RawSession(server.url)
    text = session.text("bash", command=TICKING, run_in_background=True)
    match = STARTED.fullmatch(text)
    assert match, text
    waiting = threading.Event()
    events: list[str] = []

    def long_wait() -> None:
        # Read the SSE reply line by line: a progress event shows the wait is under way.
        url = urllib.parse.urlsplit(server.url)
        connection = http.client.HTTPConnection(url.netloc, timeout=60)
        body = {
            "jsonrpc": "2.0",
            "id": 60,
            "method": "tools/call",
            "params": {
                "name": "task_output",
                "arguments": {"task_id": match.group(1), "block": True, "timeout": 600000},
                "_meta": {"progressToken": "wait"},
            },
        }
        connection.request("POST", url.path, json.dumps(body), session.headers)
        response = connection.getresponse()
        deadline = time.monotonic() + 30
        for line in response:
            events.append(line.decode())
            if b"notifications/progress" in line:
                waiting.set()
            if time.monotonic() > deadline:
                events.append("still waiting after 30 s")
                break
        connection.close()

    with anyio.fail_after(60):  # the wait was for ten minutes: this catches it holding on
        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, long_wait)
            assert await anyio.to_thread.run_sync(waiting.wait, 30), events
            assert session.delete() == 200
    assert "still waiting after 30 s" not in events
    # The reply ended without a result for the wait.
    assert not any('"id":60' in line and '"result"' in line for line in events), events


# A background task that prints a line every 50 ms.
TICKING = "while :; do echo tick; sleep 0.05; done"


async def test_idle_session_is_closed_and_its_processes_end(tmp_path: Path) -> None:
    with http_server("--session-idle-timeout", "1", workdir=tmp_path) as server:
        session = RawSession(server.url)
        pids = raw_session_processes(session)
        # No request and no GET stream from now on: the session is idle.
        assert await wait_gone(pids, within=30) == []
        status, _, _ = session.post({"jsonrpc": "2.0", "id": 99, "method": "tools/list"})
        assert status == 404


# --- shutdown --------------------------------------------------------------------------


async def test_sigterm_to_an_http_server_ends_every_session(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as server:
        async with http_client(server.url) as first, sdk_http_client(server.url) as second:
            pids = await session_processes(first) + await session_processes(second)
            os.kill(server.proc.pid, signal.SIGTERM)
            server.proc.wait(timeout=30)
        assert await wait_gone(pids) == []


class RawStdioServer:
    """A STDIO server driven by raw JSON-RPC lines, so the test owns its pid and stdin."""

    def __init__(self, workdir: Path) -> None:
        self.proc = subprocess.Popen(
            [*BORIS, "--transport", "stdio", "--workdir", str(workdir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(),
        )
        self._next_id = 0
        self.request("initialize", INITIALIZE["params"])
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("id") == self._next_id:
                return message

    def text(self, tool: str, **arguments: Any) -> str:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})["result"]
        text: str = result["content"][0]["text"]
        return text

    def processes(self) -> list[int]:
        found = []
        for command in (TWO_PIDS, TWO_PIDS_JOB):
            text = self.text("bash", command=command, run_in_background=True)
            match = STARTED.fullmatch(text)
            assert match, text
            deadline = time.monotonic() + 30
            while len(pids := pids_in(self.text("task_output", task_id=match.group(1)))) < 2:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            found += pids
        for command in LEFTOVERS:
            (leftover,) = pids_in(self.text("bash", command=command))
            found.append(leftover)
        return found


@pytest.fixture
def stdio_server(tmp_path: Path) -> Iterator[RawStdioServer]:
    server = RawStdioServer(tmp_path)
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
        server.proc.wait(timeout=30)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_signal_to_a_stdio_server_ends_its_session(
    stdio_server: RawStdioServer, signum: int
) -> None:
    pids = stdio_server.processes()
    assert all(pid_alive(pid) for pid in pids)
    os.kill(stdio_server.proc.pid, signum)
    assert stdio_server.proc.wait(timeout=30) == 128 + signum
    assert await wait_gone(pids) == []


async def test_stdio_eof_ends_its_session(stdio_server: RawStdioServer) -> None:
    pids = stdio_server.processes()
    assert stdio_server.proc.stdin is not None
    stdio_server.proc.stdin.close()
    assert stdio_server.proc.wait(timeout=30) == 0
    assert await wait_gone(pids) == []


async def test_closing_a_stdio_client_ends_its_session(tmp_path: Path) -> None:
    async with stdio_client(workdir=tmp_path) as client:
        pids = await session_processes(client)
    assert await wait_gone(pids) == []
