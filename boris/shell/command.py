"""One bash call: a command run in the foreground to its end (or its timeout), or started
in the background.

A foreground command runs in the session's cwd (see boris.shell.wrapper), in a kernel
session of its own whose processes the session tracks while any of them lives; its
output is captured up to the cap and, when the client asked, sent line by line as
progress.
The result text is ``exit_code: N`` and the stderr and stdout sections, after
``Command timed out after <ms>ms`` when the timeout ended it.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

from boris.errors import BorisError, Code
from boris.shell.capture import Capture, exit_status, sections
from boris.shell.process import ShellRun
from boris.shell.progress import LineSplitter, ProgressSender, Send
from boris.shell.tasks import TaskTable
from boris.shell.wrapper import (
    BACKGROUND_SCRIPT,
    FOREGROUND_SCRIPT,
    CwdReport,
    cd_steps,
    is_gone,
)

#: The longest timeout a call may ask for, in milliseconds.
MAX_TIMEOUT_MS = 600_000

#: What a call says when the session's cwd no longer exists (a command deleted it).
MOVED = "[The working directory {gone} no longer exists; commands run in {place} now ({why}).]"


@dataclass(frozen=True)
class Shell:
    """Where a session's commands run: the shell, its environment, the cwd, and the
    directory to fall back on when the cwd is gone."""

    path: str
    env: Mapping[str, str]
    cwd: str
    workdir: str

    def spawn_dir(self) -> str:
        """Where the shell starts: the cwd, or the workdir if that directory is gone."""
        for candidate in (self.cwd, self.workdir):
            if os.path.isdir(candidate):
                return candidate
        return "/"


def recovered(shell: Shell) -> tuple[Shell, str | None]:
    """``shell`` as a command can run in it, and a notice if it had to move: where the
    cwd no longer exists (a command deleted it), commands run in --workdir from now on
    (in / if that is gone too)."""
    if not is_gone(shell.cwd):
        return shell, None
    place, why = shell.workdir, "--workdir"
    if is_gone(place):
        place, why = "/", "--workdir no longer exists either"
    notice = MOVED.format(gone=shell.cwd, place=place, why=why)
    return replace(shell, cwd=place), notice


def check_call(command: str, timeout: int | None) -> None:
    """Refuse an empty command, a NUL in it, or a timeout that is not positive."""
    if not command.strip():
        raise BorisError(Code.BASH_EMPTY_COMMAND, "command is empty; give a shell command")
    nul = command.find("\0")
    if nul >= 0:
        raise BorisError(
            Code.INVALID_INPUT,
            f"command: contains a NUL character at index {nul}; a shell command cannot contain one",
        )
    if timeout is not None and timeout <= 0:
        raise BorisError(
            Code.INVALID_INPUT,
            f"timeout: must be a positive number of milliseconds (at most {MAX_TIMEOUT_MS}), "
            f"got {timeout}",
        )


def effective_timeout(timeout: int | None, default_ms: int) -> int:
    """The timeout a call runs with, in ms: the default when none is given, at most 10 minutes."""
    return min(timeout or default_ms, MAX_TIMEOUT_MS)


def start_failed(shell: str, exc: OSError, command: str) -> BorisError:
    message = f"could not start {shell}: {exc.strerror or exc}"
    if exc.errno == errno.E2BIG:
        # The kernel caps one argument at 128 KiB; the command travels as one.
        message += (
            f" (the command is {len(command.encode())} bytes; a command is limited to about "
            "128 KiB: write long content to a file with a file tool, then run a short command)"
        )
    return BorisError(Code.BASH_START_FAILED, message)


def start_background(shell: Shell, command: str, tasks: TaskTable, timeout: float) -> str:
    """Start ``command`` as a background task; the text bash answers with."""
    try:
        task_id = tasks.start(
            shell.path,
            BACKGROUND_SCRIPT,
            [*cd_steps(shell.cwd), command],
            cwd=shell.spawn_dir(),
            env=shell.env,
            timeout=timeout,
        )
    except OSError as exc:
        raise start_failed(shell.path, exc, command) from None
    return f"task_id: {task_id}\nCommand started in background."


@dataclass(frozen=True)
class Finished:
    """A foreground command's result text, and the cwd it left (None: unchanged)."""

    text: str
    cwd: str | None


async def run(
    shell: Shell, command: str, tasks: TaskTable, timeout_ms: int, progress: Send | None
) -> Finished:
    """Run ``command`` in the foreground until it ends or ``timeout_ms`` passes.

    ``progress``, when given, is sent each output line as it arrives. A cancelled call
    (client cancel, session end, shutdown) ends every process of the command.
    """
    tasks.prune()
    stdout = Capture()
    stderr = Capture()
    report = CwdReport()
    sender = ProgressSender(progress) if progress is not None else None
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
        process = ShellRun(
            shell.path,
            FOREGROUND_SCRIPT,
            [*cd_steps(shell.cwd), command],
            cwd=shell.spawn_dir(),
            env=shell.env,
            on_stdout=on_stdout,
            on_stderr=on_stderr,
            report=report,
        )
    except OSError as exc:
        if sender is not None:
            sender.cancel()
        raise start_failed(shell.path, exc, command) from None
    timed_out = False

    def time_out() -> None:
        nonlocal timed_out
        if process.running:  # not when the shell has exited and its output is draining
            timed_out = True
            process.processes.terminate()

    deadline = asyncio.get_running_loop().call_later(timeout_ms / 1000, time_out)
    try:
        # Tracked while anything of it lives, so that the session's end ends it.
        tasks.track(process.processes)
        await process.finished
    except BaseException:
        # Cancelled (client cancel, session DELETE, shutdown) or refused: end it all.
        process.processes.terminate()
        process.detach()
        if sender is not None:
            sender.cancel()
        raise
    finally:
        deadline.cancel()

    rest, err_rest = stdout.finish(), stderr.finish()
    if sender is not None and out_lines is not None and err_lines is not None:
        out_lines.feed(rest)
        out_lines.finish()
        err_lines.feed(err_rest)
        err_lines.finish()
        await sender.close()

    assert process.returncode is not None
    text = f"Command timed out after {timeout_ms}ms\n\n" if timed_out else ""
    text += f"exit_code: {exit_status(process.returncode)}\n"
    text += sections(stderr.text(), stdout.text())
    return Finished(text, None if timed_out else report.cwd())
