"""The streamable HTTP transport: the app at ``/mcp`` behind Boris's ASGI guards, on uvicorn.

fastmcp's ``http_app`` and the MCP SDK's session manager serve ``/mcp``: a request of a
handshake revision within its session (``Mcp-Session-Id``), one of the 2026-07-28
revision (no handshake, no session: its ``MCP-Protocol-Version`` header says so) on the
SDK's per-request path, which checks its headers against its body, answers GET and
DELETE 405 and a notification 202, and cancels the call when the client closes its
stream. The guards, outermost first: permissive CORS on every route; on ``/mcp`` the
bearer token or, without one, the origin and Host checks (the same for both eras); the
bound on 2026-07-28 requests in flight (--max-concurrent-calls); a bounded request
body, read and parsed once (boris.transport.jsonrpc, as a STDIO line is).

A tool call goes on to the SDK without its arguments, which the edge takes from beside
it (boris.edge.arguments_beside): they are parsed once, and off the event loop when
large, and the SDK's parser (which refuses a lone surrogate anywhere in a message)
reads a few hundred bytes.

Within a session, a request that carries no progress token is answered with one
``application/json`` body; one that does, with an SSE stream that carries its progress
notifications before the reply (both are answers the streamable HTTP transport allows).
The stream costs the server a response task and its own send loop per call
(boris.seams.sdk.adapt_session_manager). A 2026-07-28 request is answered as the SDK's
per-request path decides: one JSON body unless a notification (progress) comes first.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlsplit

import anyio
import mcp_types
import pydantic_core
from fastmcp import FastMCP
from mcp.server.streamable_http import check_accept_headers
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic_core import PydanticSerializationError
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.requests import Request

from boris.edge import arguments_beside
from boris.seams.sdk import adapt_session_manager, answering_plainly
from boris.settings import Settings, host_and_port, is_loopback_host
from boris.transport.jsonrpc import (
    Refusal,
    encode,
    error_reply,
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

#: SPEC §2: these headers on every response, and on the 204 answering any OPTIONS.
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
    await _send_body(send, status, json.dumps(body).encode())


async def _send_reply(send: Send, status: int, reply: mcp_types.JSONRPCMessage) -> None:
    await _send_body(send, status, encode(reply))


async def _send_body(send: Send, status: int, payload: bytes) -> None:
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
    """Permissive CORS on every route; any OPTIONS request is a preflight (204).

    Not Starlette's CORSMiddleware, which cannot say what SPEC §2 asks: it answers a
    preflight 200 ``OK`` and only when the request carries Origin and
    Access-Control-Request-Method (SPEC: any OPTIONS, 204); it adds the CORS-safelisted
    headers to Access-Control-Allow-Headers and sorts them (SPEC: exactly these five),
    and it sends no CORS header on a response to a request without Origin (SPEC:
    every response).
    """

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


def is_loopback_name(name: str) -> bool:
    return name == "localhost" or is_loopback_host(name)


class HostNames:
    """The ``Host`` headers a request without a token may carry: a loopback name
    (``localhost``, 127.0.0.0/8, ``::1``) or one that ``--allow-host`` names (with a
    port: only that port), and the ``--host`` Boris binds when it is one address
    rather than every interface (with ``--allow-unauthenticated``)."""

    def __init__(self, allowed: list[str], bound: str) -> None:
        self.names: set[str] = set()
        self.with_port: set[tuple[str, int]] = set()
        wildcard = bound.strip("[]") in ("0.0.0.0", "::", "")
        for value in [*allowed, *([] if wildcard else [bound])]:
            parsed = host_and_port(value)
            if parsed is None:
                continue
            name, port = parsed
            if port is None:
                self.names.add(name)
            else:
                self.with_port.add((name, port))

    def allow(self, header: str | None) -> bool:
        parsed = host_and_port(header) if header is not None else None
        if parsed is None:
            return False
        name, port = parsed
        return (
            is_loopback_name(name)
            or name in self.names
            or (port is not None and (name, port) in self.with_port)
        )


class AccessGuard:
    """Bearer-token auth on /mcp; without a token, refuse foreign browser origins and
    foreign host names.

    Both checks stop a web page from driving an unauthenticated local server. A page
    that sends an Origin is refused by it; one that does not (DNS rebinding: a name
    of the attacker's that first resolves to their server, then to 127.0.0.1, makes
    the browser's request same-origin) still names the attacker's host in its
    ``Host`` header. Requests from every non-browser client (no Origin, a loopback
    or configured Host) are unaffected. A browser sends at most one Origin: a request
    with several is malformed and refused with or without a token, since they could
    disagree on which one a check would read.
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        allow_origins: list[str],
        hosts: HostNames,
    ) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.allow_origins = {_normalize_origin(o) for o in allow_origins}
        self.hosts = hosts

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
            else:
                if origins:
                    origin = origins[0]
                    if (
                        not is_loopback_origin(origin)
                        and _normalize_origin(origin) not in self.allow_origins
                    ):
                        await _send_json(send, 403, {"error": "forbidden origin"})
                        return
                hosts = _headers(scope, b"host")
                if len(hosts) != 1 or not self.hosts.allow(hosts[0]):
                    await _send_json(send, 421, {"error": "forbidden host"})
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


