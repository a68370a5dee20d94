"""What Boris accepts as one JSON-RPC message, on STDIO and HTTP alike, and the JSON-RPC
error replies both transports send.

A client that sends something the MCP SDK cannot use must get an answer, or it waits
forever. Both transports hand every incoming line or body to :func:`read_message`, which
parses it once and returns the message or the JSON-RPC error that answers it instead:

- more values than any message needs (boris.transport.prescan.MAX_VALUES, counted
  before it is parsed): ``-32600`` with its id, as far as its ends show it;
- not JSON (or not UTF-8, or nested deeper than the parser's limit): ``-32700``;
- a batch (a JSON array): ``-32600``; MCP sends one message at a time;
- a request whose ``id`` is neither a string nor an integer: ``-32600`` with id null
  (the SDK would take it for a notification and never answer);
- a request whose ``id`` is a string holding a lone surrogate (valid JSON, but no reply
  naming it could be encoded): ``-32600`` with id null;
- a lone surrogate in a request's or notification's ``method`` (``-32600``) or
  ``params`` (``-32602``, naming where: ``params.name``, ``params._meta.progressToken``)
  other than a tool call's arguments, with the request's id: the MCP SDK's parser,
  which reads an HTTP body again, refuses such a message whole and could only answer
  it without an id; and a progress token that cannot be written back, or a tool name
  that names nothing, could not be served anyway;
- anything else that is not a request, notification or response: ``-32600``.

A lone surrogate in a tool call's arguments is valid JSON and is kept: the edge
(boris.edge) refuses the argument that holds one, naming it.

A message may be at most :func:`~boris.transport.prescan.max_message_size` bytes: enough
for a file of ``--max-file-size`` bytes of text however a client escapes it, plus the
envelope.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pydantic_core
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from boris.text import LONE_SURROGATE, has_lone_surrogate
from boris.transport import prescan
from boris.transport.prescan import ENVELOPE, ESCAPING, MIB
from boris.transport.prescan import max_message_size as max_message_size  # the transports' limit


def error_reply(
    code: int, message: str, request_id: int | str | None = None, data: Any = None
) -> JSONRPCError:
    """A JSON-RPC error reply: every one that Boris itself sends is made here."""
    extra = {} if data is None else {"data": data}
    error = ErrorData(code=code, message=message, **extra)
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def encode(message: JSONRPCMessage) -> bytes:
    """``message`` as the JSON text of one line or body. PydanticSerializationError if
    it holds what JSON cannot carry (a lone surrogate)."""
    return jsonrpc_message_adapter.dump_json(message, by_alias=True, exclude_unset=True)


@dataclass(frozen=True)
class Refusal:
    """What answers a line or body that is not a message the server can take."""

    reply: JSONRPCError


def too_large(limit: int, request_id: int | str | None) -> Refusal:
    """The refusal of a message longer than ``limit`` bytes, whose start or end showed
    ``request_id`` (boris.transport.prescan)."""
    return _refusal(
        INVALID_REQUEST,
        f"Invalid Request: message larger than {limit} bytes "
        f"(the limit is {ESCAPING} × --max-file-size + {ENVELOPE // MIB} MiB)",
        request_id,
    )


def _refusal(code: int, message: str, request_id: int | str | None = None) -> Refusal:
    return Refusal(error_reply(code, message, request_id))


# pydantic's parser refuses an escaped lone surrogate ("\ud800"), which is valid JSON;
# only then is the line read again by the standard library's, which keeps it, so that a
# tool call can be answered by naming the argument instead of refusing the whole line.
# That parser reads deeper nesting than pydantic's (as deep as the interpreter's stack
# allows, which whatever walks the value next would then run out of), so the line is
# first given to pydantic's again with each such escape written as another of the same
# length: it is refused as it would be without its surrogates, with the same message.
# (Only a line holding such an escape is read more than once.)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPES = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _stand_in(escape: re.Match[bytes]) -> bytes:
    return b"\\u0030"


def parse_json(data: bytes | bytearray) -> Any:
    """The JSON value of ``data`` (UTF-8); ValueError if it is not JSON."""
    return _parse_json(data)[0]


def _parse_json(data: bytes | bytearray) -> tuple[Any, bool]:
    """The JSON value of ``data`` and whether it may hold a lone surrogate."""
    try:
        return pydantic_core.from_json(data), False
    except ValueError:
        if not _SURROGATE_ESCAPE.search(data):
            raise
    pydantic_core.from_json(_SURROGATE_ESCAPES.sub(_stand_in, data))
    try:
        return json.loads(data.decode("utf-8")), True
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _surrogate_in(value: Any, path: str) -> str | None:
    """Where in ``value`` (named ``path``) a string or key holds a lone surrogate."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if has_lone_surrogate(item):
                return where
        elif isinstance(item, dict):
            for key, inner in item.items():
                if has_lone_surrogate(key):
                    return f"a key of {where}"
                stack.append((inner, f"{where}.{key}"))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}.{index}") for index, inner in enumerate(item))
    return None


def _surrogate_refusal(value: dict[str, Any]) -> Refusal | None:
    """The refusal of a request or notification holding a lone surrogate outside a
    tool call's arguments (see the module docstring); None for any other message."""
    request_id = value.get("id")
    method = value.get("method")
    if _surrogate_in(method, "method") is not None:
        return _refusal(INVALID_REQUEST, f"Invalid Request: method {LONE_SURROGATE}", request_id)
    params = value.get("params")
    if method == "tools/call" and isinstance(params, dict) and "arguments" in params:
        params = {key: inner for key, inner in params.items() if key != "arguments"}
    where = _surrogate_in(params, "params")
    if where is None:
        return None
    return _refusal(INVALID_PARAMS, f"Invalid params: {where} {LONE_SURROGATE}", request_id)


def read_message(data: bytes | bytearray) -> JSONRPCMessage | Refusal:
    """The message in ``data`` (one line or request body), or the error that answers it."""
    if len(data) > prescan.MAX_VALUES and prescan.too_many_values(data):
        return _refusal(
            INVALID_REQUEST,
            f"Invalid Request: message holds more than {prescan.MAX_VALUES} values",
            prescan.request_id(bytes(data[: prescan.HEAD]), bytes(data[-prescan.TAIL :])),
        )
    try:
        value, maybe_surrogates = _parse_json(data)
    except ValueError as exc:
        return _refusal(PARSE_ERROR, f"Parse error: {exc}")
    if isinstance(value, list):
        return _refusal(INVALID_REQUEST, "Invalid Request: batches are not supported")
    if isinstance(value, dict) and "method" in value and "id" in value:
        request_id = value["id"]
        if type(request_id) is not int and not isinstance(request_id, str):
            return _refusal(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if not prescan.echoable(request_id):
            return _refusal(INVALID_REQUEST, f"Invalid Request: id {LONE_SURROGATE}")
    if maybe_surrogates and isinstance(value, dict) and "method" in value:
        refusal = _surrogate_refusal(value)
        if refusal is not None:
            return refusal
    try:
        message: JSONRPCMessage = jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        request_id = value.get("id") if isinstance(value, dict) else None
        return _refusal(
            INVALID_REQUEST, "Invalid Request", request_id if prescan.echoable(request_id) else None
        )
    return message
