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
- anything else that is not a request, notification or response: ``-32600``.

A lone surrogate elsewhere in a message is valid JSON and is kept: the edge
(boris.edge) refuses a tool call's argument that holds one, naming it.

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
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from boris.text import LONE_SURROGATE
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
# (Only such a line is read twice.)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def parse_json(data: bytes | bytearray) -> Any:
    """The JSON value of ``data`` (UTF-8); ValueError if it is not JSON."""
    try:
        return pydantic_core.from_json(data)
    except ValueError:
        if not _SURROGATE_ESCAPE.search(data):
            raise
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("nested too deeply") from None


def read_message(data: bytes | bytearray) -> JSONRPCMessage | Refusal:
    """The message in ``data`` (one line or request body), or the error that answers it."""
    if len(data) > prescan.MAX_VALUES and prescan.too_many_values(data):
        return _refusal(
            INVALID_REQUEST,
            f"Invalid Request: message holds more than {prescan.MAX_VALUES} values",
            prescan.request_id(bytes(data[: prescan.HEAD]), bytes(data[-prescan.TAIL :])),
        )
    try:
        value = parse_json(data)
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
    try:
        message: JSONRPCMessage = jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        request_id = value.get("id") if isinstance(value, dict) else None
        return _refusal(
            INVALID_REQUEST, "Invalid Request", request_id if prescan.echoable(request_id) else None
        )
    return message
