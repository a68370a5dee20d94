"""boris/seams/sdk.py: the MCP SDK still works the way its private parts are used there.

Each test fails when the SDK changes under one of them; docs/DEVELOPING.md "Upgrading fastmcp or the
MCP SDK" says what to do then. What they make of a session is tested over real HTTP in
tests/transport/test_http.py (answers as JSON or SSE) and tests/e2e/test_sessions.py
(a session's tasks end with it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import anyio
import pytest
from fastmcp.server.http import StreamableHTTPASGIApp
from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.streamable_http import (
    REQUEST_STREAM_BUFFER_SIZE,
    EventMessage,
    StreamableHTTPServerTransport,
)
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import RequestBodyLimitMiddleware
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import JSONRPCNotification, JSONRPCResponse
from starlette.routing import Route

from boris.seams.sdk import answering_plainly, on_connection_close
from boris.settings import load_settings
from boris.transport.http import http_app
from boris.transport.jsonrpc import max_message_size
from tests.support.inprocess import build_app

pytestmark = pytest.mark.anyio


async def test_a_callback_runs_when_the_connection_closes() -> None:
    # The SDK builds a ServerSession for each request around the connection, whose exit
    # stack it unwinds when the connection ends.
    connection = Connection.for_loop(cast(Any, None), session_id="s")
    session = ServerSession(cast(Any, None), connection)
    closed: list[bool] = []
    on_connection_close(cast(Any, SimpleNamespace(session=session)), lambda: closed.append(True))
    assert closed == []
    await connection.exit_stack.aclose()
    assert closed == [True]


@contextlib.asynccontextmanager
async def session_manager(tmp_path: Path) -> AsyncIterator[StreamableHTTPSessionManager]:
    """The SDK's session manager of Boris's HTTP app, started as uvicorn starts it."""
    argv = ["--workdir", str(tmp_path), "--transport", "http"]
    app = http_app(build_app(argv), load_settings(argv))
    (endpoint,) = [r.endpoint for r in app.routes if isinstance(r, Route) and r.path == "/mcp"]
    assert isinstance(endpoint, StreamableHTTPASGIApp)
    async with app.router.lifespan_context(app):
        manager = endpoint.session_manager
        assert manager is not None
        yield manager


async def test_each_session_answers_quiet_requests_plainly(tmp_path: Path) -> None:
    argv = ["--workdir", str(tmp_path), "--transport", "http"]
    async with session_manager(tmp_path) as manager:
        # The session limit is Boris's (the SDK's public attribute, which fastmcp does
        # not pass on).
        assert manager.max_sessions == load_settings(argv).max_sessions
        # The SDK's own body limit lets through what Boris's lets through.
        limiter = manager.asgi_app
        assert isinstance(limiter, RequestBodyLimitMiddleware)
        assert limiter.max_body_size == max_message_size(load_settings(argv).max_file_size)
        # A new session's transport: the SDK's, told per request how to answer.
        transport = manager._admit_session(None)
        assert isinstance(transport, StreamableHTTPServerTransport)

        async def plain() -> bool:
            return transport.is_json_response_enabled

        assert await plain() is False
        with answering_plainly():
            assert await plain() is True
            # Another task (the session's own, started meanwhile) keeps the stream.
            assert await asyncio.create_task(plain()) is False
        assert await plain() is False


async def test_a_full_request_queue_drops_progress_and_keeps_room_for_the_reply(
    tmp_path: Path,
) -> None:
    """The SDK routes a session's messages, one at a time, into the queue of the request
    they belong to (``_request_streams``); an admitted transport's queues drop progress
    rather than make that routing wait, and keep the last place for the reply."""
    async with session_manager(tmp_path) as manager:
        transport = manager._admit_session(None)
        assert transport is not None
        async with transport.connect() as (_, write_stream):
            # As the SDK makes a request's queue (its buffer is REQUEST_STREAM_BUFFER_SIZE).
            transport._request_streams["7"] = anyio.create_memory_object_stream[EventMessage](
                REQUEST_STREAM_BUFFER_SIZE
            )
            queue = transport._request_streams["7"][1]
            related = ServerMessageMetadata(related_request_id=7)
            with anyio.fail_after(10):  # the router never waits on the full queue
                for count in range(1, 3 * REQUEST_STREAM_BUFFER_SIZE):
                    progress = JSONRPCNotification(
                        jsonrpc="2.0",
                        method="notifications/progress",
                        params={"progressToken": "p", "progress": count},
                    )
                    await write_stream.send(SessionMessage(progress, metadata=related))
                reply = JSONRPCResponse(jsonrpc="2.0", id=7, result={})
                await write_stream.send(SessionMessage(reply))
                received = [await queue.receive() for _ in range(REQUEST_STREAM_BUFFER_SIZE)]
        kept = [event.message for event in received]
        assert kept[-1] == reply
        counts = [message.model_dump()["params"]["progress"] for message in kept[:-1]]
        assert counts == list(range(1, REQUEST_STREAM_BUFFER_SIZE))
