"""Builds the FastMCP app from settings: the tools it serves, the edge they sit behind,
the per-session state, /health."""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types
from fastmcp import FastMCP
from fastmcp.tools.base import Tool
from starlette.requests import Request
from starlette.responses import JSONResponse

from boris import __version__
from boris.edge import CallGuard, EdgeTool, strictly_typed
from boris.files.scope import PathScope
from boris.session import Runtime, SessionStore
from boris.settings import Settings
from boris.toolset import ToolDef, enabled_tools

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


def build_app(settings: Settings, shell: str | None = None) -> FastMCP[Any]:
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
        middleware=[CallGuard()],
        # Strictness comes from each parameter instead (boris.edge.strictly_typed).
        strict_input_validation=False,
        mask_error_details=False,
        on_duplicate="error",
    )
    for name in enabled_tools(settings.anthropic_compat, set(settings.disable_tools)):
        module = importlib.import_module(f"boris.tools.{_TOOL_MODULES[name]}")
        definition: ToolDef = module.definition(settings)
        tool = EdgeTool.from_function(
            strictly_typed(definition.fn),
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


def _hide_arguments(tool: Tool, names: tuple[str, ...]) -> None:
    """Drop accepted-but-unadvertised parameters from the schema clients see.

    Validation still goes by the function's signature, so the names keep working.
    """
    properties = tool.parameters.get("properties", {})
    for hidden in names:
        properties.pop(hidden, None)
    if "required" in tool.parameters:
        tool.parameters["required"] = [r for r in tool.parameters["required"] if r not in names]
