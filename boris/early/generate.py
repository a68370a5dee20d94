"""Builds ``boris/early/answers.json`` from the app itself:
``.venv/bin/python -m boris.early.generate``.

The app of each mode is run in this process over STDIO's streams (as the STDIO
transport runs it: boris.transport.stdio.run_server) and asked for what the early
answers give: ``initialize`` at every protocol version the SDK knows and at one it does
not, ``tools/list`` at each, and the 2026-07-28 protocol's ``server/discover`` and
``tools/list``. Its results are kept as they come, with placeholders where the settings
come in (the instructions, the list of tools, each tool's description, each of which
is checked to be what boris.descriptions makes of the settings and the tool's
declaration); then each answer is put together again from the file and compared, byte
for byte, with the app's. Beside them: each tool's declared description parts, the
settings' flags, variables and defaults (from boris.settings), and the JSON Schemas of
the SDK's models for each request answered early.

tests/early/test_answers.py fails while the file in the tree is not what this builds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import typing
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import anyio
import mcp_types
from fastmcp import FastMCP
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest
from mcp_types import methods as sdk_methods
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from pydantic import BaseModel

from boris import __version__, toolset
from boris.app import build_app
from boris.descriptions import describe, instructions
from boris.early import answers
from boris.early.answers import Answers, Json, placeholder
from boris.seams.fastmcp import low_level_server
from boris.settings import Settings, build_parser, load_settings
from boris.tools import declaration
from boris.transport.jsonrpc import Refusal, encode, read_message
from boris.transport.stdio import run_server

#: Protocol versions no SDK knows: asked for, to keep the answer to one not supported.
UNKNOWN_VERSIONS = ("1970-01-01", "2999-12-31")
CLIENT = {"name": "boris-generate", "version": "0"}


def request(request_id: int | str, method: str, params: Mapping[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def notification(method: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": method}).encode()


def initialize(request_id: int, version: str) -> bytes:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT}
    return request(request_id, "initialize", params)


def enveloped(request_id: int, method: str, version: str) -> bytes:
    """A request of the 2026-07-28 protocol, which carries its version in ``_meta``."""
    meta = {
        mcp_types.PROTOCOL_VERSION_META_KEY: version,
        mcp_types.CLIENT_INFO_META_KEY: CLIENT,
        mcp_types.CLIENT_CAPABILITIES_META_KEY: {},
    }
    return request(request_id, method, {"_meta": meta})


async def talk(app: FastMCP[Any], lines: Sequence[bytes]) -> list[bytes | None]:
    """``lines`` sent in turn to the app's STDIO server on one connection, each request's
    reply awaited before the next line (None for a notification), read and encoded as
    the STDIO transport reads and encodes them."""
    from fastmcp.server.context import reset_transport, set_transport

    to_server, server_input = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    server_output, to_client = anyio.create_memory_object_stream[SessionMessage](64)
    replies: list[bytes | None] = []
    token = set_transport("stdio")
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run_server, app, server_input, server_output)
            async with to_server, to_client:
                for line in lines:
                    message = read_message(line)
                    assert not isinstance(message, Refusal), message
                    await to_server.send(SessionMessage(message))
                    if not isinstance(message, JSONRPCRequest):
                        replies.append(None)
                        continue
                    while True:
                        sent = (await to_client.receive()).message
                        if getattr(sent, "id", None) == message.id:
                            replies.append(encode(sent))
                            break
    finally:
        reset_transport(token)
    return replies


@contextlib.contextmanager
def plain_environment() -> Iterator[None]:
    """No ``BORIS_*`` variable while the settings are read."""
    saved = dict(os.environ)
    try:
        for name in [name for name in os.environ if name.upper().startswith("BORIS_")]:
            del os.environ[name]
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def settings_for(workdir: str, compat: bool) -> Settings:
    argv = ["--transport", "stdio", "--workdir", workdir]
    with plain_environment():
        return load_settings([*argv, "--anthropic-compat"] if compat else argv)


class Builder:
    """answers.json, built up from the app's replies."""

    def __init__(self) -> None:
        self.data: dict[str, Json] = {
            "boris": __version__,
            "settings": settings_section(),
            "envelope": {
                "version": mcp_types.PROTOCOL_VERSION_META_KEY,
                "capabilities": mcp_types.CLIENT_CAPABILITIES_META_KEY,
            },
            # A connection's protocol version until initialize has negotiated one.
            "handshake": LATEST_HANDSHAKE_VERSION,
            "initialize": {},
            "server/discover": {},
            "tools/list": {},
            "tools": {},
            "tool_objects": [],
            "descriptions": {},
            "requests": {},
            "schemas": [],
        }
        #: Each reply of the app, to check the answers put together from the file against.
        self.expected: list[tuple[str, str, Settings, bytes]] = []

    def interned(self, table: str, value: Json) -> int:
        """The index of ``value`` in the list ``table`` (added if new). Compared as JSON
        text: the order of an object's members is part of the answer."""
        found: list[Json] = self.data[table]
        texts = [json.dumps(item) for item in found]
        if json.dumps(value) not in texts:
            found.append(value)
            return len(found) - 1
        return texts.index(json.dumps(value))

    def result(self, reply: bytes | None) -> dict[str, Json]:
        assert reply is not None
        message = json.loads(reply)
        assert "result" in message, message
        result: dict[str, Json] = message["result"]
        return result

    def with_instructions(self, result: dict[str, Json], settings: Settings) -> dict[str, Json]:
        assert result["instructions"] == instructions(settings), result
        return {**result, "instructions": placeholder("instructions")}

    def add_initialize(self, key: str, reply: bytes | None, settings: Settings) -> None:
        template = self.with_instructions(self.result(reply), settings)
        known = self.data["initialize"].setdefault(key, template)
        assert json.dumps(known) == json.dumps(template), (
            f"initialize at {key} differs between the modes"
        )

    def add_discover(self, version: str, reply: bytes | None, settings: Settings) -> None:
        template = self.with_instructions(self.result(reply), settings)
        known = self.data["server/discover"].setdefault(version, template)
        assert json.dumps(known) == json.dumps(template), (
            f"server/discover at {version} differs between the modes"
        )

    def add_tools_list(self, version: str, reply: bytes | None, settings: Settings) -> None:
        result = self.result(reply)
        compat = settings.anthropic_compat
        mode = toolset.mode(compat)
        served = toolset.serving(compat, settings.disable_tools)
        listed = []
        for tool in result["tools"]:
            name = tool["name"]
            declared = declaration(name, compat)
            text = describe(declared.parts, declared.view_first, settings, served)
            assert tool["description"] == text, f"{name}: the app describes it otherwise"
            index = self.interned(
                "tool_objects", {**tool, "description": placeholder("description")}
            )
            listed.append([name, index])
            self.data["descriptions"].setdefault(mode, {})[name] = {
                "parts": [answers.encode_part(part) for part in declared.parts],
                "view_first": declared.view_first,
            }
        assert [name for name, _ in listed] == served, listed
        self.data["tools"].setdefault(mode, {})[version] = listed
        template = {**result, "tools": placeholder("tools")}
        known = self.data["tools/list"].setdefault(version, template)
        assert json.dumps(known) == json.dumps(template), (
            f"tools/list at {version} differs between the modes"
        )

    def add_schemas(self, app: FastMCP[Any]) -> None:
        """The JSON Schemas the SDK's models give each request answered early: the
        message at its version (the SDK checks it first), then its parameters as the
        handler (or, for initialize, the negotiation) reads them."""
        server = low_level_server(app)

        def handler_params(method: str) -> type[BaseModel]:
            entry = server.get_request_handler(method)
            assert entry is not None, method
            return entry.params_type

        latest = LATEST_HANDSHAKE_VERSION
        wanted: list[tuple[str, str, list[type[BaseModel]]]] = [
            (
                "initialize",
                latest,  # a connection's version until initialize has negotiated one
                [
                    sdk_methods.CLIENT_REQUESTS[("initialize", latest)],
                    mcp_types.InitializeRequestParams,
                ],
            )
        ]
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            wanted.append(
                (
                    "notifications/initialized",
                    version,
                    [sdk_methods.CLIENT_NOTIFICATIONS[("notifications/initialized", version)]],
                )
            )
        for version in (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS):
            wanted.append(
                (
                    "tools/list",
                    version,
                    [
                        sdk_methods.CLIENT_REQUESTS[("tools/list", version)],
                        handler_params("tools/list"),
                    ],
                )
            )
        for version in MODERN_PROTOCOL_VERSIONS:
            wanted.append(
                (
                    "server/discover",
                    version,
                    [
                        sdk_methods.CLIENT_REQUESTS[("server/discover", version)],
                        handler_params("server/discover"),
                    ],
                )
            )
        for method, version, models in wanted:
            indexes = [
                self.interned("schemas", _canonical(model.model_json_schema(by_alias=True)))
                for model in models
            ]
            self.data["requests"].setdefault(method, {})[version] = indexes


