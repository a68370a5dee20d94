"""The two paths a STDIO client's first messages can take, side by side in this process: the
app's server (as the STDIO transport runs it) and the early answers (boris.early), each
given the same lines and the same settings."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fastmcp import FastMCP

from boris.early import answers
from boris.early.generate import enveloped, initialize, notification, request, talk
from boris.early.responder import Responder
from boris.early.settings import EarlySettings, read_settings
from tests.support import RawStdio
from tests.support.inprocess import build_app, environment

CAPABLE = {
    "roots": {"listChanged": True},
    "sampling": {"context": {}, "tools": {}},
    "elicitation": {"form": {}, "url": {}},
    "experimental": {"x": {"y": 1}},
    "tasks": {"list": {}, "cancel": {}},
}


def initialize_with(request_id: int, version: str, **params: Any) -> bytes:
    """``initialize`` at ``version``, with ``params`` in place of the usual ones."""
    message = json.loads(initialize(request_id, version))
    message["params"].update(params)
    return json.dumps(message).encode()


def with_meta(line: bytes, **meta: Any) -> bytes:
    message = json.loads(line)
    params = message.setdefault("params", {})
    params.setdefault("_meta", {}).update(meta)
    return json.dumps(message).encode()


def legacy(version: str) -> list[bytes]:
    """A handshake: initialize at ``version``, initialized, tools/list."""
    return [
        initialize(1, version),
        notification("notifications/initialized"),
        request(2, "tools/list"),
    ]


def modern(version: str) -> list[bytes]:
    """A 2026-07-28 client's probe and list, each carrying its version in ``_meta``."""
    return [enveloped(1, "server/discover", version), enveloped(2, "tools/list", version)]


def early_settings(argv: Sequence[str], env: Mapping[str, str] | None = None) -> EarlySettings:
    """The settings as the early answers read them; they must be readable early."""
    read = read_settings(["--transport", "stdio", *argv], env or {}, answers.load().settings)
    assert read is not None, argv
    return read


def early_replies(
    settings: EarlySettings, lines: Sequence[bytes], known: answers.Answers | None = None
) -> list[bytes | None]:
    """What the early answers (from answers.json, or ``known``) reply to each line (None:
    no reply, or left to the app)."""
    responder = Responder(known or answers.load(), settings)
    return [responder.take(line) for line in lines]


def stdio_app(argv: Sequence[str], env: Mapping[str, str] | None = None) -> FastMCP[Any]:
    """The app a STDIO server of these flags and ``BORIS_*`` variables serves."""
    with environment(env):
        return build_app(["--transport", "stdio", *argv])


async def app_replies(
    argv: Sequence[str], lines: Sequence[bytes], env: Mapping[str, str] | None = None
) -> list[bytes | None]:
    """What the app's STDIO server replies to each line on one connection."""
    return await talk(stdio_app(argv, env), lines)


def result_of(line: bytes) -> bytes:
    """A reply's line from its result on, as the server wrote it: what two replies to one
    request under different ids have in common."""
    _, found, rest = line.partition(b',"result":')
    assert found, line
    return rest


def asked_twice(server: RawStdio, era: str, version: str) -> list[tuple[bytes, bytes]]:
    """A connection's first requests (answered while the app loads), then the same
    requests once it has loaded (the app's answers), as result lines side by side. The
    answer to initialize, which cannot be asked again, the server itself compares with
    the app's (boris.early.responder.Handover)."""
    if era == "handshake":
        server.send(initialize(1, version))
        server.reply_line(1)
        server.send(notification("notifications/initialized"))
        asked = [request(2, "tools/list")]
        meta = None
    else:
        asked = [enveloped(1, "server/discover", version), enveloped(2, "tools/list", version)]
        meta = json.loads(asked[0])["params"]["_meta"]
    first = []
    for line in asked:
        server.send(line)
        first.append(result_of(server.reply_line(json.loads(line)["id"])))
    server.loaded(10, meta)
    again = []
    for line in asked:
        message = json.loads(line)
        message["id"] += 10
        server.send(message)
        again.append(result_of(server.reply_line(message["id"])))
    return list(zip(first, again, strict=True))
