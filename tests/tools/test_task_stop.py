"""task_stop through a real client (README "Background tasks"): a running task's whole
process group ends (SIGTERM, then SIGKILL 5 s later), the call answers once it has ended,
in task_output's finished format, and the task is forgotten."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from boris.shell.process import DRAIN_GRACE
from boris.shell.processes import KILL_GRACE
from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.pids import pid_alive, pids_in, wait_gone
from tests.support.tasks import PROMPTLY, not_found
from tests.support.tasks import start_in as start

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client[Any]]:
    async with app_client(workdir=tmp_path_factory.mktemp("task_stop")) as client:
        yield client


async def call(client: Client[Any], tool: str, **arguments: Any) -> Any:
    return await client.call_tool(tool, arguments, raise_on_error=False)


async def pids_written(pid_file: Path, count: int) -> list[int]:
    deadline = time.monotonic() + PROMPTLY
    while len(pids := pids_in(pid_file.read_text() if pid_file.exists() else "")) < count:
        assert time.monotonic() < deadline, "the command never started"
        await anyio.sleep(0.05)
    return pids


async def test_stop_a_running_task(client: Client[Any], tmp_path: Path) -> None:
    """SIGTERM ends the shell and what it started; the exit code is the shell's 128 + 15."""
    task_id = await start(
        client,
        tmp_path,
        # The pids are written last: once they are there, so is the output.
        "echo started; echo warn >&2; sleep 300 & echo $! > pids; echo $$ >> pids; wait",
    )
    pids = await pids_written(tmp_path / "pids", 2)
    # Nothing outlives SIGTERM: the answer does not wait for the SIGKILL 5 s later.
    with anyio.fail_after(KILL_GRACE):
        text = ok_text(await call(client, "task_stop", task_id=task_id))
    assert text == (
        "status: completed (stopped)\nexit_code: 143\n\nstderr:\nwarn\n\nstdout:\nstarted\n"
    )
    # The call answers once every process of the task has ended.
    assert [pid for pid in pids if pid_alive(pid)] == []
    # The task is forgotten, as after a finished read.
    assert error_text(await call(client, "task_output", task_id=task_id)) == not_found(task_id)
    assert error_text(await call(client, "task_stop", task_id=task_id)) == not_found(task_id)


async def test_stop_kills_what_ignores_sigterm(client: Client[Any], tmp_path: Path) -> None:
    """Whatever outlives SIGTERM gets SIGKILL 5 s later: exit code 128 + 9."""
    task_id = await start(
        client,
        tmp_path,
        "trap '' TERM; echo $$ > pids; sleep 300 & echo $! >> pids; while :; do sleep 0.05; done",
    )
    pids = await pids_written(tmp_path / "pids", 2)
    with anyio.fail_after(30):  # SIGKILL comes after 5 s: this only catches a hang
        text = ok_text(await call(client, "task_stop", task_id=task_id))
    assert text == "status: completed (stopped)\nexit_code: 137\n"
    assert [pid for pid in pids if pid_alive(pid)] == []


async def test_stop_ends_jobs_that_left_the_process_group(
    client: Client[Any], tmp_path: Path
) -> None:
    """With job control on (`set -m`) a job runs in a process group of its own; it is
    still the task's, and ends with it."""
    task_id = await start(
        client, tmp_path, "set -m; sleep 300 & echo $! > pids; echo $$ >> pids; wait"
    )
    pids = await pids_written(tmp_path / "pids", 2)
    text = ok_text(await call(client, "task_stop", task_id=task_id))
    assert text.startswith("status: completed (stopped)\nexit_code: "), text
    assert [pid for pid in pids if pid_alive(pid)] == []


async def test_stop_after_the_shell_exited_ends_what_it_left(
    client: Client[Any], tmp_path: Path
) -> None:
    """A task whose shell has exited but left a process running: the stop ends that
    process too (with SIGKILL 5 s later, as it ignores SIGTERM), and answers once it
    has, with the task's own status."""
    task_id = await start(
        client,
        tmp_path,
        "echo $$ > pids; trap '' TERM; sleep 300 & echo $! >> pids; echo started",
    )
    shell, leftover = await pids_written(tmp_path / "pids", 2)
    assert await wait_gone([shell]) == []
    # Output is still collected for a moment after the shell exits (DRAIN_GRACE).
    await anyio.sleep(10 * DRAIN_GRACE)
    with anyio.fail_after(30):  # SIGKILL comes after 5 s: this only catches a hang
        text = ok_text(await call(client, "task_stop", task_id=task_id))
    assert text == "status: completed\nexit_code: 0\n\nstdout:\nstarted\n"
    assert not pid_alive(leftover)
    assert error_text(await call(client, "task_output", task_id=task_id)) == not_found(task_id)


async def test_stop_a_finished_task_answers_its_output(client: Client[Any], tmp_path: Path) -> None:
    """A task that had finished is reported as task_output would: plain `completed`."""
    task_id = await start(client, tmp_path, "echo $$ > pids; echo done; exit 3")
    (shell,) = await pids_written(tmp_path / "pids", 1)
    assert await wait_gone([shell]) == []
    # One more round trip: the server has seen the exit by the time it answers.
    assert ok_text(await call(client, "bash", command="true")) == "exit_code: 0\n"
    text = ok_text(await call(client, "task_stop", task_id=task_id))
    assert text == "status: completed\nexit_code: 3\n\nstdout:\ndone\n"
    assert error_text(await call(client, "task_output", task_id=task_id)) == not_found(task_id)


async def test_unknown_or_missing_task_id(client: Client[Any]) -> None:
    for task_id in ("0123456789abcdef", "nope", "group-1", ""):
        assert error_text(await call(client, "task_stop", task_id=task_id)) == not_found(task_id)
    text = error_text(await call(client, "task_stop"))
    assert text == "[INVALID_INPUT] task_id: missing required argument"


async def test_a_stopped_task_frees_its_slot(client: Client[Any], tmp_path: Path) -> None:
    """A stopped task no longer counts against the session's running tasks."""
    ids = [await start(client, tmp_path, "sleep 300") for _ in range(10)]
    refused = await call(client, "bash", command="true", run_in_background=True)
    assert error_text(refused).startswith("[BASH_TASK_LIMIT] ")
    for task_id in ids[1:]:
        assert ok_text(await call(client, "task_stop", task_id=task_id)) == (
            "status: completed (stopped)\nexit_code: 143\n"
        )
    another = await start(client, tmp_path, "sleep 300")
    for task_id in (ids[0], another):
        assert ok_text(await call(client, "task_stop", task_id=task_id)) == (
            "status: completed (stopped)\nexit_code: 143\n"
        )


async def test_two_stops_at_once(client: Client[Any], tmp_path: Path) -> None:
    """Two stops of one task: both answer; one of them with the report, and the task is
    gone afterwards either way."""
    task_id = await start(client, tmp_path, "echo $$ > pids; sleep 300")
    await pids_written(tmp_path / "pids", 1)
    results: list[Any] = []

    async def stop() -> None:
        results.append(await call(client, "task_stop", task_id=task_id))

    async with anyio.create_task_group() as group:
        group.start_soon(stop)
        group.start_soon(stop)
    texts = sorted(r.content[0].text for r in results)
    assert "status: completed (stopped)\nexit_code: 143\n" in texts
    assert error_text(await call(client, "task_output", task_id=task_id)) == not_found(task_id)
