"""glob with --anthropic-compat through the official SDK client over real HTTP.

Everything else about glob is tested in process: tests/tools/test_glob.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import http_server, sdk_http_client, text_of
from tests.support.trees import write_tree

pytestmark = pytest.mark.anyio


async def test_compat_schema_has_only_pattern_and_path(tmp_path: Path) -> None:
    workdir = tmp_path.resolve()
    write_tree(workdir / "compat", {"a/x.py": "", "b/": ""})
    with http_server("--anthropic-compat", workdir=workdir) as server:
        async with sdk_http_client(server.url) as sdk:
            tools = {tool.name: tool for tool in (await sdk.list_tools()).tools}
            assert list(tools["glob"].input_schema["properties"]) == ["pattern", "path"]
            result = await sdk.call_tool("glob", {"pattern": "**/*.py", "path": "compat"})
            assert text_of(result) == "a/x.py"
            # type is still understood, though the compat schema does not show it.
            dirs = await sdk.call_tool(
                "glob", {"pattern": "*", "path": "compat", "type": "directory"}
            )
            assert text_of(dirs) == "a\nb"
