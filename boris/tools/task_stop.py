"""The task_stop tool: end a background command of this session and report it."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.session import Session, current_session
from boris.shell.processes import KILL_GRACE
from boris.tools import destructive

DESCRIPTION = f"""\
Stop a background command started with bash and run_in_background (a dev server, a \
watcher) and return its final output.

- Sends SIGTERM to the command and every process it started, and SIGKILL \
{KILL_GRACE:g} s later to whatever is left; returns once they have all ended.
- Answers like a finished task_output: `status: completed (stopped)`, the exit code \
(143 after SIGTERM, 137 after SIGKILL), stderr and stdout. The task is then forgotten.
- A task that had already finished: its final output is returned, and whatever it left \
running is ended all the same."""


@tool(
    "task_stop",
    annotations=destructive("Stop a background task"),
    description=DESCRIPTION,
)
async def task_stop(
    task_id: Annotated[
        str, Field(description="The task_id that bash returned for a background command.")
    ],
    session: Session = Depends(current_session),
) -> str:
    return await session.tasks.stop(task_id)
