"""The real app in this process, with a real fastmcp Client: tool behaviour without a process.

The flags are parsed exactly as the command line is, the app is built as the entry point
builds it, and the client talks MCP to it over fastmcp's in-memory transport. Only what
is about a process or a transport (STDIO, HTTP, signals, memory of the server process,
start-up of the real CLI) needs a spawned server (tests/support/__init__.py, tests/e2e/).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from fastmcp import Client, FastMCP
from fastmcp.client.transports import FastMCPTransport

from boris.app import build_app as _build_app
from boris.settings import load_settings


def build_app(argv: list[str], shell: str | None = None) -> FastMCP[Any]:
    """The app for these command-line flags, built as the entry point builds it.

    The one place the tests build an app: settings parsed by the CLI's own parser.
    """
    return _build_app(load_settings(argv), shell)


@contextlib.contextmanager
def environment(extra: Mapping[str, str] | None) -> Iterator[None]:
    """This process's environment as a spawned server gets it (tests/support/__init__.py
    ``server_env``): no ``BORIS_*`` variable but those in ``extra``. Settings read it
    at start-up and every command bash runs inherits it; restored afterwards."""
    saved = dict(os.environ)
    try:
        for name in [name for name in os.environ if name.startswith("BORIS_")]:
            del os.environ[name]
        os.environ.update(extra or {})
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.asynccontextmanager
async def app_client(
    *flags: str,
    workdir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    shell: str | None = None,
    mode: str = "legacy",
) -> AsyncIterator[Client[FastMCPTransport]]:
    """A fastmcp Client connected in memory to a Boris app started with ``flags``.

    ``workdir`` becomes ``--workdir``; ``env`` holds environment variables the app (and
    the commands it runs) see for as long as the client is open; ``shell`` replaces the
    shell found at start-up. The legacy mode keeps one MCP session for the client's
    lifetime, as a STDIO client has.
    """
    async with app_clients(*flags, count=1, workdir=workdir, env=env, shell=shell, mode=mode) as (
        client,
    ):
        yield client


@contextlib.asynccontextmanager
async def app_clients(
    *flags: str,
    count: int,
    workdir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    shell: str | None = None,
    mode: str = "legacy",
) -> AsyncIterator[list[Client[FastMCPTransport]]]:
    """``count`` clients of one app (see :func:`app_client`), connected side by side.

    In process the app has one session, as a STDIO server has (boris/session.py): the
    clients share its cwd and tasks. What they show is that one client's call does not
    hold up another's.
    """
    argv = [*flags] if workdir is None else ["--workdir", str(workdir), *flags]
    with environment(env):
        app = build_app(argv, shell)
        async with contextlib.AsyncExitStack() as stack:
            yield [
                await stack.enter_async_context(Client(app, mode=mode, timeout=60))
                for _ in range(count)
            ]
