"""Messages holding a lone UTF-16 surrogate (in their id, their arguments, or elsewhere),
and what Boris answers: the same over STDIO (tests/transport/test_stdio.py) and HTTP
(tests/transport/test_http.py)."""

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


def _invalid_params(where: str) -> dict[str, Any]:
    return {"code": -32602, "message": f"Invalid params: {where} {LONE_SURROGATE}"}


#: Messages holding a lone surrogate outside a tool call's arguments, and the error that
#: answers each, with the request's id (7; null for a notification).
SURROGATE_ELSEWHERE: list[tuple[bytes, int | None, dict[str, Any]]] = [
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bash",'
        b'"arguments":{"command":"echo hi"},"_meta":{"note":"\\ud800"}}}',
        7,
        _invalid_params("params._meta.note"),
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ba\\udfffsh",'
        b'"arguments":{"command":"echo hi"}}}',
        7,
        _invalid_params("params.name"),
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bash",'
        b'"arguments":{"command":"echo hi"},"_meta":{"progressToken":"p\\ud83d"}}}',
        7,
        _invalid_params("params._meta.progressToken"),
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"\\udc80":1}}}',
        7,
        _invalid_params("a key of params._meta"),
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/\\ud800"}',
        7,
        {"code": -32600, "message": f"Invalid Request: method {LONE_SURROGATE}"},
    ),
    (
        b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
        b'"params":{"requestId":3,"reason":"\\ud800"}}',
        None,
        _invalid_params("params.reason"),
    ),
]
