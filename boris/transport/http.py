"""The streamable HTTP transport: the app at ``/mcp`` behind Boris's ASGI guards, on uvicorn.

The guards, outermost first: permissive CORS on every route; on ``/mcp`` the bearer
token or, without one, the origin check; the refusal of the stateless protocol
revision (sessions need the handshake); a bounded request body, read once and checked
as a STDIO line is (boris.transport.jsonrpc).

A request that carries no progress token is answered with one ``application/json``
body; one that does, with an SSE stream that carries its progress notifications
before the reply (both are answers the streamable HTTP transport allows). The stream
costs the server a response task and its own send loop per call.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

import anyio
import mcp_types
from fastmcp import FastMCP
from mcp.server.streamable_http import StreamableHTTPServerTransport, check_accept_headers
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.requests import Request

from boris.app import call_screen
from boris.edge import CallScreen
from boris.settings import Settings
from boris.transport.jsonrpc import (
    Answer,
    Refusal,
    max_message_size,
    read_message,
    too_large,
)
from boris.transport.prescan import HEAD, TAIL, id_from_end, id_from_start

log = logging.getLogger("boris.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_CORS_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, POST, DELETE, OPTIONS"),
    (
        b"access-control-allow-headers",
        b"Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
    ),
    (b"access-control-expose-headers", b"Mcp-Session-Id"),
    (b"access-control-max-age", b"86400"),
]


async def _send_json(send: Send, status: int, body: object) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _headers(scope: Scope, name: bytes) -> list[str]:
    """Every value of header ``name`` (lower case), in order."""
    return [
        str(value.decode("latin-1"))
        for key, value in scope.get("headers", ())
        if key.lower() == name
    ]


def _header(scope: Scope, name: bytes) -> str | None:
    values = _headers(scope, name)
    return values[0] if values else None


def _is_mcp_path(scope: Scope) -> bool:
    path = str(scope.get("path", ""))
    return path == "/mcp" or path.startswith("/mcp/")


class Cors:
    """Permissive CORS on every route; any OPTIONS request is a preflight (204)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            await send({"type": "http.response.start", "status": 204, "headers": _CORS_HEADERS})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {key.lower() for key, _ in message.get("headers", ())}
                extra = [(k, v) for k, v in _CORS_HEADERS if k not in names]
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.app(scope, receive, send_with_cors)


def is_loopback_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.hostname in ("localhost", "127.0.0.1", "::1")


def _normalize_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


