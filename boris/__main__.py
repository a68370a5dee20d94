"""Entry point of ``python -m boris``, the ``boris`` console script and boris.pyz."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from boris import __version__

if TYPE_CHECKING:
    from boris.settings import Settings


def main(argv: Sequence[str] | None = None) -> None:
    # First of all, before the token is read: commands the server runs as its own user
    # must not read its memory, environment or descriptors (boris.prctl).
    from boris.prctl import make_undumpable

    make_undumpable()

    # Boris runs inside users' repositories: fastmcp must not pick up a .env of
    # the current directory, check for updates over the network, or print a banner.
    # Set before fastmcp is first imported, since it reads them at import time.
    # Commands run through bash get the user's values back (boris.shell.environment).
    from boris.shell.environment import set_for_server

    set_for_server("FASTMCP_ENV_FILE", os.devnull)
    set_for_server("FASTMCP_CHECK_FOR_UPDATES", "off")
    set_for_server("FASTMCP_SHOW_SERVER_BANNER", "false")
    set_for_server("FASTMCP_LOG_ENABLED", "false")

    from boris.settings import load_settings

    settings = load_settings(argv)
    if settings.generate_token and settings.transport == "http":
        print(f"bearer token: {settings.token}", file=sys.stderr, flush=True)

    from boris import logs

    logs.configure(settings.log_level, settings.log_format)

    serve(settings)


def serve(settings: Settings) -> None:
    """Build the app and serve it over the transport the settings name."""
    import anyio

    from boris.app import build_app
    from boris.prctl import become_subreaper
    from boris.shell.process import detect_shell

    # What commands detach stays below the server, to be ended and reaped (boris.prctl).
    become_subreaper()
    shell = detect_shell()
    logging.getLogger("boris").info(
        "boris %s, shell %s, workdir %s", __version__, shell, settings.workdir
    )
    app = build_app(settings, shell)
    if settings.transport == "stdio":
        from boris.transport.stdio import serve_stdio

        anyio.run(serve_stdio, app, settings)
    else:
        from boris.transport.http import serve_http

        anyio.run(serve_http, app, settings)


if __name__ == "__main__":
    main()