def _is_stateless(scope: Scope) -> bool:
    """Whether a request to /mcp is of a revision without a handshake (2026-07-28): its
    ``MCP-Protocol-Version`` header names no handshake revision. The SDK's session
    manager routes it on the same header, to its per-request path, which also answers an
    unknown version (400, -32022, the versions it serves)."""
    requested = _header(scope, b"mcp-protocol-version")
    return requested is not None and requested not in HANDSHAKE_PROTOCOL_VERSIONS


class StatelessCalls:
    """At most ``limit`` POSTs of the 2026-07-28 revision served at once (--max-concurrent-calls).

    Such a request belongs to no session, so ``--max-sessions`` does not bound it; this
    does, before its body is read: one beyond the limit gets 503 and a JSON-RPC error
    naming the flag, with the id its body's first bytes show, and costs no more than
    those bytes. A request holds its place until its answer (its SSE stream) has ended.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and _is_mcp_path(scope)
            and _is_stateless(scope)
        ):
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.limit:
            await self._refuse(receive, send)
            return
        self.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1

    async def _refuse(self, receive: Receive, send: Send) -> None:
        head = b""
        more = True
        while more and len(head) < HEAD:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            head += message.get("body", b"")[: HEAD - len(head)]
            more = message.get("more_body", False)
        reply = error_reply(
            mcp_types.INTERNAL_ERROR,
            f"Too many concurrent requests: this server serves at most {self.limit} requests "
            "of protocol revision 2026-07-28 at once (--max-concurrent-calls); retry shortly",
            id_from_start(head),
        )
        await _send_reply(send, 503, reply)


class RequestBodies:
    """POST /mcp: a bounded body, and an answer for every message the SDK would drop.

    The body is read here, at most ``limit`` bytes (413 beyond, with the request's id
    if the body's first or last bytes show it; nothing more of it is kept), and
    parsed as a STDIO line is (boris.transport.jsonrpc): what is not one valid
    message gets its JSON-RPC error with 400. A tool call goes on without its
    arguments, beside it; everything else goes on to the SDK unchanged. A message that
    would open a session past ``max_sessions`` gets the SDK's 503 in Boris's words.
    """

    #: Bodies up to this size are parsed on the event loop; larger ones in a thread.
    _INLINE = 1 << 16

    def __init__(self, app: ASGIApp, limit: int, max_sessions: int) -> None:
        self.app = app
        self.limit = limit
        self.max_sessions = max_sessions

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
            verdict = read_message(body)
        else:
            verdict = await anyio.to_thread.run_sync(read_message, body)
        if isinstance(verdict, Refusal):
            await _send_reply(send, 400, verdict.reply)
            return
        stateless = _is_stateless(scope)
        if _header(scope, b"mcp-session-id") is None and not stateless:
            request_id = verdict.id if isinstance(verdict, mcp_types.JSONRPCRequest) else None
            send = _telling_the_session_limit(send, request_id, self.max_sessions)
        with ExitStack() as around:
            if isinstance(verdict, mcp_types.JSONRPCRequest):
                if not stateless and _answered_plainly(verdict, scope):
                    around.enter_context(answering_plainly())
                # A 2026-07-28 tool call too: the SDK's per-request path compares the body's
                # arguments only with Mcp-Param-* headers its tool's schema asks for
                # (x-mcp-header), and no schema of Boris's asks for one.
                call = _without_arguments(verdict)
                if call is not None:
                    body, name, arguments = call
                    del call
                    around.enter_context(arguments_beside(verdict.id, name, arguments))
                    scope = _with_length(scope, len(body))
                    del arguments
            del verdict
            # The body is handed on once and not kept here: the SDK makes its own copy.
            pending = [{"type": "http.request", "body": body, "more_body": False}]
            del body

            async def replay() -> Message:
                return pending.pop() if pending else await receive()

            await self.app(scope, replay, send)

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
        await _send_reply(send, 413, too_large(self.limit, found).reply)


def _telling_the_session_limit(send: Send, request_id: int | str | None, limit: int) -> Send:
    """``send`` for a message that would open a session: the SDK's 503 (its answer at the
    session limit, and its only 503) is replaced by one naming the limit, the flag
    that sets it and the request's id (None for a notification)."""
    replaced = False

    async def send_naming_the_limit(message: Message) -> None:
        nonlocal replaced
        if message["type"] == "http.response.start" and message.get("status") == 503:
            replaced = True
            reply = error_reply(
                mcp_types.INTERNAL_ERROR,
                f"Too many open sessions: this server keeps at most {limit} (--max-sessions); "
                "end a session (DELETE) or wait for an idle one to expire",
                request_id,
            )
            await _send_reply(send, 503, reply)
        elif not replaced:
            await send(message)

    return send_naming_the_limit


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


