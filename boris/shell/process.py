"""Shell commands in a kernel session of their own, read without blocking the event loop.

Each command runs as ``<shell> -c <script> <args>…`` in a new session (so a new process
group, and no controlling terminal), stdin from /dev/null, stdout and stderr on pipes
that the event loop reads as data arrives, and no other descriptor of the server. Its
environment carries the command's id (boris.shell.processes.MARK), by which the
processes it detaches are still known as its own. A run may also have a report socket
(boris.shell.wrapper): its other end is the shell's stdin, which the script moves to a
descriptor of its own before it gives the command /dev/null. Ending a command always
means ending every process in its session (boris.shell.processes): SIGTERM now,
SIGKILL ``KILL_GRACE`` seconds later if anything is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence

from boris.shell.processes import MARK, CommandProcesses, new_id
from boris.shell.reaper import WAITED
from boris.shell.wrapper import CwdReport, names_cwd_of

log = logging.getLogger("boris.process")

#: Bytes read from a pipe at a time.
CHUNK = 65536

#: Reads per readiness callback, so one chatty command cannot starve the event loop.
READS_PER_WAKEUP = 4

#: The status reported when the shell's exit status was lost (someone else reaped it).
UNKNOWN_STATUS = 255

#: Seconds between reads of pipes nobody collects any more (backing off when idle).
SLOW_DRAIN = (0.1, 1.0)

#: Seconds output is still collected after the shell exits. A background grandchild
#: (``server &``) may hold the pipes open for hours; the call must not wait for it.
DRAIN_GRACE = 0.1


Sink = Callable[[bytes], object]


class ShellRun:
    """One running shell command, driven by the event loop.

    ``returncode`` is set when the shell exits (negative: killed by that signal);
    ``finished`` resolves once its output is complete: every pipe reached EOF, or
    ``DRAIN_GRACE`` passed since the exit. ``report``, if given, gets what the script
    writes on its report socket (see the module docstring). After that, or after
    ``detach()``, whatever a leftover process still writes to the pipes is read now and
    then and discarded until EOF: a server started with ``&`` never dies of a broken pipe,
    and a flood (``yes &``) just blocks on a full pipe instead of keeping the
    server busy.
    """

    def __init__(
        self,
        shell: str,
        script: str,
        args: Sequence[str] = (),
        *,
        cwd: str,
        env: Mapping[str, str],
        on_stdout: Sink,
        on_stderr: Sink,
        report: CwdReport | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        pipes = [os.pipe(), os.pipe()]
        writes = [write for _, write in pipes]
        reads: list[tuple[int, Sink]] = [(pipes[0][0], on_stdout), (pipes[1][0], on_stderr)]
        stdin: int = subprocess.DEVNULL
        if report is not None:
            # A socket, not a pipe: the wrapper reads Boris's answer on it too.
            ours, theirs = socket.socketpair()
            writes.append(theirs.detach())
            stdin = writes[-1]
            self._report_fd = ours.detach()
            reads.append((self._report_fd, self._on_report))
        command_id = new_id()
        try:
            # The shell is its own $0, as with `bash -c`; the script's arguments follow.
            proc = subprocess.Popen(
                [shell, *startup_options(shell), "-c", script, shell, *args],
                stdin=stdin,
                stdout=writes[0],
                stderr=writes[1],
                cwd=cwd,
                env={**env, MARK: command_id},
                start_new_session=True,
                close_fds=True,  # the default; no descriptor of the server but these
            )
        except BaseException:
            for read, _ in reads:
                os.close(read)
            raise
        finally:
            for write in writes:
                os.close(write)
        self._proc = proc
        self.pid = proc.pid
        WAITED.add(proc.pid)  # this run reaps the shell, not boris.shell.reaper
        self.processes = CommandProcesses(proc.pid, command_id)
        self._report = report
        self.returncode: int | None = None
        self.finished: asyncio.Future[None] = loop.create_future()
        self._capturing = True
        self._sinks: dict[int, Sink] = dict(reads)
        for fd in self._sinks:
            os.set_blocking(fd, False)
            loop.add_reader(fd, self._on_readable, fd)
        self._grace: asyncio.TimerHandle | None = None
        self._drain: asyncio.TimerHandle | None = None
        self._watch_exit()

    def _on_report(self, data: bytes) -> None:
        """The wrapper's report: believed if it names the shell's own cwd
        (boris.shell.wrapper). Then Boris shuts its side of the socket, which ends the
        wrapper's wait: the shell exits only after the check (a shell that exited has
        no cwd to compare with). What comes after the first report is read and dropped."""
        assert self._report is not None
        for path in self._report.feed(data):
            if path is not None and names_cwd_of(self.pid, path):
                self._report.accept(path)
            end = socket.socket(fileno=self._report_fd)
            try:
                end.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the shell is gone already
            finally:
                end.detach()

    # --- exit ------------------------------------------------------------------

    def _watch_exit(self) -> None:
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            # No pidfd (macOS, old kernels): one thread blocks in waitpid instead.
            threading.Thread(target=self._wait_in_thread, daemon=True).start()
            return
        self._loop.add_reader(pidfd, self._on_pidfd, pidfd)

    def _on_pidfd(self, pidfd: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, None
        if pid == 0:
            return
        self._loop.remove_reader(pidfd)
        os.close(pidfd)
        self._on_exit(status)

    def _wait_in_thread(self) -> None:
        status: int | None
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = None
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is waiting
            self._loop.call_soon_threadsafe(self._on_exit, status)

    def _on_exit(self, status: int | None) -> None:
        WAITED.discard(self.pid)
        if status is None:
            log.warning("exit status of shell %d was lost", self.pid)
            code = UNKNOWN_STATUS
        else:
            code = os.waitstatus_to_exitcode(status)
        self.returncode = code
        # Popen must not try to reap the pid again (it may belong to someone else by then).
        self._proc.returncode = code
        if not self._sinks:
            self._finish()
        else:
            self._grace = self._loop.call_later(DRAIN_GRACE, self._end_of_grace)

    def _end_of_grace(self) -> None:
        # Take what the pipes already hold, then stop collecting.
        for fd in list(self._sinks):
            self._on_readable(fd, reads=16)
        self._finish()

    def _finish(self) -> None:
        self._capturing = False
        if self._grace is not None:
            self._grace.cancel()
        if not self.finished.done():
            self.finished.set_result(None)
        if self._sinks and self._drain is None:
            for fd in self._sinks:
                self._loop.remove_reader(fd)
            self._drain_after(SLOW_DRAIN[0])

    # --- output ------------------------------------------------------------------

    def _on_readable(self, fd: int, reads: int = READS_PER_WAKEUP) -> bool:
        """Read what ``fd`` holds (at most ``reads`` chunks); whether there was any."""
        sink = self._sinks.get(fd)
        if sink is None:
            return False
        got = False
        for _ in range(reads):
            try:
                data = os.read(fd, CHUNK)
            except BlockingIOError:
                return got
            except OSError:
                data = b""
            if not data:
                self._close_pipe(fd)
                return got
            got = True
            if self._capturing:
                sink(data)
            if len(data) < CHUNK:
                return got
        return got

    def _drain_after(self, delay: float) -> None:
        self._drain = self._loop.call_later(delay, self._drain_pipes, delay)

    def _drain_pipes(self, delay: float) -> None:
        got = False
        for fd in list(self._sinks):
            got = self._on_readable(fd, reads=1) or got
        if self._sinks:
            low, high = SLOW_DRAIN
            self._drain_after(low if got else min(delay * 2, high))

    def _close_pipe(self, fd: int) -> None:
        self._loop.remove_reader(fd)
        os.close(fd)
        del self._sinks[fd]
        if not self._sinks and self.returncode is not None:
            self._finish()

    def detach(self) -> None:
        """Stop collecting output now (the caller gave up on it); keep draining and reaping."""
        self._finish()

    @property
    def running(self) -> bool:
        return self.returncode is None


def startup_options(shell: str) -> tuple[str, ...]:
    """Options that keep the user's start-up files out of a command's shell.

    Debian's bash reads ~/.bashrc even with ``-c`` when its stdin is a socket (as the
    cwd report's is) and SHLVL is unset (a server started by a container's entry point
    or a service manager): an rc file's output would land in every command's stdout and
    its aliases and traps would change what commands do. ``--norc`` stops that; BASH_ENV,
    which a user sets on purpose, is still read.
    """
    return ("--norc",) if os.path.basename(shell) == "bash" else ()


def detect_shell() -> str:
    """The shell every command runs in, chosen once: bash, or sh where bash is missing."""
    return "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
