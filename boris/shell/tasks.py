"""Background commands of a session, and the process groups a session must end when it closes.

``session.tasks`` holds two kinds of entries, both ended by ``Session.close``:
background commands under their 16-hex task id, and process groups (a foreground
command while it runs, or whatever a finished command left running, such as
``server &``) under ``group-<pgid>``. Only the former are visible to task_output.

A finished command stays until task_output reads it, but a session keeps only the
``UNREAD_LIMIT`` most recently finished ones: older ones expire, and their ids are
remembered (a bounded number of them) so that reading one says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Mapping, Sequence

from boris.errors import BorisError, Code
from boris.session import Session
from boris.shell.capture import Capture, exit_status, sections
from boris.shell.process import ProcessGroup, ShellRun

#: Background commands that may run at once in one session.
TASK_LIMIT = 10

#: Finished background commands a session keeps until they are read; older ones expire.
UNREAD_LIMIT = 100

#: Ids of expired commands a session remembers, to tell "expired" from "unknown".
EXPIRED_IDS_KEPT = 1000


class BackgroundCommand:
    """A command started with ``run_in_background``: its output so far and its fate."""

    def __init__(
        self,
        shell: str,
        script: str,
        args: Sequence[str] = (),
        *,
        cwd: str,
        env: Mapping[str, str],
        timeout: float,
    ) -> None:
        self.stdout = Capture()
        self.stderr = Capture()
        self.run = ShellRun(
            shell,
            script,
            args,
            cwd=cwd,
            env=env,
            on_stdout=self.stdout.feed,
            on_stderr=self.stderr.feed,
        )
        self.timed_out = False
        self._deadline: asyncio.TimerHandle | None = None
        if timeout > 0:
            self._deadline = asyncio.get_running_loop().call_later(timeout, self._time_out)
        self.run.finished.add_done_callback(self._on_finished)

    @property
    def group(self) -> ProcessGroup:
        return self.run.group

    @property
    def running(self) -> bool:
        return not self.run.finished.done()

    def _time_out(self) -> None:
        if self.run.running:
            self.timed_out = True
            self.group.terminate()

    def _on_finished(self, _: object) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self.stdout.finish()
        self.stderr.finish()
        self.group.alive()  # notes an empty group now, before its id can be reused

    # BackgroundTask protocol (boris.session): how a closing session ends the task.
    def terminate(self) -> None:
        self.group.terminate()

    def kill(self) -> None:
        self.group.kill()

    def alive(self) -> bool:
        return self.group.alive()

    def report(self) -> str:
        """The task_output text: status, exit code once finished, stderr and stdout."""
        if self.running:
            text = "status: running\n"
        else:
            status = "completed"
            if self.timed_out:
                status += " (killed by background task timeout)"
            assert self.run.returncode is not None
            text = f"status: {status}\nexit_code: {exit_status(self.run.returncode)}\n"
        return text + sections(self.stderr.text(), self.stdout.text())


def group_key(group: ProcessGroup) -> str:
    return f"group-{group.pgid}"


def track_group(session: Session, group: ProcessGroup) -> None:
    """Have the session end this group when it closes (a closed session ends it now)."""
    session.add_task(group_key(group), group)


def release_group(session: Session, group: ProcessGroup) -> None:
    """The command of this group is done: keep tracking the group only while it has processes."""
    if not group.alive():
        with session.lock:
            session.tasks.pop(group_key(group), None)


def prune_groups(session: Session) -> None:
    """Forget tracked groups whose processes are all gone."""
    with session.lock:
        groups = [(k, t) for k, t in session.tasks.items() if isinstance(t, ProcessGroup)]
    dead = [key for key, group in groups if not group.alive()]
    if dead:
        with session.lock:
            for key in dead:
                session.tasks.pop(key, None)


def start(
    session: Session,
    shell: str,
    script: str,
    args: Sequence[str] = (),
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
) -> str:
    """Start a background command in ``session``; returns its task id."""
    prune_groups(session)
    with session.lock:
        running = sum(
            1 for t in session.tasks.values() if isinstance(t, BackgroundCommand) and t.running
        )
    if running >= TASK_LIMIT:
        raise BorisError(
            Code.BASH_TASK_LIMIT,
            f"{running} background tasks are already running in this session (the limit is "
            f"{TASK_LIMIT}); wait for one to finish, or read a finished one with task_output",
        )
    task = BackgroundCommand(shell, script, args, cwd=cwd, env=env, timeout=timeout)
    task_id = secrets.token_hex(8)
    session.add_task(task_id, task)
    task.run.finished.add_done_callback(lambda _: finished(session, task_id))
    return task_id


def finished(session: Session, task_id: str) -> None:
    """A command finished: it is the newest unread one, and the oldest beyond the limit expire.

    A finished command moves to the end of ``session.tasks``, so finished commands
    sit there in the order they finished.
    """
    with session.lock:
        task = session.tasks.pop(task_id, None)
        if task is None:  # already read, or the session closed
            return
        session.tasks[task_id] = task
        unread = [
            (key, t)
            for key, t in session.tasks.items()
            if isinstance(t, BackgroundCommand) and not t.running
        ]
        expired = unread[:-UNREAD_LIMIT]
        for key, _ in expired:
            del session.tasks[key]
            session.expired_tasks[key] = None
        while len(session.expired_tasks) > EXPIRED_IDS_KEPT:
            del session.expired_tasks[next(iter(session.expired_tasks))]
    for _, old in expired:
        if old.alive():
            # It left processes behind (`server &`): the session still ends them (a
            # session closed meanwhile refuses the group and ends it at once).
            with contextlib.suppress(BorisError):
                track_group(session, old.group)


def read(session: Session, task_id: str) -> str:
    """task_output: the task's report; a finished task is forgotten once reported."""
    with session.lock:
        task = session.tasks.get(task_id)
        if not isinstance(task, BackgroundCommand) and task_id in session.expired_tasks:
            raise BorisError(
                Code.BASH_TASK_NOT_FOUND,
                f"background task {task_id!r} expired: a session keeps only the "
                f"{UNREAD_LIMIT} newest finished tasks that have not been read; read a "
                "task's output soon after it finishes",
            )
        if not isinstance(task, BackgroundCommand):
            raise BorisError(
                Code.BASH_TASK_NOT_FOUND,
                f"no background task {task_id!r} in this session; a finished task's output "
                "can be read only once",
            )
        if not task.running:
            del session.tasks[task_id]
    report = task.report()
    if not task.running and task.alive():
        # The command finished but left processes behind: the session still ends them.
        track_group(session, task.group)
    return report