class AccessGuard:
    """Bearer-token auth on /mcp; without a token, refuse foreign browser origins.

    The origin check stops a web page from driving an unauthenticated local server
    (DNS rebinding); requests without an Origin header (every non-browser client)
    are unaffected. A browser sends at most one Origin: a request with several is
    malformed and refused with or without a token, since they could disagree on
    which one a check would read.
    """

    def __init__(self, app: ASGIApp, token: str | None, allow_origins: list[str]) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.allow_origins = {_normalize_origin(o) for o in allow_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _is_mcp_path(scope):
            origins = _headers(scope, b"origin")
            if len(origins) > 1:
                await _send_json(send, 403, {"error": "forbidden origin"})
                return
            if self.token is not None:
                if not self._authorized(_header(scope, b"authorization")):
                    await _send_json(send, 401, {"error": "unauthorized"})
                    return
            elif origins:
                origin = origins[0]
                if (
                    not is_loopback_origin(origin)
                    and _normalize_origin(origin) not in self.allow_origins
                ):
                    await _send_json(send, 403, {"error": "forbidden origin"})
                    return
        await self.app(scope, receive, send)

    def _authorized(self, header: str | None) -> bool:
        assert self.token is not None
        if not header:
            return False
        scheme, _, credentials = header.strip().partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(credentials.strip().encode(), self.token)


class HandshakeOnly:
    """Refuse the stateless protocol revision on /mcp so clients fall back to a session.

    Under the stateless revision every request is its own connection and Boris
    would lose the cwd, tasks and viewed files between calls. Answering -32022
    with the handshake versions makes auto-negotiating clients initialize instead.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and _is_mcp_path(scope):
            requested = _header(scope, b"mcp-protocol-version")
            if requested is not None and requested not in HANDSHAKE_PROTOCOL_VERSIONS:
                error = {
                    "code": mcp_types.UNSUPPORTED_PROTOCOL_VERSION,
                    "message": "Unsupported protocol version",
                    "data": {
                        "supported": list(HANDSHAKE_PROTOCOL_VERSIONS),
                        "requested": requested,
                    },
                }
                await _send_json(send, 400, {"jsonrpc": "2.0", "id": None, "error": error})
                return
        await self.app(scope, receive, send)


class RequestBodies:
    """POST /mcp: a bounded body, and an answer for every message the SDK would drop.

    The body is read here, at most ``limit`` bytes (413 beyond, with the request's id
    if the body's first or last bytes show it; nothing more of it is kept), and
    checked as a STDIO line is (boris.transport.jsonrpc): what is not one valid
    message gets its JSON-RPC error with 400; a tool call refused before it runs (a
    tool that is not served, arguments the tool cannot take, a lone surrogate, which the
    SDK's parser would refuse as a whole) gets its tool result. Everything else goes on
    to the SDK unchanged.
    """

    #: Bodies up to this size are checked on the event loop; larger ones in a thread.
    _INLINE = 1 << 16

    def __init__(self, app: ASGIApp, limit: int, screen: CallScreen) -> None:
        self.app = app
        self.limit = limit
        self.screen = screen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not _is_mcp_path(scope):
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self.limit:
            await self._too_large(receive, send, b"", b"", more=True)
            return
        # One growing buffer, each piece freed as soon as it is in: a list of pieces
        # joined at the end would leave the memory of all of them behind.
        buffer = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            buffer += message.get("body", b"")
            more = message.get("more_body", False)
            del message
            if len(buffer) > self.limit:
                head, tail = bytes(buffer[:HEAD]), bytes(buffer[-TAIL:])
                del buffer
                await self._too_large(receive, send, head, tail, more=more)
                return
        body = bytes(buffer)
        del buffer
        if len(body) <= self._INLINE:
            verdict = read_message(body, self.screen)
        else:
            verdict = await anyio.to_thread.run_sync(read_message, body, self.screen)
        if isinstance(verdict, Refusal | Answer):
            await _send_json(
                send, 200 if isinstance(verdict, Answer) else 400, _dumped(verdict.reply)
            )
            return
        plain = isinstance(verdict, mcp_types.JSONRPCRequest) and _answered_plainly(verdict, scope)
        del verdict
        # The body is handed on once and not kept here: the SDK makes its own copy.
        pending = [{"type": "http.request", "body": body, "more_body": False}]
        del body

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        if not plain:
            await self.app(scope, replay, send)
            return
        answer_as_json = _ANSWER_AS_JSON.set(asyncio.current_task())
        try:
            await self.app(scope, replay, send)
        finally:
            _ANSWER_AS_JSON.reset(answer_as_json)

    async def _too_large(
        self, receive: Receive, send: Send, head: bytes, tail: bytes, *, more: bool
    ) -> None:
        """413 for a body longer than the limit, with the id its first or last bytes
        show (boris.transport.prescan): the rest of the body is read until its first
        bytes are in and, if they show no id, to its end, keeping nothing but its ends.
        ``head`` and ``tail`` are the ends of what was read of it."""

        async def piece() -> bytes | None:
            nonlocal more
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client went away
            more = message.get("more_body", False)
            data: bytes = message.get("body", b"")
            return data

        while more and len(head) < HEAD:
            if (data := await piece()) is None:
                return
            head += data[: HEAD - len(head)]
            tail = (tail + data[-TAIL:])[-TAIL:]
        found = id_from_start(head)
        while found is None and more:
            if (data := await piece()) is None:
                return
            tail = (tail + data[-TAIL:])[-TAIL:]
        if found is None:
            found = id_from_end(tail)
        await _send_json(send, 413, _dumped(too_large(self.limit, found).reply))


#: The task handling a request that is answered with one JSON body (see
#: :class:`_PlainWhenQuiet`), set around the request's way down the ASGI stack. A task
#: started meanwhile inherits the value but is not that task: the session's own tasks
#: (started by its opening request) keep the stream's rules.
_ANSWER_AS_JSON: ContextVar[asyncio.Task[Any] | None] = ContextVar(
    "boris_answer_as_json", default=None
)


def _answered_plainly(request: mcp_types.JSONRPCRequest, scope: Scope) -> bool:
    """Whether ``request`` gets a plain JSON answer: it asks for no progress, so only
    its reply will ever be sent for it (Boris sends no log messages and makes no
    requests to the client), and its client accepts both answers, as the transport
    requires of every client (one that does not still gets the SDK's refusal)."""
    meta = (request.params or {}).get("_meta")
    if isinstance(meta, dict) and meta.get("progressToken") is not None:
        return False
    has_json, has_sse = check_accept_headers(Request(scope))
    return has_json and has_sse


class _PlainWhenQuiet(StreamableHTTPServerTransport):
    """The SDK's session transport, told per request whether to answer with one JSON
    body or an SSE stream: its own switch holds for all of a session's requests."""

    @property
    def is_json_response_enabled(self) -> bool:
        plain = _ANSWER_AS_JSON.get()
        return plain is not None and plain is asyncio.current_task()

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        # Set once by the SDK's constructor from http_app's json_response=False: the
        # stream is the default, for GET and for requests that want progress.
        assert not value


def _dumped(reply: mcp_types.JSONRPCError | mcp_types.JSONRPCResponse) -> dict[str, Any]:
    return reply.model_dump(by_alias=True, exclude_unset=True)


def http_app(mcp: FastMCP[Any], settings: Settings) -> Any:
    limit = max_message_size(settings.max_file_size)
    app = mcp.http_app(
        path="/mcp",
        session_idle_timeout=settings.session_idle_timeout,
        stateless_http=False,
        json_response=False,
        host_origin_protection=False,  # AccessGuard owns the origin policy
        middleware=[
            ASGIMiddleware(Cors),
            ASGIMiddleware(AccessGuard, token=settings.token, allow_origins=settings.allow_origins),
            ASGIMiddleware(HandshakeOnly),
            ASGIMiddleware(RequestBodies, limit=limit, screen=call_screen(mcp)),
        ],
    )
    _adapt_session_manager(app)
    return app


def _adapt_session_manager(app: Any) -> None:
    """Once the SDK's session manager exists (the app has started): leave the body
    limit to RequestBodies alone, and answer quiet requests plainly.

    The MCP SDK caps a request body at 4 MiB (mcp.server.transport_security
    RequestBodyLimitMiddleware, in front of its session manager) and fastmcp passes no
    other limit on; it also copies the body twice. RequestBodies already enforces
    Boris's limit and reads the body once, so its limiter is taken out. Each new
    session gets a transport that answers a request without a progress token with one
    JSON body (:class:`_PlainWhenQuiet`).
    """
    from mcp.server.transport_security import RequestBodyLimitMiddleware

    (endpoint,) = [route.endpoint for route in app.routes if getattr(route, "path", None) == "/mcp"]
    start = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(starlette: Any) -> AsyncIterator[Any]:
        async with start(starlette) as state:
            manager = endpoint.session_manager
            limiter = manager.asgi_app
            assert isinstance(limiter, RequestBodyLimitMiddleware), limiter
            manager.asgi_app = limiter.app
            _answer_quiet_requests_plainly(manager)
            yield state

    app.router.lifespan_context = lifespan


def _answer_quiet_requests_plainly(manager: Any) -> None:
    """Give each new session of ``manager`` a transport that answers a request without
    a progress token with one JSON body (see :class:`_PlainWhenQuiet`)."""
    admit = manager._admit_session

    def admit_plain_when_quiet(*args: Any, **kwargs: Any) -> Any:
        transport = admit(*args, **kwargs)
        if isinstance(transport, StreamableHTTPServerTransport):
            transport.__class__ = _PlainWhenQuiet
        return transport

    manager._admit_session = admit_plain_when_quiet


async def serve_http(mcp: FastMCP[Any], settings: Settings) -> None:
    import uvicorn

    if settings.unauthenticated_beyond_loopback:  # only with --allow-unauthenticated
        log.warning(
            "serving HTTP on %s without a token (--allow-unauthenticated): anyone who can "
            "reach port %d can run commands; set --token or --generate-token",
            settings.host,
            settings.port,
        )
    config = uvicorn.Config(
        http_app(mcp, settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        lifespan="on",
        timeout_graceful_shutdown=3,
        ws="none",
    )
    log.info("listening on http://%s:%d/mcp", settings.host, settings.port)
    await uvicorn.Server(config).serve()
