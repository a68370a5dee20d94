"""What the transports learn of a message without parsing it (boris.transport.prescan):
the request id in its first or last bytes, and how many values it holds. Checked against
the standard library's parser on generated messages."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from boris.transport.prescan import (
    HEAD,
    MAX_VALUES,
    TAIL,
    request_id,
    too_many_values,
    value_count,
)

#: Text full of what JSON escapes or treats as structure.
TRICKY_TEXT = st.text(st.sampled_from(list('ab,[]{}:"\\\n\t é\u2028\U0001f600')), max_size=30)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TRICKY_TEXT,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(TRICKY_TEXT, children, max_size=5)
    ),
    max_leaves=40,
)
IDS = st.integers(min_value=-(2**70), max_value=2**70) | TRICKY_TEXT


def ends(data: bytes) -> tuple[bytes, bytes]:
    return data[:HEAD], data[-TAIL:]


def dumped(message: dict[str, Any], ascii_only: bool, compact: bool) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(message, ensure_ascii=ascii_only, separators=separators).encode()


@given(IDS, JSON_VALUES, st.booleans(), st.booleans(), st.integers(0, 3 * HEAD))
def test_the_id_is_found_where_clients_put_it(
    request: int | str, params: Any, ascii_only: bool, compact: bool, padding: int
) -> None:
    # The Python SDK writes the id second, the TypeScript SDK last; params of any size
    # in between.
    params = {"x": params, "pad": "p" * padding}
    python = {"jsonrpc": "2.0", "id": request, "method": "tools/call", "params": params}
    typescript = {"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": request}
    for message in (python, typescript):
        assert request_id(*ends(dumped(message, ascii_only, compact))) == request


@given(st.dictionaries(TRICKY_TEXT | st.just("id"), JSON_VALUES, max_size=6), st.booleans())
def test_an_id_found_is_always_the_messages_own(message: dict[str, Any], ascii_only: bool) -> None:
    # Whatever the message, the id found is its top-level one (or none at all): never an
    # "id" nested in it or written inside a string.
    found = request_id(*ends(dumped(message, ascii_only, compact=False)))
    if found is not None:
        assert "id" in message
        assert found == message["id"]
        assert type(found) is type(message["id"])


def test_ids_no_reply_can_carry_are_not_found() -> None:
    for token in (b'"\\ud800"', b"1.5", b"true", b"null", b"1e3"):
        head = b'{"jsonrpc": "2.0", "id": ' + token + b', "method": "x", "params": {'
        tail = b'}, "jsonrpc": "2.0", "id": ' + token + b"}"
        assert request_id(head, b"") is None
        assert request_id(b"", tail) is None


def test_an_escaped_quote_is_not_the_start_of_a_key() -> None:
    # The last string in this tail is a key ending in an escaped quote: `say "id`.
    assert request_id(b"", b'{"jsonrpc": "2.0", "say \\"id": 5}') is None
    assert request_id(b"", b'{"id": 4, "x": "id", "y": "\\"id"}') == 4


def structure(value: Any) -> int:
    """The count of commas and opening brackets JSON text of ``value`` has."""
    if isinstance(value, list):
        return max(1, len(value)) + sum(map(structure, value))
    if isinstance(value, dict):
        return max(1, len(value)) + sum(map(structure, value.values()))
    return 0


@given(JSON_VALUES, st.booleans(), st.booleans())
def test_values_are_counted_outside_strings_only(
    value: Any, ascii_only: bool, compact: bool
) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    data = json.dumps(value, ensure_ascii=ascii_only, separators=separators).encode()
    assert value_count(data) == structure(value)


def test_too_many_values() -> None:
    assert not too_many_values(b"[" + b"0," * (MAX_VALUES - 1) + b"0]")
    assert too_many_values(b"[" + b"0," * MAX_VALUES + b"0]")
    # Commas inside a string are text.
    assert not too_many_values(b'["' + b"," * (10 * MAX_VALUES) + b'"]')
    assert not too_many_values(b'["' + b'\\",' * (10 * MAX_VALUES) + b'"]')
    # So many strings hold as many values.
    assert too_many_values(b"[" + b'"",' * (2 * MAX_VALUES) + b'""]')
