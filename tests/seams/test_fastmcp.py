"""boris/seams/fastmcp.py: fastmcp still works the way its private parts are used there.

Each test fails when fastmcp changes under one of them; docs/DEVELOPING.md "Upgrading fastmcp or the
MCP SDK" says what to do then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from mcp.server.lowlevel.server import Server

from boris.seams.fastmcp import DictState, FastMCPWithDictState, low_level_server
from tests.support.inprocess import build_app

pytestmark = pytest.mark.anyio


class CountingState(DictState):
    def __init__(self) -> None:
        super().__init__()
        self.lookups = 0

    async def get(self, key: str, *, collection: str | None = None) -> Any:
        self.lookups += 1
        return await super().get(key, collection=collection)


async def test_fastmcp_keeps_its_session_state_where_boris_puts_it(tmp_path: Path) -> None:
    # fastmcp looks a session's visibility rules up in FastMCP._state_store on every
    # tools/list and tools/call; if it stops, its own store (py-key-value, beartype)
    # comes back into the server's start-up and every call.
    app = build_app(["--workdir", str(tmp_path)])
    assert isinstance(app, FastMCPWithDictState)
    state = CountingState()
    app.dict_state = state
    async with Client(app, mode="legacy") as client:
        await client.list_tools()
        await client.call_tool("glob", {"pattern": "*"})
    assert state.lookups >= 2, "fastmcp no longer reads FastMCP._state_store"


async def test_the_low_level_server_serves_other_streams(tmp_path: Path) -> None:
    # boris.transport.stdio runs this server on its own streams.
    app = build_app(["--workdir", str(tmp_path)])
    server = low_level_server(app)
    assert isinstance(server, Server)
    assert server.name == app.name == "boris"
    assert callable(server.run)
    assert server.create_initialization_options().server_name == "boris"
