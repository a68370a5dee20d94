"""One session cannot take every worker thread, and a call called off stops its work
(README "Limits and bad input"): on a real HTTP server, with two real sessions.

The blocking calls of a session (file tools, grep, glob) run on at most
``SESSION_THREADS`` of the server's worker threads, so another session's calls find
threads free however many slow calls the first one makes; and a cancelled grep, or one
whose session ends, stops burning CPU.

Bounds are wide: the other session's answer comes in seconds where it used to wait
for minutes, and once the slow calls are called off the server's CPU use (not the time
on the clock) must drop to near nothing within half a minute, where it used to stay at
a core's worth for minutes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from boris.session import SESSION_THREADS
from tests.support import HttpServer, RawSession, http_client, http_server, ok_text
from tests.support.interpose import watching_opens
from tests.support.pids import children, cpu_seconds

pytestmark = pytest.mark.anyio

#: A grep that keeps a thread busy for seconds: a multiline count over a 4 MB line of
#: two million matches.
SLOW = {"pattern": "b", "path": "slow.txt", "output_mode": "count", "multiline": True}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("threads")
    (root / "slow.txt").write_text("ab" * 2_000_000)
    (root / "small.txt").write_text("hello\n")
    with http_server(workdir=root) as running:
        yield running


async def threads_settled(pid: int) -> None:
    """Wait until the number of threads of ``pid`` has not changed for two seconds: the
    server has started all the threads it is going to (on a busy server that takes a
    while: starting a call needs the event loop, which the busy threads hold up)."""
    deadline = time.monotonic() + 60
    counts: list[int] = []
    while len(counts) < 5 or len(set(counts[-5:])) > 1:
        assert time.monotonic() < deadline, f"the threads never settled: {counts}"
        await anyio.sleep(0.5)
        counts.append(len(list(Path(f"/proc/{pid}/task").iterdir())))


def cpu_of(pid: int) -> float:
    """The CPU time ``pid`` and its children (the search workers) have used."""
    used = 0.0
    for one in [pid, *children(pid)]:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            used += cpu_seconds(one)
    return used


async def goes_quiet(pid: int, within: float = 30) -> bool:
    """Whether ``pid`` (with its children) spends a whole second using less than a
    third of a second of CPU, within ``within`` seconds: work called off has stopped.
    (Called-off work that goes on keeps a core busy: a second or so each second.)"""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        before = cpu_of(pid)
        await anyio.sleep(1)
        if cpu_of(pid) - before < 0.33:
            return True
    return False


async def test_another_sessions_view_is_answered_while_one_session_is_busy(
    server: HttpServer,
) -> None:
    """Session A keeps more slow greps going than the server has threads (40); session
    B's view is answered within seconds. Then A's calls are called off and its session
    ends, and the server goes quiet: queued calls never start, running ones stop. (The
    client gives up a cancel it cannot send within 5 s, and sends them one at a time:
    on a loaded machine a few may never leave it; the session's end calls those off.)"""
    async with http_client(server.url) as a, http_client(server.url) as b:
        assert ok_text(await b.call_tool("view", {"path": "small.txt"})) == "1\thello\n"
        async with anyio.create_task_group() as group:
            for _ in range(48):
                group.start_soon(a.call_tool, "grep", SLOW)
            await threads_settled(server.proc.pid)  # A's calls are under way
            started = time.monotonic()
            with anyio.fail_after(60):
                text = ok_text(await b.call_tool("view", {"path": "small.txt"}))
            waited = time.monotonic() - started
            group.cancel_scope.cancel()
        assert text == "1\thello\n"
        assert waited < 15, f"session B waited {waited:.1f} s"
    assert await goes_quiet(server.proc.pid), "the server kept working after the cancel"
    assert SESSION_THREADS < 40


async def test_a_grep_stops_when_its_session_ends(server: HttpServer) -> None:
    """Calls still open when their session ends (the client's DELETE) stop."""
    session = RawSession(server.url)

    def call() -> None:
        with contextlib.suppress(OSError):  # the answer never comes, or not whole
            session.post(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "grep", "arguments": SLOW},
                }
            )

    async with anyio.create_task_group() as group:
        for _ in range(SESSION_THREADS):
            group.start_soon(anyio.to_thread.run_sync, call)
        await threads_settled(server.proc.pid)
        assert session.delete() == 200
    assert await goes_quiet(server.proc.pid), "the server kept working after the session ended"


async def test_a_cancelled_tree_grep_stops_its_workers(server: HttpServer) -> None:
    """A grep over many files keeps the search workers busy; called off, it ends them."""
    async with http_client(server.url) as a:
        big = Path(ok_text(await a.call_tool("bash", {"command": "pwd"})).split("\n")[-2])
        tree = big / "tree"
        for n in range(2100):
            (tree / f"d{n % 7}").mkdir(parents=True, exist_ok=True)
            (tree / f"d{n % 7}" / f"f{n:05d}.txt").write_text("a\n")
        for n in range(6):
            (tree / f"z{n}.txt").write_text("ab" * 2_000_000)
        arguments: dict[str, Any] = {**SLOW, "path": "tree"}
        with watching_opens(tree) as opened:
            async with anyio.create_task_group() as group:
                group.start_soon(a.call_tool, "grep", arguments)
                # The workers are in the big files once one of them is opened.
                deadline = time.monotonic() + 60
                while not any(name.startswith("z") for name in opened()):
                    assert time.monotonic() < deadline, "no big file was opened"
                    await anyio.sleep(0.02)
                assert children(server.proc.pid), "no search workers started"
                group.cancel_scope.cancel()
        assert await goes_quiet(server.proc.pid), "the workers kept searching after the cancel"
        # The next search starts workers again and answers.
        again = await a.call_tool("grep", {"pattern": "ab", "path": "tree", "output_mode": "count"})
        assert ok_text(again) == "\n".join(f"z{n}.txt:1" for n in range(6))
