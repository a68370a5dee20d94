"""The task_output tool: status and output of a background command of this session."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.session import Session, current_session
from boris.shell.tasks import UNREAD_LIMIT
from boris.text import LIMIT
from boris.tools import read_only

# Which text clients read depends on the mode: boris.app.describe picks it.
DESCRIPTION = f"""\
Read the output of a background command started with bash and run_in_background.

While the command runs: `status: running`, then its stderr and stdout so far. Once \
it has finished: `status: completed`, its exit code, stderr and stdout; a finished \
task is then forgotten, so its output can be read only once. Each stream shows its \
first {LIMIT} characters. A session keeps the {UNREAD_LIMIT} most recently finished tasks \
that have not been read; older ones expire."""

COMPAT_DESCRIPTION = f"""\
Retrieves output from a background bash command, given the task_id that bash \
returned when it was started with run_in_background.

- Returns `status: running` with the stdout and stderr produced so far while the \
command is still running.
- Returns `status: completed` with the exit code, stdout and stderr once it has \
finished; the task is then removed, so read a finished task only once.
- Output over {LIMIT} characters per stream is truncated."""


# Async on purpose: the task's output is written by the event loop, so it is read there too.
@tool(name="task_output", annotations=read_only("Read background task output"), output_schema=None)
async def task_output(
    task_id: Annotated[
        str, Field(description="The task_id that bash returned for a background command.")
    ],
    session: Session = Depends(current_session),
) -> str:
    return session.tasks.read(task_id)
