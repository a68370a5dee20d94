"""Per-client state (cwd, viewed files, background tasks) and its store.

Over HTTP every ``Mcp-Session-Id`` has its own :class:`Session`, closed when the client
sends DELETE, when it has been idle for ``--session-idle-timeout``, or at shutdown.
Over STDIO the process serves one client, so there is exactly one session.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import anyio

from boris.errors import BorisError, Code
from boris.files.scope import PathScope
from boris.settings import Settings

if TYPE_CHECKING:
    from fastmcp import Context

log = logging.getLogger("boris.session")

#: Seconds between SIGTERM and SIGKILL for a process group Boris ends.
KILL_GRACE = 5.0


class BackgroundTask(Protocol):
    """What a session needs from a background task to end it."""

    def terminate(self) -> None:
        """SIGTERM the task's process group now and SIGKILL it ``KILL_GRACE`` later."""

    def kill(self) -> None:
        """SIGKILL whatever is left of the task's process group."""

    def alive(self) -> bool:
        """Whether any process of the task's group is still running."""


@dataclass(frozen=True)
class Runtime:
    """What every session of one server shares: the settings, the scope and the shell."""

    settings: Settings
    scope: PathScope
    shell: str


@dataclass(eq=False)
class Session:
    id: str
    runtime: Runtime
    cwd: str
    tasks: dict[str, BackgroundTask] = field(default_factory=dict)
    # Ids of background tasks that finished and expired unread, oldest first (boris.shell.tasks).
    expired_tasks: dict[str, None] = field(default_factory=dict)
    closed: bool = False
    # Sync tools run in worker threads, so shared state is guarded by a real lock.
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _viewed: set[str] = field(default_factory=set, repr=False)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def scope(self) -> PathScope:
        return self.runtime.scope

    def resolve(self, path: str) -> str:
        """Resolve a tool's ``path`` against this session's cwd and check its scope."""
        return self.scope.resolve(path, self.cwd)

    def mark_viewed(self, resolved_path: str) -> None:
        with self.lock:
            self._viewed.add(resolved_path)

    def has_viewed(self, resolved_path: str) -> bool:
        with self.lock:
            return resolved_path in self._viewed

    def add_task(self, task_id: str, task: BackgroundTask) -> None:
        """Register a started task; a closed session refuses it (and ends it at once)."""
        with self.lock:
            if not self.closed:
                self.tasks[task_id] = task
                return
        task.terminate()
        raise BorisError(Code.BASH_START_FAILED, "the session is closed; start a new session")

    def close(self) -> list[BackgroundTask]:
        """End the session: terminate every background task. Idempotent.

        Returns the tasks it terminated so a caller that can wait (shutdown) can
        make sure they are gone.
        """
        with self.lock:
            if self.closed:
                return []
            self.closed = True
            tasks = list(self.tasks.values())
            self.tasks.clear()
        for task in tasks:
            task.terminate()
        log.debug("session %s closed, %d background task(s) terminated", self.id, len(tasks))
        return tasks


#: The key of the one session of a STDIO (or in-memory) server.
LOCAL_SESSION = "local"


class SessionStore:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Session:
        """The session for ``key``, created on first use."""
        return self._get_or_create(key)[0]

    def _get_or_create(self, key: str) -> tuple[Session, bool]:
        with self._lock:
            session = self._sessions.get(key)
            if session is not None:
                return session, False
            session = Session(id=key, runtime=self.runtime, cwd=self.runtime.settings.workdir)
            self._sessions[key] = session
            return session, True

    def for_context(self, ctx: Context) -> Session:
        """The session of the MCP client making this request."""
        if ctx.transport not in ("streamable-http", "sse"):
            # One client per process. Under the stateless protocol ctx.session_id
            # changes on every request, so it must not be the key here.
            return self.get(LOCAL_SESSION)
        key = ctx.session_id
        session, created = self._get_or_create(key)
        if created:
            _on_connection_close(ctx, self.close, key)
        return session

    def close(self, key: str) -> None:
        with self._lock:
            session = self._sessions.pop(key, None)
        if session is not None:
            session.close()

    async def close_all(self) -> None:
        """Close every session and wait (at most ``KILL_GRACE``) for their tasks to end."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        tasks = [task for session in sessions for task in session.close()]
        deadline = time.monotonic() + KILL_GRACE
        while tasks and time.monotonic() < deadline:
            await anyio.sleep(0.05)
            tasks = [task for task in tasks if task.alive()]
        for task in tasks:
            task.kill()


def _on_connection_close(ctx: Context, callback: _CloseCallback, key: str) -> None:
    # The MCP SDK unwinds a per-connection exit stack when an HTTP session ends
    # (client DELETE, idle timeout, server shutdown). It is reachable only through
    # the private `_connection` attribute; this is the one place that touches it.
    connection = ctx.session._connection

    async def close() -> None:
        callback(key)

    connection.exit_stack.push_async_callback(close)


class _CloseCallback(Protocol):
    def __call__(self, key: str) -> None: ...


def current_session() -> Session:
    """The calling client's session; tools take it as ``session: Session = Depends(...)``."""
    from fastmcp.server.dependencies import get_context

    ctx = get_context()
    store: SessionStore = ctx.lifespan_context["sessions"]
    return store.for_context(ctx)
