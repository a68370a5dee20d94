"""Every flag and ``BORIS_*`` environment variable, parsed and validated once at start-up.

A flag beats its env var. A repeatable flag takes any number of values per occurrence
(``--allow-dir a b`` is ``--allow-dir a --allow-dir b``) and never splits one; an
occurrence with no value adds nothing (and leaves the env var in force), so a client that
expands a list it was given into arguments after the flag may hand it an empty one. An env
list is split on commas outside ``{…}``. The command line is
parsed by a plain argparse parser generated from the fields below, because
pydantic-settings' own CLI source splits and JSON-decodes list values
(``**/*.{pem,key}`` would become two patterns).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import secrets
import sys
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NoReturn
from urllib.parse import urlsplit

from pydantic import (
    BeforeValidator,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from boris import __version__
from boris.setting_values import (
    allow_dirs_of,
    deny_patterns_of,
    env_list,
    env_of,
    flag_of,
    parse_size,
    parse_view_requirement,
    read_token_file,
    workdir_of,
)
from boris.toolset import valid_disable_names

EnvList = Annotated[list[str], NoDecode, BeforeValidator(env_list)]
Size = Annotated[int, BeforeValidator(parse_size)]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="BORIS_",
        env_file=None,
        env_ignore_empty=True,
        extra="forbid",
        validate_default=True,
    )

    port: Annotated[int, Field(ge=0, le=65535, description="HTTP listen port")] = 8080
    host: Annotated[
        str, Field(description="HTTP bind address; beyond loopback it needs a token")
    ] = "127.0.0.1"
    transport: Annotated[
        Literal["http", "stdio"],
        Field(description="stdio: one client on stdin/stdout; http: streamable HTTP at /mcp"),
    ] = "http"
    workdir: Annotated[str, Field(description="initial working directory")] = "."
    timeout: Annotated[
        int, Field(gt=0, description="default bash timeout in seconds (the tool takes ms)")
    ] = 120
    allow_dirs: Annotated[
        EnvList, Field(description="directories the file tools may touch (repeatable)")
    ] = []
    deny_dirs: Annotated[
        EnvList, Field(description="glob patterns the file tools may not touch (repeatable)")
    ] = []
    token: Annotated[str | None, Field(description="bearer token required on /mcp")] = None
    token_file: Annotated[
        str | None,
        Field(description="read the bearer token from this file's first line (not shown by ps)"),
    ] = None
    allow_origins: Annotated[
        EnvList, Field(description="extra browser origins allowed without a token (repeatable)")
    ] = []
    allow_hosts: Annotated[
        EnvList,
        Field(description="extra Host names /mcp answers without a token (repeatable)"),
    ] = []
    session_idle_timeout: Annotated[
        float, Field(gt=0, description="seconds an idle HTTP session is kept")
    ] = 600
    max_sessions: Annotated[
        int, Field(ge=1, description="open HTTP sessions at most; initialize beyond: 503")
    ] = 256
    max_concurrent_calls: Annotated[
        int,
        Field(
            ge=1,
            description="HTTP requests of the 2026-07-28 revision served at once; beyond: 503",
        ),
    ] = 64
    generate_token: Annotated[
        bool, Field(description="generate a random token and print it to stderr")
    ] = False
    allow_unauthenticated: Annotated[
        bool, Field(description="serve a non-loopback --host without a token, knowingly")
    ] = False
    disable_tools: Annotated[
        EnvList, Field(description="tool names not to serve (repeatable)")
    ] = []
    background_task_timeout: Annotated[
        int, Field(ge=0, description="seconds before a background task is killed; 0 = never")
    ] = 0
    max_file_size: Annotated[
        Size, Field(description="largest file the file tools read or write (B, KB, MB, GB)")
    ] = 10 * 1024**2
    require_view_before_edit: Annotated[
        bool,
        BeforeValidator(parse_view_requirement),
        Field(description="refuse edits of files not viewed first (auto: true)"),
    ] = True
    anthropic_compat: Annotated[
        bool, Field(description="serve one str_replace_editor instead of the file tools")
    ] = False
    check_syntax: Annotated[
        Literal["warn", "refuse", "off"],
        Field(description="after each edit, report the syntax errors it brought in, or refuse it"),
    ] = "warn"
    log_level: Annotated[
        Literal["debug", "info", "warn", "error"],
        Field(description="the least severe messages logged"),
    ] = "info"
    log_format: Annotated[
        Literal["text", "json"], Field(description="json: one object per line; always on stderr")
    ] = "text"

    @field_validator("transport", "log_level", "log_format", "check_syntax", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("workdir", mode="after")
    @classmethod
    def _existing_workdir(cls, value: str) -> str:
        return workdir_of(value)

    @field_validator("allow_dirs", mode="after")
    @classmethod
    def _existing_allow_dirs(cls, value: list[str], info: ValidationInfo) -> list[str]:
        # Relative to the workdir (when that is valid; else its own error is reported).
        return allow_dirs_of(value, info.data.get("workdir", os.getcwd()))

    @field_validator("deny_dirs", mode="after")
    @classmethod
    def _valid_patterns(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return deny_patterns_of(value, info.data.get("workdir", os.getcwd()))

    @field_validator("allow_hosts", mode="after")
    @classmethod
    def _valid_hosts(cls, value: list[str]) -> list[str]:
        for host in value:
            if host_and_port(host) is None:
                raise ValueError(
                    f"invalid host {host!r}: give a name or an address, with or without "
                    "a port (boris.example, boris.example:8080, [fd00::1]:8080)"
                )
        return value

    @field_validator("token", mode="after")
    @classmethod
    def _non_empty_token(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("token must not be empty")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.token is not None and self.generate_token:
            raise ValueError("--token and --generate-token are mutually exclusive; use one")
        if self.token_file is not None:
            if self.token is not None or self.generate_token:
                other = "--token" if self.token is not None else "--generate-token"
                raise ValueError(f"--token-file and {other} are mutually exclusive; use one")
            self.token = read_token_file(self.token_file)
        valid = valid_disable_names(self.anthropic_compat)
        unknown = [name for name in self.disable_tools if name not in valid]
        if unknown:
            mode = "with --anthropic-compat" if self.anthropic_compat else "in the default mode"
            raise ValueError(
                f"unknown tool name {', '.join(repr(n) for n in unknown)} in --disable-tools; "
                f"valid names {mode}: {', '.join(valid)}"
            )
        if self.unauthenticated_beyond_loopback and not self.allow_unauthenticated:
            raise ValueError(
                f"--host {self.host} is reachable from other machines and no token is set: "
                "anyone who can reach it could run commands; set --token or --generate-token, "
                "or pass --allow-unauthenticated to accept that"
            )
        if self.generate_token:
            self.token = secrets.token_hex(32)
        return self

    @property
    def unauthenticated_beyond_loopback(self) -> bool:
        """Whether HTTP would be served beyond this machine without a token."""
        return (
            self.transport == "http"
            and self.token is None
            and not self.generate_token
            and not is_loopback_host(self.host)
        )

    @property
    def timeout_ms(self) -> int:
        return self.timeout * 1000


def host_and_port(value: str) -> tuple[str, int | None] | None:
    """The name (lower case, an IPv6 address without brackets) and the port of a
    ``Host`` header, an ``--allow-host`` value or a ``--host``; None if it is not one."""
    text = value.strip()
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"  # an IPv6 address alone, as --host takes it
    try:
        parts = urlsplit("//" + text)
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not name or parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    name = name.removesuffix(".")
    if not _HOST_NAME.fullmatch(name):
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return None
    return name, port


# A host name as a Host header carries it (IDNs in their ASCII form).
_HOST_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` serves this machine only: ``localhost`` or a loopback
    address (127.0.0.0/8, ::1). Any other name may resolve to anything."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


# --- command line -----------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        _fail(message)


#: --help by concern: each group's flags (by field), with the name --help gives the
#: value (the choices where there are few). Every field is in exactly one group.
_HELP_GROUPS: dict[str, dict[str, str]] = {
    "server": {"transport": "{stdio,http}", "workdir": "DIR"},
    "HTTP": {
        "host": "HOST",
        "port": "PORT",
        "token": "TOKEN",
        "token_file": "FILE",
        "generate_token": "{true,false}",
        "allow_unauthenticated": "{true,false}",
        "allow_origins": "ORIGIN",
        "allow_hosts": "HOST",
        "session_idle_timeout": "SECONDS",
        "max_sessions": "COUNT",
        "max_concurrent_calls": "COUNT",
    },
    "tools": {
        "timeout": "SECONDS",
        "background_task_timeout": "SECONDS",
        "allow_dirs": "DIR",
        "deny_dirs": "PATTERN",
        "max_file_size": "SIZE",
        "require_view_before_edit": "{auto,true,false}",
        "disable_tools": "TOOL",
        "anthropic_compat": "{true,false}",
        "check_syntax": "{warn,refuse,off}",
    },
    "logging": {
        "log_level": "{debug,info,warn,error}",
        "log_format": "{text,json}",
    },
}

#: Defaults as --help shows them, where the field's own default is not what one types.
_SHOWN_DEFAULTS = {"max_file_size": "10MB", "require_view_before_edit": "auto"}


def _shown_default(field: str) -> str:
    if field in _SHOWN_DEFAULTS:
        return _SHOWN_DEFAULTS[field]
    default = Settings.model_fields[field].default
    if default is None or default == []:
        return "none"
    if isinstance(default, bool):
        return str(default).lower()
    return str(default)


def build_parser() -> argparse.ArgumentParser:
    """The command line, generated from the fields; values stay strings for pydantic."""
    parser = _Parser(
        prog="boris",
        description="An MCP server that gives any AI agent the tools of a coding agent.",
        epilog="A flag beats its env var. A repeatable flag takes one or more values per "
        "occurrence; its env var is a comma-separated list (commas inside {...} do not split).",
        allow_abbrev=False,
        argument_default=argparse.SUPPRESS,
    )
    parser.add_argument("--version", "-v", action="version", version=f"boris {__version__}")
    grouped = [field for fields in _HELP_GROUPS.values() for field in fields]
    assert sorted(grouped) == sorted(Settings.model_fields), "a field without its help group"
    for title, fields in _HELP_GROUPS.items():
        group = parser.add_argument_group(title)
        for name, metavar in fields.items():
            info = Settings.model_fields[name]
            help_text = f"{info.description} [env {env_of(name)}; default {_shown_default(name)}]"
            if info.annotation is bool and name != "require_view_before_edit":
                # `--flag` alone means true; `--flag=false` is accepted too.
                group.add_argument(
                    flag_of(name), dest=name, nargs="?", const="true", metavar=metavar,
                    help=help_text,
                )  # fmt: skip
            elif info.annotation == list[str]:
                group.add_argument(
                    flag_of(name), dest=name, action="extend", nargs="*", metavar=metavar,
                    help=help_text,
                )  # fmt: skip
            else:
                group.add_argument(flag_of(name), dest=name, metavar=metavar, help=help_text)
    return parser


def _fail(message: str) -> NoReturn:
    print(f"boris: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _describe(error: Mapping[str, Any]) -> str:
    message = str(error["msg"])
    if error["type"] == "value_error":
        message = message.removeprefix("Value error, ")
    loc = error.get("loc") or ()
    if not loc:
        return message
    field = str(loc[0])
    return f"{flag_of(field)} ({env_of(field)}): {message}"


def load_settings(argv: Sequence[str] | None = None) -> Settings:
    """Parse flags (``argv``, default ``sys.argv[1:]``) over env vars; exit 2 on any error."""
    given = vars(build_parser().parse_args(argv))
    # A repeatable flag given only without values was not given.
    given = {name: value for name, value in given.items() if value != []}
    try:
        return Settings(**given)
    except ValidationError as exc:
        _fail("; ".join(_describe(e) for e in exc.errors()))
