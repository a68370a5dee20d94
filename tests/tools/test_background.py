"""Background commands and task_output through a real client (README "Background tasks")."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.pids import pid_alive, pids_in, wait_gone
from tests.support.tasks import (
    LIMIT_REACHED,
    PROMPTLY,
    STARTED,
    not_found,
    start_when_room,
    task_id_of,
)

pytestmark = pytest.mark.anyio

TRUNCATED = "\n\n[Truncated: output was {n} characters, showing first 30000]"


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client[Any]]:
    async with app_client(workdir=tmp_path_factory.mktemp("background")) as client:
        yield client


async def bash(client: Client[Any], command: str) -> str:
    return ok_text(await client.call_tool("bash", {"command": command}, raise_on_error=False))


async def start(client: Client[Any], command: str) -> str:
    result = await client.call_tool(
        "bash", {"command": command, "run_in_background": True}, raise_on_error=False
    )
    return task_id_of(result)


async def task_output(client: Client[Any], task_id: str) -> Any:
    return await client.call_tool("task_output", {"task_id": task_id}, raise_on_error=False)


async def until_completed(client: Client[Any], task_id: str, within: float = PROMPTLY) -> str:
    """Poll task_output until the task has finished; that read is its last."""
    deadline = time.monotonic() + within
    while True:
        text = ok_text(await task_output(client, task_id))
        if not text.startswith("status: running\n"):
            return text
        assert time.monotonic() < deadline, f"task still running: {text!r}"
        await anyio.sleep(0.05)


async def until_running_shows(
    client: Client[Any], task_id: str, expected: str, within: float = PROMPTLY
) -> None:
    deadline = time.monotonic() + within
    while (text := ok_text(await task_output(client, task_id))) != expected:
        assert text.startswith("status: running\n"), text
        assert time.monotonic() < deadline, f"never saw {expected!r}, last {text!r}"
        await anyio.sleep(0.05)


async def enter(client: Client[Any], directory: Path) -> None:
    assert await bash(client, f"cd '{directory}'") == "exit_code: 0\n"


async def test_lifecycle_running_completed_then_gone(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    task_id = await start(
        client,
        "echo started; echo warn >&2; while [ ! -e go ]; do sleep 0.05; done; echo finished; "
        "exit 4",
    )
    await until_running_shows(
        client, task_id, "status: running\n\nstderr:\nwarn\n\nstdout:\nstarted\n"
    )
    (tmp_path / "go").touch()
    assert await until_completed(client, task_id) == (
        "status: completed\nexit_code: 4\n\nstderr:\nwarn\n\nstdout:\nstarted\nfinished\n"
    )
    # A finished task is read once.
    assert error_text(await task_output(client, task_id)) == not_found(task_id)


async def test_running_with_no_output_yet(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    task_id = await start(client, "while [ ! -e go ]; do sleep 0.05; done")
    assert ok_text(await task_output(client, task_id)) == "status: running\n"
    (tmp_path / "go").touch()
    assert await until_completed(client, task_id) == "status: completed\nexit_code: 0\n"


async def test_starts_in_the_session_cwd_and_never_moves_it(
    client: Client[Any], tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    await enter(client, tmp_path / "sub")
    task_id = await start(client, "pwd; cd /; pwd")
    assert await until_completed(client, task_id) == (
        f"status: completed\nexit_code: 0\n\nstdout:\n{tmp_path / 'sub'}\n/\n"
    )
    assert await bash(client, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path / 'sub'}\n"


async def test_background_commands_are_not_interactive(client: Client[Any], tmp_path: Path) -> None:
    """A background command gets the environment a foreground one gets: a pager or a
    credential prompt would hold it up until it is stopped."""
    await enter(client, tmp_path)
    task_id = await start(client, 'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"')
    assert await until_completed(client, task_id) == (
        "status: completed\nexit_code: 0\n\nstdout:\ncat cat 0\n"
    )


async def test_what_a_read_task_left_running_ends_with_the_session(tmp_path: Path) -> None:
    """A finished task may have left a process running (`server &`). Once the task has
    been read it is forgotten, but that process is still the session's: it ends when the
    session closes (each such process, however many tasks left one)."""
    leftovers = []
    async with app_client(workdir=tmp_path) as client:
        for _ in range(2):
            task_id = await start(client, "sleep 300 & echo $!")
            text = await until_completed(client, task_id)
            (leftover,) = pids_in(text)
            leftovers.append(leftover)
            assert text == f"status: completed\nexit_code: 0\n\nstdout:\n{leftover}\n"
            assert error_text(await task_output(client, task_id)) == not_found(task_id)
        assert [pid for pid in leftovers if not pid_alive(pid)] == []
    await end_all(leftovers)


async def end_all(pids: list[int]) -> None:
    """Check that ``pids`` end (within 15 s); those that do not are killed, not left."""
    left = await wait_gone(pids)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


async def test_unknown_task_id(client: Client[Any]) -> None:
    for task_id in ("0123456789abcdef", "nope", "group-1"):
        assert error_text(await task_output(client, task_id)) == not_found(task_id)


async def test_missing_task_id(client: Client[Any]) -> None:
    text = error_text(await client.call_tool("task_output", {}, raise_on_error=False))
    assert text == "[INVALID_INPUT] task_id: missing required argument"


async def test_output_is_bounded_like_foreground_output(
    client: Client[Any], tmp_path: Path
) -> None:
    await enter(client, tmp_path)
    task_id = await start(client, "yes | head -c 5000000; echo done >&2")
    assert await until_completed(client, task_id) == (
        "status: completed\nexit_code: 0\n\nstderr:\ndone\n\nstdout:\n"
        + "y\n" * 15000
        + TRUNCATED.format(n=5_000_000)
    )


async def test_task_ids_are_distinct(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    ids = [await start(client, "true") for _ in range(5)]
    assert len(set(ids)) == 5
    for task_id in ids:
        assert await until_completed(client, task_id) == "status: completed\nexit_code: 0\n"


async def test_limit_of_ten_running_tasks(tmp_path: Path) -> None:
    async with app_client(workdir=tmp_path) as client:
        sleepers = [await start(client, "echo $$; sleep 300") for _ in range(9)]
        quick = await start(client, "true")
        # The quick one finishes; finished tasks not yet read do not count.
        deadline = time.monotonic() + PROMPTLY
        while True:
            result = await client.call_tool(
                "bash",
                {"command": "echo $$; sleep 300", "run_in_background": True},
                raise_on_error=False,
            )
            if not result.is_error:
                assert STARTED.fullmatch(ok_text(result))
                break
            assert error_text(result) == LIMIT_REACHED
            assert time.monotonic() < deadline
            await anyio.sleep(0.05)
        # Now ten are running.
        result = await client.call_tool(
            "bash", {"command": "true", "run_in_background": True}, raise_on_error=False
        )
        assert error_text(result) == LIMIT_REACHED
        assert await until_completed(client, quick) == "status: completed\nexit_code: 0\n"
        # Foreground commands are not limited.
        assert await bash(client, "echo fine") == "exit_code: 0\n\nstdout:\nfine\n"
        # Ending one makes room again.
        first = ok_text(await task_output(client, sleepers[0]))
        (pid,) = pids_in(first)
        await bash(client, f"kill {pid}")
        assert (await until_completed(client, sleepers[0])).startswith(
            "status: completed\nexit_code: 143\n"
        )
        await start(client, "true")


async def test_safety_net_timeout(tmp_path: Path) -> None:
    async with app_client("--background-task-timeout", "1", workdir=tmp_path) as client:
        plain = await start(client, "echo hi; sleep 300 & echo $!; wait")
        graceful = await start(client, "trap 'echo bye; exit 5' TERM; sleep 300 & wait")
        quick = await start(client, "echo quick")

        assert await until_completed(client, quick) == (
            "status: completed\nexit_code: 0\n\nstdout:\nquick\n"
        )
        text = await until_completed(client, plain)
        (grandchild,) = pids_in(text)
        assert text == (
            "status: completed (killed by background task timeout)\nexit_code: 143\n\n"
            f"stdout:\nhi\n{grandchild}\n"
        )
        assert await wait_gone([grandchild]) == []
        assert await until_completed(client, graceful) == (
            "status: completed (killed by background task timeout)\nexit_code: 5\n\nstdout:\nbye\n"
        )


async def test_safety_net_timeout_kills_what_ignores_sigterm(tmp_path: Path) -> None:
    """SIGKILL follows the timeout's SIGTERM KILL_GRACE (5 s) later."""
    async with app_client("--background-task-timeout", "1", workdir=tmp_path) as client:
        stubborn = await start(client, "trap '' TERM; echo $$; sleep 300")
        text = await until_completed(client, stubborn, within=60)
        (shell,) = pids_in(text)
        assert text == (
            "status: completed (killed by background task timeout)\nexit_code: 137\n\n"
            f"stdout:\n{shell}\n"
        )
        assert not pid_alive(shell)


