"""Builds the FastMCP app from settings and serves it over STDIO or streamable HTTP."""

from __future__ import annotations

import hmac
import importlib
import inspect
import json
import logging
import os
import signal
import sys
import types
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Annotated, Any
from urllib.parse import urlsplit

import anyio
import mcp_types
import pydantic_core
from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError, ToolError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import Strict
from pydantic import ValidationError as PydanticValidationError
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from boris import __version__
from boris.errors import Code, ToolFailure
from boris.files.scope import PathScope
from boris.session import Runtime, SessionStore
from boris.settings import Settings
from boris.text import printable
from boris.toolset import ToolDef, enabled_tools
from boris.transport.jsonrpc import (
    Refusal,
    check_arguments,
    lone_surrogate_reply,
    max_message_size,
    read_message,
    too_large,
)

log = logging.getLogger("boris")

#: The module under boris.tools that defines each tool.
_TOOL_MODULES = {
    "bash": "bash",
    "task_output": "task_output",
    "view": "view",
    "str_replace": "str_replace",
    "create_file": "create_file",
    "grep": "grep",
    "glob": "glob",
    "str_replace_editor": "str_replace_editor",
}


def detect_shell() -> str:
    return "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"


def instructions(settings: Settings) -> str:
    text = f"Working directory: {settings.workdir}"
    if settings.allow_dirs:
        text += f"\nAllowed directories: {', '.join(settings.allow_dirs)}"
    if settings.deny_dirs:
        text += f"\nDenied patterns: {', '.join(settings.deny_dirs)}"
    return text


def build_server(settings: Settings, shell: str | None = None) -> FastMCP[Any]:
    """The MCP server for these settings, with only the enabled tools registered."""
    runtime = Runtime(
        settings=settings,
        scope=PathScope(settings.allow_dirs, settings.deny_dirs),
        shell=shell or detect_shell(),
    )
    sessions = SessionStore(runtime)

    @asynccontextmanager
    async def lifespan(server: FastMCP[Any]) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {"sessions": sessions}
        finally:
            # Shielded: at shutdown this runs inside a cancelled scope.
            with anyio.CancelScope(shield=True):
                await sessions.close_all()

    mcp: FastMCP[Any] = FastMCP(
        "boris",
        instructions=instructions(settings),
        version=__version__,
        lifespan=lifespan,
        # Outermost first: every text a call returns, errors included, is made sendable.
        middleware=[PrintableResults(), ArgumentErrors()],
        # Strictness comes from each parameter instead (_validated_strictly).
        strict_input_validation=False,
        mask_error_details=False,
        on_duplicate="error",
    )
    for name in enabled_tools(settings.anthropic_compat, set(settings.disable_tools)):
        module = importlib.import_module(f"boris.tools.{_TOOL_MODULES[name]}")
        definition: ToolDef = module.definition(settings)
        tool = Tool.from_function(
            _validated_strictly(definition.fn),
            name=name,
            description=definition.description,
            output_schema=None,
            annotations=mcp_types.ToolAnnotations(
                title=definition.title,
                read_only_hint=definition.read_only,
                destructive_hint=not definition.read_only,
            ),
        )
        _hide_arguments(tool, definition.hidden_arguments)
        mcp.add_tool(tool)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return mcp


def _validated_strictly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with every parameter a client sets marked Strict.

    A string where an integer belongs is the client's mistake, not something to
    coerce silently. fastmcp's own strict mode (``strict_input_validation``) encodes
    every call's arguments to JSON again and parses that, which costs three times the
    size of a large argument (a file's content) in memory; a Strict parameter is
    validated as it is. Every tool parameter has a JSON type, for which strict
    validation of the parsed value and of JSON agree. Injected parameters (a
    dependency as default) are left alone.
    """
    strict = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    strict.__kwdefaults__ = fn.__kwdefaults__
    strict.__qualname__ = fn.__qualname__
    strict.__module__ = fn.__module__
    annotations = dict(fn.__annotations__)
    # Only these are resolved: an injected parameter's type may be imported for type
    # checking alone.
    strict.__annotations__ = {
        name: annotations[name]
        for name, parameter in inspect.signature(fn).parameters.items()
        if parameter.default is parameter.empty
        or parameter.default is None
        or isinstance(parameter.default, str | int)
    }
    for name, hint in typing.get_type_hints(strict, include_extras=True).items():
        annotations[name] = _strict_type(hint)
    strict.__annotations__ = annotations
    return strict


def _strict_type(hint: Any) -> Any:
    """``hint`` with Strict on each scalar inside it (pydantic takes it nowhere else)."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        inner, *metadata = typing.get_args(hint)
        return Annotated[(_strict_type(inner), *metadata)]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_strict_type(arg) for arg in typing.get_args(hint))]  # noqa: UP007
    if origin is list:
        (item,) = typing.get_args(hint)
        return list[_strict_type(item)]  # type: ignore[misc]
    if hint in (str, int, float, bool):
        return Annotated[hint, Strict()]
    return hint


