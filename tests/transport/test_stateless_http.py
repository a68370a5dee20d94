"""The 2026-07-28 revision over streamable HTTP, on the wire (README "Using it over HTTP"):
no handshake and no session, every request carrying its version in ``_meta`` and in
headers that must agree with its body; GET and DELETE 405; notifications 202; a stream
closed by its client cancels its call; the bound on requests in flight
(--max-concurrent-calls). Real clients of the revision: tests/e2e/test_stateless_clients.py.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    DEFAULT_TOOLS,
    INITIALIZE,
    MCP_HEADERS,
    MODERN_META,
    HttpServer,
    RawSession,
    http_request,
    http_server,
    json_body,
)
from tests.support.pids import pid_alive, pids_in, wait_gone
from tests.support.tasks import STARTED, not_found

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
TOKEN = "stateless-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with http_server(workdir=tmp_path_factory.mktemp("stateless")) as server:
        yield server


def request(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> Any:
    """A request of the revision: its ``_meta`` envelope added to ``params``."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": {**MODERN_META, **(params or {}).get("_meta", {})}},
    }


def headers_for(message: dict[str, Any]) -> dict[str, str]:
    """The headers a client of the revision sends with ``message``."""
    headers = {**MCP_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": message["method"]}
    name = message.get("params", {}).get("name")
    if message["method"] == "tools/call":
        headers["Mcp-Name"] = name
    return headers


def post(
    server: HttpServer, message: dict[str, Any], **changed: str
) -> tuple[int, dict[str, str], bytes]:
    """POST ``message`` with its headers, some of them ``changed`` (underscores for dashes)."""
    headers = headers_for(message)
    headers.update({name.replace("_", "-"): value for name, value in changed.items()})
    return http_request("POST", server.url, headers, json.dumps(message).encode())


def call(server: HttpServer, tool: str, request_id: int = 1, **arguments: Any) -> Any:
    message = request("tools/call", {"name": tool, "arguments": arguments}, request_id)
    status, headers, body = post(server, message)
    assert status == 200, body
    assert "mcp-session-id" not in headers
    return json_body(body)


def text(server: HttpServer, tool: str, **arguments: Any) -> str:
    result = call(server, tool, **arguments)["result"]
    assert result["isError"] is False, result
    found: str = result["content"][0]["text"]
    return found


def error(server: HttpServer, tool: str, **arguments: Any) -> str:
    result = call(server, tool, **arguments)["result"]
    assert result["isError"] is True, result
    found: str = result["content"][0]["text"]
    return found


# --- what the revision asks of the server ---------------------------------------------------


def test_discover_says_what_initialize_says(server: HttpServer) -> None:
    status, headers, body = post(server, request("server/discover"))
    assert status == 200, body
    assert "mcp-session-id" not in headers  # never minted
    result = json_body(body)["result"]
    session = json_body(
        http_request("POST", server.url, MCP_HEADERS, json.dumps(INITIALIZE).encode())[2]
    )["result"]
    assert result["supportedVersions"] == [MODERN]
    assert result["instructions"] == session["instructions"]
    assert "tools" in result["capabilities"]  # each era's as the SDK shapes it
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == session["serverInfo"]


def test_tools_list_is_the_same_in_both_eras(server: HttpServer) -> None:
    status, _, body = post(server, request("tools/list"))
    assert status == 200, body
    modern = json_body(body)["result"]["tools"]
    session = RawSession(server.url)
    try:
        status, _, body = session.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert status == 200, body
        handshake = json_body(body)["result"]["tools"]
    finally:
        session.delete()
    assert [tool["name"] for tool in modern] == DEFAULT_TOOLS
    assert modern == handshake


def test_state_is_kept_across_requests_in_the_workspace(server: HttpServer, tmp_path: Path) -> None:
    # Each request is a connection of its own; the workspace keeps the cwd.
    assert text(server, "bash", command=f"cd '{tmp_path}'") == "exit_code: 0\n"
    assert text(server, "bash", command="pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path}\n"
    result = call(server, "bash", command="true")["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "boris"


@pytest.mark.parametrize(
    ("changed", "what"),
    [
        ({"Mcp_Method": "tools/list"}, "mcp-method header"),
        ({"Mcp_Name": "view"}, "mcp-name header"),
        ({"MCP_Protocol_Version": "2025-11-25"}, "mcp-protocol-version header"),
    ],
    ids=["method", "name", "version"],
)
def test_headers_that_disagree_with_the_body_get_400(
    server: HttpServer, changed: dict[str, str], what: str
) -> None:
    message = request("tools/call", {"name": "bash", "arguments": {"command": "true"}}, 41)
    status, _, body = post(server, message, **changed)
    if what == "mcp-protocol-version header":
        # A handshake version in the header: the request is routed to the handshake
        # path, where a request without a session is refused (it must initialize).
        assert status == 400, body
        return
    assert status == 400, body
    reply = json.loads(body)
    assert reply["id"] == 41
    assert reply["error"]["code"] == -32020
    assert reply["error"]["message"].startswith(what)


def test_a_version_envelope_that_disagrees_with_the_header_gets_400(server: HttpServer) -> None:
    message = request("tools/list")
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    status, _, body = post(server, message)
    assert status == 400
    assert json.loads(body)["error"]["code"] == -32020


def test_an_unsupported_version_gets_400_listing_the_supported_ones(server: HttpServer) -> None:
    message = request("tools/list", request_id=5)
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    status, _, body = post(server, message, MCP_Protocol_Version="2099-01-01")
    assert status == 400
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": [MODERN], "requested": "2099-01-01"},
        },
    }


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_get_405(server: HttpServer, method: str) -> None:
    status, headers, _ = http_request(
        method, server.url, {**MCP_HEADERS, "MCP-Protocol-Version": MODERN}
    )
    assert status == 405
    assert headers["allow"] == "POST"


def test_a_notification_gets_202(server: HttpServer) -> None:
    notification = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 1, "_meta": MODERN_META},
    }
    status, _, body = post(server, notification)
    assert (status, body) == (202, b"")


