"""The orphans handed to the server are waited for, so that none stays a zombie.

As a child subreaper (boris.prctl) the server becomes the parent of every process whose
own parent ends below it (``server &`` once its shell has exited, a daemon's double
fork). When such an orphan ends, it stays a zombie until its parent waits for it.

The server's other children each have someone waiting for them, by pid: a command's
shell its :class:`~boris.shell.process.ShellRun` (which puts the pid in :data:`WAITED`
while it waits), a search worker its ``subprocess.Popen`` (search workers stay in the
server's own kernel session; commands never do). The reaper waits only for a zombie
child that is neither, and only by its pid: waiting for "any child" (``waitpid(-1)``)
would take the exit status of a child someone else waits for.

A pass runs on the event loop shortly after each SIGCHLD, and once more at the end.
Shells are started and put in :data:`WAITED` on the event loop too, so a pass never
sees a shell that is not there yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator

from boris.prctl import is_subreaper
from boris.shell.processes import PROC, stat_fields

log = logging.getLogger("boris.process")

#: Pids of the server's children whose exit status someone else waits for.
WAITED: set[int] = set()

#: Seconds between a SIGCHLD and the pass it causes: one pass serves a burst of them.
DELAY = 0.05


def _children() -> list[int]:
    """The pids of this process's children. Orphans are handed to the main thread (the
    first of the process's threads alive), whose list the kernel keeps; without that
    list (a kernel built without it), from a scan of /proc."""
    me = os.getpid()
    try:
        with open(f"{PROC}/{me}/task/{me}/children", "rb") as listing:
            return [int(pid) for pid in listing.read().split()]
    except OSError:
        pass
    found = []
    with contextlib.suppress(OSError):
        for name in os.listdir(PROC):
            if name.isdigit():
                fields = stat_fields(name)
                if fields is not None and len(fields) > 1 and int(fields[1]) == me:
                    found.append(int(name))
    return found


def reap_orphans() -> int:
    """Wait for every zombie child nobody else waits for; how many there were."""
    own = os.getsid(0)
    reaped = 0
    for pid in _children():
        if pid in WAITED:
            continue
        fields = stat_fields(pid)
        if fields is None or len(fields) <= 3 or fields[0] != b"Z" or int(fields[3]) == own:
            continue
        with contextlib.suppress(ChildProcessError):
            done, _ = os.waitpid(pid, os.WNOHANG)
            reaped += done == pid
    if reaped:
        log.debug("reaped %d orphan(s)", reaped)
    return reaped


@contextlib.asynccontextmanager
async def reaping() -> AsyncIterator[None]:
    """While the block runs, reap orphans shortly after each SIGCHLD; once more after.
    Nothing happens in a process that is not a child subreaper (its orphans go to
    init), nor where this is not the main thread (no signal handler can be set)."""
    if not is_subreaper():
        yield
        return
    loop = asyncio.get_running_loop()
    pending: asyncio.TimerHandle | None = None

    def run() -> None:
        nonlocal pending
        pending = None
        reap_orphans()

    def soon() -> None:
        nonlocal pending
        if pending is None:
            pending = loop.call_later(DELAY, run)

    try:
        loop.add_signal_handler(signal.SIGCHLD, soon)
    except (ValueError, RuntimeError, NotImplementedError) as exc:
        log.warning("orphans will not be reaped: no SIGCHLD handler (%s)", exc)
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGCHLD)
        if pending is not None:
            pending.cancel()
        reap_orphans()
