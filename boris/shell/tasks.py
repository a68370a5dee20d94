"""Background commands of a session, and the processes it must end when it closes.

A session's :class:`TaskTable` holds two kinds of entries, both ended when the table
closes: background commands under their 16-hex task id, and the processes of other
commands (boris.shell.processes: a foreground command while it runs, and whatever a
finished command left running, such as ``server &`` or ``setsid server &``) under
``processes-<command id>``. Only
the former are visible to task_output. Entries of the second kind whose processes are
all gone are dropped now and then (``PRUNE_AGE``).

A finished command stays until task_output reads it, but a table keeps only the
``UNREAD_LIMIT`` most recently finished ones: older ones expire, and their ids are
remembered (a bounded number of them) so that reading one says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from boris.errors import BorisError, Code
from boris.shell.capture import Capture, exit_status, sections
from boris.shell.process import ShellRun
from boris.shell.processes import KILL_GRACE, CommandProcesses
from boris.shell.progress import LineSplitter, ProgressSender, Send

#: Background commands that may run at once in one session.
TASK_LIMIT = 10

#: Finished background commands a session keeps until they are read; older ones expire.
UNREAD_LIMIT = 100

#: Ids of expired commands a session remembers, to tell "expired" from "unknown".
EXPIRED_IDS_KEPT = 1000

#: Random bytes of a task id: the id is a handle (whoever holds it may read and stop the
#: task, and nothing else says whose it is), so it cannot be guessed: 128 bits, as the
#: 2026-07-28 protocol asks of handles (SEP-2567), on every protocol revision.
TASK_ID_BYTES = 16

#: Seconds a look at the machine's processes is reused to drop the entries whose
#: processes are gone: looking costs a read of /proc, and a command a few milliseconds.
PRUNE_AGE = 1.0

#: Seconds between two looks at whether a stopped task's processes are gone.
STOP_POLL = 0.02


class Endable(Protocol):
    """What a closing session needs from an entry of its table to end it."""

    def terminate(self) -> None:
        """SIGTERM its processes now and SIGKILL them ``KILL_GRACE`` later."""

    def kill(self) -> None:
        """SIGKILL whatever is left of its processes."""

    def alive(self) -> bool:
        """Whether any of its processes is still running."""


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
        # Whoever waits for the task with progress hears of each piece of output text.
        self._listeners: list[Callable[[str, str], None]] = []
        self.run = ShellRun(
            shell,
            script,
            args,
            cwd=cwd,
            env=env,
            on_stdout=self._on_stdout,
            on_stderr=self._on_stderr,
        )
        self.timed_out = False
        self.stopped = False
        self._deadline: asyncio.TimerHandle | None = None
        if timeout > 0:
            self._deadline = asyncio.get_running_loop().call_later(timeout, self._time_out)
        self.run.finished.add_done_callback(self._on_finished)

    @property
    def processes(self) -> CommandProcesses:
        return self.run.processes

    @property
    def running(self) -> bool:
        return not self.run.finished.done()

    def _time_out(self) -> None:
        if self.run.running and not self.stopped:
            self.timed_out = True
            self.processes.terminate()

    def _on_stdout(self, data: bytes) -> None:
        self._tell("stdout", self.stdout.feed(data))

    def _on_stderr(self, data: bytes) -> None:
        self._tell("stderr", self.stderr.feed(data))

    def _tell(self, stream: str, text: str) -> None:
        if text:
            for listener in self._listeners:
                listener(stream, text)

    def listen(self, listener: Callable[[str, str], None]) -> Callable[[], None]:
        """Call ``listener(stream, text)`` with the output from now on; returns how to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _on_finished(self, _: object) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._tell("stdout", self.stdout.finish())
        self._tell("stderr", self.stderr.finish())

    # Endable: how a closing session ends the task.
    def terminate(self) -> None:
        self.processes.terminate()

    def kill(self) -> None:
        self.processes.kill()

    def alive(self) -> bool:
        return self.processes.alive()

    def report(self) -> str:
        """The task_output text: status, exit code once finished, stderr and stdout."""
        if self.running:
            text = "status: running\n"
        else:
            status = "completed"
            if self.stopped:
                status += " (stopped)"
            elif self.timed_out:
                status += " (killed by background task timeout)"
            assert self.run.returncode is not None
            text = f"status: {status}\nexit_code: {exit_status(self.run.returncode)}\n"
        return text + sections(self.stderr.text(), self.stdout.text())


