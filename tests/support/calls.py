"""Tool calls as the tests make them through a client: failures come back as results, and
the texts the view-before-edit rule answers with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastmcp import Client


async def call(client: Client[Any], tool: str, **args: Any) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False)


def not_viewed(path: Path, action: str = "editing") -> str:
    return f"[FILE_NOT_VIEWED] file {path} must be viewed before {action}. Use the view tool first."


async def replace(client: Client[Any], path: Path | str, old: str, **more: Any) -> Any:
    args = {"path": str(path), "old_str": old, **more}
    return await client.call_tool("str_replace", args, raise_on_error=False)


async def view(client: Client[Any], path: object, view_range: list[int] | None = None) -> Any:
    args: dict[str, Any] = {"path": str(path)}
    if view_range is not None:
        args["view_range"] = view_range
    return await client.call_tool("view", args, raise_on_error=False)