def _canonical(schema: Json) -> Json:
    """``schema`` with its lists of choices in one order: pydantic writes some from a set,
    whose order changes from one process to the next."""
    if isinstance(schema, dict):
        found = {key: _canonical(value) for key, value in schema.items()}
        if isinstance(found.get("enum"), list):
            found["enum"] = sorted(found["enum"], key=json.dumps)
        return found
    if isinstance(schema, list):
        return [_canonical(item) for item in schema]
    return schema


def settings_section() -> dict[str, Json]:
    """Each setting's flags, how the command line takes them, its variable, its default and,
    for a choice, the choices: from boris.settings' own command line and fields."""
    parser = build_parser()
    example = argparse.ArgumentParser()
    repeating = {
        type(example.add_argument(f"--{action}", action=action)): action
        for action in ("append", "extend")
    }
    fields: dict[str, Json] = {}
    for action in parser._actions:  # argparse lists its actions nowhere else
        if action.dest not in Settings.model_fields:
            continue
        info = Settings.model_fields[action.dest]
        field: dict[str, Json] = {
            "flags": list(action.option_strings),
            "repeat": repeating.get(type(action)),
            "nargs": action.nargs,
            "const": action.const,
            "env": f"boris_{action.dest}",
            "default": info.default,
        }
        if typing.get_origin(info.annotation) is typing.Literal:
            field["choices"] = list(typing.get_args(info.annotation))
        fields[action.dest] = field
    assert sorted(fields) == sorted(Settings.model_fields), "a field without its flag"
    return {"fields": fields}


