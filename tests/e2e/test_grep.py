"""grep through the official SDK client over real STDIO pipes.

Everything else about grep is tested in process: tests/tools/test_grep.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import sdk_stdio_client, text_of
from tests.support.trees import write_tree

pytestmark = pytest.mark.anyio


async def test_official_sdk_client(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": "needle\n", "b.txt": "hay\n"})
    async with sdk_stdio_client(workdir=tmp_path) as sdk:
        result = await sdk.call_tool("grep", {"pattern": "needle", "output_mode": "count"})
        assert not result.is_error
        assert text_of(result) == "a.txt:1"
