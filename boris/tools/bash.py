"""The bash tool: a shell command in the session's cwd, its exit code and output.

A foreground command runs inside a wrapper that prints a per-session sentinel and
``pwd`` after it, so a ``cd`` carries over to the next call. The wrapper's lines are
removed from the output; the exit code is the command's own.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from typing import TYPE_CHECKING, Annotated

from fastmcp.dependencies import CurrentContext, Depends
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from boris import environment, tasks
from boris.errors import Code, ToolFailure
from boris.output import LIMIT, Capture, SentinelScanner, exit_status, sections
from boris.process import ShellRun, child_environment
from boris.progress import LineSplitter, ProgressSender, progress_token
from boris.session import Session, current_session
from boris.settings import Settings
from boris.tools import ToolDef

if TYPE_CHECKING:
    from fastmcp import Context

log = logging.getLogger("boris.bash")

#: The longest timeout a call may ask for, in milliseconds.
MAX_TIMEOUT_MS = 600_000


def effective_timeout(timeout: int | None, default_ms: int) -> int:
    """The timeout a call runs with, in ms: the default when none is given, at most 10 minutes."""
    return min(timeout or default_ms, MAX_TIMEOUT_MS)


def quote(text: str) -> str:
    """``text`` as one single-quoted shell word."""
    return "'" + text.replace("'", "'\\''") + "'"


def sentinel_of(session: Session) -> str:
    return f"__BORIS_CWD_{session.nonce}__"


def foreground_script(cwd: str, command: str, sentinel: str) -> str:
    """``cd '<cwd>' && <command>``, then a newline, the sentinel and ``pwd``; exit with its status.

    The command gets lines of its own (a trailing comment or heredoc cannot swallow
    the wrapper). If the ``cd`` fails (the directory is gone) the command does not
    run at all and the wrapper still reports where the shell is, so the session
    recovers instead of failing every later call.
    """
    report = f"printf '\\n{sentinel}\\n'; pwd"
    return (
        f"cd {quote(cwd)} || {{ __boris_status=$?; {report}; exit $__boris_status; }}\n"
        f"{command}\n"
        f"__boris_status=$?; {report}; exit $__boris_status\n"
    )


def background_script(cwd: str, command: str) -> str:
    """``cd '<cwd>' && <command>``: no sentinel, a background task never moves the session."""
    return f"cd {quote(cwd)} || exit\n{command}\n"


def spawn_dir(session: Session) -> str:
    """Where the shell starts: the session cwd, or the workdir if that directory is gone."""
    for candidate in (session.cwd, session.settings.workdir):
        if os.path.isdir(candidate):
            return candidate
    return "/"


def start_failed(shell: str, exc: OSError, command: str) -> ToolFailure:
    message = f"could not start {shell}: {exc.strerror or exc}"
    if exc.errno == errno.E2BIG:
        # The kernel caps one argument at 128 KiB; the command travels as one.
        message += (
            f" (the command is {len(command.encode())} bytes; a command is limited to about "
            "128 KiB: write long content to a file with a file tool, then run a short command)"
        )
    return ToolFailure(Code.BASH_START_FAILED, message)


class Bash:
    """The bash tool bound to the server's settings and command environment."""

    def __init__(self, settings: Settings) -> None:
        self.default_timeout_ms = settings.timeout_ms
        self.background_timeout = float(settings.background_task_timeout)
        self.env = child_environment(environment.for_commands())

    async def call(
        self,
        session: Session,
        ctx: Context,
        command: str,
        timeout: int | None,  # noqa: ASYNC109 - the tool's parameter, in ms
        run_in_background: bool,
    ) -> str:
        if not command.strip():
            raise ToolFailure(Code.BASH_EMPTY_COMMAND, "command is empty; give a shell command")
        if timeout is not None and timeout <= 0:
            raise ToolFailure(
                Code.INVALID_INPUT,
                f"timeout: must be a positive number of milliseconds (at most {MAX_TIMEOUT_MS}), "
                f"got {timeout}",
            )
        if run_in_background:
            return self.start_background(session, command)
        timeout_ms = effective_timeout(timeout, self.default_timeout_ms)
        return await self.run(session, command, timeout_ms, ctx)

    def start_background(self, session: Session, command: str) -> str:
        shell = session.runtime.shell
        script = background_script(session.cwd, command)
        try:
            task_id = tasks.start(
                session,
                shell,
                script,
                cwd=spawn_dir(session),
                env=self.env,
                timeout=self.background_timeout,
            )
        except OSError as exc:
            raise start_failed(shell, exc, command) from None
        log.debug("session %s: background task %s: %s", session.id, task_id, command)
        return f"task_id: {task_id}\nCommand started in background."

    async def run(self, session: Session, command: str, timeout_ms: int, ctx: Context) -> str:
        log.debug("session %s: %s", session.id, command)
        tasks.prune_groups(session)
        shell = session.runtime.shell
        sentinel = sentinel_of(session)
        scanner = SentinelScanner(sentinel)
        stdout = Capture(keep=LIMIT + scanner.keep)
        stderr = Capture()
        sender = ProgressSender(ctx) if progress_token(ctx) is not None else None
        out_lines = LineSplitter(sender.add, sentinel) if sender else None
        err_lines = LineSplitter(sender.add) if sender else None

        def on_stdout(data: bytes) -> None:
            text = stdout.feed(data)
            scanner.feed(text)
            if out_lines is not None:
                out_lines.feed(text)

        def on_stderr(data: bytes) -> None:
            text = stderr.feed(data)
            if err_lines is not None:
                err_lines.feed(text)

        try:
            run = ShellRun(
                shell,
                foreground_script(session.cwd, command, sentinel),
                cwd=spawn_dir(session),
                env=self.env,
                on_stdout=on_stdout,
                on_stderr=on_stderr,
            )
        except OSError as exc:
            if sender is not None:
                sender.cancel()
            raise start_failed(shell, exc, command) from None
        timed_out = False

        def time_out() -> None:
            nonlocal timed_out
            if run.running:  # not when the shell has exited and its output is draining
                timed_out = True
                run.group.terminate()

        deadline = asyncio.get_running_loop().call_later(timeout_ms / 1000, time_out)
        try:
            tasks.track_group(session, run.group)
            await run.finished
        except BaseException:
            # Cancelled (client cancel, session DELETE, shutdown) or refused: end the group.
            run.group.terminate()
            run.detach()
            if sender is not None:
                sender.cancel()
            raise
        finally:
            deadline.cancel()
            tasks.release_group(session, run.group)

        rest, err_rest = stdout.finish(), stderr.finish()
        scanner.feed(rest)
        if sender is not None and out_lines is not None and err_lines is not None:
            out_lines.feed(rest)
            out_lines.finish()
            err_lines.feed(err_rest)
            err_lines.finish()
            await sender.close()

        block = scanner.result()
        if block is not None:
            stdout.cut(block.start, block.end)
            if block.pwd and not timed_out and os.path.isabs(block.pwd):
                session.cwd = block.pwd
        assert run.returncode is not None
        text = f"Command timed out after {timeout_ms}ms\n\n" if timed_out else ""
        text += f"exit_code: {exit_status(run.returncode)}\n"
        return text + sections(stderr.text(), stdout.text())


