"""The FastMCP app for a set of settings: the tools it serves behind the edge, what it
tells clients about them, the sessions, and ``/health``.

Every tool of the mode is added; those ``--disable-tools`` takes away are then
hidden with fastmcp's visibility (``disable``), so they are neither listed nor
callable. Tool descriptions come from the tool modules; the parts that depend on the
settings are put together in one place, :func:`describe`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse

from boris import __version__, toolset
from boris.edge import CallGuard, CallScreen, EdgeTool
from boris.files.scope import PathScope
from boris.session import Runtime, SessionStore
from boris.settings import Settings
from boris.shell.process import detect_shell
from boris.text import printable
from boris.tools import (
    bash,
    create_file,
    glob,
    grep,
    multi_edit,
    str_replace,
    str_replace_editor,
    task_output,
    task_stop,
    view,
)

#: The function behind each tool name, per mode.
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "bash": bash.bash,
    "task_output": task_output.task_output,
    "task_stop": task_stop.task_stop,
    "view": view.view,
    "str_replace": str_replace.str_replace,
    "multi_edit": multi_edit.multi_edit,
    "create_file": create_file.create_file,
    "grep": grep.grep,
    "glob": glob.glob,
}
_COMPAT_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "bash": bash.bash,
    "task_output": task_output.task_output,
    "task_stop": task_stop.task_stop,
    "str_replace_editor": str_replace_editor.str_replace_editor,
    "grep": grep.grep_compat,
    "glob": glob.glob_compat,
}

#: Two names of one argument, per tool: the schema lists one, the other is understood.
_NAME_PAIRS = {"grep": grep.COMPAT_NAMES}

#: The sentence each editing tool's description gains while view-before-edit is on.
_VIEW_FIRST = {
    "view": view.VIEW_FIRST,
    "str_replace": str_replace.VIEW_FIRST,
    "multi_edit": str_replace.VIEW_FIRST,
    "create_file": create_file.VIEW_FIRST,
    "str_replace_editor": str_replace_editor.VIEW_FIRST,
}


class _SessionState:
    """fastmcp's per-session state (``Context.set_state``, per-session visibility
    rules), kept in a dict.

    fastmcp keeps it in a py-key-value store, loaded when first used, and looks a
    session's visibility rules up there on every tools/list and tools/call: the first
    tools/list would load that package (with beartype), a fifth of the server's
    start-up CPU, and each call would pay for its checked, validated lookups. Boris
    sets no session state; the lookups find nothing here without either cost. Values
    are kept without expiry: nothing in Boris puts any.
    """

    def __init__(self) -> None:
        self._values: dict[tuple[str | None, str], Any] = {}

    async def get(self, key: str, *, collection: str | None = None) -> Any:
        return self._values.get((collection, key))

    async def put(
        self, key: str, value: Any, *, collection: str | None = None, ttl: float | None = None
    ) -> None:
        self._values[(collection, key)] = value

    async def delete(self, key: str, *, collection: str | None = None) -> bool:
        return self._values.pop((collection, key), None) is not None


class _BorisMCP(FastMCP[Any]):
    """FastMCP with its session state in a dict (see :class:`_SessionState`), and the
    first checks of a tool call for the transports (:func:`call_screen`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._session_state = _SessionState()
        self.screen = CallScreen([])

    @property
    def _state_store(self) -> Any:  # fastmcp's type: its py-key-value adapter
        return self._session_state


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
        try:
            yield {"sessions": sessions}
        finally:
            # Shielded: at shutdown this runs inside a cancelled scope.
            with anyio.CancelScope(shield=True):
                await sessions.close_all()

    mcp = _BorisMCP(
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
    functions = _COMPAT_FUNCTIONS if compat else _FUNCTIONS
    removed = toolset.removed(compat, settings.disable_tools)
    served = []
    for name in toolset.served(compat):
        tool = EdgeTool.of(functions[name], pairs=_NAME_PAIRS.get(name))
        mcp.add_tool(tool.model_copy(update={"description": describe(tool, settings)}))
        if name not in removed:
            served.append(tool)
    if removed:
        mcp.disable(names=removed, components={"tool"})
    mcp.screen = CallScreen(served)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return mcp


def call_screen(mcp: FastMCP[Any]) -> CallScreen:
    """The first checks of a tool call to the app ``mcp`` (one :func:`build_app` made),
    which a transport makes before the SDK sees the message."""
    assert isinstance(mcp, _BorisMCP), mcp
    return mcp.screen


def describe(tool: EdgeTool, settings: Settings) -> str:
    """What clients read about ``tool`` under these settings.

    bash's text names the default timeout (--timeout); bash and task_output have
    their own wording in compat mode; the editing tools add a sentence while
    view-before-edit is on. Every other text is the decorator's.
    """
    compat = settings.anthropic_compat
    if tool.name == "bash":
        template = bash.COMPAT_DESCRIPTION if compat else bash.DESCRIPTION
        text = template.format(default_ms=settings.timeout_ms)
    elif tool.name == "task_output":
        text = task_output.COMPAT_DESCRIPTION if compat else task_output.DESCRIPTION
    else:
        assert tool.description is not None, tool.name
        text = tool.description
    if settings.require_view_before_edit:
        text += _VIEW_FIRST.get(tool.name, "")
    return text


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