def test_the_token_and_origin_checks_hold_for_the_revision(
    server: HttpServer, tmp_path: Path
) -> None:
    status, _, body = post(server, request("tools/list"), Origin="https://evil.example")
    assert (status, json.loads(body)) == (403, {"error": "forbidden origin"})
    status, _, body = post(server, request("tools/list"), Host="evil.example")
    assert (status, json.loads(body)) == (421, {"error": "forbidden host"})
    with http_server("--token", TOKEN, workdir=tmp_path) as guarded:
        status, _, body = post(guarded, request("tools/list"))
        assert (status, json.loads(body)) == (401, {"error": "unauthorized"})
        status, _, _ = post(guarded, request("tools/list"), Authorization=f"Bearer {TOKEN}")
        assert status == 200


# --- task ids are handles -----------------------------------------------------------------


def test_a_task_id_of_a_session_is_unknown_to_the_workspace_and_back(server: HttpServer) -> None:
    session = RawSession(server.url)
    try:
        started = session.text("bash", command="sleep 300", run_in_background=True)
        theirs = STARTED.fullmatch(started)
        assert theirs
        started = text(server, "bash", command="sleep 300", run_in_background=True)
        match = STARTED.fullmatch(started)
        assert match
        mine = match.group(1)
        never = "0" * len(mine)
        for tool in ("task_output", "task_stop"):
            # Another's id and an id that never was get the same answer.
            assert error(server, tool, task_id=theirs.group(1)) == not_found(theirs.group(1))
            assert error(server, tool, task_id=never) == not_found(never)
            answer = session.call(tool, task_id=mine)["result"]
            assert answer["content"][0]["text"] == not_found(mine)
        assert text(server, "task_stop", task_id=mine).startswith("status: completed (stopped)")
    finally:
        session.delete()


# --- a stream closed by its client ------------------------------------------------------------


def open_call(server: HttpServer, command: str, request_id: int) -> http.client.HTTPConnection:
    """Send a bash call that asks for progress, without reading its answer."""
    arguments = {"command": command}
    message = request(
        "tools/call",
        {"name": "bash", "arguments": arguments, "_meta": {"progressToken": request_id}},
        request_id,
    )
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("POST", "/mcp", json.dumps(message).encode(), headers_for(message))
    return connection


