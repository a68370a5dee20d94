"""The settings the early answers need, read from the command line and the environment
without pydantic: pydantic-settings alone takes a quarter of a second to import on a
2-core machine, more than the whole early answer may take.

Only what is certain is read. :func:`read_settings` gives the settings only when every
flag and ``BORIS_*`` variable given is one of those below, in a form whose meaning is
plain, and the transport is STDIO; for anything else it gives None and the server
starts as before (the full settings, boris.settings, then say what is wrong, if
anything). The command line is parsed by an argparse parser made from the settings'
own (its flags, how each takes its value: answers.json's ``settings``, built from
boris.settings), the defaults are the settings', and a value's meaning beyond its type
is found by the very functions the settings' validators call (boris.setting_values).
What is left is pydantic's reading of a text as an integer or a boolean, for which
only the plain forms are taken: digits, ``true``, ``false``, one of the choices as
written. The full settings, loaded meanwhile, hold the same values
(tests/early/test_settings.py checks this on generated command lines and environments,
and the server logs an error should they ever differ).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

from boris.setting_values import (
    allow_dirs_of,
    deny_patterns_of,
    env_list,
    parse_size,
    parse_view_requirement,
    read_token_file,
    workdir_of,
)
from boris.toolset import valid_disable_names

_DIGITS = re.compile(r"[0-9]+")


class EarlySettings(NamedTuple):
    """The settings read early, under the full settings' names."""

    transport: str
    workdir: str
    allow_dirs: list[str]
    deny_dirs: list[str]
    timeout: int
    background_task_timeout: int
    max_file_size: int
    require_view_before_edit: bool
    anthropic_compat: bool
    check_syntax: str
    disable_tools: list[str]
    log_level: str
    log_format: str
    token_file: str | None

    @property
    def timeout_ms(self) -> int:
        """As boris.settings.Settings.timeout_ms."""
        return self.timeout * 1000


def read_settings(
    argv: Sequence[str], environ: Mapping[str, str], declared: Mapping[str, Any]
) -> EarlySettings | None:
    """The settings ``argv`` (without the program) and ``environ`` give, if they are all
    read here (see the module); ``declared`` is answers.json's ``settings``."""
    fields: Mapping[str, Mapping[str, Any]] = declared["fields"]
    given = _from_environment(environ, fields)
    flags = _from_command_line(argv, fields)
    if given is None or flags is None:
        return None
    given.update(flags)  # a flag beats its variable
    if not given.keys() <= _READERS.keys():
        return None
    values: dict[str, Any] = {}
    try:
        for name, reader in _READERS.items():
            field = fields[name]
            values[name] = reader(given.get(name, field["default"]), values, field)
    except (ValueError, TypeError):
        return None
    return EarlySettings(**values)


class _Unread(Exception):
    """The command line is not read here."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Unread(message)


def _from_command_line(
    argv: Sequence[str], fields: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any] | None:
    """Each setting the command line gives, as text (a list for a repeatable flag), by
    the settings' own parser's rules; None for anything else (--help, --version, a
    mistake, which the settings' own parser then reports)."""
    parser = _Parser(add_help=False, allow_abbrev=False, argument_default=argparse.SUPPRESS)
    for name, field in fields.items():
        options: dict[str, Any] = {"dest": name}
        if field["repeat"] is not None:
            options["action"] = field["repeat"]
        if field["nargs"] is not None:
            options["nargs"] = field["nargs"]
            options["const"] = field["const"]
        parser.add_argument(*field["flags"], **options)
    try:
        given = vars(parser.parse_args(list(argv)))
    except _Unread:
        return None
    # A repeatable flag given only without values was not given (as the settings read it).
    return {name: value for name, value in given.items() if value != []}


def _from_environment(
    environ: Mapping[str, str], fields: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any] | None:
    """Each setting a ``BORIS_*`` variable gives (names in any case, empty ones unset, as
    the settings read them); None if one names no setting or two name the same."""
    by_variable = {field["env"]: name for name, field in fields.items()}
    given: dict[str, Any] = {}
    for variable, value in environ.items():
        lowered = variable.lower()
        if not lowered.startswith("boris_") or value == "":
            continue
        name = by_variable.get(lowered)
        if name is None or name in given:
            return None
        given[name] = value
    return given


# --- each setting read -----------------------------------------------------------------

Reader = Callable[[Any, Mapping[str, Any], Mapping[str, Any]], Any]


def _stdio(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> str:
    if value != "stdio":
        raise ValueError("the early answers are for STDIO")
    return "stdio"


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _listed(value: Any) -> list[str]:
    items = env_list(value)
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise TypeError(value)
    return items


def _count(value: Any) -> int:
    """A whole number: an int default, or a text of ASCII digits."""
    if type(value) is int:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    raise ValueError(value)


def _workdir(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> str:
    return workdir_of(_text(value))


def _allow_dirs(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> list[str]:
    return allow_dirs_of(_listed(value), read["workdir"]) if value else []


def _deny_dirs(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> list[str]:
    return deny_patterns_of(_listed(value), read["workdir"]) if value else []


def _positive(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> int:
    count = _count(value)
    if count <= 0:
        raise ValueError(value)
    return count


def _whole(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> int:
    return _count(value)


def _size(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> int:
    size = parse_size(value)
    if type(size) is not int:
        raise TypeError(value)
    return size


def _view(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> bool:
    required = parse_view_requirement(value)
    if not isinstance(required, bool):
        raise TypeError(value)
    return required


def _switch(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return bool(value == "true")
    raise ValueError(value)


def _token_file(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> str | None:
    # The token is no part of a STDIO answer, but a file that holds none is refused as
    # the settings refuse it (by them: no early answer then); the token is not kept.
    if value is None:
        return None
    read_token_file(_text(value))
    return str(value)


def _tool_names(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> list[str]:
    names = _listed(value) if value else []
    valid = valid_disable_names(read["anthropic_compat"])
    if any(name not in valid for name in names):
        raise ValueError(names)
    return names


def _choice(value: Any, read: Mapping[str, Any], field: Mapping[str, Any]) -> str:
    if value not in field["choices"]:
        raise ValueError(value)
    return str(value)


#: How each setting read early is read, in an order where what one needs comes first.
_READERS: dict[str, Reader] = {
    "transport": _stdio,
    "workdir": _workdir,
    "allow_dirs": _allow_dirs,
    "deny_dirs": _deny_dirs,
    "timeout": _positive,
    "background_task_timeout": _whole,
    "max_file_size": _size,
    "require_view_before_edit": _view,
    "anthropic_compat": _switch,
    "check_syntax": _choice,
    "disable_tools": _tool_names,
    "log_level": _choice,
    "log_format": _choice,
    "token_file": _token_file,
}
