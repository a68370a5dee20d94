"""What the early answers answer, what they leave to the app, in which order the app then
reads it, and how its replies to the requests already answered are checked and dropped
(boris.early.responder). The answers themselves are compared with the app's in
tests/early/test_wire.py."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp_types import JSONRPCResponse

from boris.early import answers
from boris.early.generate import enveloped, initialize, notification, request
from boris.early.responder import Handover, Responder
from boris.transport.lines import TooLong
from tests.support.early import early_settings, initialize_with

VERSION = "2025-11-25"
MODERN = "2026-07-28"


@pytest.fixture
def responder(tmp_path: Path) -> Responder:
    return Responder(answers.load(), early_settings(["--workdir", str(tmp_path)]))


def replayed_id(handover: Handover) -> str:
    """The id the first request handed over carries."""
    first = handover.items[0]
    assert isinstance(first, bytes)
    own = json.loads(first)["id"]
    assert isinstance(own, str)
    return own


def ids(replies: list[bytes | None]) -> list[object]:
    return [json.loads(reply)["id"] if reply is not None else None for reply in replies]


def test_a_handshake_and_its_list_are_answered(responder: Responder) -> None:
    lines = [
        initialize(1, VERSION),
        notification("notifications/initialized"),
        request(2, "tools/list"),
    ]
    assert ids([responder.take(line) for line in lines]) == [1, None, 2]
    assert responder.answered == ["initialize", "notifications/initialized", "tools/list"]


def test_what_changed_the_connection_is_handed_over_first_under_ids_of_its_own(
    responder: Responder,
) -> None:
    first = initialize(1, VERSION)
    initialized = notification("notifications/initialized")
    call = request(3, "tools/call", {"name": "bash", "arguments": {"command": "true"}})
    later = request(4, "tools/list")
    replies = [
        responder.take(line) for line in (first, initialized, request(2, "tools/list"), call, later)
    ]
    assert ids(replies) == [1, None, 2, None, None]  # once one line waits, all after it do
    handover = responder.handover()
    replayed, *rest = handover.items
    assert rest == [initialized, call, later]
    assert isinstance(replayed, bytes)
    message = json.loads(replayed)
    own = message.pop("id")
    assert isinstance(own, str)
    assert own.startswith("boris-early-")
    assert message == {k: v for k, v in json.loads(first).items() if k != "id"}


def test_the_apps_reply_to_a_replayed_request_is_checked_and_dropped(
    responder: Responder, caplog: pytest.LogCaptureFixture
) -> None:
    given = responder.take(initialize(1, VERSION))
    assert given is not None
    handover = responder.handover()
    own = replayed_id(handover)
    result = json.loads(given)["result"]
    same = JSONRPCResponse(jsonrpc="2.0", id=own, result=result)
    other = JSONRPCResponse(jsonrpc="2.0", id=5, result=result)
    assert not handover.answered(other)  # the client's own requests go out
    with caplog.at_level(logging.ERROR, "boris.early"):
        assert handover.answered(same)
    assert caplog.records == []
    assert not handover.answered(same)  # once only


def test_a_reply_that_differs_from_the_answer_given_is_logged(
    responder: Responder, caplog: pytest.LogCaptureFixture
) -> None:
    responder.take(initialize(1, VERSION))
    handover = responder.handover()
    own = replayed_id(handover)
    with caplog.at_level(logging.ERROR, "boris.early"):
        assert handover.answered(JSONRPCResponse(jsonrpc="2.0", id=own, result={"other": 1}))
    assert "differs from the app's" in caplog.text


def test_a_2026_connection_replays_its_first_request_only(responder: Responder) -> None:
    lines = [
        enveloped(1, "server/discover", MODERN),
        enveloped(2, "tools/list", MODERN),
        enveloped(3, "tools/list", MODERN),
    ]
    assert ids([responder.take(line) for line in lines]) == [1, 2, 3]
    (replayed,) = responder.handover().items
    assert isinstance(replayed, bytes)
    assert json.loads(replayed)["method"] == "server/discover"
    # initialize has no place on such a connection: the app answers it.
    assert responder.take(initialize(4, VERSION)) is None


def test_blank_lines_are_skipped(responder: Responder) -> None:
    assert responder.take(b"") is None
    assert responder.take(b"  \t") is None
    assert responder.take(initialize(1, VERSION)) is not None
    assert len(responder.handover().items) == 1


@pytest.mark.parametrize(
    "line",
    [
        request(1, "tools/list"),  # before initialize: the SDK refuses it
        notification("notifications/initialized"),  # before any request
        request(1, "ping"),
        b"{not json",
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","id":2}',  # a member twice
        b'{"jsonrpc":"2.0","id":NaN,"method":"initialize"}',
        b'{"jsonrpc":"2.0","id":true,"method":"initialize","params":{}}',
        b'{"jsonrpc":"2.0","id":1.0,"method":"initialize","params":{}}',
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}',
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"initialize","params":{}}',
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{},"extra":1}',
        b'{"jsonrpc":"1.0","id":1,"method":"initialize","params":{}}',
        b"\xff\xfe{}",
        b"[" * 40 + b"]" * 40,
        initialize_with(1, VERSION, clientInfo={"name": "no version"}),
        initialize_with(1, VERSION, capabilities={"roots": {"listChanged": "yes"}}),
        initialize_with(1, VERSION, clientInfo={"name": "\ud800", "version": "1"}),
    ],
)
def test_what_is_left_to_the_app(responder: Responder, line: bytes) -> None:
    assert responder.take(line) is None
    assert responder.handover().items == [line]
    assert responder.take(initialize(2, VERSION)) is None  # and all after it


def test_a_line_too_long_is_left_to_the_app(responder: Responder) -> None:
    assert responder.take(TooLong(7)) is None
    assert responder.handover().items == [TooLong(7)]


def test_a_second_initialize_and_a_list_with_a_cursor_are_left_to_the_app(
    responder: Responder,
) -> None:
    assert responder.take(initialize(1, VERSION)) is not None
    assert responder.take(initialize(2, VERSION)) is None
    other = Responder(responder.answers, responder.settings)
    assert other.take(initialize(1, VERSION)) is not None
    assert other.take(request(2, "tools/list", {"cursor": "x"})) is None


def in_meta(request_id: int, value: bytes) -> bytes:
    """A tools/list request carrying ``value`` in its ``_meta``, three levels down."""
    opening = b'{"jsonrpc": "2.0", "id": %d, "method": "tools/list", "params": {"_meta": {"x": '
    return opening % request_id + value + b"}}}"


def lists(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def objects(depth: int) -> bytes:
    return b'{"a": ' * depth + b"0" + b"}" * depth


@pytest.mark.parametrize("depth", [30, 100, 500, 990, 5_000, 100_000])
@pytest.mark.parametrize("nest", [lists, objects])
def test_a_line_nested_deeper_than_it_reads_is_left_to_the_app(
    responder: Responder, depth: int, nest: Callable[[int], bytes]
) -> None:
    """Whatever the depth (a walk of its own, not the interpreter's stack, which a few
    hundred levels used to exhaust), before initialize and after it."""
    line = in_meta(5, nest(depth))
    assert responder.take(line) is None
    assert responder.handover().items == [line]
    other = Responder(responder.answers, responder.settings)
    assert other.take(initialize(1, VERSION)) is not None
    assert other.take(line) is None
    assert other.handover().items[-1] == line


@pytest.mark.parametrize("nest", [lists, objects])
def test_a_line_nested_as_deep_as_it_reads_is_answered(
    responder: Responder, nest: Callable[[int], bytes]
) -> None:
    assert responder.take(initialize(1, VERSION)) is not None
    assert responder.take(in_meta(2, nest(29))) is not None  # 32 levels in all
