"""Per-client state (cwd, viewed files, background tasks), its store, and how a tool gets it.

Over HTTP every ``Mcp-Session-Id`` (a client of a handshake revision) has its own
:class:`Session`, closed when the client sends DELETE, when it has been idle for
``--session-idle-timeout``, or at shutdown. Requests of the 2026-07-28 revision belong to
no session: over HTTP they are all served from one more, the server's workspace
(``WORKSPACE``), apart from every handshake session and kept until shutdown. Over STDIO
the process serves one client, so there is exactly one session, the workspace too. A
tool takes its caller's session as ``session: Session = Depends(current_session)``.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import anyio

from boris.files.access import FileAccess, Identity, SyntaxCheck, identity
from boris.files.scope import PathScope
from boris.prctl import is_subreaper
from boris.seams.sdk import on_connection_close
from boris.settings import Settings
from boris.shell.command import Shell
from boris.shell.environment import child_environment, for_commands
from boris.shell.processes import KILL_GRACE, Descendants
from boris.shell.tasks import Endable, TaskTable
from boris.structure.edit_syntax import syntax_check
from boris.structure.pages import Pages

if TYPE_CHECKING:
    from fastmcp import Context

log = logging.getLogger("boris.session")

T = TypeVar("T")

#: Worker threads the blocking calls of one session (the file tools, grep, glob) may
#: hold at once, out of the server's 40 (anyio's default): one session's slow calls
#: leave threads for every other session's. The session's further calls wait their turn.
SESSION_THREADS = 8


def command_environment() -> dict[str, str]:
    """The environment every command of this server runs with."""
    return child_environment(for_commands())


@dataclass(frozen=True)
class Runtime:
    """What every session of one app shares: the settings, the scope, the shell and the
    environment commands run with."""

    settings: Settings
    scope: PathScope
    shell: str
    env: Mapping[str, str] = field(default_factory=command_environment)

    @property
    def syntax(self) -> SyntaxCheck | None:
        """The edits' syntax check under --check-syntax."""
        return _syntax_checks(self.settings.check_syntax)


#: The syntax check of each --check-syntax mode, made once.
_syntax_checks = functools.cache(syntax_check)


@dataclass(eq=False)
class Session:
    id: str
    runtime: Runtime
    cwd: str
    tasks: TaskTable = field(default_factory=TaskTable)
    #: Where its symbols searches stopped, for their next pages.
    pages: Pages = field(default_factory=Pages)
    # Sync tools run in worker threads, so shared state is guarded by a real lock.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: The files viewed or written, with what was seen of each (None: nothing to see,
    #: as for a deleted file).
    _viewed: dict[str, Identity | None] = field(default_factory=dict, repr=False)
    _threads: anyio.CapacityLimiter = field(
        default_factory=lambda: anyio.CapacityLimiter(SESSION_THREADS), repr=False
    )

    async def blocking(
        self, work: Callable[[], T], stop: threading.Event | None = None, *, settle: bool = False
    ) -> T:
        """``work()`` in a worker thread, within this session's share of the threads
        (``SESSION_THREADS``).

        With ``stop``, a cancelled call (the client's cancel, the end of the session,
        shutdown) sets it: ``work`` looks at it and ends soon after. The call then
        returns at once, or, with ``settle``, once ``work`` has ended (a patch stopped
        and undone, or finished: shutdown must not exit in the middle of it). Without
        ``stop``, a cancelled call waits for ``work`` to finish (an edit is never left
        half done).
        """
        async with self._threads:
            if stop is None:
                return await anyio.to_thread.run_sync(work)
            ended = threading.Event()

            def run() -> T:
                try:
                    return work()
                finally:
                    ended.set()

            try:
                return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
            except anyio.get_cancelled_exc_class():
                stop.set()
                log.debug("session %s: a call was cancelled; its work is told to stop", self.id)
                if settle:
                    with anyio.CancelScope(shield=True):
                        await anyio.to_thread.run_sync(ended.wait)
                raise

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def scope(self) -> PathScope:
        return self.runtime.scope

    def resolve(self, path: str) -> str:
        """Resolve a tool's ``path`` against this session's cwd and check its scope."""
        return self.scope.resolve(path, self.cwd)

    def mark_viewed(self, resolved_path: str, info: os.stat_result | None = None) -> None:
        seen = None if info is None else identity(info)
        with self._lock:
            self._viewed[resolved_path] = seen

    def has_viewed(self, resolved_path: str) -> bool:
        with self._lock:
            return resolved_path in self._viewed

    def seen(self, resolved_path: str) -> Identity | None:
        """What this session last saw of a file it viewed or wrote."""
        with self._lock:
            return self._viewed.get(resolved_path)

    @property
    def files(self) -> FileAccess:
        """What the file tools' domain needs of this session, as it is now."""
        settings = self.settings
        return FileAccess(
            cwd=self.cwd,
            scope=self.scope,
            max_size=settings.max_file_size,
            view_first=settings.require_view_before_edit,
            viewed=self.has_viewed,
            mark_viewed=self.mark_viewed,
            seen=self.seen,
            syntax=self.runtime.syntax,
        )

    @property
    def shell(self) -> Shell:
        """Where this session's commands run, as it is now."""
        runtime = self.runtime
        return Shell(runtime.shell, runtime.env, self.cwd, self.settings.workdir)

    def close(self) -> list[Endable]:
        """End the session: terminate every background task. Idempotent.

        Returns the tasks it terminated so a caller that can wait (shutdown) can
        make sure they are gone.
        """
        tasks = self.tasks.close()
        self.pages.clear()
        log.debug("session %s closed, %d background task(s) terminated", self.id, len(tasks))
        return tasks


#: The key of the server's workspace: the one session of a STDIO (or in-memory) server,
#: and over HTTP the state every request of the 2026-07-28 revision is served from.
WORKSPACE = "workspace"


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
        if ctx.transport not in ("streamable-http", "sse") or _sessionless(ctx):
            # One client per process, or a request of the revision without sessions:
            # ctx.session_id changes on every such request (each is a connection of its
            # own, which ends with it), so it must not be the key here.
            return self.get(WORKSPACE)
        key = ctx.session_id
        session, created = self._get_or_create(key)
        if created:
            on_connection_close(ctx, lambda: self.close(key))
        return session

    def close(self, key: str) -> None:
        with self._lock:
            session = self._sessions.pop(key, None)
        if session is not None:
            session.close()

    async def close_all(self) -> None:
        """Close every session and wait (at most ``KILL_GRACE``) for their tasks to end.

        In a child subreaper, every process below the server outside its own session is
        ended too: whatever a command detached, attributed to it or not, and whatever
        sessions closed before (their end does not wait)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        tasks: list[Endable] = [task for session in sessions for task in session.close()]
        if is_subreaper():
            rest = Descendants()
            rest.terminate()
            tasks.append(rest)
        deadline = time.monotonic() + KILL_GRACE
        while tasks and time.monotonic() < deadline:
            await anyio.sleep(0.05)
            tasks = [task for task in tasks if task.alive()]
        for task in tasks:
            task.kill()


def _sessionless(ctx: Context) -> bool:
    """Whether ``ctx``'s request is of a protocol revision without a handshake."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    request = ctx.request_context
    return request is not None and request.protocol_version in MODERN_PROTOCOL_VERSIONS


def current_session() -> Session:
    """The calling client's session; tools take it as ``session: Session = Depends(...)``."""
    from fastmcp.server.dependencies import get_context

    ctx = get_context()
    store: SessionStore = ctx.lifespan_context["sessions"]
    return store.for_context(ctx)
