"""The compat str_replace_editor through the official SDK client over real STDIO pipes.

Everything else about the editor is tested in process: tests/tools/test_str_replace_editor.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import sdk_stdio_client, text_of

pytestmark = pytest.mark.anyio


async def test_through_the_official_sdk_client(root: Path, case: Path) -> None:
    path = case / "f.txt"
    path.write_text("one\n")
    async with sdk_stdio_client("--anthropic-compat", workdir=root) as sdk:
        arguments = {"path": str(path)}
        await sdk.call_tool("str_replace_editor", {**arguments, "command": "view"})
        result = await sdk.call_tool(
            "str_replace_editor",
            {**arguments, "command": "insert", "insert_line": 1, "new_str": "two"},
        )
    assert result.is_error is False
    assert text_of(result) == f"Inserted in {path}\n\n1\tone\n2\ttwo\n"
