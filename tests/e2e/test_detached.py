"""Processes a command detaches on purpose (``setsid``, a double fork) end with the rest of
what the command started (README "Background tasks"): at task_stop, a foreground
command's timeout or cancel, the session's end, the server's exit; and once ended (or
ending on their own) none is left a zombie of the server.

Real servers, real clients; pids are checked in /proc.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support import (
    HttpServer,
    RawSession,
    http_client,
    http_server,
    ok_text,
    sdk_http_client,
    stdio_client,
)
from tests.support.pids import children, pid_alive, pids_in, server_pid, wait_gone
from tests.support.tasks import task_id_of

pytestmark = pytest.mark.anyio

#: A process that prints its pid, then sleeps for five minutes.
SLEEPER = "sh -c 'echo $$; exec sleep 300'"

#: Ways of starting one, detached from the command's kernel session: each prints the
#: detached process's pid.
DETACHED = {
    "setsid &": f"setsid {SLEEPER} &",
    "(setsid &)": f"(setsid {SLEEPER} &)",
    # A daemon's way: fork, setsid, fork again; the parents exit at once.
    "double fork": (
        f"{sys.executable} -c 'import os, time\n"
        "if os.fork(): os._exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): os._exit(0)\n"
        "print(os.getpid(), flush=True)\n"
        "time.sleep(300)'"
    ),
    # It clears its environment too: known by its parent, which waits for it.
    "setsid env -i &": "setsid env -i sh -c 'echo $$; exec sleep 300' & wait",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with http_server(workdir=tmp_path_factory.mktemp("detached")) as server:
        yield server


async def pids_of_task(client: Any, task_id: str, count: int = 1) -> list[int]:
    """The pids a task has printed, once it has printed ``count`` of them."""
    deadline = time.monotonic() + 30
    while (
        len(pids := pids_in(ok_text(await client.call_tool("task_output", {"task_id": task_id}))))
        < count
    ):
        assert time.monotonic() < deadline, "the task printed no pid"
        await anyio.sleep(0.05)
    return pids


async def background(client: Any, command: str) -> Any:
    return await client.call_tool("bash", {"command": command, "run_in_background": True})


def zombies_of(pid: int) -> list[int]:
    """The children of ``pid`` that have ended and not been waited for."""
    return [child for child in children(pid) if not pid_alive(child)]


async def no_zombies(pid: int, within: float = 10) -> list[int]:
    """Wait until ``pid`` has no zombie child; those left at the deadline."""
    deadline = time.monotonic() + within
    while (left := zombies_of(pid)) and time.monotonic() < deadline:  # noqa: ASYNC110 - /proc
        await anyio.sleep(0.05)
    return left


# --- task_stop ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", list(DETACHED))
async def test_task_stop_ends_what_a_running_task_detached(server: HttpServer, how: str) -> None:
    async with http_client(server.url) as client:
        command = f"{DETACHED[how]}\nsleep 300"
        task = task_id_of(
            await client.call_tool("bash", {"command": command, "run_in_background": True})
        )
        (detached,) = await pids_of_task(client, task)
        assert pid_alive(detached)
        text = ok_text(await client.call_tool("task_stop", {"task_id": task}))
        assert text.startswith("status: completed (stopped)\n"), text
        # task_stop answers once everything the task started has ended.
        assert not pid_alive(detached), how
        assert await no_zombies(await server_pid(client)) == []


async def test_task_stop_ends_what_a_finished_task_detached(server: HttpServer) -> None:
    async with http_client(server.url) as client:
        command = DETACHED["(setsid &)"]
        task = task_id_of(
            await client.call_tool("bash", {"command": command, "run_in_background": True})
        )
        result = await client.call_tool("task_output", {"task_id": task, "block": True})
        (detached,) = pids_in(ok_text(result))
        # Read, the task is forgotten; what it left still belongs to the session.
        assert pid_alive(detached)
    assert await wait_gone([detached]) == []


# --- foreground commands ------------------------------------------------------------------


@pytest.mark.parametrize("how", ["setsid &", "(setsid &)", "double fork"])
async def test_a_foreground_commands_detached_process_lives_until_the_session_ends(
    server: HttpServer, how: str
) -> None:
    async with sdk_http_client(server.url) as client:
        (detached,) = pids_in(ok_text(await client.call_tool("bash", {"command": DETACHED[how]})))
        await anyio.sleep(0.5)
        assert pid_alive(detached), "a foreground command's leftovers keep running"
        assert ok_text(await client.call_tool("bash", {"command": "echo next"})).endswith("next\n")
        assert pid_alive(detached)
    # The client's end of the session (DELETE) ends it.
    assert await wait_gone([detached]) == []


async def test_a_foreground_timeout_ends_its_detached_process(server: HttpServer) -> None:
    async with http_client(server.url) as client:
        command = f"{DETACHED['(setsid &)']}\nsleep 300"
        result = await client.call_tool("bash", {"command": command, "timeout": 2000})
        text = ok_text(result)
        assert text.startswith("Command timed out after 2000ms\n"), text
        (detached,) = pids_in(text)
        assert await wait_gone([detached]) == []
        assert pid_alive(await server_pid(client))


async def test_a_cancelled_foreground_call_ends_its_detached_process(
    server: HttpServer, tmp_path: Path
) -> None:
    session = RawSession(server.url)
    pid_file = tmp_path / "pid"
    command = f"(setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' &); sleep 300"
    call = {
        "jsonrpc": "2.0",
        "id": 40,
        "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": command}},
    }
    answered = threading.Thread(target=session.post, args=(call,), daemon=True)
    answered.start()
    deadline = time.monotonic() + 30
    while not pids_in(pid_file.read_text() if pid_file.exists() else ""):
        assert time.monotonic() < deadline
        await anyio.sleep(0.05)
    (detached,) = pids_in(pid_file.read_text())
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 40, "reason": "test"},
    }
    assert session.post(cancel)[0] == 202
    assert await wait_gone([detached]) == []
    await anyio.to_thread.run_sync(answered.join, 30)
    assert session.delete() == 200


# --- the server's exit --------------------------------------------------------------------


async def test_sigterm_to_an_http_server_ends_what_commands_detached(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as running:
        async with http_client(running.url) as client:
            pids = []
            for how in ("setsid &", "double fork"):
                text = ok_text(await client.call_tool("bash", {"command": DETACHED[how]}))
                pids += pids_in(text)
                command = f"{DETACHED[how]}\nsleep 300"
                task = task_id_of(await background(client, command))
                pids += await pids_of_task(client, task)
            # Detached, its environment cleared, and its parent gone at once: nothing
            # ties it to its command any more, but it is still below the server.
            text = ok_text(
                await client.call_tool(
                    "bash", {"command": "(setsid env -i sh -c 'echo $$; exec sleep 300' &)"}
                )
            )
            pids += pids_in(text)
            assert len(pids) == 5
            assert all(pid_alive(pid) for pid in pids)
            os.kill(running.proc.pid, signal.SIGTERM)
            running.proc.wait(timeout=30)
    assert await wait_gone(pids) == []


async def test_closing_a_stdio_client_ends_what_commands_detached(tmp_path: Path) -> None:
    async with stdio_client(workdir=tmp_path) as client:
        text = ok_text(await client.call_tool("bash", {"command": DETACHED["double fork"]}))
        (detached,) = pids_in(text)
        assert pid_alive(detached)
    assert await wait_gone([detached]) == []


# --- orphans are reaped ---------------------------------------------------------------------


async def test_orphans_that_end_are_reaped(server: HttpServer) -> None:
    """Orphans handed to the server (it is their subreaper) are waited for as they end,
    however they end: on their own, or killed by someone else."""
    async with http_client(server.url) as client:
        me = await server_pid(client)
        quick = "(setsid sh -c 'echo $$; exec sleep 0.2' &); (sh -c 'echo $$; exec sleep 0.2' &)"
        first, second = pids_in(ok_text(await client.call_tool("bash", {"command": quick})))
        (killed,) = pids_in(
            ok_text(await client.call_tool("bash", {"command": DETACHED["(setsid &)"]}))
        )
        assert parent_of(killed) == me  # handed to the server, not to init
        os.kill(killed, signal.SIGKILL)
        assert await wait_gone([first, second, killed]) == []
        assert await no_zombies(me) == []
        # Reaped: not even a zombie's entry is left.
        assert not any(Path(f"/proc/{pid}").exists() for pid in (first, second, killed))


def parent_of(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


async def test_reaping_orphans_takes_no_shells_exit_status(server: HttpServer) -> None:
    """While orphans end all around (each call leaves one that ends at once), every
    call still gets its own shell's exit status: the reaper waits only for orphans."""
    async with http_client(server.url) as client:
        codes: dict[int, str] = {}

        async def call(code: int) -> None:
            command = f"(setsid sh -c 'exit 0' &); (sleep 0.01 &); exit {code}"
            codes[code] = ok_text(await client.call_tool("bash", {"command": command}))

        async with anyio.create_task_group() as group:
            for code in range(40):
                group.start_soon(call, code)
        assert codes == {code: f"exit_code: {code}\n" for code in range(40)}
        assert await no_zombies(await server_pid(client)) == []
    assert "was lost" not in server.stderr()
