"""What can be learnt of a message without parsing it: whether it is longer than the limit
(:func:`max_message_size`), the id of the request it carries, from its first or last
bytes, and whether it holds more values than any message needs.

A message refused whole (longer than the limit, or holding too many values) is still
answered with its own id, so that the client does not wait on it. Clients write the id
either near the start (the Python SDK: ``{"jsonrpc": "2.0", "id": 7, "method": …``) or at
the very end (the TypeScript SDK: ``…, "jsonrpc": "2.0", "id": 7}``): the top-level
members whose values are plain (a string, a number, true, false, null) are read from the
start until the first that is not, and from the end back to the last that is not. Only
:data:`HEAD` bytes of the start and :data:`TAIL` bytes of the end are ever needed.

Parsing JSON makes a Python object of every value: 30 MB of ``[{},{},…]`` would take
0.8 GB and seconds with the interpreter's lock held, whoever parses it. No MCP message
needs more than a few hundred values; :func:`too_many_values` counts them on the bytes
(a few passes of ``bytes.count``) so that such a message is refused before it is parsed.
"""

from __future__ import annotations

import json
import re

from boris.text import has_lone_surrogate

#: JSON escapes text without control characters to at most 3 bytes per byte of UTF-8:
#: a 2-byte character written as ``\\uXXXX`` takes 6, a 4-byte one 12 (quotes,
#: backslashes, tabs and newlines take 2; encoders that keep UTF-8 as is add nothing).
ESCAPING = 3
MIB = 1024 * 1024
#: Room for everything in a message besides the file content: envelope, path, other
#: arguments.
ENVELOPE = MIB


def max_message_size(max_file_size: int) -> int:
    """The longest message (line or request body) accepted, in bytes."""
    return ESCAPING * max_file_size + ENVELOPE


#: Bytes of a message's start, and of its end, kept to find its id.
HEAD = 4096
TAIL = 1024

#: The most values one message may hold, counted as the commas, ``[`` and ``{`` outside
#: strings (one per value or member, two for an empty list or object in a list): a tool
#: call holds a few hundred at most.
MAX_VALUES = 100_000

_WS = rb"[ \t\r\n]*"
_STRING = rb'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'
_SCALAR = (
    rb"(?:" + _STRING + rb"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    rb"|true|false|null)"
)
_OPEN = re.compile(_WS + rb"\{")
#: One top-level member with a plain value, and what follows it.
_MEMBER = re.compile(
    _WS + rb"(" + _STRING + rb")" + _WS + rb":" + _WS + rb"(" + _SCALAR + rb")" + _WS + rb"([,}])"
)
#: From an ``"id"`` key to the end: its plain value, plain members after it, the last brace.
_LAST = re.compile(
    rb'"id"' + _WS + rb":" + _WS + rb"(" + _SCALAR + rb")"
    rb"(?:" + _WS + rb"," + _WS + _STRING + _WS + rb":" + _WS + _SCALAR + rb")*"
    + _WS + rb"\}" + _WS + rb"\Z"
)  # fmt: skip


def request_id(head: bytes, tail: bytes) -> int | str | None:
    """The id of the request whose message starts with ``head`` and ends with ``tail``
    (None if neither shows one that a reply can carry)."""
    found = id_from_start(head)
    return found if found is not None else id_from_end(tail)


def id_from_start(head: bytes) -> int | str | None:
    """The id a message starting with ``head`` shows in its first members."""
    opening = _OPEN.match(head)
    if opening is None:
        return None
    position = opening.end()
    while member := _MEMBER.match(head, position):
        if json.loads(member[1]) == "id":
            return _usable(member[2])
        if member[3] == b"}":
            return None
        position = member.end()
    return None


def id_from_end(tail: bytes) -> int | str | None:
    """The id a message ending with ``tail`` shows in its last members."""
    position = len(tail)
    while (position := tail.rfind(b'"id"', 0, position)) >= 0:
        backslashes = len(tail[:position]) - len(tail[:position].rstrip(b"\\"))
        if backslashes % 2 == 0:  # not an escaped quote inside a string
            last = _LAST.match(tail, position)
            if last is not None:
                return _usable(last[1])
    return None


def _usable(token: bytes) -> int | str | None:
    """The id ``token`` (a plain JSON value) stands for, if a reply can carry it."""
    value = json.loads(token)
    return value if echoable(value) else None


def echoable(request_id: object) -> bool:
    """Whether a reply can carry ``request_id``: an integer, or a string that is Unicode
    text (JSON can escape a lone surrogate, which no reply can be encoded with)."""
    if type(request_id) is int:
        return True
    return isinstance(request_id, str) and not has_lone_surrogate(request_id)


def too_many_values(data: bytes | bytearray) -> bool:
    """Whether the JSON text ``data`` holds more than :data:`MAX_VALUES` values (see
    :func:`value_count`), in linear time: the count of commas and brackets everywhere,
    strings included, is cheap and usually enough; only a message above the limit by
    that count is counted exactly."""
    if _structure(data) <= MAX_VALUES:
        return False
    plain = _unescaped(data)
    if plain.count(b'"') // 2 > 2 * MAX_VALUES:
        return True  # so many strings: as many keys and values at least
    return _structure_outside_strings(plain) > MAX_VALUES


def value_count(data: bytes | bytearray) -> int:
    """The commas, ``[`` and ``{`` of the JSON text ``data`` outside its strings: one
    per value in a list, one per member of an object, one per list or object (two for
    an empty list or object in a list)."""
    return _structure_outside_strings(_unescaped(data))


def _unescaped(data: bytes | bytearray) -> bytes | bytearray:
    """``data`` without its escaped backslashes and quotes: every quote left opens or
    closes a string."""
    return data.replace(b"\\\\", b"").replace(b'\\"', b"")


def _structure_outside_strings(plain: bytes | bytearray) -> int:
    return sum(map(_structure, plain.split(b'"')[::2]))


def _structure(data: bytes | bytearray) -> int:
    return data.count(b",") + data.count(b"[") + data.count(b"{")
