"""task_output with block (README "Background tasks"): the call answers when the task
finishes, or after ``timeout`` ms with the running report; new output lines go out as
progress while it waits; a cancelled wait leaves the task running."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.tasks import PROMPTLY, start_when_room
from tests.support.tasks import start_in as start

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client[Any]]:
    async with app_client(workdir=tmp_path_factory.mktemp("task_wait")) as client:
        yield client


async def call(client: Client[Any], tool: str, **arguments: Any) -> Any:
    return await client.call_tool(tool, arguments, raise_on_error=False)


async def until_exists(path: Path) -> None:
    deadline = time.monotonic() + PROMPTLY
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        await anyio.sleep(0.02)


async def stop(client: Client[Any], task_id: str) -> None:
    text = ok_text(await call(client, "task_stop", task_id=task_id))
    assert text.startswith("status: completed"), text


# Prints `tick` until the file `go` exists, then the given lines.
TICKING = "while [ ! -e go ]; do echo tick; sleep 0.05; done; "


async def test_block_answers_when_the_task_finishes(client: Client[Any], tmp_path: Path) -> None:
    task_id = await start(
        client, tmp_path, "touch started; while [ ! -e go ]; do sleep 0.02; done; echo finished"
    )
    await until_exists(tmp_path / "started")
    results: list[Any] = []

    async def wait() -> None:
        results.append(await call(client, "task_output", task_id=task_id, block=True))

    with anyio.fail_after(PROMPTLY):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            # Other calls go on while one waits.
            assert ok_text(await call(client, "bash", command="echo meanwhile")) == (
                "exit_code: 0\n\nstdout:\nmeanwhile\n"
            )
            assert results == []
            (tmp_path / "go").touch()
    assert ok_text(results[0]) == "status: completed\nexit_code: 0\n\nstdout:\nfinished\n"
    # Read once, as without block.
    assert error_text(await call(client, "task_output", task_id=task_id)).startswith(
        "[BASH_TASK_NOT_FOUND] "
    )


async def test_block_times_out_with_the_running_report(client: Client[Any], tmp_path: Path) -> None:
    task_id = await start(client, tmp_path, "echo started; touch started; sleep 300")
    await until_exists(tmp_path / "started")
    start_time = time.monotonic()
    with anyio.fail_after(PROMPTLY):
        text = ok_text(await call(client, "task_output", task_id=task_id, block=True, timeout=300))
    assert time.monotonic() - start_time >= 0.3
    assert text == "status: running\n\nstdout:\nstarted\n"
    await stop(client, task_id)


async def test_block_on_a_finished_task_answers_at_once(tmp_path: Path) -> None:
    """A task known to have finished is reported at once, however long the call may wait."""
    async with app_client(workdir=tmp_path) as client:
        task_id = await start(client, tmp_path, "echo done; exit 2")
        sleepers = [await start(client, tmp_path, "sleep 300") for _ in range(9)]
        # Finished tasks do not count against the ten that may run: a tenth starts only
        # once the first has finished (as the server sees it).
        sleepers.append(await start_when_room(client, "sleep 300"))
        with anyio.fail_after(PROMPTLY):  # it does not wait for anything
            result = await call(client, "task_output", task_id=task_id, block=True, timeout=600_000)
        assert ok_text(result) == "status: completed\nexit_code: 2\n\nstdout:\ndone\n"
        for sleeper in sleepers:
            await stop(client, sleeper)


async def test_block_false_is_todays_read(client: Client[Any], tmp_path: Path) -> None:
    task_id = await start(client, tmp_path, "touch started; sleep 300")
    await until_exists(tmp_path / "started")
    text = ok_text(await call(client, "task_output", task_id=task_id, block=False, timeout=1))
    assert text == "status: running\n"
    await stop(client, task_id)


async def test_timeout_bounds(client: Client[Any]) -> None:
    for timeout, problem in (
        (0, "Input should be greater than or equal to 1"),
        (600_001, "Input should be less than or equal to 600000"),
        ("5", "Input should be a valid integer"),
    ):
        text = error_text(
            await call(client, "task_output", task_id="x", block=True, timeout=timeout)
        )
        assert text == f"[INVALID_INPUT] timeout: {problem}"
    text = error_text(await call(client, "task_output", task_id="nope", block=True))
    assert text == (
        "[BASH_TASK_NOT_FOUND] no background task 'nope' in this session; "
        "a finished task's output can be read only once"
    )


async def test_new_lines_are_sent_as_progress(client: Client[Any], tmp_path: Path) -> None:
    """While waiting, each new line of the task's output (stderr included) is one progress
    notification: progress counts lines from the start of the wait, message is the line.
    A last line without a newline is sent when the task ends, with the character it cuts
    short shown as U+FFFD (as the report shows it), stdout's first."""
    task_id = await start(
        client,
        tmp_path,
        TICKING + "echo one; while [ ! -e seen-one ]; do sleep 0.01; done; echo two >&2; "
        r"while [ ! -e seen-two ]; do sleep 0.01; done; printf 'three\342\202'; "
        r"printf 'four\342' >&2",
    )
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        assert total is None
        seen.append((progress, message))
        if message == "tick":
            (tmp_path / "go").touch()  # the wait is under way: let the task go on
        elif message in ("one", "two"):
            (tmp_path / f"seen-{message}").touch()

    result = await client.call_tool(
        "task_output",
        {"task_id": task_id, "block": True, "timeout": PROMPTLY * 1000},
        progress_handler=on_progress,
    )
    text = ok_text(result)
    assert text.startswith(
        # The stderr section ends where stderr does: the newline is the next section's.
        "status: completed\nexit_code: 0\n\nstderr:\ntwo\nfour\N{REPLACEMENT CHARACTER}\n"
        "stdout:\ntick\n"
    )
    assert text.endswith("tick\none\nthree\N{REPLACEMENT CHARACTER}")
    assert all(a < b for (a, _), (b, _) in itertools.pairwise(seen))
    assert [m for _, m in seen if m != "tick"] == [
        "one",
        "two",
        "three\N{REPLACEMENT CHARACTER}",
        "four\N{REPLACEMENT CHARACTER}",
    ]


