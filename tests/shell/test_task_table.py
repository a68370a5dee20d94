"""The task table's waits and stops on real processes (README "Background tasks"): what
only the domain can show, such as a session closing under a wait."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from asyncio import FIRST_COMPLETED
from pathlib import Path

import pytest

from boris.errors import BorisError
from boris.shell.tasks import PRUNE_AGE, TaskTable
from tests.support.pids import pids_in, wait_gone
from tests.support.tasks import PROMPTLY

pytestmark = pytest.mark.anyio


async def test_closing_the_table_ends_a_wait(tmp_path: Path) -> None:
    """A session that ends stops a blocking task_output at once, with BASH_TASK_NOT_FOUND."""
    table = TaskTable()
    task_id = table.start(
        "/bin/sh",
        "while :; do echo tick; sleep 0.05; done",
        cwd=str(tmp_path),
        env=dict(os.environ),
        timeout=0,
    )
    heard = asyncio.Event()

    async def on_line(count: int, line: str) -> None:
        heard.set()  # the wait is under way

    try:
        waiting = asyncio.ensure_future(table.wait(task_id, 600, on_line))
        listening = asyncio.ensure_future(heard.wait())
        await asyncio.wait((listening, waiting), timeout=PROMPTLY, return_when=FIRST_COMPLETED)
        listening.cancel()
        assert not waiting.done(), waiting  # (a wait that failed shows its exception)
        assert heard.is_set(), "no line of the task was heard"
    finally:
        table.close()
    with pytest.raises(BorisError) as failure:
        await asyncio.wait_for(waiting, 30)  # only catches a hang
    assert str(failure.value) == (
        f"[BASH_TASK_NOT_FOUND] the session ended while waiting for background task "
        f"{task_id!r}; its tasks were stopped"
    )


async def test_a_cancelled_wait_leaves_the_task_running(tmp_path: Path) -> None:
    table = TaskTable()
    task_id = table.start(
        "/bin/sh",
        "echo started; exec sleep 300",
        cwd=str(tmp_path),
        env=dict(os.environ),
        timeout=0,
    )
    try:
        waiting = asyncio.ensure_future(table.wait(task_id, 600))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        deadline = time.monotonic() + PROMPTLY
        while (report := table.read(task_id)) != "status: running\n\nstdout:\nstarted\n":
            assert report == "status: running\n", report
            assert time.monotonic() < deadline, "the task's first line never came"
            await asyncio.sleep(0.02)
        assert await table.stop(task_id) == (
            "status: completed (stopped)\nexit_code: 143\n\nstdout:\nstarted\n"
        )
    finally:
        table.close()


async def test_what_a_read_task_left_is_kept_until_it_is_gone(tmp_path: Path) -> None:
    """A finished task that left a process running is forgotten once read, but the
    process stays in the table (for the session's end to end it) until it is gone; then
    a prune drops it, the next time the table looks (at most every PRUNE_AGE seconds)."""
    table = TaskTable()
    task_id = table.start(
        "/bin/sh", "sleep 300 & echo $!", cwd=str(tmp_path), env=dict(os.environ), timeout=0
    )
    try:
        report = await asyncio.wait_for(table.wait(task_id, PROMPTLY), PROMPTLY)
        (leftover,) = pids_in(report)
        assert report == f"status: completed\nexit_code: 0\n\nstdout:\n{leftover}\n"
        assert len(table) == 1  # the left-over process, no longer the task
        await asyncio.sleep(PRUNE_AGE)
        table.prune()
        assert len(table) == 1  # it lives
        os.kill(leftover, signal.SIGKILL)
        assert await wait_gone([leftover]) == []
        await asyncio.sleep(PRUNE_AGE)
        table.prune()
        assert len(table) == 0
    finally:
        table.close()  # ends whatever is left


async def test_a_wait_that_has_ended_sends_no_more_progress(tmp_path: Path) -> None:
    """A wait that timed out before the task printed anything sends nothing of what the
    task prints afterwards: its call has been answered."""
    table = TaskTable()
    go = tmp_path / "go"
    task_id = table.start(
        "/bin/sh",
        f"while [ ! -e '{go}' ]; do sleep 0.01; done; echo late",
        cwd=str(tmp_path),
        env=dict(os.environ),
        timeout=0,
    )
    sent: list[str] = []

    async def on_line(count: int, line: str) -> None:
        sent.append(line)

    try:
        report = await asyncio.wait_for(table.wait(task_id, 0.05, on_line), PROMPTLY)
        assert report == "status: running\n"
        go.touch()
        report = await asyncio.wait_for(table.wait(task_id, PROMPTLY), PROMPTLY)
        assert report == "status: completed\nexit_code: 0\n\nstdout:\nlate\n"
        await asyncio.sleep(0.1)  # time for a stray notification to go out
        assert sent == []
    finally:
        table.close()


def test_a_table_closes_after_the_loop_of_a_wait_is_gone(tmp_path: Path) -> None:
    """A session may close after the event loop a call waited in has been closed (a
    server shutting down): the wait has nobody to tell, and the tasks still end."""
    table = TaskTable()
    loop = asyncio.new_event_loop()
    waits: list[asyncio.Future[str]] = []

    async def start_and_wait() -> str:
        task_id = table.start(
            "/bin/sh", "echo $$; exec sleep 300", cwd=str(tmp_path), env=dict(os.environ), timeout=0
        )
        deadline = time.monotonic() + PROMPTLY
        while (report := table.read(task_id)) == "status: running\n":
            assert time.monotonic() < deadline, "the task's first line never came"
            await asyncio.sleep(0.02)
        waits.append(asyncio.ensure_future(table.wait(task_id, 600)))
        await asyncio.sleep(0)  # the wait is under way
        return report

    try:
        (pid,) = pids_in(loop.run_until_complete(start_and_wait()))
    finally:
        loop.close()
    table.close()
    assert asyncio.run(wait_gone([pid])) == []