async def build_answers() -> dict[str, Json]:
    """answers.json's contents, from the app of each mode."""
    builder = Builder()
    with tempfile.TemporaryDirectory(prefix="boris-generate-") as workdir:
        for compat in (False, True):
            settings = settings_for(workdir, compat)
            app = build_app(settings, shell="/bin/sh")
            for version in (*HANDSHAKE_PROTOCOL_VERSIONS, *UNKNOWN_VERSIONS):
                lines = [initialize(1, version), notification("notifications/initialized")]
                first, _, listed = await talk(app, [*lines, request(2, "tools/list")])
                known = version in HANDSHAKE_PROTOCOL_VERSIONS
                builder.add_initialize(version if known else "*", first, settings)
                builder.expected.append(("initialize", version, settings, _require(first)))
                if known:
                    builder.add_tools_list(version, listed, settings)
                    builder.expected.append(("tools/list", version, settings, _require(listed)))
            for version in MODERN_PROTOCOL_VERSIONS:
                discovered, listed = await talk(
                    app,
                    [enveloped(1, "server/discover", version), enveloped(2, "tools/list", version)],
                )
                builder.add_discover(version, discovered, settings)
                builder.add_tools_list(version, listed, settings)
                builder.expected.append(
                    ("server/discover", version, settings, _require(discovered))
                )
                builder.expected.append(("tools/list", version, settings, _require(listed)))
            builder.add_schemas(app)
    initialize_answers = builder.data["initialize"]
    assert len({json.dumps(initialize_answers.get(v)) for v in UNKNOWN_VERSIONS}) == 1
    check(Answers(builder.data), builder.expected)
    return builder.data


def _require(reply: bytes | None) -> bytes:
    assert reply is not None
    return reply


def check(built: Answers, expected: Sequence[tuple[str, str, Settings, bytes]]) -> None:
    """Each answer put together from ``built`` is the app's, byte for byte."""
    for method, version, settings, reply in expected:
        request_id = json.loads(reply)["id"]
        if method == "initialize":
            result = built.initialize(version, settings)
        elif method == "server/discover":
            result = built.discover(version, settings)
        else:
            result = built.tools_list(version, settings)
        ours = answers.reply(request_id, result)
        assert ours == reply, (
            f"{method} at {version}: the answer put together differs\n{ours!r}\n{reply!r}"
        )


def text(data: Mapping[str, Json]) -> str:
    """answers.json's text."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=answers.PATH, help="where to write (answers.json)")
    args = parser.parse_args(argv)
    built = text(anyio.run(build_answers))
    with open(args.output, "w", encoding="utf-8") as file:
        file.write(built)
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
