"""The two paths a STDIO client's first messages can take, side by side in this process: the
app's server (as the STDIO transport runs it) and the early answers (boris.early), each
given the same lines and the same settings."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from boris.early import answers
from boris.early.generate import enveloped, initialize, notification, request, talk
from boris.early.responder import Responder
from boris.early.settings import EarlySettings, read_settings
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


async def app_replies(
    argv: Sequence[str], lines: Sequence[bytes], env: Mapping[str, str] | None = None
) -> list[bytes | None]:
    """What the app's STDIO server replies to each line on one connection."""
    with environment(env):
        app = build_app(["--transport", "stdio", *argv])
    return await talk(app, lines)