def progress_lines(response: http.client.HTTPResponse, count: int) -> list[str]:
    """The messages of the first ``count`` progress notifications on an SSE answer."""
    found: list[str] = []
    while len(found) < count:
        line = response.readline()
        assert line, "the stream ended"
        if line.startswith(b"data:"):
            event = json.loads(line[5:])
            assert event["method"] == "notifications/progress", event
            found.append(event["params"]["message"])
    return found


def test_progress_and_the_reply_come_on_one_stream(server: HttpServer) -> None:
    connection = open_call(server, "echo one; echo two", 51)
    try:
        response = connection.getresponse()
        assert response.headers["content-type"] == "text/event-stream"
        events = [
            json.loads(line[5:]) for line in response.read().splitlines() if line[:5] == b"data:"
        ]
    finally:
        connection.close()
    *progress, reply = events
    assert [event["params"]["message"] for event in progress] == ["one", "two"]
    assert reply["id"] == 51
    assert reply["result"]["content"][0]["text"] == "exit_code: 0\n\nstdout:\none\ntwo\n"


async def test_a_closed_stream_cancels_its_call_and_kills_the_command(server: HttpServer) -> None:
    connection = open_call(server, "echo $$; sleep 300 & echo $!; wait", 61)
    response = connection.getresponse()
    assert response.headers["content-type"] == "text/event-stream"
    pids = [pid for line in progress_lines(response, 2) for pid in pids_in(line)]
    assert len(pids) == 2
    assert all(pid_alive(pid) for pid in pids)
    connection.close()
    assert await wait_gone(pids) == []
    assert text(server, "bash", command="echo still") == "exit_code: 0\n\nstdout:\nstill\n"


# --- the bound on requests in flight ------------------------------------------------------------


async def test_a_request_beyond_max_concurrent_calls_gets_503_naming_it(tmp_path: Path) -> None:
    with http_server("--max-concurrent-calls", "2", workdir=tmp_path) as limited:
        held = [open_call(limited, "echo $$; sleep 300", 70 + n) for n in range(2)]
        try:
            pids = []
            for connection in held:
                (line,) = progress_lines(connection.getresponse(), 1)
                pids += pids_in(line)
            status, _, body = post(limited, request("tools/list", request_id=72))
            assert status == 503
            assert json.loads(body) == {
                "jsonrpc": "2.0",
                "id": 72,
                "error": {
                    "code": -32603,
                    "message": "Too many concurrent requests: this server serves at most 2 "
                    "requests of protocol revision 2026-07-28 at once (--max-concurrent-calls); "
                    "retry shortly",
                },
            }
            # Handshake sessions are not bounded by it.
            session = RawSession(limited.url)
            assert session.text("bash", command="echo hi") == "exit_code: 0\n\nstdout:\nhi\n"
            session.delete()
        finally:
            for connection in held:
                connection.close()
        assert await wait_gone(pids) == []
        deadline = time.monotonic() + 10
        while (status := post(limited, request("tools/list"))[0]) == 503:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert status == 200


def vm_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_a_flood_of_requests_does_not_grow_the_server(tmp_path: Path) -> None:
    # Every request is a connection of its own: nothing of it may stay behind.
    with http_server(workdir=tmp_path) as flooded:
        (tmp_path / "f.txt").write_text("x\n")

        def flood(count: int, first: int) -> None:
            connection = http.client.HTTPConnection("127.0.0.1", flooded.port, timeout=30)
            try:
                for n in range(first, first + count):
                    arguments = {"path": str(tmp_path / "f.txt")}
                    message = request("tools/call", {"name": "view", "arguments": arguments}, n)
                    connection.request(
                        "POST", "/mcp", json.dumps(message).encode(), headers_for(message)
                    )
                    response = connection.getresponse()
                    assert response.status == 200
                    response.read()
            finally:
                connection.close()

        def flood_in_threads(count: int, first: int) -> None:
            threads = [
                threading.Thread(target=flood, args=(count, first + n * count)) for n in range(4)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        flood_in_threads(150, 0)  # warm: first-use imports and caches
        before = vm_rss_kib(flooded.proc.pid)
        flood_in_threads(400, 10_000)
        after = vm_rss_kib(flooded.proc.pid)
        assert after - before < 4 * 1024, (before, after)
