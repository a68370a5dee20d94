"""An MCP Bundle's server command as Claude Desktop makes it from the manifest.

A plain model of the MCPB manifest spec (MANIFEST.md of @anthropic-ai/mcpb, "Variable
Substitution" and "Array Expansion") and of the reference code the CLI ships for clients
(getMcpConfigForManifest): the defaults of user_config, then the user's values; booleans
as "true"/"false"; ``${__dirname}`` and the system directories; an argument that is
exactly ``${user_config.KEY}`` of a list becomes one argument per item (none for an empty
list); a list inside a longer string, and a variable without a value, are left as
written; and, as that code does, an argument that is exactly a placeholder whose value is
the empty string is left as written too (so an optional text setting belongs in an env
var, not in an argument of its own).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_WHOLE = re.compile(r"\$\{(user_config\.[^}]+)\}")


@dataclass(frozen=True)
class ServerCommand:
    command: str
    args: list[str]
    env: dict[str, str]


class MissingSetting(Exception):
    """A required user_config value is missing: the client starts nothing."""


def _variables(
    manifest: Mapping[str, Any], directory: Path, values: Mapping[str, Any]
) -> dict[str, str | list[str]]:
    variables: dict[str, str | list[str]] = {
        "__dirname": str(directory),
        "pathSeparator": os.sep,
        "/": os.sep,
        "HOME": str(Path.home()),
    }
    options: Mapping[str, Mapping[str, Any]] = manifest.get("user_config", {})
    for key, option in options.items():
        value = values.get(key)
        if option.get("required") and (
            value in (None, "") or (isinstance(value, list) and (not value or "" in value))
        ):
            raise MissingSetting(key)
    merged = {k: o["default"] for k, o in options.items() if "default" in o}
    merged.update(values)
    for key, value in merged.items():
        if isinstance(value, list):
            variables[f"user_config.{key}"] = [str(item) for item in value]
        elif isinstance(value, bool):
            variables[f"user_config.{key}"] = "true" if value else "false"
        else:
            variables[f"user_config.{key}"] = str(value)
    return variables


def _in_text(text: str, variables: Mapping[str, str | list[str]]) -> str:
    for name, value in variables.items():
        if isinstance(value, str):
            text = text.replace("${" + name + "}", value)
    return text


def server_command(
    manifest: Mapping[str, Any], directory: Path, values: Mapping[str, Any]
) -> ServerCommand:
    """The command, arguments and env the client runs for a bundle unpacked into
    ``directory`` with these user_config ``values``."""
    variables = _variables(manifest, directory, values)
    config = manifest["server"]["mcp_config"]
    args: list[str] = []
    for arg in config.get("args", []):
        whole = _WHOLE.fullmatch(arg)
        value = variables.get(whole.group(1)) if whole else None
        if whole and isinstance(value, list):  # an empty one too: no argument
            args += value
        elif whole and isinstance(value, str) and value:
            args.append(value)
        elif whole:
            args.append(arg)
        else:
            args.append(_in_text(arg, variables))
    env = {name: _in_text(text, variables) for name, text in config.get("env", {}).items()}
    return ServerCommand(_in_text(config["command"], variables), args, env)
