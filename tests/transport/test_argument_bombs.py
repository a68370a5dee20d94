"""Messages that hold millions of values (README "Limits and bad input").

A 30 MB message (within the size limit) can hold ten million tiny values: an array of
zeros or of empty objects in an argument no tool takes, or a million fields in an object
argument. Parsing it alone would make a Python object of each (0.8 GB and seconds with
the interpreter's lock held for ``[{},{},…]``); walking each once more, a path for each,
cost 80× the message and stalled every session for seconds. Such a message is refused
before it is parsed, with its own id; below that count, arguments a tool cannot take
are refused by their name, before anything walks them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import RawSession, http_request, http_server, json_body, raw_stdio
from tests.support.files import memory_kib, peak_start

MB = 1000 * 1000
#: Growth of the server's peak memory allowed per byte of the message (the message and
#: a copy or two of it; parsing it would take 6 to 26 times its size).
GROWTH = 4
#: Longest wait of another session's glob while the message is handled: far above what it
#: takes (well under a second on a 2-core machine), far below what walking each value
#: took before (9 s on the same machine).
OTHER_SESSION = 5.0
TOO_MANY = {"code": -32600, "message": "Invalid Request: message holds more than 100000 values"}


def call(request_id: int, tool: str, arguments: bytes) -> bytes:
    head = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call",' % request_id
    return head + b'"params":{"name":"%s","arguments":%s}}' % (tool.encode(), arguments)


def junk_call(request_id: int, size: int, item: bytes = b"0") -> bytes:
    """A view call with ``"junk": [item,item,…]``: about ``size`` bytes in all."""
    count = size // (len(item) + 1)
    return call(request_id, "view", b'{"path":"x","junk":[' + b",".join([item] * count) + b"]}")


def wide_edit_call(request_id: int, size: int) -> bytes:
    """A multi_edit call whose one edit has a field for every ``"fN":0`` that fits."""
    fields: list[bytes] = []
    length = 0
    while length < size:
        fields.append(b'"f%d":0' % len(fields))
        length += len(fields[-1]) + 1
    edit = b'{"old_str":"a",' + b",".join(fields) + b"}"
    return call(request_id, "multi_edit", b'{"path":"x","edits":[' + edit + b"]}")


def refused(request_id: int, text: str) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {
            "content": [{"type": "text", "text": f"[INVALID_INPUT] {text}"}],
            "isError": True,
        },
    }


@pytest.mark.slow
def test_a_junk_array_over_http_costs_little_and_holds_no_one_up(tmp_path: Path) -> None:
    body = junk_call(5, 30 * MB)
    (tmp_path / "a.txt").write_text("a\n")
    with http_server(workdir=tmp_path) as server:
        sender, other = RawSession(server.url), RawSession(server.url)
        other.text("glob", pattern="*")  # warm up
        before = peak_start(server.proc.pid)
        answer: list[tuple[int, bytes]] = []

        def send() -> None:
            status, _, reply = http_request("POST", server.url, sender.headers, body)
            answer.append((status, reply))

        thread = threading.Thread(target=send)
        thread.start()
        slowest = 0.0
        while thread.is_alive():
            start = time.monotonic()
            assert other.text("glob", pattern="*") == "a.txt"
            slowest = max(slowest, time.monotonic() - start)
        thread.join()
        growth = (memory_kib(server.proc.pid, "VmHWM") - before) * 1024
        assert sender.text("glob", pattern="*") == "a.txt"  # its session goes on
    [(status, reply)] = answer
    assert status == 400
    assert json.loads(reply) == {"jsonrpc": "2.0", "id": 5, "error": TOO_MANY}
    assert slowest < OTHER_SESSION, slowest
    assert growth < GROWTH * len(body), growth


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    [
        lambda request_id: junk_call(request_id, 30 * MB),
        lambda request_id: junk_call(request_id, 30 * MB, b"{}"),
        lambda request_id: junk_call(request_id, 30 * MB, b'"\\ud800"'),
        lambda request_id: wide_edit_call(request_id, 30 * MB),
    ],
    ids=["zeros", "empty-objects", "surrogates", "wide-object"],
)
def test_millions_of_values_over_stdio_are_refused_before_they_are_parsed(
    tmp_path: Path, message: Callable[[int], bytes]
) -> None:
    line = message(7)
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        server.call(2, "glob", {"pattern": "*"})  # warm up
        before = peak_start(server.proc.pid)
        server.send(line)
        reply = server.reply(7, timeout=120)
        growth = (memory_kib(server.proc.pid, "VmHWM") - before) * 1024
        assert server.call(8, "glob", {"pattern": "*"})["isError"] is False
    assert reply == {"jsonrpc": "2.0", "id": 7, "error": TOO_MANY}
    assert growth < GROWTH * len(line), growth


def test_below_that_count_arguments_are_refused_by_their_names(tmp_path: Path) -> None:
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        server.send(junk_call(3, 120_000, b"[]"))  # 40,000 empty lists
        assert server.reply(3) == refused(3, "junk: unknown argument")
        line = wide_edit_call(4, 500_000)
        server.send(line)
        text = server.reply(4)["result"]["content"][0]["text"]
        assert text.startswith("[INVALID_INPUT] edits.0.f0: Extra inputs are not permitted; ")
        fields = line.count(b'"f')
        assert text.endswith(f"; and {fields - 5} more extra inputs")


def test_a_surrogate_in_an_unknown_argument_over_http(tmp_path: Path) -> None:
    # The SDK's parser would refuse the whole body: the call is answered before it.
    with http_server(workdir=tmp_path) as server:
        session = RawSession(server.url)
        for arguments, text in [
            ({"path": "x", "\ud800": 1}, "\ufffd: unknown argument"),
            ({"path": "x", "junk": ["\ud800"]}, "junk: unknown argument"),
        ]:
            message = {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {"name": "view", "arguments": arguments},
            }
            status, _, reply = session.post(json.dumps(message).encode())
            assert (status, json_body(reply)) == (200, refused(9, text))
        message = {
            "jsonrpc": "2.0",
            "id": 10,
            "method": "tools/call",
            "params": {"name": "nope", "arguments": {"x": "\ud800"}},
        }
        status, _, reply = session.post(json.dumps(message).encode())
        assert status == 200
        assert json_body(reply)["result"]["content"][0]["text"].startswith(
            "[INVALID_INPUT] unknown tool 'nope'; available: bash, "
        )
