"""The bash tool: a shell command in the session's cwd, its exit code and output
(boris.shell.command runs it)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated

from fastmcp.dependencies import CurrentContext, Depends
from fastmcp.tools import tool
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris.session import Session, current_session
from boris.shell import command as commands
from boris.text import LIMIT
from boris.tools import Described, Filled, destructive, progress_of, served

if TYPE_CHECKING:
    from fastmcp import Context

log = logging.getLogger("boris.bash")

# The descriptions name the default timeout, which --timeout sets (Filled).
DESCRIPTION = f"""\
Run a shell command (bash, or sh where bash is missing) and return its exit code, stderr \
and stdout.

- The working directory carries over between calls: `cd` in one call is where the \
next call starts (a background command never changes it). Variables and other shell \
state do not carry over.
- Commands run non-interactively: stdin is empty and there is no terminal, so a \
command waiting for input ends at once instead of hanging.
- Timeout: {{timeout_ms}} ms by default, at most {commands.MAX_TIMEOUT_MS} ms. On timeout \
the command and every process it started are stopped; the output printed so far is \
returned.
- stdout and stderr are each cut after {LIMIT} characters.
- A non-zero exit code is a normal result, not an error.
- For a long-running process (a server, a watcher), set run_in_background and read \
its output later with task_output."""

COMPAT_DESCRIPTION = f"""\
Executes a given bash command and returns its exit code, stderr and stdout.

Usage notes:
- The command argument is required.
- You can specify an optional timeout in milliseconds (up to \
{commands.MAX_TIMEOUT_MS}ms / 10 minutes). If not specified, commands will time out \
after {{timeout_ms}}ms. When a command times out, its whole process group is killed and \
the partial output is returned.
- If the output exceeds {LIMIT} characters, output will be truncated before being \
returned to you.
- The working directory persists between commands (use cd to move around); shell \
variables do not.
- Commands run without a terminal and with empty stdin: avoid interactive commands.
- Use run_in_background to run a long-running command; you will get a task_id at \
once. Read its output later with the task_output tool. You do not need to append \
'&' to the command when using this parameter."""


@tool(
    "bash",
    annotations=destructive("Run a shell command"),
    description=Described(Filled(DESCRIPTION)),
)
@served(compat_description=Described(Filled(COMPAT_DESCRIPTION)))
async def bash(
    command: Annotated[str, Field(description="The shell command to run.")],
    timeout: Annotated[
        int | SkipJsonSchema[None],
        Field(description=f"Timeout in milliseconds (max {commands.MAX_TIMEOUT_MS})."),
    ] = None,
    run_in_background: Annotated[
        bool,
        Field(
            description="Start the command in the background and return a task id at "
            "once; read its output later with task_output."
        ),
    ] = False,
    description: Annotated[
        str | SkipJsonSchema[None],
        Field(description="A few words saying what the command does."),
    ] = None,
    session: Session = Depends(current_session),
    ctx: Context = CurrentContext(),
) -> str:
    commands.check_call(command, timeout)
    settings = session.settings
    log.debug("session %s: %s", session.id, command)
    shell, notice = commands.recovered(session.shell)
    if notice is not None:
        session.cwd = shell.cwd
    if run_in_background:
        timeout_s = float(settings.background_task_timeout)
        text = commands.start_background(shell, command, session.tasks, timeout_s)
        # After the two lines clients read the task id from.
        return text if notice is None else f"{text}\n\n{notice}"
    timeout_ms = commands.effective_timeout(timeout, settings.timeout_ms)
    finished = await commands.run(shell, command, session.tasks, timeout_ms, progress_of(ctx))
    if finished.cwd is not None:
        session.cwd = finished.cwd
    return finished.text if notice is None else f"{notice}\n\n{finished.text}"