def _hide_arguments(tool: Tool, names: tuple[str, ...]) -> None:
    """Drop accepted-but-unadvertised parameters from the schema clients see.

    Validation still goes by the function's signature, so the names keep working.
    """
    properties = tool.parameters.get("properties", {})
    for hidden in names:
        properties.pop(hidden, None)
    if "required" in tool.parameters:
        tool.parameters["required"] = [r for r in tool.parameters["required"] if r not in names]


class ArgumentErrors(Middleware):
    """Turns bad arguments and unknown tool names into ``[INVALID_INPUT]`` results.

    An argument holding a lone surrogate is refused here for every tool, before any
    tool sees it.
    """

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, ToolResult]
    ) -> ToolResult:
        check_arguments(context.message.arguments or {})
        try:
            return await call_next(context)
        except ValidationError as exc:
            cause = exc.__cause__
            if isinstance(cause, PydanticValidationError):
                problems = "; ".join(_describe_argument_error(e) for e in cause.errors())
            else:
                problems = str(exc)
            raise ToolFailure(Code.INVALID_INPUT, problems) from None
        except NotFoundError:
            name = context.message.name
            assert context.fastmcp_context is not None
            tools = await context.fastmcp_context.fastmcp.list_tools()
            available = ", ".join(t.name for t in tools)
            raise ToolFailure(
                Code.INVALID_INPUT, f"unknown tool {name!r}; available: {available}"
            ) from None


class PrintableResults(Middleware):
    """Makes every text a tool call returns, result or error, safe to encode as JSON.

    Text from the file system can hold lone surrogates (a file name that is not UTF-8),
    which no JSON encoder accepts: one reply that cannot be encoded would end a STDIO
    session. They become U+FFFD here, whichever tool produced them. Anything else in a
    result that cannot be encoded turns the result into an ``[IO_ERROR]``.
    """

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, ToolResult]
    ) -> ToolResult:
        try:
            result = await call_next(context)
        except ToolError as exc:
            text = str(exc)
            safe = printable(text)
            if safe is text:
                raise
            raise ToolError(safe, log_level=exc.log_level) from None
        return _printable(result, context.message.name)


def _printable(result: ToolResult, tool: str) -> ToolResult:
    content: list[mcp_types.ContentBlock] = []
    changed = False
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            safe = printable(block.text)
            if safe is not block.text:
                block = block.model_copy(update={"text": safe})
                changed = True
        content.append(block)
    try:
        for block in content:
            if not isinstance(block, mcp_types.TextContent):
                block.model_dump_json()
        for extra in (result.structured_content, result.meta):
            if extra is not None:
                pydantic_core.to_json(extra)
    except pydantic_core.PydanticSerializationError as exc:
        reason = printable(str(exc))
        raise ToolFailure(
            Code.IO_ERROR, f"the result of {printable(tool)} cannot be sent as JSON: {reason}"
        ) from None
    return result.model_copy(update={"content": content}) if changed else result


def _describe_argument_error(error: Any) -> str:
    loc = ".".join(str(part) for part in error.get("loc", ()))
    kind = error.get("type")
    if kind in ("missing", "missing_argument"):
        message = "missing required argument"
    elif kind == "none_required":
        message = "Input should be null"  # JSON's name for it, as the client wrote it
    elif kind == "unexpected_keyword_argument":
        message = "unknown argument"
    else:
        message = str(error.get("msg", "invalid value"))
    return f"{loc}: {message}" if loc else message