DESCRIPTION = """\
Run a shell command ({shell_hint}) and return its exit code, stderr and stdout.

- The working directory carries over between calls: `cd` in one call is where the \
next call starts (a background command never changes it). Variables and other shell \
state do not carry over.
- Commands run non-interactively: stdin is empty and there is no terminal, so a \
command waiting for input ends at once instead of hanging.
- Timeout: {default_ms} ms by default, at most 600000 ms. On timeout the command and \
every process it started are stopped; the output printed so far is returned.
- stdout and stderr are each cut after 30000 characters.
- A non-zero exit code is a normal result, not an error.
- For a long-running process (a server, a watcher), set run_in_background and read \
its output later with task_output."""

COMPAT_DESCRIPTION = """\
Executes a given bash command and returns its exit code, stderr and stdout.

Usage notes:
- The command argument is required.
- You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). \
If not specified, commands will time out after {default_ms}ms. When a command times \
out, its whole process group is killed and the partial output is returned.
- If the output exceeds 30000 characters, output will be truncated before being \
returned to you.
- The working directory persists between commands (use cd to move around); shell \
variables do not.
- Commands run without a terminal and with empty stdin: avoid interactive commands.
- Use run_in_background to run a long-running command; you will get a task_id at \
once. Read its output later with the task_output tool. You do not need to append \
'&' to the command when using this parameter."""


def definition(settings: Settings) -> ToolDef:
    tool = Bash(settings)

    async def bash(
        command: Annotated[str, Field(description="The shell command to run.")],
        timeout: Annotated[  # noqa: ASYNC109 - the tool's own parameter, in ms
            int | SkipJsonSchema[None],
            Field(description="Timeout in milliseconds (max 600000)."),
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
        return await tool.call(session, ctx, command, timeout, run_in_background)

    template = COMPAT_DESCRIPTION if settings.anthropic_compat else DESCRIPTION
    return ToolDef(
        fn=bash,
        title="Run a shell command",
        description=template.format(
            default_ms=settings.timeout_ms, shell_hint="bash, or sh where bash is missing"
        ),
        read_only=False,
    )
