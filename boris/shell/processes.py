"""Every process a command started, and the one way Boris ends them.

Each command's shell is started in a kernel session of its own (``setsid``): the
session id is the shell's pid, and every process the command starts inherits it. A
process can leave its process group by accident (job control: ``set -m`` puts each job
in a group of its own) and outlive its shell (``server &``), but it leaves the session
only by calling ``setsid`` itself (``setsid cmd &``, ``(setsid cmd &)``, a daemon's
double fork). Such a process is still the command's; it is known by three marks, each
kept for what the others miss:

- its parent: a process whose parent is the command's is the command's. The kernel
  keeps this and the process cannot change it, but only while the parent lives: then
  the orphan is handed to the nearest subreaper;
- its environment: every command's shell starts with ``BORIS_COMMAND_ID`` (:data:`MARK`)
  set to an id of the command's own, which every process it starts inherits, whatever
  its session and its parent. Only a process that clears its environment loses it (and
  one that copies another command's id goes with that command);
- memory: an attribution, once made, holds for the life of that process (its pid and
  start time) and of the kernel session it leads.

The server is a child subreaper (boris.prctl): an orphan goes to the server instead of
init, so whatever a command started stays among the server's descendants. Only those
are looked at (a mark in any other process's environment means nothing) and only they
are ever signalled. A process that escapes all three marks (it left its session,
cleared its environment, and its parent ended before Boris looked) is still a
descendant: it is ended when the server shuts down (:class:`Descendants`).

So the processes of a command are the live processes in its session and those
attributed to it, found in one read of ``/proc``; ending a command means SIGTERM to
each of them now and SIGKILL ``KILL_GRACE`` seconds later to whatever is left (found
again: a process may have forked meanwhile).

Where there is no ``/proc`` (macOS), the command's process group stands for it, as the
kernel offers nothing better there: a job in a group of its own escapes.

A session id is the pid of the shell that started it, and the kernel hands that number
out again only once no process uses it as a pid, group or session id. Boris notes the
shell's start time when it starts it; a process found later with that pid and another
start time shows that the command's session is empty, and its group is never
signalled again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

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

#: The environment variable that carries a command's id to every process it starts.
MARK = "BORIS_COMMAND_ID"

_MARK_BYTES = MARK.encode() + b"="

#: Bytes of a process's environment read at most when looking for the mark.
_ENVIRON_LIMIT = 1 << 20


@dataclass(frozen=True)
class Snapshot:
    """The live processes of the machine at one moment, by the session they are in, and
    the server's descendants that left their command's session, by command."""

    #: monotonic time at which the scan began
    taken: float
    #: session id → pids of the live (not zombie) processes in it
    members: dict[int, list[int]]
    #: pid → start time (clock ticks after boot), of every process seen
    started: dict[int, int]
    #: command id → live descendants of the server attributed to that command, outside
    #: its session
    escaped: dict[str, list[int]] = field(default_factory=dict)
    #: live descendants of the server outside the server's own session (every process a
    #: command started, attributed or not)
    descendants: list[int] = field(default_factory=list)


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name: state, parent, group,
    session, …; None if there is no such process (or no /proc)."""
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
    fields = stat_fields(pid)
    return int(fields[19]) if fields is not None and len(fields) > 19 else None


# --- the commands alive, and what Boris learnt about their processes ----------------


