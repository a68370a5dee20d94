"""The environment of commands: the user's, without what the server set for itself or
keeps from them, with non-interactive defaults.

The entry point sets a few ``FASTMCP_*`` variables to tame fastmcp (no ``.env`` of the
user's repository, no update check, no banner). Commands run through bash must not
inherit them: a user developing their own fastmcp server there would silently lose
their ``.env`` and logs.

The server's secrets (boris.secret_names: the bearer token and where it is kept) are
never passed on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from boris.secret_names import without_secrets

#: Variables the server set for itself, with the value each had before (None: unset).
_overridden: dict[str, str | None] = {}


def set_for_server(name: str, value: str) -> None:
    """Set an environment variable for this process only, remembering the user's value."""
    _overridden.setdefault(name, os.environ.get(name))
    os.environ[name] = value


def for_commands() -> dict[str, str]:
    """This process's environment as the user gave it to the server, without its secrets."""
    env = without_secrets(os.environ)
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
