"""The task_output tool: status and output of a background command of this session."""

from __future__ import annotations

from typing import Annotated

from fastmcp.dependencies import Depends
from pydantic import Field

from boris.session import Session, current_session
from boris.settings import Settings
from boris.shell import tasks
from boris.toolset import ToolDef


# Async on purpose: the task's output is written by the event loop, so it is read there too.
async def task_output(
    task_id: Annotated[
        str, Field(description="The task_id that bash returned for a background command.")
    ],
    session: Session = Depends(current_session),
) -> str:
    return tasks.read(session, task_id)


DESCRIPTION = """\
Read the output of a background command started with bash and run_in_background.

While the command runs: `status: running`, then its stderr and stdout so far. Once \
it has finished: `status: completed`, its exit code, stderr and stdout; a finished \
task is then forgotten, so its output can be read only once. Each stream shows its \
first 30000 characters. A session keeps the {unread} most recently finished tasks \
that have not been read; older ones expire."""

COMPAT_DESCRIPTION = """\
Retrieves output from a background bash command, given the task_id that bash \
returned when it was started with run_in_background.

- Returns `status: running` with the stdout and stderr produced so far while the \
command is still running.
- Returns `status: completed` with the exit code, stdout and stderr once it has \
finished; the task is then removed, so read a finished task only once.
- Output over 30000 characters per stream is truncated."""


def definition(settings: Settings) -> ToolDef:
    return ToolDef(
        fn=task_output,
        title="Read background task output",
        description=COMPAT_DESCRIPTION
        if settings.anthropic_compat
        else DESCRIPTION.format(unread=tasks.UNREAD_LIMIT),
        read_only=True,
    )
