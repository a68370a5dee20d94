"""The MCP SDK's private parts that Boris uses, each with its reason: the only module naming
them.

- :func:`on_connection_close` reaches a connection's exit stack through
  ``ServerSession._connection``: no public way exists;
- :func:`adapt_session_manager` wraps ``StreamableHTTPSessionManager._admit_session`` so
  that each session's transport answers a quiet request with one JSON body, for a
  measured gain (below); with it, it raises the SDK's own body limit to Boris's and
  sets its session limit;
- in each session's transport, the queues of ``_request_streams`` drop a progress
  notification that finds its queue (nearly) full (:class:`_ProgressOnlyWithRoom`): a
  client that does not read one call's SSE stream would otherwise stop every call of
  its session (below). No public way exists.

``tests/seams/test_sdk.py`` fails when the SDK no longer works this way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp_types import JSONRPCNotification

if TYPE_CHECKING:
    from fastmcp import Context
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette


def on_connection_close(ctx: Context, callback: Callable[[], None]) -> None:
    """Call ``callback`` once the MCP connection of ``ctx``'s request ends: over HTTP on
    the client's DELETE, at the idle timeout, or at shutdown.

    The SDK unwinds a per-connection exit stack then (``Connection.exit_stack``, public,
    "push cleanup from handlers or middleware"), but hands a request handler the
    connection only inside its ``ServerSession``, as ``_connection``.
    """
    connection = ctx.session._connection

    async def close() -> None:
        callback()

    connection.exit_stack.push_async_callback(close)


# --- one JSON body for a quiet request -------------------------------------------------

#: The task handling a request that is answered with one JSON body, set around the
#: request's way down the ASGI stack (:func:`answering_plainly`). A task started meanwhile
#: inherits the value but is not that task: the session's own tasks (started by its
#: opening request) keep the stream's rules.
_ANSWER_AS_JSON: ContextVar[asyncio.Task[Any] | None] = ContextVar(
    "boris_answer_as_json", default=None
)


@contextmanager
def answering_plainly() -> Iterator[None]:
    """Around the request this task hands on: the session's transport answers it with one
    ``application/json`` body instead of an SSE stream. Only for a request that nothing
    but its reply will ever be sent for (no progress token)."""
    token = _ANSWER_AS_JSON.set(asyncio.current_task())
    try:
        yield
    finally:
        _ANSWER_AS_JSON.reset(token)


class _PlainWhenQuiet(StreamableHTTPServerTransport):
    """The SDK's session transport, told per request whether to answer with one JSON body
    or an SSE stream: its own switch (``json_response``) holds for all of a session's
    requests, and an SSE stream is the only way to send a call's progress."""

    @property
    def is_json_response_enabled(self) -> bool:
        plain = _ANSWER_AS_JSON.get()
        return plain is not None and plain is asyncio.current_task()

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        # Set once by the SDK's constructor from http_app's json_response=False: the
        # stream is the default, for GET and for requests that want progress.
        assert not value


def adapt_session_manager(app: Starlette, body_limit: int, max_sessions: int) -> None:
    """Once the SDK's session manager of ``app`` (fastmcp's ``http_app``) exists, at its
    start: give each new session a transport that answers a request inside
    :func:`answering_plainly` with one JSON body, let the SDK take bodies up to
    ``body_limit`` bytes, and keep at most ``max_sessions`` sessions open (the
    manager's public ``max_sessions``, which fastmcp does not pass on: the SDK then
    answers an initialize beyond it with 503 and makes no session).

    An SSE answer costs the server a response task, its own send loop and their cancel
    scopes per call. Measured (bench/load.py --runs 3, 50 sessions x 20 calls, four
    alternating rounds): server CPU per tools/call 2.73-2.93 ms with SSE answers,
    1.92-2.11 ms with JSON ones (-30%); tools/call per second 308-330 against 412-451
    (+35%). The SDK makes a session's transport in ``_admit_session`` and nowhere else.

    The SDK caps a body at 4 MiB (``RequestBodyLimitMiddleware``, in front of the manager)
    and fastmcp passes no other limit on; Boris's own limit (boris.transport.jsonrpc) is
    enforced before, and the SDK's is raised to it (both public attributes).
    """
    from fastmcp.server.http import StreamableHTTPASGIApp
    from mcp.server.transport_security import RequestBodyLimitMiddleware
    from starlette.routing import Route

    (endpoint,) = [r.endpoint for r in app.routes if isinstance(r, Route) and r.path == "/mcp"]
    assert isinstance(endpoint, StreamableHTTPASGIApp), endpoint
    start = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(starlette: Any) -> AsyncIterator[Any]:
        async with start(starlette) as state:
            manager = endpoint.session_manager
            assert manager is not None
            limiter = manager.asgi_app
            assert isinstance(limiter, RequestBodyLimitMiddleware), limiter
            limiter.max_body_size = max(limiter.max_body_size, body_limit)
            manager.max_sessions = max_sessions
            _answer_quiet_requests_plainly(manager)
            yield state

    app.router.lifespan_context = lifespan


def _answer_quiet_requests_plainly(manager: StreamableHTTPSessionManager) -> None:
    admit = manager._admit_session

    def admit_plain_when_quiet(*args: Any, **kwargs: Any) -> Any:
        transport = admit(*args, **kwargs)
        if transport is not None:
            assert type(transport) is StreamableHTTPServerTransport, transport
            transport.__class__ = _PlainWhenQuiet
            transport._request_streams = _Queues(transport._request_streams)
        return transport

    manager._admit_session = admit_plain_when_quiet  # type: ignore[method-assign]


# --- progress for a reader that keeps up ----------------------------------------------------
#
# A session's transport routes everything the server sends, in one task (its
# ``message_router``), into a queue per request (``_request_streams[request id]``, 16
# messages), from which each request's own task writes its SSE stream. A client that
# stops reading one stream (while its call streams progress) fills the socket, then
# that queue; the router then waits on it, and no other call of the session gets its
# answer: every one times out. The queues here never make the router wait for
# progress: a progress notification that finds its queue full but for one place (kept
# for the reply, which only then ends the call) is dropped. The client misses progress
# it was not reading anyway; when it reads again, new progress reaches it. Anything
# else goes into the queue as before.


class _Queues(dict[Any, Any]):
    """A transport's ``_request_streams``: each queue put in is wrapped."""

    def __setitem__(self, key: Any, value: Any) -> None:
        send, receive = value
        super().__setitem__(key, (_ProgressOnlyWithRoom(send), receive))


class _ProgressOnlyWithRoom:
    """The sending end of a request's queue (an anyio memory object stream, used through
    its public API), which drops a progress notification when the queue has no room but
    for the reply."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCNotification) and message.method == PROGRESS:
            queue = self._stream.statistics()
            if queue.current_buffer_used >= queue.max_buffer_size - 1:
                return
        await self._stream.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


PROGRESS = "notifications/progress"