def _processes_key(processes: CommandProcesses) -> str:
    # By the command's id: a shell's pid may be another command's once its session is
    # empty while processes it detached still live.
    return f"processes-{processes.id}"


class TaskTable:
    """One session's background commands and the process groups it must end.

    Tools run in worker threads and on the event loop alike, so the table is guarded
    by a real lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, Endable] = {}
        # Ids of background commands that finished and expired unread, oldest first.
        self._expired: dict[str, None] = {}
        self._closed = False
        # Resolved when the table closes, so that waits for a task end with the session.
        self._closing: list[asyncio.Future[None]] = []
        self._pruned = 0.0  # monotonic time of the last prune

    def __len__(self) -> int:
        """Entries in the table: background commands and other commands' processes."""
        with self._lock:
            return len(self._entries)

    def _add(self, key: str, entry: Endable) -> None:
        """Register a started entry; a closed table refuses it (and ends it at once)."""
        with self._lock:
            if not self._closed:
                self._entries[key] = entry
                return
        entry.terminate()
        raise BorisError(Code.BASH_START_FAILED, "the session is closed; start a new session")

    def close(self) -> list[Endable]:
        """Terminate every entry and refuse new ones. Idempotent.

        Returns the entries it terminated so a caller that can wait (shutdown) can
        make sure they are gone.
        """
        with self._lock:
            if self._closed:
                return []
            self._closed = True
            entries = list(self._entries.values())
            self._entries.clear()
            closing, self._closing = self._closing, []
        for future in closing:
            with contextlib.suppress(RuntimeError):  # its loop is gone: nobody waits
                future.get_loop().call_soon_threadsafe(_resolve, future)
        for entry in entries:
            entry.terminate()
        return entries

    # --- processes of other commands -------------------------------------------

    def track(self, processes: CommandProcesses) -> None:
        """End these processes when the table closes (a closed table ends them now).
        The entry stays until they are all gone (see :meth:`prune`)."""
        if not processes.ended:
            self._add(_processes_key(processes), processes)

    def prune(self) -> None:
        """Forget the tracked processes that are all gone, looking at most once every
        ``PRUNE_AGE`` seconds."""
        now = time.monotonic()
        if now - self._pruned < PRUNE_AGE:
            return
        self._pruned = now
        with self._lock:
            tracked = [(k, e) for k, e in self._entries.items() if isinstance(e, CommandProcesses)]
        gone = [key for key, processes in tracked if not processes.alive(PRUNE_AGE)]
        if gone:
            with self._lock:
                for key in gone:
                    self._entries.pop(key, None)

    # --- background commands ---------------------------------------------------

    def start(
        self,
        shell: str,
        script: str,
        args: Sequence[str] = (),
        *,
        cwd: str,
        env: Mapping[str, str],
        timeout: float,
    ) -> str:
        """Start a background command; returns its task id."""
        self.prune()
        with self._lock:
            running = sum(
                1 for e in self._entries.values() if isinstance(e, BackgroundCommand) and e.running
            )
        if running >= TASK_LIMIT:
            raise BorisError(
                Code.BASH_TASK_LIMIT,
                f"{running} background tasks are already running in this session (the limit "
                f"is {TASK_LIMIT}); wait for one to finish, or read a finished one with "
                "task_output",
            )
        task = BackgroundCommand(shell, script, args, cwd=cwd, env=env, timeout=timeout)
        task_id = secrets.token_hex(TASK_ID_BYTES)
        self._add(task_id, task)
        task.run.finished.add_done_callback(lambda _: self._finished(task_id))
        return task_id

    def _finished(self, task_id: str) -> None:
        """A command finished: it is the newest unread one, and the oldest beyond the
        limit expire.

        A finished command moves to the end of the table, so finished commands sit
        there in the order they finished.
        """
        with self._lock:
            task = self._entries.pop(task_id, None)
            if task is None:  # already read, or the table closed
                return
            self._entries[task_id] = task
            unread = [
                (key, e)
                for key, e in self._entries.items()
                if isinstance(e, BackgroundCommand) and not e.running
            ]
            expired = unread[:-UNREAD_LIMIT]
            for key, _ in expired:
                del self._entries[key]
                self._expired[key] = None
            while len(self._expired) > EXPIRED_IDS_KEPT:
                del self._expired[next(iter(self._expired))]
        for _, old in expired:
            # It may have left processes behind (`server &`): the session still ends
            # them (a session closed meanwhile refuses them and ends them at once).
            with contextlib.suppress(BorisError):
                self.track(old.processes)

    def _lookup(self, task_id: str) -> BackgroundCommand:
        """The background command ``task_id`` (called with the lock held)."""
        task = self._entries.get(task_id)
        if isinstance(task, BackgroundCommand):
            return task
        if task_id in self._expired:
            raise BorisError(
                Code.BASH_TASK_NOT_FOUND,
                f"background task {task_id!r} expired: a session keeps only the "
                f"{UNREAD_LIMIT} newest finished tasks that have not been read; read a "
                "task's output soon after it finishes",
            )
        raise BorisError(
            Code.BASH_TASK_NOT_FOUND,
            f"no background task {task_id!r} in this session; a finished task's "
            "output can be read only once",
        )

    def read(self, task_id: str) -> str:
        """task_output: the task's report; a finished task is forgotten once reported."""
        with self._lock:
            task = self._lookup(task_id)
            if not task.running:
                del self._entries[task_id]
        report = task.report()
        if not task.running:
            # The command may have left processes behind: the session still ends them.
            self.track(task.processes)
        return report

    async def wait(
        self,
        task_id: str,
        timeout: float,
        progress: Send | None = None,
    ) -> str:
        """task_output with ``block``: the report once the task has finished, or after
        ``timeout`` seconds (then the running report).

        ``progress``, when given, is sent each new output line while waiting. A
        cancelled wait, or the table closing, ends the wait and leaves the task alone.
        Every call waiting when the task finishes (or is stopped) gets its final
        report, though a finished task is forgotten after the first.
        """
        loop = asyncio.get_running_loop()
        closing: asyncio.Future[None] = loop.create_future()
        with self._lock:
            task = self._lookup(task_id)
            if task.running:
                self._closing.append(closing)
        if not task.running:
            return self.read(task_id)
        sender = ProgressSender(progress) if progress is not None else None
        stop_listening = _listen_lines(task, sender) if sender is not None else None
        try:
            await asyncio.wait(
                (task.run.finished, closing), timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        except BaseException:
            if sender is not None:
                sender.cancel()
            raise
        finally:
            if stop_listening is not None:
                stop_listening()
            with self._lock, contextlib.suppress(ValueError):
                self._closing.remove(closing)
        if sender is not None:
            await sender.close()
        if closing.done():
            raise BorisError(
                Code.BASH_TASK_NOT_FOUND,
                f"the session ended while waiting for background task {task_id!r}; "
                "its tasks were stopped",
            )
        try:
            return self.read(task_id)
        except BorisError:
            if not task.run.finished.done():  # running, and yet not found: nothing to give
                raise
            # Another call read it first, or task_stop ended it: every call that waited
            # for it is told how it ended (stopped, or finished on its own).
            return task.report()

    async def stop(self, task_id: str) -> str:
        """task_stop: end a task's processes (SIGTERM, SIGKILL ``KILL_GRACE`` later),
        those it left running after its shell exited too, wait until they have all
        ended, and report the task as finished (``stopped`` if it was still running; a
        task that had finished is reported as task_output would). The task is
        forgotten either way."""
        with self._lock:
            task = self._lookup(task_id)
            if task.running:
                task.stopped = True
        task.terminate()
        if task.stopped:
            # Shielded: a cancelled call still leaves the task stopping (the kill timer
            # runs on its own), and the shared future must not be cancelled.
            await asyncio.shield(task.run.finished)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + KILL_GRACE + 1
        while task.alive() and loop.time() < deadline:  # noqa: ASYNC110 - no event to await
            await asyncio.sleep(STOP_POLL)
        with self._lock:
            if self._entries.get(task_id) is task:
                del self._entries[task_id]
        report = task.report()
        with contextlib.suppress(BorisError):
            self.track(task.processes)
        return report


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _listen_lines(task: BackgroundCommand, sender: ProgressSender) -> Callable[[], None]:
    """Send the task's new output lines, per stream, through ``sender``; returns how to stop
    (a last unterminated line is sent when the task has finished)."""
    splitters = {"stdout": LineSplitter(sender.add), "stderr": LineSplitter(sender.add)}
    stop = task.listen(lambda stream, text: splitters[stream].feed(text))

    def done() -> None:
        stop()
        if not task.running:
            for splitter in splitters.values():
                splitter.finish()

    return done
