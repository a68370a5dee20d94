"""Entry point of ``python -m boris``, the ``boris`` console script and boris.pyz."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from boris import __version__

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from boris.settings import Settings


def main(
    argv: Sequence[str] | None = None, before_loading: Callable[[], None] | None = None
) -> None:
    """Serve as the command line and the environment say. ``before_loading`` is what must
    be done before the libraries can load: the first start of boris.pyz, running from the
    archive itself, unpacks them (scripts/pyz_start.py)."""
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

    args = sys.argv[1:] if argv is None else list(argv)
    # Over STDIO a client waits for its first answers: given at once while the app
    # loads, where the settings they need can be read without it (boris.early).
    from boris.early import answers
    from boris.early.settings import read_settings

    known = answers.load()
    early = read_settings(args, os.environ, known.settings)
    if early is not None:
        from boris.early.stdio import serve_early

        def load() -> tuple[Settings, FastMCP[Any]]:
            if before_loading is not None:
                before_loading()
            return ready(args)

        serve_early(early, known, load)
        return
    known.release()
    if before_loading is not None:
        before_loading()
    settings, app = ready(args)
    serve(settings, app)


def ready(argv: Sequence[str]) -> tuple[Settings, FastMCP[Any]]:
    """The settings (exit 2 on any error), logging configured, and the app built: what
    takes a start its time."""
    from boris.settings import load_settings

    settings = load_settings(argv)
    if settings.generate_token and settings.transport == "http":
        print(f"bearer token: {settings.token}", file=sys.stderr, flush=True)

    import logging

    from boris import logs

    logs.configure(settings.log_level, settings.log_format)

    from boris.app import build_app
    from boris.prctl import become_subreaper
    from boris.shell.process import detect_shell

    # What commands detach stays below the server, to be ended and reaped (boris.prctl).
    become_subreaper()
    shell = detect_shell()
    log = logging.getLogger("boris")
    log.info("boris %s, shell %s, workdir %s", __version__, shell, settings.workdir)
    if settings.token_file is not None:
        from boris.setting_values import token_file_warning

        warning = token_file_warning(settings.token_file)
        if warning is not None:
            log.warning("%s", warning)
    return settings, build_app(settings, shell)


def serve(settings: Settings, app: FastMCP[Any]) -> None:
    """Serve the app over the transport the settings name."""
    import anyio

    if settings.transport == "stdio":
        from boris.transport.stdio import serve_stdio

        anyio.run(serve_stdio, app, settings)
    else:
        from boris.transport.http import serve_http

        anyio.run(serve_http, app, settings)


if __name__ == "__main__":
    main()
