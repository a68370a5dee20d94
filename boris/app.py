"""The FastMCP app for a set of settings: the tools it serves behind the edge, what it
tells clients about them, the sessions, and ``/health``.

The app is built from the list of tools (boris.toolset.TOOLS): each tool of the mode
that ``--disable-tools`` leaves is added from its module's declaration
(``boris.tools.<name>.TOOL``), with its description put together for these settings
(:func:`describe`). The app knows no tool by name.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse

from boris import __version__, toolset
from boris.edge import CallGuard, EdgeTool
from boris.files.scope import PathScope
from boris.seams.fastmcp import FastMCPWithDictState
from boris.session import Runtime, SessionStore
from boris.settings import Settings
from boris.shell.process import detect_shell
from boris.shell.reaper import reaping
from boris.text import printable
from boris.tools import Declared, Filled, Mention


def declaration(name: str) -> Declared:
    """The declaration of tool ``name``, from its module."""
    declared = importlib.import_module(f"boris.tools.{name}").TOOL
    assert isinstance(declared, Declared), name
    return declared


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
    removed = toolset.removed(compat, settings.disable_tools)
    served = [name for name in toolset.served(compat) if name not in removed]
    for name in served:
        declared = declaration(name)
        tool = EdgeTool.of(
            declared.function_in(compat),
            name=name,
            description=describe(declared, settings, served),
            annotations=declared.annotations,
            pairs=declared.name_pairs,
        )
        mcp.add_tool(tool)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return mcp


def describe(declared: Declared, settings: Settings, served: Collection[str]) -> str:
    """What clients read about a tool under these settings, beside the tools ``served``.

    A part that names another tool is left out while that tool is not served; a part
    made of settings has their values filled in; the view-first sentence is added while
    view-before-edit is on.
    """
    description = declared.description_in(settings.anthropic_compat)
    parts = description if isinstance(description, tuple) else (description,)
    text = ""
    for part in parts:
        if isinstance(part, Mention):
            text += part.text if part.tool in served else ""
        elif isinstance(part, Filled):
            text += part.template.format_map(_Values(settings))
        else:
            text += part
    if settings.require_view_before_edit:
        text += declared.view_first
    return text


class _Values:
    """The settings as ``str.format_map`` reads them: each attribute by its name, the
    derived ones too (``timeout_ms``, which ``model_dump`` leaves out)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __getitem__(self, name: str) -> Any:
        return getattr(self.settings, name)


def instructions(settings: Settings) -> str:
    """The initialize result's instructions: where the session starts, and the scope.

    Valid Unicode whatever the paths: bytes of a name that are not UTF-8 (a ``--workdir``
    of another encoding) show as U+FFFD, as in every tool result.
    """
    text = f"Working directory: {settings.workdir}"
    if settings.allow_dirs:
        text += f"\nAllowed directories: {', '.join(settings.allow_dirs)}"
    if settings.deny_dirs:
        text += f"\nDenied patterns: {', '.join(settings.deny_dirs)}"
    return printable(text)
