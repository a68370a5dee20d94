from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import (
    error_text,
    http_client,
    http_server,
    sdk_http_client,
    sdk_stdio_client,
    stdio_client,
)

pytestmark = pytest.mark.anyio


async def test_stdio_fastmcp(tmp_path: Path) -> None:
    async with stdio_client(workdir=tmp_path) as client:
        tools = await client.list_tools()
        assert "bash" in [t.name for t in tools]
        result = await client.call_tool("view", {"path": 3}, raise_on_error=False)
        assert error_text(result) == "[INVALID_INPUT] path: Input should be a valid string"


async def test_stdio_sdk(tmp_path: Path) -> None:
    async with sdk_stdio_client(workdir=tmp_path) as client:
        tools = await client.list_tools()
        assert "bash" in [t.name for t in tools.tools]


async def test_http_both(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as server:
        async with http_client(server.url) as client:
            tools = await client.list_tools()
            assert "bash" in [t.name for t in tools]
        async with sdk_http_client(server.url) as sdk:
            tools2 = await sdk.list_tools()
            assert "bash" in [t.name for t in tools2.tools]
