"""create_file through the official SDK client over real STDIO pipes.

Everything else about create_file is tested in process: tests/tools/test_create_file.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import sdk_stdio_client, text_of

pytestmark = pytest.mark.anyio


async def test_through_the_official_sdk_client(root: Path, case: Path) -> None:
    async with sdk_stdio_client(workdir=root) as sdk:
        result = await sdk.call_tool(
            "create_file", {"path": str(case / "sdk.txt"), "content": "from sdk\n"}
        )
    assert result.is_error is False
    assert text_of(result) == f"Created {case / 'sdk.txt'} (9 bytes)"
