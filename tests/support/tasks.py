"""Background tasks as a client starts and reads them (README "Background tasks"): the
expected texts, written out, starting a task through the bash tool (when there is room
for it), and how long a test waits for a task."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from tests.support import error_text, ok_text

#: Seconds a test waits for what takes milliseconds (a task's first line, heard as
#: progress) before it fails: far beyond any delay of a loaded machine, yet short
#: enough that a broken build fails the test rather than hangs it (mutation/run.py
#: stops a mutant's tests a few seconds after the time they take).
PROMPTLY = 10

#: bash's answer to ``run_in_background``: the task id, then a fixed line.
STARTED = re.compile(r"task_id: ([0-9a-f]{32})\nCommand started in background\.")

#: bash's answer to ``run_in_background`` while ten background commands are running.
LIMIT_REACHED = (
    "[BASH_TASK_LIMIT] 10 background tasks are already running in this session (the limit "
    "is 10); wait for one to finish, or read a finished one with task_output"
)


def not_found(task_id: str) -> str:
    """The answer about a task this session does not have (or no longer has)."""
    return (
        f"[BASH_TASK_NOT_FOUND] no background task {task_id!r} in this session; "
        "a finished task's output can be read only once"
    )


def task_id_of(result: Any) -> str:
    """The id in bash's answer to a ``run_in_background`` call, which must be that answer."""
    text = ok_text(result)
    match = STARTED.fullmatch(text)
    assert match, text
    return match.group(1)


async def start_in(client: Client[Any], directory: Path, command: str) -> str:
    """Start ``command`` in the background after a ``cd`` to ``directory``; its task id."""
    cd = await client.call_tool("bash", {"command": f"cd '{directory}'"}, raise_on_error=False)
    assert ok_text(cd) == "exit_code: 0\n"
    result = await client.call_tool(
        "bash", {"command": command, "run_in_background": True}, raise_on_error=False
    )
    return task_id_of(result)


async def start_when_room(client: Client[Any], command: str, within: float = PROMPTLY) -> str:
    """Start a background command, waiting while ten are running; its task id."""
    deadline = time.monotonic() + within
    while True:
        result = await client.call_tool(
            "bash", {"command": command, "run_in_background": True}, raise_on_error=False
        )
        if not result.is_error:
            return task_id_of(result)
        assert error_text(result) == LIMIT_REACHED
        assert time.monotonic() < deadline, "no room for a background task"
        await anyio.sleep(0.02)