async def test_cancel_ends_the_wait_not_the_task(client: Client[Any], tmp_path: Path) -> None:
    task_id = await start(client, tmp_path, TICKING + "echo after")
    waiting = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        waiting.set()

    async def wait() -> None:
        await client.call_tool(
            "task_output",
            {"task_id": task_id, "block": True, "timeout": 600_000},
            progress_handler=on_progress,
        )

    with anyio.fail_after(PROMPTLY):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await waiting.wait()
            group.cancel_scope.cancel()
    text = ok_text(await call(client, "task_output", task_id=task_id))
    assert text.startswith("status: running\n\nstdout:\ntick\n"), text
    (tmp_path / "go").touch()
    with anyio.fail_after(PROMPTLY):
        text = ok_text(await call(client, "task_output", task_id=task_id, block=True))
    assert text.startswith("status: completed\nexit_code: 0\n\nstdout:\ntick\n"), text
    assert text.endswith("tick\nafter\n")


async def test_every_waiter_of_a_stopped_task_is_told_it_was_stopped(
    client: Client[Any], tmp_path: Path
) -> None:
    """Fifty calls wait for one task; task_stop ends it. Each of them answers with the
    task's final report, which says it was stopped (not that it cannot be found)."""
    task_id = await start(client, tmp_path, TICKING + "echo never")
    waiting = [anyio.Event() for _ in range(50)]
    results: list[str] = []

    async def wait(heard: anyio.Event) -> None:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard.set()  # this call is waiting: it hears the task's lines

        result = await client.call_tool(
            "task_output",
            {"task_id": task_id, "block": True, "timeout": 600_000},
            progress_handler=on_progress,
            raise_on_error=False,
        )
        results.append(ok_text(result))

    with anyio.fail_after(PROMPTLY):
        async with anyio.create_task_group() as group:
            for heard in waiting:
                group.start_soon(wait, heard)
            for heard in waiting:
                await heard.wait()
            stopped = ok_text(await call(client, "task_stop", task_id=task_id))
    assert stopped.startswith("status: completed (stopped)\nexit_code: 143\n\nstdout:\ntick\n")
    assert results == [stopped] * 50


async def test_every_waiter_of_a_finished_task_gets_its_report(
    client: Client[Any], tmp_path: Path
) -> None:
    """Fifty calls wait for one task that finishes: each answers with its final report,
    and the task is forgotten after that."""
    task_id = await start(client, tmp_path, TICKING + "echo done")
    waiting = [anyio.Event() for _ in range(50)]
    results: list[str] = []

    async def wait(heard: anyio.Event) -> None:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            heard.set()

        result = await client.call_tool(
            "task_output",
            {"task_id": task_id, "block": True, "timeout": 600_000},
            progress_handler=on_progress,
            raise_on_error=False,
        )
        results.append(ok_text(result))

    with anyio.fail_after(PROMPTLY):
        async with anyio.create_task_group() as group:
            for heard in waiting:
                group.start_soon(wait, heard)
            for heard in waiting:
                await heard.wait()
            (tmp_path / "go").touch()
    assert len(set(results)) == 1
    assert results[0].startswith("status: completed\nexit_code: 0\n\nstdout:\ntick\n")
    assert results[0].endswith("tick\ndone\n")
    text = error_text(await call(client, "task_output", task_id=task_id))
    assert text.startswith("[BASH_TASK_NOT_FOUND] ")