def expired(task_id: str) -> str:
    return (
        f"[BASH_TASK_NOT_FOUND] background task {task_id!r} expired: a session keeps only "
        "the 100 newest finished tasks that have not been read; read a task's output soon "
        "after it finishes"
    )


async def fence(client: Client[Any], gate: Path) -> list[str]:
    """Return once every task started before has finished; the fence's tasks keep running.

    Ten tasks wait for ``gate``. The tenth starts only while fewer than ten run, and the
    nine before it are all waiting: so at that moment nothing else was running.
    """
    waiter = f"while [ ! -e '{gate}' ]; do sleep 0.05; done; echo fence"
    return [await start_when_room(client, waiter) for _ in range(10)]


async def test_unread_finished_tasks_are_bounded(tmp_path: Path) -> None:
    """A session keeps the 100 newest finished tasks nobody has read; older ones expire.

    Newest means most recently finished. An expired task's id says it expired.
    """
    async with app_client(workdir=tmp_path) as client:
        # It leaves a process running: expired, the task is still the session's to end.
        oldest = await start(client, "sleep 300 >/dev/null & echo $! > oldest.pid; echo oldest")
        first_fence = await fence(client, tmp_path / "gate1")  # `oldest` has finished
        (tmp_path / "gate1").touch()
        quick = [await start_when_room(client, f"echo {n}") for n in range(90)]
        second_fence = await fence(client, tmp_path / "gate2")
        # Finished and unread now: oldest, the first fence's ten, the ninety: 101.
        assert error_text(await task_output(client, oldest)) == expired(oldest)
        assert error_text(await task_output(client, oldest)) == expired(oldest)
        for task_id in first_fence:
            assert ok_text(await task_output(client, task_id)) == (
                "status: completed\nexit_code: 0\n\nstdout:\nfence\n"
            )
        for n, task_id in enumerate(quick):
            assert ok_text(await task_output(client, task_id)) == (
                f"status: completed\nexit_code: 0\n\nstdout:\n{n}\n"
            )
        # Running tasks never expire.
        (tmp_path / "gate2").touch()
        for task_id in second_fence:
            assert await until_completed(client, task_id) == (
                "status: completed\nexit_code: 0\n\nstdout:\nfence\n"
            )
        # Read tasks are gone as before, not expired.
        assert error_text(await task_output(client, quick[0])) == not_found(quick[0])
        (leftover,) = pids_in((tmp_path / "oldest.pid").read_text())
        assert pid_alive(leftover)
    await end_all([leftover])