# --- HTTP --------------------------------------------------------------------------

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

    The body is read here, at most ``limit`` bytes (413 beyond, before the rest is
    read), and checked as a STDIO line is (boris.transport.jsonrpc): what is not one valid
    message gets its JSON-RPC error with 400; a tool call with a lone surrogate in an
    argument, which the SDK's parser would refuse as a whole, gets its tool result.
    Everything else goes on to the SDK unchanged.
    """

    #: Bodies up to this size are checked on the event loop; larger ones in a thread.
    _INLINE = 1 << 16

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not _is_mcp_path(scope):
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self.limit:
            await self._too_large(send)
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
                await self._too_large(send)
                return
        body = bytes(buffer)
        del buffer
        if len(body) <= self._INLINE:
            verdict = read_message(body)
        else:
            verdict = await anyio.to_thread.run_sync(read_message, body)
        if isinstance(verdict, Refusal):
            await _send_json(send, 400, _dumped(verdict.reply))
            return
        if isinstance(verdict, mcp_types.JSONRPCRequest):
            result = lone_surrogate_reply(verdict, body)
            if result is not None:
                reply = {"jsonrpc": "2.0", "id": verdict.id, "result": result}
                await _send_json(send, 200, reply)
                return
        del verdict
        # The body is handed on once and not kept here: the SDK makes its own copy.
        pending = [{"type": "http.request", "body": body, "more_body": False}]
        del body

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await _send_json(send, 413, _dumped(too_large(self.limit).reply))


def _dumped(reply: mcp_types.JSONRPCError) -> dict[str, Any]:
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
            ASGIMiddleware(RequestBodies, limit=limit),
        ],
    )
    _drop_sdk_body_limit(app)
    return app


def _drop_sdk_body_limit(app: Any) -> None:
    """Leave the body limit to RequestBodies alone.

    The MCP SDK caps a request body at 4 MiB (mcp.server.transport_security
    RequestBodyLimitMiddleware, in front of its session manager) and fastmcp passes no
    other limit on; it also copies the body twice. RequestBodies already enforces
    Boris's limit and reads the body once, so once the session manager exists (the
    app has started) its limiter is taken out.
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
            yield state

    app.router.lifespan_context = lifespan


def _is_loopback_host(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


async def serve_http(mcp: FastMCP[Any], settings: Settings) -> None:
    import uvicorn

    if not settings.token and not _is_loopback_host(settings.host):
        log.warning(
            "serving HTTP on %s without a token: anyone who can reach port %d can run commands; "
            "set --token or --generate-token",
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


#: Seconds a STDIO server may spend cleaning up after a signal before it exits anyway.
_SIGNAL_GRACE = 7.0


async def serve_stdio(mcp: FastMCP[Any], settings: Settings) -> None:
    """Serve one client on stdin/stdout until EOF or a signal; close its session on the way out.

    Left alone, SIGTERM would end the process without cleanup. Cancelling the server
    is not enough either: stdin is read in a worker thread that only returns with the
    next chunk, so the lifespan's cleanup would wait for it. On a signal the guard ends
    the server's input instead, the lifespan closes the session (its background tasks
    terminated, then killed if they linger), and the process exits with 128+signal.
    """
    from boris.transport.stdio import StdioGuard

    received: list[int] = []
    guard = StdioGuard(max_message_size(settings.max_file_size))
    try:
        async with anyio.create_task_group() as group:

            async def watch_signals() -> None:
                with anyio.open_signal_receiver(
                    signal.SIGTERM, signal.SIGINT, signal.SIGHUP
                ) as signals:
                    async for signum in signals:
                        received.append(signum)
                        log.info("received %s, shutting down", signal.Signals(signum).name)
                        _exit_after(_SIGNAL_GRACE, 128 + signum)
                        # EOF lets the transport end on its own; its stdin reader sits
                        # in a thread that a cancellation alone would wait for.
                        guard.stop_input()
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch_signals)
            await guard.serve(mcp)
            group.cancel_scope.cancel()
    finally:
        guard.close()
    if received:
        sys.stderr.flush()
        os._exit(128 + received[0])


def _exit_after(seconds: float, code: int) -> None:
    import threading

    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.start()


def serve(settings: Settings) -> None:
    shell = detect_shell()
    log.info("boris %s, shell %s, workdir %s", __version__, shell, settings.workdir)
    mcp = build_server(settings, shell)
    if settings.transport == "stdio":
        anyio.run(serve_stdio, mcp, settings)
    else:
        anyio.run(serve_http, mcp, settings)