def _without_arguments(
    request: mcp_types.JSONRPCRequest,
) -> tuple[bytes, str, dict[str, Any]] | None:
    """For a tool call whose arguments are an object: the message without them, as the
    body the SDK reads, the tool's name and the arguments. None for any other message,
    and for one holding what JSON cannot carry outside its arguments (the SDK's parser
    then refuses the message as a whole, as it would have)."""
    params = request.params
    if request.method != "tools/call" or params is None:
        return None
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    rest = {key: value for key, value in params.items() if key != "arguments"}
    envelope = {"jsonrpc": "2.0", "id": request.id, "method": request.method, "params": rest}
    try:
        body = pydantic_core.to_json(envelope)
    except PydanticSerializationError:
        return None
    return body, name, arguments


def _with_length(scope: Scope, length: int) -> Scope:
    """``scope`` with headers saying its body is ``length`` bytes long."""
    framing = (b"content-length", b"transfer-encoding")
    headers = [(k, v) for k, v in scope["headers"] if k.lower() not in framing]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


def http_app(mcp: FastMCP[Any], settings: Settings) -> Any:
    limit = max_message_size(settings.max_file_size)
    app = mcp.http_app(
        path="/mcp",
        session_idle_timeout=settings.session_idle_timeout,
        stateless_http=False,
        json_response=False,
        host_origin_protection=False,  # AccessGuard owns the origin and Host policy
        middleware=[
            ASGIMiddleware(Cors),
            ASGIMiddleware(
                AccessGuard,
                token=settings.token,
                allow_origins=settings.allow_origins,
                hosts=HostNames(settings.allow_hosts, settings.host),
            ),
            ASGIMiddleware(StatelessCalls, limit=settings.max_concurrent_calls),
            ASGIMiddleware(RequestBodies, limit=limit, max_sessions=settings.max_sessions),
        ],
    )
    adapt_session_manager(app, limit, settings.max_sessions)
    return app


async def serve_http(mcp: FastMCP[Any], settings: Settings) -> None:
    import uvicorn

    if settings.unauthenticated_beyond_loopback:  # only with --allow-unauthenticated
        log.warning(
            "serving HTTP on %s without a token (--allow-unauthenticated): anyone who can "
            "reach port %d can run commands; set --token or --generate-token",
            settings.host,
            settings.port,
        )
    # http="auto" (uvicorn's default): httptools, a dependency, parses HTTP in C (see
    # pyproject.toml for what it is worth); h11 only where it cannot be loaded.
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
