"""The server's secrets in its environment, and the environment without them.

The bearer token (``BORIS_TOKEN``) and where it is kept (``BORIS_TOKEN_FILE``) are the
server's alone: a process that could read them could talk to the server, and to every
other session, over HTTP. Neither the commands it runs (boris.shell.environment) nor its
worker processes (boris.search.pool) are given them.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Variables that start with this are never passed to another process.
SECRET_PREFIX = "BORIS_TOKEN"


def without_secrets(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` less the server's secrets."""
    return {name: value for name, value in env.items() if not name.startswith(SECRET_PREFIX)}
