"""The FastMCP app for a set of settings: the tools it serves behind the edge, what it
tells clients about them, the sessions, and ``/health``.

The app is built from the list of tools (boris.toolset.TOOLS): each tool of the mode
that ``--disable-tools`` leaves is added from its module's declaration (the function
decorated for the mode: boris.tools.declaration), with its description put together for
these settings (boris.descriptions.describe). The app knows no tool by name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse

from boris import __version__, toolset
from boris.descriptions import describe, instructions
from boris.edge import CallGuard, EdgeTool
from boris.files.scope import PathScope
from boris.seams.fastmcp import FastMCPWithDictState
from boris.session import Runtime, SessionStore
from boris.settings import Settings
from boris.shell.process import detect_shell
from boris.shell.reaper import reaping
from boris.tools import declaration


def build_app(settings: Settings, shell: str | None = None) -> FastMCP[Any]:
    """The MCP app for these settings, serving the tools they leave enabled."""
    runtime = Runtime(
        settings=settings,
        scope=PathScope(settings.allow_dirs, settings.deny_dirs),
        shell=shell or detect_shell(),
    )
    sessions = SessionStore(runtime)

    @asynccontextmanager
    async def lifespan(server: FastMCP[Any]) -> AsyncIterator[dict[str, Any]]:
        async with reaping():
            try:
                yield {"sessions": sessions}
            finally:
                # Shielded: at shutdown this runs inside a cancelled scope.
                with anyio.CancelScope(shield=True):
                    await sessions.close_all()

    mcp = FastMCPWithDictState(
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
    compat = settings.anthropic_compat
    served = toolset.serving(compat, settings.disable_tools)
    for name in served:
        declared = declaration(name, compat)
        tool = EdgeTool.of(
            declared.function,
            name=name,
            description=describe(declared.parts, declared.view_first, settings, served),
            annotations=declared.annotations,
            pairs=declared.name_pairs,
        )
        mcp.add_tool(tool)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return mcp
