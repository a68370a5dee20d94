"""The task_output tool: status and output of a background command of this session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastmcp.dependencies import CurrentContext, Depends
from fastmcp.tools import tool
from pydantic import Field

from boris.session import Session, current_session
from boris.shell.command import MAX_TIMEOUT_MS
from boris.shell.tasks import UNREAD_LIMIT
from boris.text import LIMIT
from boris.tools import Described, Mention, progress_of, read_only, served

if TYPE_CHECKING:
    from fastmcp import Context

#: How long a blocking read waits by default, in milliseconds.
DEFAULT_WAIT_MS = 30_000

DESCRIPTION = Described(
    f"""\
Read the output of a background command started with bash and run_in_background.

While the command runs: `status: running`, then its stderr and stdout so far. Once \
it has finished: `status: completed`, its exit code, stderr and stdout; a finished \
task is then forgotten, so its output can be read only once. Each stream shows its \
first {LIMIT} characters. A session keeps the {UNREAD_LIMIT} most recently finished tasks \
that have not been read; older ones expire.

To wait instead of polling, set block to true: the call returns as soon as the task \
finishes, or after timeout ms (default {DEFAULT_WAIT_MS}, at most {MAX_TIMEOUT_MS}) with \
`status: running`.""",
    Mention("task_stop", " Stop a task with task_stop."),
)

COMPAT_DESCRIPTION = Described(
    f"""\
Retrieves output from a background bash command, given the task_id that bash \
returned when it was started with run_in_background.

- Returns `status: running` with the stdout and stderr produced so far while the \
command is still running.
- Returns `status: completed` with the exit code, stdout and stderr once it has \
finished; the task is then removed, so read a finished task only once.
- Output over {LIMIT} characters per stream is truncated.
- Set block to true to wait for the command to finish instead of polling: the call \
returns when it finishes, or after timeout milliseconds (default {DEFAULT_WAIT_MS}, max \
{MAX_TIMEOUT_MS}) with `status: running`.""",
    Mention("task_stop", "\n- Use task_stop to end a background command."),
)


# Async on purpose: the task's output is written by the event loop, so it is read there too.
@tool(
    "task_output",
    annotations=read_only("Read background task output"),
    description=DESCRIPTION,
)
@served(compat_description=COMPAT_DESCRIPTION)
async def task_output(
    task_id: Annotated[
        str, Field(description="The task_id that bash returned for a background command.")
    ],
    block: Annotated[
        bool,
        Field(description="Wait until the task finishes (or timeout passes) before answering."),
    ] = False,
    timeout: Annotated[
        int,
        Field(
            ge=1,
            le=MAX_TIMEOUT_MS,
            description=f"With block: the longest wait in milliseconds (max {MAX_TIMEOUT_MS}).",
        ),
    ] = DEFAULT_WAIT_MS,
    session: Session = Depends(current_session),
    ctx: Context = CurrentContext(),
) -> str:
    if not block:
        return session.tasks.read(task_id)
    return await session.tasks.wait(task_id, timeout / 1000, progress_of(ctx))
