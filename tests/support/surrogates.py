"""Messages whose id or arguments hold a lone UTF-16 surrogate, and what Boris answers:
the same over STDIO (tests/transport/test_stdio.py) and HTTP (tests/transport/test_http.py)."""

from __future__ import annotations

from typing import Any

#: How Boris names a string that is not valid Unicode text.
LONE_SURROGATE = "contains a lone UTF-16 surrogate, which is not valid Unicode text"

#: Requests whose id is not Unicode text: each answered as an invalid request, id null.
SURROGATE_IDS = [
    b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
    b'{"jsonrpc":"2.0","id":"a\\udfff","method":"ping"}',
    b'{"jsonrpc":"2.0","id":"\\ud800","method":"no/such/method"}',
    b'{"jsonrpc":"2.0","id":"\\udc80","method":"tools/call",'
    b'"params":{"name":"bash","arguments":{"command":"echo hi"}}}',
]
SURROGATE_ID: dict[str, Any] = {
    "code": -32600,
    "message": f"Invalid Request: id {LONE_SURROGATE}",
}
