"""boris/seams/sdk.py: the MCP SDK still works the way its private parts are used there.

Each test fails when the SDK changes under one of them; README "Upgrading fastmcp or the
MCP SDK" says what to do then. What they make of a session is tested over real HTTP in
tests/transport/test_http.py (answers as JSON or SSE) and tests/e2e/test_sessions.py
(a session's tasks end with it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from fastmcp.server.http import StreamableHTTPASGIApp
from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.transport_security import RequestBodyLimitMiddleware
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


async def test_each_session_answers_quiet_requests_plainly(tmp_path: Path) -> None:
    argv = ["--workdir", str(tmp_path), "--transport", "http"]
    app = http_app(build_app(argv), load_settings(argv))
    (endpoint,) = [r.endpoint for r in app.routes if isinstance(r, Route) and r.path == "/mcp"]
    assert isinstance(endpoint, StreamableHTTPASGIApp)
    async with app.router.lifespan_context(app):
        manager = endpoint.session_manager
        assert manager is not None
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
