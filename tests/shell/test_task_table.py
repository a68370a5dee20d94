"""The task table's waits and stops on real processes (README "Background tasks"): what
only the domain can show, such as a session closing under a wait."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from boris.errors import BorisError
from boris.shell.tasks import TaskTable

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

    waiting = asyncio.ensure_future(table.wait(task_id, 600, on_line))
    await asyncio.wait_for(heard.wait(), 30)
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
    waiting = asyncio.ensure_future(table.wait(task_id, 600))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    while (report := table.read(task_id)) != "status: running\n\nstdout:\nstarted\n":
        assert report == "status: running\n", report
        await asyncio.sleep(0.02)
    assert await table.stop(task_id) == (
        "status: completed (stopped)\nexit_code: 143\n\nstdout:\nstarted\n"
    )
    table.close()
