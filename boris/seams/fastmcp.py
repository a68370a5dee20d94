"""fastmcp's private parts that Boris uses, each with its reason: the only module naming them.

- :class:`FastMCPWithDictState` overrides ``FastMCP._state_store`` (fastmcp's per-session
  state), for a measured gain (below);
- :func:`low_level_server` reads ``FastMCP._mcp_server`` (the MCP SDK's low-level server
  fastmcp wraps): no public way exists.

``tests/seams/test_fastmcp.py`` fails when fastmcp no longer works this way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastmcp import FastMCP

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server


class DictState:
    """fastmcp's per-session state (``Context.set_state``, per-session visibility rules),
    kept in a dict; values never expire (Boris puts none)."""

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


class FastMCPWithDictState(FastMCP[Any]):
    """FastMCP with its per-session state in a :class:`DictState`.

    fastmcp looks a session's visibility rules up in that state on every tools/list and
    tools/call. Its store is a py-key-value adapter made on first use: the first
    tools/list would import py-key-value and beartype (a fifth of the server's start-up
    CPU), and every call would pay for checked, validated lookups. The public way, the
    ``session_state_store`` argument, still wraps the store given in that adapter. Boris
    sets no session state, so the lookups find nothing here without either cost.
    Measured (bench/startup.py, median of 10 starts, PYTHONDONTWRITEBYTECODE=1, three
    alternating rounds): initialize -> first tools/list reply 143-145 ms with fastmcp's
    store, 3-4 ms with this one; VmRSS after it 89.3 MiB against 83.5 MiB.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dict_state = DictState()

    @property
    def _state_store(self) -> Any:  # fastmcp's type: its py-key-value adapter
        return self.dict_state


def low_level_server(mcp: FastMCP[Any]) -> Server[Any]:
    """The MCP SDK's low-level server inside ``mcp``.

    fastmcp serves STDIO only through the SDK's own STDIO transport, which drops a line it
    cannot read (its client then waits forever) and takes lines of any length; Boris reads
    the pipes itself (boris.transport.stdio) and runs this server on its own streams, as
    fastmcp's in-memory client transport does. fastmcp exposes it only as ``_mcp_server``.
    """
    server: Server[Any] = mcp._mcp_server
    return server