class _Registry:
    """Every command whose processes are not all gone, by id and by the session its
    shell leads, and the attributions made so far (see the module docstring)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.commands: dict[str, CommandProcesses] = {}
        #: session id → id of the command whose shell leads it
        self.leaders: dict[int, str] = {}
        #: (pid, start time) → id of the command it was attributed to (None: none found)
        self.known: dict[tuple[int, int], str | None] = {}
        #: session id → id of the command a process that leads it was attributed to
        self.sessions: dict[int, str] = {}

    def add(self, command: CommandProcesses) -> None:
        with self.lock:
            self.commands[command.id] = command
            previous = self.leaders.get(command.leader)
            if previous is not None and previous in self.commands:
                # The number is the new shell's: the old session has no process left.
                self.commands[previous].leader_gone = True
            self.leaders[command.leader] = command.id

    def remove(self, command: CommandProcesses) -> None:
        """Forget ``command``: its processes are all gone."""
        with self.lock:
            self.commands.pop(command.id, None)
        self.session_ended(command)

    def session_ended(self, command: CommandProcesses) -> None:
        """The session ``command``'s shell led has no process left: its number may
        become another session's, which must not be taken for the command's."""
        with self.lock:
            if self.leaders.get(command.leader) == command.id:
                del self.leaders[command.leader]


_registry = _Registry()


def _marked(pid: int, ids: Iterable[str]) -> str | None:
    """The command id in the environment of ``pid``, if it is one of ``ids``."""
    try:
        fd = os.open(f"{PROC}/{pid}/environ", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # gone, or not ours to read (another user's, not dumpable)
    try:
        data = b""
        while len(data) < _ENVIRON_LIMIT and (piece := os.read(fd, 65536)):
            data += piece
    except OSError:
        return None
    finally:
        os.close(fd)
    for entry in data.split(b"\0"):
        if entry.startswith(_MARK_BYTES):
            value = entry[len(_MARK_BYTES) :].decode("ascii", "replace")
            return value if value in ids else None
    return None


def _attribute(
    parent: dict[int, int], session: dict[int, int], started: dict[int, int], live: set[int]
) -> tuple[dict[str, list[int]], list[int]]:
    """The server's live descendants outside their command's session, by command id, and
    every live descendant outside the server's own session (see the module docstring).

    Walks the server's descendants from the top, so that a parent is attributed before
    its children."""
    me = os.getpid()
    own = session.get(me)
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    with _registry.lock:
        leaders = dict(_registry.leaders)
        ids = set(_registry.commands)
        known = _registry.known
        sessions = _registry.sessions
    escaped: dict[str, list[int]] = {}
    descendants: list[int] = []
    now_known: dict[tuple[int, int], str | None] = {}
    now_sessions: dict[int, str] = {}
    stack: list[tuple[int, str | None]] = [(pid, None) for pid in children.get(me, ())]
    while stack:
        pid, inherited = stack.pop()
        sid = session[pid]
        owner: str | None = None
        if sid == own:
            pass  # the server's own (search workers)
        elif sid in leaders:
            owner = leaders[sid]
        else:
            key = (pid, started[pid])
            if inherited is not None:
                owner = inherited
            elif key in known:
                owner = known[key]
            elif sid in sessions:
                owner = sessions[sid]
            else:
                owner = _marked(pid, ids)
            now_known[key] = owner
            if owner is not None:
                now_sessions.setdefault(sid, owner)
                if pid in live:
                    escaped.setdefault(owner, []).append(pid)
        if sid != own and pid in live:
            descendants.append(pid)
        stack.extend((child, owner) for child in children.get(pid, ()))
    with _registry.lock:
        # Only what was seen now is kept: a pid or session id not seen is free for reuse.
        _registry.known = now_known
        _registry.sessions = now_sessions
    return escaped, descendants


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
    parent: dict[int, int] = {}
    session: dict[int, int] = {}
    live: set[int] = set()
    for name in names:
        if not name.isdigit():
            continue
        fields = stat_fields(name)
        if fields is None or len(fields) <= 19:
            continue  # gone meanwhile
        pid = int(name)
        started[pid] = int(fields[19])
        parent[pid] = int(fields[1])
        session[pid] = sid = int(fields[3])
        if fields[0] not in (b"Z", b"X"):
            members.setdefault(sid, []).append(pid)
            live.add(pid)
    escaped, descendants = _attribute(parent, session, started, live)
    fresh = Snapshot(now, members, started, escaped, descendants)
    with _cache_lock:
        if _cache is None or _cache.taken < now:
            _cache = fresh
    return fresh


class CommandProcesses:
    """The processes of one command: those of the kernel session its shell leads, and
    those attributed to it outside (see the module docstring).

    It is an :class:`~boris.shell.tasks.Endable`, so a session can end it when it
    closes. ``id`` is the command's id, the value of :data:`MARK` in its environment
    (:func:`new_id`).
    """

    def __init__(self, leader: int, command_id: str | None = None) -> None:
        self.leader = leader
        self.id = command_id or new_id()
        self.ended = False
        #: the shell's session has no process left (its number may be another's now)
        self.leader_gone = False
        self._since = time.monotonic()
        self._started = start_time(leader)
        self._kill_timer: threading.Timer | None = None
        _registry.add(self)

    def _members(self, view: Snapshot | None) -> tuple[list[int], list[int]] | None:
        """The live processes of the command in ``view``: those in its session and those
        outside; None without /proc."""
        if self.ended:
            return [], []
        if view is None:
            return None
        if view.taken < self._since:
            view = snapshot()  # the shell may have started after that scan
            if view is None:
                return None
        inside: list[int] = []
        if not self.leader_gone:
            leader_start = view.started.get(self.leader)
            if (
                leader_start is not None
                and self._started is not None
                and leader_start != self._started
            ):
                self.leader_gone = True  # the number is another process's now
            else:
                inside = view.members.get(self.leader, [])
                # An empty session never gets a member again.
                self.leader_gone = not inside
            if self.leader_gone:
                _registry.session_ended(self)
        outside = view.escaped.get(self.id, [])
        if not inside and not outside:
            self.ended = True
            _registry.remove(self)
        return inside, outside

    def members(self, view: Snapshot | None) -> list[int] | None:
        """The live processes of the command in ``view``; None without /proc."""
        found = self._members(view)
        return None if found is None else found[0] + found[1]

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
        view = snapshot(max_age, self._since)
        found = self._members(view)
        if found is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.leader, signum)
            return self._group_alive()
        inside, outside = found
        if not inside and not outside:
            return False
        if inside:
            # The shell's group at once (a group lies within one session: while the
            # session has processes, the group of that number is the command's too).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.leader, signum)
        started = view.started if view is not None else {}
        for pid in inside + outside:
            _signal_member(pid, started.get(pid), signum)
        return True

    def _group_alive(self) -> bool:
        try:
            os.killpg(self.leader, 0)
        except ProcessLookupError:
            self.ended = True
            _registry.remove(self)
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


def new_id() -> str:
    """A fresh command id, the value of :data:`MARK`."""
    return secrets.token_hex(8)


class Descendants:
    """Every process below the server outside its own session: whatever commands
    started, whether or not it could be attributed to one. The server ends them all
    when it shuts down (an :class:`~boris.shell.tasks.Endable`). Only meaningful in a
    child subreaper, whose descendants' orphans stay below it."""

    def alive(self) -> bool:
        view = snapshot(FRESH)
        return view is not None and bool(view.descendants)

    def _signal(self, signum: int) -> bool:
        view = snapshot()
        if view is None or not view.descendants:
            return False
        for pid in view.descendants:
            _signal_member(pid, view.started.get(pid), signum)
        return True

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)
        self._signal(signal.SIGCONT)

    def kill(self) -> None:
        for _ in range(KILL_ROUNDS):
            if not self._signal(signal.SIGKILL):
                return
            time.sleep(0.01)


def _signal_member(pid: int, started: int | None, signum: int) -> None:
    """Send ``signum`` to ``pid`` if it is still the process that started at ``started``
    (clock ticks after boot). Through a pidfd where there is one: the check and the
    signal then reach the same process, even if ``pid`` ended meanwhile and its number
    went to another."""
    try:
        pidfd = os.pidfd_open(pid)
    except AttributeError:
        pidfd = None
    except OSError:
        return  # gone
    try:
        if started is None or start_time(pid) != started:
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
