"""Background tasks as a client starts and reads them (README "Background tasks"): the
expected texts, written out, and starting a task through the bash tool."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastmcp import Client

from tests.support import ok_text

#: bash's answer to ``run_in_background``: the task id, then a fixed line.
STARTED = re.compile(r"task_id: ([0-9a-f]{16})\nCommand started in background\.")


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
