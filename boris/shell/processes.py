"""Every process a command started, and the one way Boris ends them.

Each command's shell is started in a kernel session of its own (``setsid``): the
session id is the shell's pid, and every process the command starts inherits it. A
process can leave its process group by accident (job control: ``set -m`` puts each job
in a group of its own) and outlive its shell (``server &``), but it leaves the session
only by calling ``setsid`` itself, on purpose. So the processes of a command are found
as the processes whose session is the command's, read from ``/proc``; ending a command
means SIGTERM to each of them now and SIGKILL ``KILL_GRACE`` seconds later to whatever
is left (found again: a process may have forked meanwhile).

Where there is no ``/proc`` (macOS), the command's process group stands for it, as the
kernel offers nothing better there: a job in a group of its own escapes.

A session id is the pid of the shell that started it, and the kernel hands that number
out again only once no process uses it as a pid, group or session id. Boris notes the
shell's start time when it starts it; a process found later with that pid and another
start time shows that the command's processes are all gone, and they are never
signalled again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from dataclasses import dataclass

log = logging.getLogger("boris.process")

#: Seconds between SIGTERM and SIGKILL for the processes of a command Boris ends.
KILL_GRACE = 5.0

#: Rounds of SIGKILL (each after a fresh look at /proc) for processes that fork while
#: they are being killed.
KILL_ROUNDS = 5

#: Seconds a look at /proc is reused to tell whether processes are alive, or to send
#: them SIGTERM: a session that ends many commands at once looks once. (SIGKILL looks
#: afresh.)
FRESH = 0.02

PROC = "/proc"


@dataclass(frozen=True)
class Snapshot:
    """The live processes of the machine at one moment, by the session they are in."""

    #: monotonic time at which the scan began
    taken: float
    #: session id → pids of the live (not zombie) processes in it
    members: dict[int, list[int]]
    #: pid → start time (clock ticks after boot), of every process seen
    started: dict[int, int]


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (the state first)."""
    try:
        fd = os.open(f"{PROC}/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # The name, in parentheses, may hold spaces and parentheses: the last ")" ends it.
    return data.rpartition(b")")[2].split()


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot); None if unknown."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields is not None and len(fields) > 19 else None


def session_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[3]) if fields is not None and len(fields) > 3 else None


_cache: Snapshot | None = None
_cache_lock = threading.Lock()


def snapshot(max_age: float = 0.0, since: float = 0.0) -> Snapshot | None:
    """The processes now (a scan of ``/proc``), or a scan at most ``max_age`` seconds
    old that began after ``since`` (monotonic); None where there is no ``/proc``."""
    global _cache
    now = time.monotonic()
    with _cache_lock:
        cached = _cache
    if cached is not None and cached.taken >= since and now - cached.taken <= max_age:
        return cached
    try:
        names = os.listdir(PROC)
    except OSError:
        return None
    members: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for name in names:
        if not name.isdigit():
            continue
        fields = _stat_fields(name)
        if fields is None or len(fields) <= 19:
            continue  # gone meanwhile
        pid = int(name)
        started[pid] = int(fields[19])
        if fields[0] not in (b"Z", b"X"):
            members.setdefault(int(fields[3]), []).append(pid)
    fresh = Snapshot(now, members, started)
    with _cache_lock:
        if _cache is None or _cache.taken < now:
            _cache = fresh
    return fresh


class CommandProcesses:
    """The processes of one command: the kernel session its shell leads.

    It is an :class:`~boris.shell.tasks.Endable`, so a session can end it when it
    closes.
    """

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.ended = False
        self._since = time.monotonic()
        self._started = start_time(leader)
        self._kill_timer: threading.Timer | None = None

    def members(self, view: Snapshot | None) -> list[int] | None:
        """The live processes of the command in ``view``; None without /proc."""
        if self.ended:
            return []
        if view is None:
            return None
        if view.taken < self._since:
            view = snapshot()  # the shell may have started after that scan
            if view is None:
                return None
        leader_start = view.started.get(self.leader)
        if leader_start is not None and self._started is not None and leader_start != self._started:
            self.ended = True  # the number is another process's now: ours are all gone
            return []
        pids = view.members.get(self.leader, [])
        if not pids:
            self.ended = True  # an empty session never gets a member again
        return pids

    def alive(self, max_age: float = FRESH) -> bool:
        """Whether any process of the command is left (looking at a scan of /proc at
        most ``max_age`` seconds old)."""
        if self.ended:
            return False
        pids = self.members(snapshot(max_age, self._since))
        if pids is None:
            return self._group_alive()
        return bool(pids)

    def signal(self, signum: int, max_age: float = 0.0) -> bool:
        """Send ``signum`` to every process of the command (found in a look at /proc
        at most ``max_age`` seconds old); whether there were any."""
        if self.ended:
            return False
        pids = self.members(snapshot(max_age, self._since))
        if pids == []:
            return False
        # The shell's group at once (a group lies within one session: while the
        # session has processes, the group of that number is the command's too).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.leader, signum)
        if pids is None:
            return self._group_alive()
        for pid in pids:
            _signal_member(pid, self.leader, signum)
        return True

    def _group_alive(self) -> bool:
        try:
            os.killpg(self.leader, 0)
        except ProcessLookupError:
            self.ended = True
            return False
        except PermissionError:
            pass
        return True

    def terminate(self) -> None:
        """SIGTERM every process now; SIGKILL ``KILL_GRACE`` seconds later if any is left."""
        self.signal(signal.SIGTERM, FRESH)
        self.signal(signal.SIGCONT, FRESH)  # a stopped process could not act on the SIGTERM
        if self._kill_timer is None and not self.ended:
            # A timer thread rather than the event loop: terminate() is also called at
            # shutdown, when the loop may not live another five seconds.
            timer = threading.Timer(KILL_GRACE, self._kill_if_alive)
            timer.daemon = True
            timer.start()
            self._kill_timer = timer

    def _kill_if_alive(self) -> None:
        if self.alive():
            log.debug("processes of command %d outlived SIGTERM, sending SIGKILL", self.leader)
            self.kill()

    def kill(self) -> None:
        """SIGKILL every process, again while any is left (one may have forked)."""
        for _ in range(KILL_ROUNDS):
            if not self.signal(signal.SIGKILL):
                return
            time.sleep(0.01)


def _signal_member(pid: int, session: int, signum: int) -> None:
    """Send ``signum`` to ``pid`` if it is still in ``session``. Through a pidfd where
    there is one: the check and the signal then reach the same process, even if
    ``pid`` ended meanwhile and its number went to another."""
    try:
        pidfd = os.pidfd_open(pid)
    except AttributeError:
        pidfd = None
    except OSError:
        return  # gone
    try:
        if session_of(pid) != session:
            return
        if pidfd is None:
            os.kill(pid, signum)
        else:
            signal.pidfd_send_signal(pidfd, signum)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        if pidfd is not None:
            os.close(pidfd)
