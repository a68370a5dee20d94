"""The bash tool: a shell command in the session's cwd, its exit code and output.

A small wrapper script runs each command. The command is not part of the script: it
is the script's last argument, run with ``eval``, so no command text (a heredoc or a
quote left open, a trailing comment or backslash) can reach the wrapper's own code.
After a foreground command the wrapper writes ``pwd`` and a NUL on a report pipe that
the command never holds, so a ``cd`` carries over to the next call while stdout is
exactly what the command wrote. The exit code is the command's own.
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

from boris.errors import BorisError, Code
from boris.session import Session, current_session
from boris.settings import Settings
from boris.shell import environment, tasks
from boris.shell.capture import Capture, exit_status, sections
from boris.shell.process import ShellRun, child_environment
from boris.shell.progress import LineSplitter, ProgressSender, progress_token
from boris.toolset import ToolDef

if TYPE_CHECKING:
    from fastmcp import Context

log = logging.getLogger("boris.bash")

#: The longest timeout a call may ask for, in milliseconds.
MAX_TIMEOUT_MS = 600_000

#: Bytes one chdir() accepts in a path, its terminating NUL included (Linux PATH_MAX).
PATH_MAX = 4096

#: The longest cwd a report may name, in bytes; after a longer one the cwd stays as it was.
MAX_CWD = 65_536

# Both wrappers take the steps to the session cwd (see cd_steps), then the command.
# The steps after the first are physical (`cd -P`): a logical cd past PATH_MAX fails
# in some shells. The command runs on line 1 with no positional parameters, as
# `<shell> -c <command>` would: its error messages give the user's own line numbers and
# lines. (Nothing may precede it in the eval: a syntax error quotes its whole first line.)
_ENTER = (
    'cd -- "$1" || {fail}; shift; while [ $# -gt 1 ]; do cd -P -- "$1" || {fail}; shift; done; '
)
_RUN = '__boris_command=$1; shift; eval "$__boris_command"'
# The cwd as `pwd` prints it (a newline ends it), then a NUL: a report cut short is no report.
_REPORT = "{ command pwd && printf '\\0'; } >&9 2>/dev/null"

#: The foreground wrapper. The report pipe arrives as stdin: it moves to descriptor 9
#: and the command gets /dev/null; 9 is closed while the command runs, so neither the
#: command nor anything it leaves running can write to it. A command that exits (or
#: is killed) ends the shell before the report: the cwd stays. After the command,
#: tracing (`set -x`) is turned off unseen, so the wrapper's own steps never show.
FOREGROUND_SCRIPT = (
    "exec 9>&0 </dev/null; "
    + _ENTER.format(fail=f"{{ __boris_status=$?; {_REPORT}; exit $__boris_status; }}")
    + f"{{ {_RUN}; }} 9>&-; {{ __boris_status=$?; set +x; }} 2>/dev/null; "
    + f"{_REPORT}; exit $__boris_status"
)

#: The background wrapper: no report, a background command never moves the session.
BACKGROUND_SCRIPT = _ENTER.format(fail="exit") + _RUN


def effective_timeout(timeout: int | None, default_ms: int) -> int:
    """The timeout a call runs with, in ms: the default when none is given, at most 10 minutes."""
    return min(timeout or default_ms, MAX_TIMEOUT_MS)


def cd_steps(cwd: str) -> list[str]:
    """``cd`` arguments that lead to ``cwd``, each short enough for one chdir().

    Nearly always just ``[cwd]``. A deeper cwd is entered a part at a time: the parts
    after the first are relative (``./a/b``, so CDPATH plays no part) and entered with
    ``cd -P``, so the cwd reported afterwards is the physical path.
    """
    if len(os.fsencode(cwd)) < PATH_MAX:
        return [cwd]
    steps = ["/"]
    for name in cwd.split("/"):
        if not name:
            continue
        step = steps[-1]
        joined = step + name if step.endswith("/") else f"{step}/{name}"
        if len(os.fsencode(joined)) < PATH_MAX:
            steps[-1] = joined
        else:
            steps.append(f"./{name}")
    return steps


class CwdReport:
    """What the foreground wrapper writes on its report pipe, kept up to ``MAX_CWD`` bytes."""

    def __init__(self) -> None:
        self._data = bytearray()

    def feed(self, data: bytes) -> None:
        room = MAX_CWD + 3 - len(self._data)  # one byte more than a whole report may have
        if room > 0:
            self._data += data[:room]

    def cwd(self) -> str | None:
        """The cwd after the command, or None when there is no single whole report."""
        data = bytes(self._data)
        path = data.removesuffix(b"\n\0")
        if path == data or b"\0" in path or len(path) > MAX_CWD or not path.startswith(b"/"):
            return None
        return os.fsdecode(path)


def spawn_dir(session: Session) -> str:
    """Where the shell starts: the session cwd, or the workdir if that directory is gone."""
    for candidate in (session.cwd, session.settings.workdir):
        if os.path.isdir(candidate):
            return candidate
    return "/"


def start_failed(shell: str, exc: OSError, command: str) -> BorisError:
    message = f"could not start {shell}: {exc.strerror or exc}"
    if exc.errno == errno.E2BIG:
        # The kernel caps one argument at 128 KiB; the command travels as one.
        message += (
            f" (the command is {len(command.encode())} bytes; a command is limited to about "
            "128 KiB: write long content to a file with a file tool, then run a short command)"
        )
    return BorisError(Code.BASH_START_FAILED, message)


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
            raise BorisError(Code.BASH_EMPTY_COMMAND, "command is empty; give a shell command")
        nul = command.find("\0")
        if nul >= 0:
            raise BorisError(
                Code.INVALID_INPUT,
                f"command: contains a NUL character at index {nul}; "
                "a shell command cannot contain one",
            )
        if timeout is not None and timeout <= 0:
            raise BorisError(
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
        try:
            task_id = tasks.start(
                session,
                shell,
                BACKGROUND_SCRIPT,
                [*cd_steps(session.cwd), command],
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
        stdout = Capture()
        stderr = Capture()
        report = CwdReport()
        sender = ProgressSender(ctx) if progress_token(ctx) is not None else None
        out_lines = LineSplitter(sender.add) if sender else None
        err_lines = LineSplitter(sender.add) if sender else None

        def on_stdout(data: bytes) -> None:
            text = stdout.feed(data)
            if out_lines is not None:
                out_lines.feed(text)

        def on_stderr(data: bytes) -> None:
            text = stderr.feed(data)
            if err_lines is not None:
                err_lines.feed(text)

        try:
            run = ShellRun(
                shell,
                FOREGROUND_SCRIPT,
                [*cd_steps(session.cwd), command],
                cwd=spawn_dir(session),
                env=self.env,
                on_stdout=on_stdout,
                on_stderr=on_stderr,
                on_report=report.feed,
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
        if sender is not None and out_lines is not None and err_lines is not None:
            out_lines.feed(rest)
            out_lines.finish()
            err_lines.feed(err_rest)
            err_lines.finish()
            await sender.close()

        cwd = report.cwd()
        if cwd is not None and not timed_out:
            session.cwd = cwd
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
