"""Which messages are answered while the app loads, and what the server is handed after.

:meth:`Responder.take` is given each line the client sends, in order, and answers it
when it is one of these, well formed, as the SDK's server would take it (its checks are
followed step by step, boris.early.schema standing in for its models):

- on a connection of the handshake protocol (the first request is ``initialize``, or
  carries no 2026-07-28 envelope): ``initialize``, once, at any protocol version (the
  answer names the version the SDK negotiates); ``notifications/initialized`` after
  it; ``tools/list`` once initialized;
- on a connection of the 2026-07-28 protocol (the first request carries the envelope
  in ``_meta``): ``server/discover`` and ``tools/list`` at a version the file has.

The first line it does not answer, and every line after it, is kept for the server, so
that no reply comes in another order than the server would send it. When the app is
ready the server reads, before the pipe (:meth:`Responder.handover`): the messages
answered that changed the connection's state (``initialize`` and
``notifications/initialized``, or the first request of a 2026-07-28 connection, which
decides the protocol), under request ids of their own, then the lines kept. Its replies
to the former are not sent again; each is compared with the answer given, and a
difference is logged as an error (tests/early/ check that none can arise).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from boris.early import answers as answers_module
from boris.early.answers import Answers
from boris.early.schema import conforms
from boris.text import has_lone_surrogate
from boris.transport.lines import TooLong

if TYPE_CHECKING:
    from mcp_types import JSONRPCMessage

#: Longer lines are left to the server: no request answered here comes near it, and
#: below it no line can hold more values than the server's check allows
#: (boris.transport.prescan.MAX_VALUES).
LONGEST = 1 << 16
#: Deeper nesting is left to the server, whose JSON parser has a limit of its own; the
#: checks here that recurse (boris.early.schema) see nothing deeper.
DEEPEST = 32
#: A request id the server encodes as this file does.
_LARGEST_ID = 1 << 53
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

LEGACY = "handshake"
MODERN = "2026-07-28"


class _Refused(Exception):
    """The message is left to the server."""


class Responder:
    """Answers what it can of a connection's first messages (see the module)."""

    def __init__(self, answers: Answers, settings: Any) -> None:
        self.answers = answers
        self.settings = settings
        #: The protocol the first request chose, once one was answered.
        self.era: str | None = None
        #: The connection's protocol version (the handshake's until initialize negotiates).
        self.version: str = answers.data["handshake"]
        self.initialized = False
        self.seen_initialize = False
        #: What the server reads first: replays, then the lines kept.
        self.kept: list[bytes | TooLong] = []
        self.keeping = False
        #: Each replayed request's own id → (the client's id, the answer given).
        self.replayed: dict[str, tuple[int | str, bytes]] = {}
        #: What was answered, by method, for the log.
        self.answered: list[str] = []

    def take(self, line: bytes | TooLong) -> bytes | None:
        """The reply to ``line``, if it is answered here; else None (and it is kept for
        the server, or, if it is blank or a notification answered here, dropped)."""
        if not self.keeping:
            if isinstance(line, bytes) and (not line or line.isspace()):
                return None  # the server ignores blank lines too
            try:
                return self._answer(line)
            except _Refused:
                self.keeping = True
        self.kept.append(line)
        return None

    def handover(self) -> Handover:
        return Handover(self.kept, self.replayed)

    # --- one message -------------------------------------------------------------------

    def _answer(self, line: bytes | TooLong) -> bytes | None:
        message = _message(line)
        method = message["method"]
        params = message.get("params")
        if "id" not in message:
            self._notified(method, message, line)
            return None
        era = self.era or _era_of(method, params, self.answers.envelope["version"])
        answer = self._legacy if era == LEGACY else self._modern
        result = answer(method, message)
        try:
            reply = answers_module.reply(message["id"], result)
        except UnicodeEncodeError:
            raise _Refused from None
        first = self.era is None
        self.era = era
        if method == "initialize":
            self.seen_initialize = True
            self.initialized = True
            self.version = result["protocolVersion"]
        if method == "initialize" or first:
            self._replay(message, reply)
        self.answered.append(method)
        return reply

    def _legacy(self, method: str, message: dict[str, Any]) -> Any:
        params: dict[str, Any] = message.get("params") or {}
        if method == "initialize":
            if self.seen_initialize:
                raise _Refused
            self._check(method, self.version, message)
            return self.answers.initialize(params["protocolVersion"], self.settings)
        if method == "tools/list" and self.initialized:
            if _envelope_of(params, self.answers.envelope["version"]) is not None:
                raise _Refused  # the SDK refuses it on this connection
            if params and "cursor" in params:
                raise _Refused  # pages are the app's
            self._check(method, self.version, message)
            return _found(self.answers.tools_list(self.version, self.settings))
        raise _Refused

    def _modern(self, method: str, message: dict[str, Any]) -> Any:
        if method not in ("server/discover", "tools/list"):
            raise _Refused
        envelope = _envelope_of(message.get("params"), self.answers.envelope["version"])
        if envelope is None or self.answers.envelope["capabilities"] not in envelope:
            raise _Refused
        version = envelope[self.answers.envelope["version"]]
        if not isinstance(version, str):
            raise _Refused
        self._check(method, version, message)
        params = message.get("params") or {}
        if method == "server/discover":
            return _found(self.answers.discover(version, self.settings))
        if "cursor" in params:
            raise _Refused
        return _found(self.answers.tools_list(version, self.settings))

    def _notified(self, method: str, message: dict[str, Any], line: bytes | TooLong) -> None:
        """A notification: only ``notifications/initialized`` after initialize is taken."""
        if method != "notifications/initialized" or not self.seen_initialize:
            raise _Refused
        self._check(method, self.version, message)
        self.initialized = True
        assert isinstance(line, bytes)
        self.kept.append(line)
        self.answered.append(method)

    def _check(self, method: str, version: str, message: dict[str, Any]) -> None:
        """Refuse ``message`` unless it conforms to the SDK's schemas for ``method`` at
        ``version``: the message itself, then its parameters."""
        schemas = self.answers.schemas_of(method, version)
        if schemas is None:
            raise _Refused
        wire, *params_schemas = schemas
        # As the SDK checks it: the message, with a stand-in id for a request.
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if "id" in message:
            body = {"jsonrpc": "2.0", "id": 0, "method": method}
        if message.get("params") is not None:
            body["params"] = message["params"]
        if not conforms(body, wire):
            raise _Refused
        params = message.get("params") or {}
        if not all(conforms(params, schema) for schema in params_schemas):
            raise _Refused

    def _replay(self, message: dict[str, Any], reply: bytes) -> None:
        """Keep ``message`` for the server under an id of its own, with the answer given."""
        own = f"boris-early-{os.urandom(8).hex()}"
        self.replayed[own] = (message["id"], reply)
        self.kept.append(json.dumps({**message, "id": own}).encode())


