"""The environment of commands: the user's, without what the server set for itself or
keeps from them, with non-interactive defaults.

The entry point sets a few ``FASTMCP_*`` variables to tame fastmcp (no ``.env`` of the
user's repository, no update check, no banner). Commands run through bash must not
inherit them: a user developing their own fastmcp server there would silently lose
their ``.env`` and logs.

The bearer token (``BORIS_TOKEN``) and where it is kept (``BORIS_TOKEN_FILE``) are the
server's alone: a command that could read them could talk to the server, and to every
other session, over HTTP.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: Variables that start with this are never passed to a command.
SECRET_PREFIX = "BORIS_TOKEN"

#: Variables the server set for itself, with the value each had before (None: unset).
_overridden: dict[str, str | None] = {}


def set_for_server(name: str, value: str) -> None:
    """Set an environment variable for this process only, remembering the user's value."""
    _overridden.setdefault(name, os.environ.get(name))
    os.environ[name] = value


def for_commands() -> dict[str, str]:
    """This process's environment as the user gave it to the server, without its secrets."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(SECRET_PREFIX)}
    for name, original in _overridden.items():
        if original is None:
            env.pop(name, None)
        else:
            env[name] = original
    return env


def child_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The environment of every command: ``base`` plus non-interactive defaults.

    A pager or a credential prompt would otherwise hang a call until its timeout.
    """
    env = dict(base)
    env.setdefault("PAGER", "cat")
    env.setdefault("GIT_PAGER", "cat")
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    return env
