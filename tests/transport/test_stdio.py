"""The STDIO edge in raw bytes: message size, malformed JSON-RPC, text that cannot be sent.

Each test speaks to a real server on its pipes and checks the exact line it writes back,
then that the same session still serves (the server never dies from what a client sends).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import MCPError
from mcp_types import ErrorData, JSONRPCNotification, JSONRPCResponse

from boris.transport import stdio
from tests.support import DEFAULT_TOOLS, INITIALIZE, RawStdio, raw_stdio, sdk_stdio_client
from tests.support.files import memory_kib, peak_start
from tests.support.surrogates import (
    LONE_SURROGATE,
    SURROGATE_ELSEWHERE,
    SURROGATE_ID,
    SURROGATE_IDS,
)

MB = 1024 * 1024
#: README: a message may be 3 × --max-file-size + 1 MiB long (the line, without its newline).
SMALL_FILE_LIMIT = 1024  # --max-file-size 1KB
SMALL_MESSAGE_LIMIT = 3 * SMALL_FILE_LIMIT + MB

TOO_LARGE = {
    "code": -32600,
    "message": (
        f"Invalid Request: message larger than {SMALL_MESSAGE_LIMIT} bytes "
        "(the limit is 3 × --max-file-size + 1 MiB)"
    ),
}
BAD_ID = {"code": -32600, "message": "Invalid Request: id must be a string or an integer"}


def error(body: dict[str, Any], request_id: int | str | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def tools_list(server: RawStdio, request_id: int) -> int:
    """Ask for the tool list; the number of tools proves the session still serves."""
    server.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
    return len(server.reply(request_id)["result"]["tools"])


def create_file_line(request_id: int, path: str, content: str, *, ascii_only: bool) -> bytes:
    params = {"name": "create_file", "arguments": {"path": path, "content": content}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(message, ensure_ascii=ascii_only).encode()


def padded(line: bytes, length: int) -> bytes:
    """A JSON message padded with spaces (insignificant in JSON) to exactly ``length`` bytes."""
    assert len(line) <= length
    return line[:-1] + b" " * (length - len(line)) + line[-1:]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawStdio]:
    """A server with --max-file-size 1KB, so its message limit is a little over 1 MiB."""
    with raw_stdio("--max-file-size", "1KB", workdir=tmp_path_factory.mktemp("small")) as server:
        server.initialize()
        yield server


# --- A: message size ---------------------------------------------------------------------


def test_a_line_at_the_limit_is_served(small: RawStdio) -> None:
    line = padded(
        create_file_line(10, "at-limit.txt", "x" * 10, ascii_only=True), SMALL_MESSAGE_LIMIT
    )
    small.send(line)
    assert small.reply(10)["result"]["content"][0]["text"].endswith("at-limit.txt (10 bytes)")


def test_a_longer_line_is_refused_and_the_server_keeps_serving(small: RawStdio) -> None:
    line = padded(create_file_line(11, "over.txt", "x", ascii_only=True), SMALL_MESSAGE_LIMIT + 1)
    small.send(line)
    assert small.receive() == error(TOO_LARGE, 11)
    assert small.silent()  # the refused line's request is not run
    assert tools_list(small, 12) == len(DEFAULT_TOOLS)


def typescript_order(request_id: int | str, content: str) -> bytes:
    """A create_file call as the TypeScript SDK writes it: the id last."""
    params = {"name": "create_file", "arguments": {"path": "ts.txt", "content": content}}
    message = {"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": request_id}
    return json.dumps(message).encode()


@pytest.mark.parametrize("request_id", [13, "ts-13", 0])
def test_a_longer_line_with_its_id_at_the_end_is_answered_with_that_id(
    small: RawStdio, request_id: int | str
) -> None:
    small.send(typescript_order(request_id, "x" * SMALL_MESSAGE_LIMIT))
    assert small.receive() == error(TOO_LARGE, request_id)
    assert tools_list(small, 14) == len(DEFAULT_TOOLS)


def test_a_longer_line_whose_end_never_comes_is_answered_at_the_end_of_input(
    tmp_path: Path,
) -> None:
    with raw_stdio("--max-file-size", "1KB", workdir=tmp_path) as server:
        server.initialize()
        server.stdin.write(typescript_order(15, "x" * SMALL_MESSAGE_LIMIT))
        server.stdin.close()
        assert server.receive() == error(TOO_LARGE, 15)
        assert server.proc.wait(timeout=30) == 0


@pytest.mark.anyio
async def test_the_official_client_gets_its_answer_to_a_message_too_large(tmp_path: Path) -> None:
    # Its request id is in the first bytes of the line: the call fails at once with the
    # error, instead of waiting for a reply that would never come.
    async with sdk_stdio_client("--max-file-size", "1KB", workdir=tmp_path) as sdk:
        start = time.monotonic()
        with pytest.raises(MCPError) as raised:
            await sdk.call_tool("create_file", {"path": "big.txt", "content": "x" * (2 * MB)})
        assert time.monotonic() - start < 30
        assert raised.value.error == ErrorData.model_validate(TOO_LARGE)
        assert not (tmp_path / "big.txt").exists()
        assert len((await sdk.list_tools()).tools) == len(DEFAULT_TOOLS)


def test_a_huge_line_is_discarded_in_bounded_memory(tmp_path: Path) -> None:
    # 64 MiB of garbage on one line: refused once, never buffered, and what follows it
    # on the next line is served. A server of its own, for a clean measure of its peak.
    with raw_stdio("--max-file-size", "1KB", workdir=tmp_path) as server:
        server.initialize()
        pid = server.proc.pid
        server.loaded(19)  # the app's memory is not the line's
        tools_list(server, 20)  # warm up
        before = peak_start(pid)
        chunk = b"[" * MB
        for _ in range(64):
            server.stdin.write(chunk)
        server.stdin.write(b"\n")
        server.stdin.flush()
        assert server.receive() == error(TOO_LARGE)
        assert tools_list(server, 21) == len(DEFAULT_TOOLS)
        growth = (memory_kib(pid, "VmHWM") - before) * 1024
    assert growth < 3 * SMALL_MESSAGE_LIMIT, growth


def test_ordinary_text_at_the_size_limit_fits_however_it_is_escaped(small: RawStdio) -> None:
    # 2-byte characters escaped as \\uXXXX (Python's json.dumps default) take 6 bytes
    # each on the wire: the worst case for text without control characters.
    content = "ж" * (SMALL_FILE_LIMIT // 2)
    assert len(content.encode()) == SMALL_FILE_LIMIT
    small.send(create_file_line(30, "cyrillic.txt", content, ascii_only=True))
    text = small.reply(30)["result"]["content"][0]["text"]
    assert text.endswith(f"cyrillic.txt ({SMALL_FILE_LIMIT} bytes)")


def test_create_file_at_the_default_limit_costs_at_most_four_times_its_size(
    tmp_path: Path,
) -> None:
    # 10 MB (the default --max-file-size) of ordinary text with quotes and tabs, which
    # JSON escapes: the server's peak memory grows by at most 4× the file's size.
    size = 10 * MB
    unit = 'line "quoted"\tand tabbed\n'
    content = (unit * (size // len(unit) + 1))[:size]
    line = create_file_line(3, "big.txt", content, ascii_only=True)
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        server.call(2, "create_file", {"path": "warm.txt", "content": "x" * 1000})
        before = peak_start(server.proc.pid)
        server.send(line)
        result = server.reply(3, timeout=120)["result"]
        peak = memory_kib(server.proc.pid, "VmHWM")
    assert result["content"][0]["text"] == f"Created {tmp_path / 'big.txt'} ({size} bytes)"
    assert (tmp_path / "big.txt").read_text() == content
    assert (peak - before) * 1024 <= 4 * size, (before, peak)


# --- C: malformed JSON-RPC ---------------------------------------------------------------


@pytest.mark.parametrize("bad_id", ["1.5", "[1]", "null", "true", "{}", "1e3", "1.0"])
def test_a_request_with_an_invalid_id_is_answered(small: RawStdio, bad_id: str) -> None:
    # JSON-RPC: an id is a string or an integer; a message with any other "id" is an
    # invalid request (answered with id null), not a notification to ignore.
    small.send(b'{"jsonrpc": "2.0", "id": ' + bad_id.encode() + b', "method": "tools/list"}')
    assert small.receive() == error(BAD_ID)
    assert tools_list(small, 40) == len(DEFAULT_TOOLS)


@pytest.mark.parametrize("line", SURROGATE_IDS)
def test_a_request_whose_id_is_not_unicode_is_answered_with_id_null(
    small: RawStdio, line: bytes
) -> None:
    # The reply cannot echo the id: it is refused as an invalid request with id null,
    # nothing runs, and the session goes on.
    small.send(line)
    assert small.receive() == error(SURROGATE_ID)
    assert small.silent()
    assert tools_list(small, 45) == len(DEFAULT_TOOLS)


@pytest.mark.parametrize(("line", "request_id", "answer"), SURROGATE_ELSEWHERE)
def test_a_lone_surrogate_outside_the_arguments_is_answered_with_the_id(
    small: RawStdio, line: bytes, request_id: int | None, answer: dict[str, Any]
) -> None:
    # As over HTTP (tests/transport/test_http.py): nothing runs, and the session goes on.
    small.send(line)
    assert small.receive() == error(answer, request_id)
    assert small.silent()
    assert tools_list(small, 46) == len(DEFAULT_TOOLS)


@pytest.mark.parametrize(
    ("tool", "arguments", "parameter"),
    [
        ("view", {"path": "\ud800"}, "path"),
        ("grep", {"pattern": "a\udfffb"}, "pattern"),
        ("bash", {"command": "echo \ud800"}, "command"),
        ("str_replace", {"path": "x.txt", "old_str": "\udc80", "new_str": "y"}, "old_str"),
        ("create_file", {"path": "x.txt", "content": "ok\ud83d"}, "content"),
        ("view", {"path": "x.txt", "view_range": ["\ud800", 2]}, "view_range.0"),
        ("notebook_edit", {"path": "x.ipynb", "cell": 1, "new_source": "\ud800"}, "new_source"),
        (
            "multi_edit",
            {"path": "x.txt", "edits": [{"old_str": "a"}, {"old_str": "b", "new_str": "\ud800"}]},
            "edits.1.new_str",
        ),
    ],
)
def test_a_lone_surrogate_in_an_argument_is_invalid_input(
    small: RawStdio, tool: str, arguments: dict[str, Any], parameter: str
) -> None:
    # "\\ud800" is valid JSON but not Unicode text: a tool result naming the argument,
    # nothing run, and the session goes on.
    small.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 50,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        ).encode()
    )
    assert small.reply(50)["result"] == {
        "content": [{"type": "text", "text": f"[INVALID_INPUT] {parameter}: {LONE_SURROGATE}"}],
        "isError": True,
    }
    assert tools_list(small, 51) == len(DEFAULT_TOOLS)


DEEP = b"[" * 50_000 + b"]" * 50_000


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (DEEP, "Parse error: recursion limit exceeded at line 1 column 202"),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"a": ' + DEEP + b"}}",
            "Parse error: recursion limit exceeded at line 1 column 268",
        ),
        # A lone surrogate makes the server read the line with a second JSON parser; the
        # line is refused as the first parser refuses it without the surrogate.
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"s": "\\ud800", "a": '
            + DEEP
            + b"}}",
            "Parse error: recursion limit exceeded at line 1 column 274",
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "x": "\xff\xfe"}',
            "Parse error: invalid unicode code point at line 1 column 59",
        ),
        (
            b"\xef\xbb\xbf" + b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
            "Parse error: expected value at line 1 column 1",
        ),
        (b"this is not json", "Parse error: expected ident at line 1 column 2"),
    ],
    ids=["deep-array", "deep-params", "deep-with-surrogate", "invalid-utf8", "bom", "words"],
)
def test_unparsable_lines_get_a_parse_error(small: RawStdio, line: bytes, message: str) -> None:
    small.send(line)
    assert small.receive() == error({"code": -32700, "message": message})
    assert tools_list(small, 60) == len(DEFAULT_TOOLS)


def deep_call(depth: int, surrogate: bytes) -> bytes:
    """A bash call whose command is ``surrogate`` (a JSON string) and whose other argument
    nests lists ``depth`` deep."""
    return (
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "bash", '
        b'"arguments": {"command": ' + surrogate + b', "x": ' + b"[" * depth + b"]" * depth
        + b"}}}"
    )  # fmt: skip


@pytest.mark.parametrize("depth", [150, 300, 600, 900, 980])
def test_a_lone_surrogate_does_not_let_a_line_nest_deeper(small: RawStdio, depth: int) -> None:
    """The second parser, which reads lone surrogates, reads deeper nesting than the first
    (up to the interpreter's stack, which the rest of the server then runs out of): a
    line it reads is refused as the same line without its surrogate is."""
    small.send(deep_call(depth, b'"\\ud800"'))
    with_surrogate = small.receive()
    small.send(deep_call(depth, b'"\\u0030"'))
    assert with_surrogate == small.receive()
    if depth > 200:  # past the first parser's limit
        assert with_surrogate["error"]["code"] == -32700
    else:
        assert with_surrogate["result"]["isError"] is True
    assert tools_list(small, 62) == len(DEFAULT_TOOLS)


def test_a_huge_malformed_line_is_refused_by_its_size(small: RawStdio) -> None:
    small.send(b"{" * 5_000_000 + b"\xff")
    assert small.receive() == error(TOO_LARGE)
    assert tools_list(small, 61) == len(DEFAULT_TOOLS)


def test_a_batch_is_refused(small: RawStdio) -> None:
    small.send(b'[{"jsonrpc": "2.0", "id": 70, "method": "tools/list"}]')
    assert small.receive() == error(
        {"code": -32600, "message": "Invalid Request: batches are not supported"}
    )
    assert tools_list(small, 71) == len(DEFAULT_TOOLS)


def test_a_clients_own_responses_are_not_answered(small: RawStdio) -> None:
    # An error the client reports (id null: it could not read something) and a result
    # for no pending request are taken in silently, not echoed or refused.
    small.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}})
    small.send({"jsonrpc": "2.0", "id": 999, "result": {}})
    assert tools_list(small, 75) == len(DEFAULT_TOOLS)  # the first thing written is this reply


def test_unknown_notifications_are_ignored(small: RawStdio) -> None:
    small.send({"jsonrpc": "2.0", "method": "notifications/no-such-thing"})
    small.send({"jsonrpc": "2.0", "method": "no/such/method", "params": {"x": 1}})
    assert tools_list(small, 80) == len(DEFAULT_TOOLS)  # the first thing written is this reply


def test_a_message_split_across_writes_and_several_in_one_write(small: RawStdio) -> None:
    first = json.dumps({"jsonrpc": "2.0", "id": 90, "method": "tools/list"}).encode()
    second = json.dumps({"jsonrpc": "2.0", "id": 91, "method": "tools/list"}).encode()
    for piece in (first[:7], first[7:] + b"\n" + second[:3], second[3:] + b"\n"):
        small.stdin.write(piece)
        small.stdin.flush()
    replies = {small.receive()["id"], small.receive()["id"]}
    assert replies == {90, 91}


def test_a_last_line_without_a_newline_is_still_answered(tmp_path: Path) -> None:
    # The client may close stdin right after its last line; the answer to a malformed
    # one still goes out before the server exits.
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        server.stdin.write(b'{"jsonrpc": "2.0", "id": 2.5, "method": "tools/list"}')
        server.stdin.close()
        assert server.receive() == error(BAD_ID)
        assert server.proc.wait(timeout=30) == 0


def test_a_client_that_stops_reading_ends_the_session(tmp_path: Path) -> None:
    # Its stdout closed, the server cannot answer: it ends as at EOF, with status 0.
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        assert server.proc.stdout is not None
        server.proc.stdout.close()
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert server.proc.wait(timeout=30) == 0


# --- E: text that cannot be encoded -------------------------------------------------------


def test_grep_content_with_an_undecodable_file_name(tmp_path: Path) -> None:
    # A file name that is not UTF-8 is shown with U+FFFD; the session goes on.
    (tmp_path / os.fsdecode(b"bad\xff.txt")).write_text("foo\n")
    with raw_stdio(workdir=tmp_path) as server:
        server.initialize()
        arguments = {"pattern": "foo", "output_mode": "content"}
        assert server.call(2, "grep", arguments) == {
            "content": [{"type": "text", "text": "bad\ufffd.txt:1:foo"}],
            "isError": False,
        }
        assert tools_list(server, 3) == len(DEFAULT_TOOLS)


def test_a_workdir_that_is_not_utf8_is_served(tmp_path: Path) -> None:
    # Its name is shown with U+FFFD where it must be text; the tools use the real name.
    workdir = tmp_path / os.fsdecode(b"caf\xe9")
    workdir.mkdir()
    with raw_stdio("--deny-dir", "**/s\udce9cret", workdir=workdir) as server:
        server.send(INITIALIZE)
        assert server.reply(1)["result"]["instructions"] == (
            f"Working directory: {tmp_path}/caf\ufffd\nDenied patterns: **/s\ufffdcret"
        )
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert (
            server.call(2, "create_file", {"path": "a.txt", "content": "x\n"})["isError"] is False
        )
        assert (workdir / "a.txt").read_text() == "x\n"
        assert tools_list(server, 3) == len(DEFAULT_TOOLS)


def test_a_method_no_reply_could_name_is_answered(small: RawStdio) -> None:
    # The SDK would echo an unknown method's name in its error, and a lone surrogate in
    # it cannot be written as JSON. The request is answered, and the session goes on.
    small.send(b'{"jsonrpc": "2.0", "id": 110, "method": "no/such/\\ud800"}')
    assert small.receive() == error(
        {"code": -32600, "message": f"Invalid Request: method {LONE_SURROGATE}"}, 110
    )
    assert tools_list(small, 111) == len(DEFAULT_TOOLS)


def test_a_reply_that_cannot_be_encoded_becomes_an_error_reply() -> None:
    # No message a client can send makes the server say a lone surrogate any more (each
    # is refused first, above); should a reply hold one anyway, the writer answers the
    # request with an error instead of ending the session.
    reply = JSONRPCResponse(jsonrpc="2.0", id=5, result={"text": "\ud800"})
    assert json.loads(stdio._encode(reply) or b"") == error(
        {"code": -32603, "message": "Internal error: the reply could not be encoded as JSON"}, 5
    )
    progress = JSONRPCNotification(jsonrpc="2.0", method="x", params={"text": "\ud800"})
    assert stdio._encode(progress) is None  # a notification is dropped


def test_a_reply_is_written_while_a_huge_line_is_still_arriving(small: RawStdio) -> None:
    # Refusing a long line whose first bytes show its id does not wait for its end.
    small.send({"jsonrpc": "2.0", "id": 100, "method": "tools/list"})
    assert len(small.reply(100)["result"]["tools"]) == len(DEFAULT_TOOLS)
    done = threading.Event()

    def write_forever() -> None:
        try:
            small.stdin.write(create_file_line(102, "x.txt", "", ascii_only=True)[:-4])
            for _ in range(8):
                small.stdin.write(b" " * MB)
                small.stdin.flush()
        finally:
            done.set()

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    assert small.receive() == error(TOO_LARGE, 102)  # before the line's end was sent
    writer.join(timeout=60)
    assert done.is_set()
    small.send(b"")  # end the long line
    assert tools_list(small, 101) == len(DEFAULT_TOOLS)