class Handover:
    """What the server takes over (boris.transport.stdio.HandedOver)."""

    def __init__(
        self, items: Sequence[bytes | TooLong], replayed: dict[str, tuple[int | str, bytes]]
    ) -> None:
        self.items = items
        self._replayed = replayed

    def answered(self, message: JSONRPCMessage) -> bool:
        """Whether ``message`` answers a replayed request: not sent again, and compared
        with the answer given."""
        request_id = getattr(message, "id", None)
        if not isinstance(request_id, str) or request_id not in self._replayed:
            return False
        import logging  # loaded by then, as the rest: not before the early answers

        from boris.transport.jsonrpc import encode

        client_id, given = self._replayed.pop(request_id)
        theirs = encode(message.model_copy(update={"id": client_id}))
        if theirs != given:
            logging.getLogger("boris.early").error(
                "the answer given before the app was ready differs from the app's: %s != %s",
                given[:2000],
                theirs[:2000],
            )
        return True


def _message(line: bytes | TooLong) -> dict[str, Any]:
    """``line`` as a JSON-RPC request or notification the server would read as this one
    does; _Refused for anything else, or anything whose reading might differ (a lone
    surrogate, which only an escape can write in UTF-8, anywhere in it)."""
    if isinstance(line, TooLong) or len(line) > LONGEST or _SURROGATE_ESCAPE.search(line):
        raise _Refused
    try:
        text = line.decode("utf-8")
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique)
    except (ValueError, RecursionError):
        raise _Refused from None
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0" or _deeper(value, DEEPEST):
        raise _Refused
    if not isinstance(value.get("method"), str) or not value.keys() <= {
        "jsonrpc",
        "id",
        "method",
        "params",
    }:
        raise _Refused
    if "params" in value and not isinstance(value["params"], dict):
        raise _Refused
    if "id" in value:
        request_id = value["id"]
        if type(request_id) is int:
            if abs(request_id) >= _LARGEST_ID:
                raise _Refused
        elif not isinstance(request_id, str) or has_lone_surrogate(request_id):
            raise _Refused
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity: not JSON


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a member named twice")
    return found


def _deeper(value: Any, most: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``most`` levels deep (the
    value itself, if one, being the first). Walked with a stack of its own: the
    interpreter's would run out on a line nested a few hundred deep, which the JSON
    parser still reads (RecursionError, outside any ``try``)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            inner: Any = item.values()
        elif isinstance(item, list):
            inner = item
        else:
            continue
        if level > most:
            return True
        stack.extend((child, level + 1) for child in inner)
    return False


def _envelope_of(params: Any, version_key: str) -> dict[str, Any] | None:
    """A request's 2026-07-28 envelope: its ``_meta`` if that carries a protocol version."""
    if not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    return meta if isinstance(meta, dict) and version_key in meta else None


def _era_of(method: str, params: Any, version_key: str) -> str:
    """The protocol a connection's first request chooses, as the SDK's server decides it."""
    if method != "initialize" and _envelope_of(params, version_key) is not None:
        return MODERN
    return LEGACY


def _found(result: Any) -> Any:
    if result is None:
        raise _Refused  # a version the file has no answer for
    return result
