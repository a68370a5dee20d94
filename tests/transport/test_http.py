"""The HTTP surface (README "Using it over HTTP", "Security"): /health, CORS, bearer auth, the
origin check, the session guard."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import MCPError

from boris.transport.http import HostNames, is_loopback_origin
from tests.support import (
    BORIS,
    DEFAULT_TOOLS,
    INITIALIZE,
    MCP_HEADERS,
    MODERN_META,
    HttpServer,
    RawSession,
    free_port,
    http_client,
    http_request,
    http_server,
    json_body,
    sdk_http_client,
    server_env,
    stop_process,
)
from tests.support.surrogates import (
    LONE_SURROGATE,
    SURROGATE_ELSEWHERE,
    SURROGATE_ID,
    SURROGATE_IDS,
)

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-token"
CORS = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
    "access-control-allow-headers": (
        "Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
    ),
    "access-control-expose-headers": "Mcp-Session-Id",
    "access-control-max-age": "86400",
}


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    workdir = tmp_path_factory.mktemp("open")
    allowed = ["--allow-origin", "https://app.example.com/"]
    allowed += ["--allow-host", "boris.example", "--allow-host", "port.example:8443"]
    with http_server(*allowed, workdir=workdir) as server:
        yield server


@pytest.fixture(scope="module")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    workdir = tmp_path_factory.mktemp("token")
    with http_server("--token", TOKEN, workdir=workdir) as server:
        yield server


def initialize(server: HttpServer, **headers: str) -> tuple[int, dict[str, str], bytes]:
    return http_request(
        "POST", server.url, {**MCP_HEADERS, **headers}, json.dumps(INITIALIZE).encode()
    )


def test_health(token_server: HttpServer) -> None:
    # /health is never behind auth.
    status, headers, body = http_request("GET", f"{token_server.base}/health")
    assert status == 200
    assert json.loads(body) == {"status": "ok"}
    assert headers["content-type"] == "application/json"
    assert headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("path", ["/mcp", "/health"])
def test_cors_preflight(token_server: HttpServer, path: str) -> None:
    status, headers, body = http_request(
        "OPTIONS",
        f"{token_server.base}{path}",
        {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"},
    )
    assert status == 204
    assert body == b""
    for name, value in CORS.items():
        assert headers[name] == value


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Basic {TOKEN}", TOKEN, "Bearer", ""],
    ids=["missing", "wrong", "other-scheme", "no-scheme", "no-credentials", "empty"],
)
def test_unauthorized(token_server: HttpServer, authorization: str | None) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    status, response_headers, body = initialize(token_server, **headers)
    assert status == 401
    assert response_headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "unauthorized"}
    # CORS wraps auth, so a browser can read the 401.
    assert response_headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_authorized_any_scheme_case(token_server: HttpServer, scheme: str) -> None:
    status, headers, body = initialize(token_server, Authorization=f"{scheme} {TOKEN}")
    assert status == 200
    assert json_body(body)["result"]["serverInfo"]["name"] == "boris"
    assert headers["mcp-session-id"]


async def test_clients_with_token(token_server: HttpServer) -> None:
    async with http_client(token_server.url, token=TOKEN) as client:
        assert [t.name for t in await client.list_tools()]
    async with sdk_http_client(token_server.url, token=TOKEN) as sdk:
        assert (await sdk.list_tools()).tools


def test_token_decides_over_origin(token_server: HttpServer) -> None:
    status, _, _ = initialize(
        token_server, Authorization=f"Bearer {TOKEN}", Origin="https://evil.example"
    )
    assert status == 200


@pytest.mark.parametrize(
    "origin",
    [
        "http://localhost",
        "http://localhost:5173",
        "https://127.0.0.1:8443",
        "http://[::1]:3000",
        "https://app.example.com",  # listed with --allow-origin (trailing slash ignored)
    ],
)
def test_allowed_origins(open_server: HttpServer, origin: str) -> None:
    status, _, _ = initialize(open_server, Origin=origin)
    assert status == 200


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://localhost.evil.example", "null", "http://10.0.0.1"]
)
def test_foreign_origin_forbidden_without_token(open_server: HttpServer, origin: str) -> None:
    # ★ DNS-rebinding protection: a web page must not drive an unauthenticated server.
    status, headers, body = initialize(open_server, Origin=origin)
    assert status == 403
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "forbidden origin"}


def test_no_origin_is_unaffected(open_server: HttpServer) -> None:
    status, _, _ = initialize(open_server)
    assert status == 200


def test_origin_check_only_guards_mcp(open_server: HttpServer) -> None:
    status, _, _ = http_request(
        "GET", f"{open_server.base}/health", {"Origin": "https://evil.example"}
    )
    assert status == 200


def test_the_2026_revision_is_served_beside_the_handshake(open_server: HttpServer) -> None:
    # No longer refused with -32022: tests/transport/test_stateless_http.py has the rest.
    discover = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "server/discover",
        "params": {"_meta": MODERN_META},
    }
    headers = {**MCP_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
    status, response_headers, body = http_request(
        "POST", open_server.url, headers, json.dumps(discover).encode()
    )
    assert status == 200, body
    assert "mcp-session-id" not in response_headers
    assert json_body(body)["result"]["supportedVersions"] == ["2026-07-28"]
    assert initialize(open_server)[0] == 200


async def test_handshake_clients_get_a_session(open_server: HttpServer) -> None:
    async with http_client(open_server.url, mode="legacy") as client:
        result = client.initialize_result
        assert result is not None
        assert result.protocol_version == "2025-11-25"


async def test_default_mode_clients_speak_the_2026_revision(open_server: HttpServer) -> None:
    # fastmcp's default ("auto") is no longer pushed back to the handshake.
    async with http_client(open_server.url, mode="auto") as client:
        assert client.initialize_result is None
        assert [tool.name for tool in await client.list_tools()] == DEFAULT_TOOLS


def test_malformed_requests_get_4xx(open_server: HttpServer) -> None:
    status, _, _ = http_request("POST", open_server.url, MCP_HEADERS, b"{not json")
    assert 400 <= status < 500
    status, _, _ = http_request("POST", open_server.url, MCP_HEADERS, b'{"jsonrpc": "2.0"}')
    assert 400 <= status < 500
    # ...and the server keeps serving.
    assert initialize(open_server)[0] == 200


def test_generate_token(tmp_path: Path) -> None:
    with http_server("--generate-token", workdir=tmp_path) as server:
        deadline = time.monotonic() + 10
        match = None
        while match is None and time.monotonic() < deadline:
            match = re.search(r"^bearer token: ([0-9a-f]{64})$", server.stderr(), re.M)
            time.sleep(0.05)
        assert match is not None, server.stderr()
        assert initialize(server)[0] == 401
        assert initialize(server, Authorization=f"Bearer {match.group(1)}")[0] == 200


def test_loopback_origins() -> None:
    assert is_loopback_origin("http://localhost:8080")
    assert is_loopback_origin("https://[::1]")
    assert not is_loopback_origin("file://localhost")
    assert not is_loopback_origin("not a url")


def test_beyond_loopback_without_a_token_only_knowingly(open_server: HttpServer) -> None:
    # A name that cannot be bound: the check and the warning come before the bind, and
    # nothing ever listens beyond loopback.
    def run(*flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*BORIS, "--host", "boris-test.invalid", "--port", str(free_port()), *flags],
            capture_output=True,
            text=True,
            env=server_env(env),
            stdin=subprocess.DEVNULL,
            timeout=60,
        )

    refused = run()
    assert refused.returncode == 2
    assert refused.stderr == (
        "boris: error: --host boris-test.invalid is reachable from other machines and no "
        "token is set: anyone who can reach it could run commands; set --token or "
        "--generate-token, or pass --allow-unauthenticated to accept that\n"
    )
    for accepted in (run("--allow-unauthenticated"), run(env={"BORIS_ALLOW_UNAUTHENTICATED": "1"})):
        assert accepted.returncode not in (0, 2)  # started, then could not bind
        assert (
            "WARNING boris.http: serving HTTP on boris-test.invalid without a token "
            "(--allow-unauthenticated): anyone who can reach port" in accepted.stderr
        )
    # Loopback, as every test server binds, is not reachable from elsewhere: no warning.
    assert "without a token" not in open_server.stderr()


def test_the_default_host_is_loopback(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [*BORIS, "--port", str(port), "--workdir", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if b"listening on" in line:
                assert line.rstrip().endswith(f"listening on http://127.0.0.1:{port}/mcp".encode())
                break
        else:
            raise AssertionError("the server did not start")
    finally:
        stop_process(proc)


# --- the edge: message size, malformed JSON-RPC, origins, text that cannot be sent -------

MB = 1024 * 1024
#: README: a request body may be 3 × --max-file-size + 1 MiB long.
SMALL_MESSAGE_LIMIT = 3 * 1024 + MB  # --max-file-size 1KB


def jsonrpc_error(code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


TOO_LARGE = jsonrpc_error(
    -32600,
    f"Invalid Request: message larger than {SMALL_MESSAGE_LIMIT} bytes "
    "(the limit is 3 × --max-file-size + 1 MiB)",
)


def with_id(reply: dict[str, object], request_id: int | str) -> dict[str, object]:
    return {**reply, "id": request_id}


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    workdir = tmp_path_factory.mktemp("small")
    with http_server("--max-file-size", "1KB", workdir=workdir) as server:
        yield server


def raw_post(
    server: HttpServer,
    headers: list[tuple[str, str]],
    body: bytes | Iterator[bytes],
) -> tuple[int, dict[str, str], bytes]:
    """A POST to /mcp with repeated headers allowed; an iterator body is sent chunked."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.putrequest("POST", "/mcp")
        for name, value in headers:
            connection.putheader(name, value)
        if isinstance(body, bytes):
            connection.putheader("Content-Length", str(len(body)))
        else:
            connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        if isinstance(body, bytes):
            connection.send(body)
        else:
            for piece in body:
                connection.send(b"%x\r\n%s\r\n" % (len(piece), piece))
            connection.send(b"0\r\n\r\n")
        response = connection.getresponse()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read(),
        )
    finally:
        connection.close()


def padded_initialize(length: int) -> bytes:
    body = json.dumps(INITIALIZE).encode()
    return body[:-1] + b" " * (length - len(body)) + body[-1:]


async def test_create_file_at_the_size_limit(open_server: HttpServer, tmp_path: Path) -> None:
    # 10 MB (the default --max-file-size) of ordinary text, which JSON escapes.
    size = 10 * MB
    unit = 'line "quoted"\tand tabbed\n'
    content = (unit * (size // len(unit) + 1))[:size]
    async with http_client(open_server.url) as client:
        result = await client.call_tool(
            "create_file", {"path": str(tmp_path / "big.txt"), "content": content}
        )
    assert result.content[0].text == f"Created {tmp_path / 'big.txt'} ({size} bytes)"  # type: ignore[union-attr]
    assert (tmp_path / "big.txt").read_text() == content


def test_a_body_at_the_limit_is_served(small_server: HttpServer) -> None:
    headers = list(MCP_HEADERS.items())
    status, _, body = raw_post(small_server, headers, padded_initialize(SMALL_MESSAGE_LIMIT))
    assert status == 200, body


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_longer_body_gets_413_naming_the_limit(small_server: HttpServer, chunked: bool) -> None:
    data = padded_initialize(SMALL_MESSAGE_LIMIT + 1)
    body: bytes | Iterator[bytes] = data
    if chunked:
        body = iter([data[i : i + 65536] for i in range(0, len(data), 65536)])
    status, headers, answer = raw_post(small_server, list(MCP_HEADERS.items()), body)
    assert status == 413
    assert headers["content-type"] == "application/json"
    assert json.loads(answer) == with_id(TOO_LARGE, 1)  # the id in its first bytes
    assert initialize(small_server)[0] == 200


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("request_id", [21, "ts-21"])
def test_a_longer_body_with_its_id_at_the_end_gets_that_id(
    small_server: HttpServer, chunked: bool, request_id: int | str
) -> None:
    # As the TypeScript SDK writes a request: the id last.
    session = RawSession(small_server.url)
    content = "x" * SMALL_MESSAGE_LIMIT
    params = {"name": "create_file", "arguments": {"path": "ts.txt", "content": content}}
    message = {"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": request_id}
    data = json.dumps(message).encode()
    body: bytes | Iterator[bytes] = data
    if chunked:
        body = iter([data[i : i + 65536] for i in range(0, len(data), 65536)])
    status, _, answer = raw_post(small_server, list(session.headers.items()), body)
    assert status == 413
    assert json.loads(answer) == with_id(TOO_LARGE, request_id)
    assert session.text("bash", command="echo on") == "exit_code: 0\n\nstdout:\non\n"
    session.delete()


async def test_the_official_client_gets_its_answer_to_a_message_too_large(
    small_server: HttpServer, tmp_path: Path
) -> None:
    async with sdk_http_client(small_server.url) as sdk:
        with pytest.raises(MCPError) as raised:
            await sdk.call_tool(
                "create_file", {"path": str(tmp_path / "big.txt"), "content": "x" * (2 * MB)}
            )
        assert raised.value.error.message == TOO_LARGE["error"]["message"]  # type: ignore[index]
        assert not (tmp_path / "big.txt").exists()
        assert len((await sdk.list_tools()).tools) == len(DEFAULT_TOOLS)


def test_a_body_with_too_many_values_is_refused_before_it_is_parsed(
    open_server: HttpServer,
) -> None:
    session = RawSession(open_server.url)
    head = b'{"jsonrpc": "2.0", "id": 23, "method": "tools/call", "params": {"name": "view", '
    body = head + b'"arguments": {"path": "x", "junk": [' + b"{}," * 200_000 + b"{}]}}}"
    status, _, answer = session.post(body)
    assert status == 400
    assert json.loads(answer) == {
        "jsonrpc": "2.0",
        "id": 23,
        "error": {
            "code": -32600,
            "message": "Invalid Request: message holds more than 100000 values",
        },
    }
    assert session.text("bash", command="echo on") == "exit_code: 0\n\nstdout:\non\n"
    session.delete()


@pytest.mark.parametrize("bad_id", ["1.5", "[1]", "null", "true", "{}", "1e3"])
def test_a_request_with_an_invalid_id_is_answered(open_server: HttpServer, bad_id: str) -> None:
    # JSON-RPC: an id is a string or an integer; a message with any other "id" is an
    # invalid request (answered with id null), not a notification to accept silently.
    body = b'{"jsonrpc": "2.0", "id": ' + bad_id.encode() + b', "method": "tools/list"}'
    status, headers, answer = http_request("POST", open_server.url, MCP_HEADERS, body)
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert json.loads(answer) == jsonrpc_error(
        -32600, "Invalid Request: id must be a string or an integer"
    )


@pytest.mark.parametrize("body", SURROGATE_IDS)
def test_a_request_whose_id_is_not_unicode_is_answered_with_id_null(
    open_server: HttpServer, body: bytes
) -> None:
    # The same answer as over STDIO: valid JSON, an invalid request, id null.
    session = RawSession(open_server.url)
    status, headers, answer = session.post(body)
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert json.loads(answer) == jsonrpc_error(-32600, SURROGATE_ID["message"])
    assert (
        session.text("bash", command="echo still here") == "exit_code: 0\n\nstdout:\nstill here\n"
    )
    session.delete()


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (
            b"[" * 100_000 + b"]" * 100_000,
            -32700,
            "Parse error: recursion limit exceeded at line 1 column 202",
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "x", "y": "\xff"}',
            -32700,
            "Parse error: invalid unicode code point at line 1 column 50",
        ),
        (
            b'[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]',
            -32600,
            "Invalid Request: batches are not supported",
        ),
    ],
    ids=["deep", "invalid-utf8", "batch"],
)
def test_malformed_bodies_get_jsonrpc_errors(
    open_server: HttpServer, body: bytes, code: int, message: str
) -> None:
    status, _, answer = http_request("POST", open_server.url, MCP_HEADERS, body)
    assert status == 400
    assert json.loads(answer) == jsonrpc_error(code, message)
    assert initialize(open_server)[0] == 200


def test_a_workdir_that_is_not_utf8_is_served(tmp_path: Path) -> None:
    workdir = tmp_path / os.fsdecode(b"caf\xe9")
    workdir.mkdir()
    with http_server(workdir=workdir) as server:
        status, _, body = http_request(
            "POST", server.url, MCP_HEADERS, json.dumps(INITIALIZE).encode()
        )
        assert status == 200, body
        assert json_body(body)["result"]["instructions"] == (
            f"Working directory: {tmp_path}/caf\ufffd"
        )


def test_a_clients_own_error_is_accepted_not_echoed(open_server: HttpServer) -> None:
    session = RawSession(open_server.url)
    status, _, body = session.post(
        {"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}}
    )
    assert (status, body) == (202, b"")
    session.delete()


@pytest.mark.parametrize(
    ("tool", "arguments", "parameter"),
    [
        ("view", {"path": "\ud800"}, "path"),
        ("grep", {"pattern": "a\udfffb"}, "pattern"),
        ("bash", {"command": "echo \ud800"}, "command"),
        ("str_replace", {"path": "x.txt", "old_str": "\udc80", "new_str": "y"}, "old_str"),
        ("create_file", {"path": "x.txt", "content": "ok\ud83d"}, "content"),
        (
            "multi_edit",
            {"path": "x.txt", "edits": [{"old_str": "a"}, {"old_str": "b", "new_str": "\ud800"}]},
            "edits.1.new_str",
        ),
    ],
)
def test_a_lone_surrogate_in_an_argument_is_invalid_input(
    open_server: HttpServer, tool: str, arguments: dict[str, object], parameter: str
) -> None:
    session = RawSession(open_server.url)
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    status, _, body = session.post(json.dumps(message).encode())
    assert status == 200, body
    assert json_body(body) == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [{"type": "text", "text": f"[INVALID_INPUT] {parameter}: {LONE_SURROGATE}"}],
            "isError": True,
        },
    }
    assert (
        session.text("bash", command="echo still here") == "exit_code: 0\n\nstdout:\nstill here\n"
    )
    session.delete()


@pytest.mark.parametrize(("line", "request_id", "answer"), SURROGATE_ELSEWHERE)
def test_a_lone_surrogate_outside_the_arguments_is_answered_with_the_id(
    open_server: HttpServer, line: bytes, request_id: int | None, answer: dict[str, object]
) -> None:
    """As over STDIO (tests/transport/test_stdio.py): the request's id, so the client
    stops waiting; nothing runs; the session goes on."""
    session = RawSession(open_server.url)
    status, _, body = session.post(line)
    assert (status, json.loads(body)) == (
        400,
        {"jsonrpc": "2.0", "id": request_id, "error": answer},
    )
    assert session.text("bash", command="echo still") == "exit_code: 0\n\nstdout:\nstill\n"
    session.delete()


@pytest.mark.parametrize(
    "origins",
    [("http://localhost", "https://evil.example"), ("http://localhost", "http://localhost")],
)
def test_two_origin_headers_are_forbidden(
    open_server: HttpServer, origins: tuple[str, str]
) -> None:
    # A request carries at most one Origin; two is malformed and refused, whatever they say.
    headers = [*MCP_HEADERS.items(), *(("Origin", origin) for origin in origins)]
    status, response_headers, body = raw_post(open_server, headers, json.dumps(INITIALIZE).encode())
    assert status == 403
    assert response_headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "forbidden origin"}


def test_two_origin_headers_are_forbidden_with_a_token(token_server: HttpServer) -> None:
    headers = [
        *MCP_HEADERS.items(),
        ("Authorization", f"Bearer {TOKEN}"),
        ("Origin", "http://localhost"),
        ("Origin", "https://evil.example"),
    ]
    status, _, body = raw_post(token_server, headers, json.dumps(INITIALIZE).encode())
    assert status == 403
    assert json.loads(body) == {"error": "forbidden origin"}


async def test_grep_content_with_an_undecodable_file_name(
    open_server: HttpServer, tmp_path: Path
) -> None:
    # A file name that is not UTF-8 is shown with U+FFFD; the session goes on.
    (tmp_path / os.fsdecode(b"bad\xff.txt")).write_text("foo\n")
    async with http_client(open_server.url) as client:
        arguments = {"pattern": "foo", "path": str(tmp_path), "output_mode": "content"}
        result = await client.call_tool("grep", arguments, raise_on_error=False)
        assert not result.is_error
        assert result.content[0].text == "bad\ufffd.txt:1:foo"  # type: ignore[union-attr]
        again = await client.call_tool("bash", {"command": "echo ok"})
        assert again.content[0].text == "exit_code: 0\n\nstdout:\nok\n"  # type: ignore[union-attr]


def test_a_request_without_a_progress_token_is_answered_as_one_json_body(
    open_server: HttpServer,
) -> None:
    """A request that asks for no progress gets its reply as one application/json
    body, the initialize request included (README "Using it over HTTP")."""
    status, headers, body = initialize(open_server)
    assert (status, headers["content-type"]) == (200, "application/json")
    assert json.loads(body)["result"]["serverInfo"]["name"] == "boris"
    session = RawSession(open_server.url)
    try:
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": "echo a; echo b"}},
        }
        status, headers, body = session.post(call)
        assert (status, headers["content-type"]) == (200, "application/json")
        assert json.loads(body) == {
            "jsonrpc": "2.0",
            "id": 7,
            "result": {
                "content": [{"type": "text", "text": "exit_code: 0\n\nstdout:\na\nb\n"}],
                "isError": False,
            },
        }
    finally:
        session.delete()


def bash_with_progress(request_id: int, command: str) -> dict[str, object]:
    """A bash call asking for progress (token ``p``)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": "bash",
            "arguments": {"command": command},
            "_meta": {"progressToken": "p"},
        },
    }


def _sse_events(response: http.client.HTTPResponse) -> Iterator[dict[str, object]]:
    """The JSON messages of an SSE response, each as soon as its event is complete."""
    data: list[str] = []
    while line := response.readline():
        text = line.decode().rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].strip())
        elif not text and data:
            yield json.loads("\n".join(data))
            data = []


def test_a_call_with_a_progress_token_streams_its_progress_while_it_runs(
    open_server: HttpServer, tmp_path: Path
) -> None:
    """With a progress token the answer is an SSE stream whose progress notifications
    arrive while the command still runs, then the reply."""
    go_on = tmp_path / "go-on"
    session = RawSession(open_server.url)
    host, port = open_server.base.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        command = f"echo first; while [ ! -e {go_on} ]; do sleep 0.01; done; echo second"
        call = bash_with_progress(8, command)
        connection.request("POST", "/mcp", json.dumps(call).encode(), session.headers)
        response = connection.getresponse()
        assert response.status == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = _sse_events(response)
        first = next(event for event in events if event.get("method"))
        assert first == {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "p", "progress": 1.0, "message": "first"},
        }
        go_on.touch()  # the command was still waiting: its first line came while it ran
        rest = list(events)
        assert [event.get("method") for event in rest] == ["notifications/progress", None]
        assert rest[0]["params"] == {"progressToken": "p", "progress": 2.0, "message": "second"}
        assert rest[1] == {
            "jsonrpc": "2.0",
            "id": 8,
            "result": {
                "content": [{"type": "text", "text": "exit_code: 0\n\nstdout:\nfirst\nsecond\n"}],
                "isError": False,
            },
        }
    finally:
        connection.close()
        session.delete()


# --- the session limit (--max-sessions) -------------------------------------------------


async def test_an_initialize_beyond_the_session_limit_gets_503_naming_it(tmp_path: Path) -> None:
    with http_server("--max-sessions", "3", workdir=tmp_path) as server:
        async with sdk_http_client(server.url) as one, http_client(server.url) as two:
            three = RawSession(server.url)
            status, headers, body = initialize(server)
            assert status == 503
            assert "mcp-session-id" not in headers  # no session was made
            assert json.loads(body) == {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32603,
                    "message": "Too many open sessions: this server keeps at most 3 "
                    "(--max-sessions); end a session (DELETE) or wait for an idle one to expire",
                },
            }
            # The official client is told so, and the open sessions go on.
            with pytest.raises(Exception) as refused:  # noqa: PT011 - a group, checked below
                async with sdk_http_client(server.url):
                    pass
            assert refused.group_contains(MCPError, match=r"at most 3 \(--max-sessions\)")
            assert (await one.list_tools()).tools
            assert (await two.list_tools()) is not None
            # A session ended makes room for another.
            assert three.delete() == 200
            status, headers, _ = initialize(server)
            assert status == 200
            assert headers["mcp-session-id"]


# --- a client that does not read ------------------------------------------------------------


def send_queue(local_port: int, remote_port: int) -> int | None:
    """Bytes the kernel holds to send on this machine's TCP socket from ``local_port`` to
    ``remote_port`` (IPv4), from /proc/net/tcp; None if there is no such socket."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if int(local.split(":")[1], 16) == local_port and int(remote.split(":")[1], 16) == (
            remote_port
        ):
            return int(fields[4].split(":")[0], 16)
    return None


async def test_an_unread_progress_stream_does_not_stall_its_session(
    open_server: HttpServer,
) -> None:
    """A call streams 30 KB lines as progress to a client that never reads them. Once the
    server cannot send it any more (the kernel's queue toward it stays full), the
    session's other calls are still answered at once."""
    session = RawSession(open_server.url)
    flood = "yes \"$(printf '%30000s' '' | tr ' ' x)\""
    call = bash_with_progress(50, flood)
    body = json.dumps(call).encode()
    unread = socket.socket()
    unread.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        unread.connect(("127.0.0.1", open_server.port))
        headers = "".join(f"{k}: {v}\r\n" for k, v in session.headers.items())
        unread.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{open_server.port}\r\n{headers}"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        # Wait until the server's queue toward the reader is full: it holds much
        # more than the reader takes, and has stopped growing.
        client_port = unread.getsockname()[1]
        deadline = time.monotonic() + 120
        sizes: list[int] = []
        while len(sizes) < 10 or sizes[-1] < 1 << 16 or len(set(sizes[-10:])) > 1:
            assert time.monotonic() < deadline, f"the queue never filled: {sizes[-10:]}"
            await anyio.sleep(0.1)
            sizes.append(send_queue(open_server.port, client_port) or 0)
        for _ in range(3):
            started = time.monotonic()
            with anyio.fail_after(20):
                text = await anyio.to_thread.run_sync(
                    lambda: session.text("bash", command="echo other")
                )
            assert text == "exit_code: 0\n\nstdout:\nother\n"
            assert time.monotonic() - started < 10
    finally:
        unread.close()
        assert session.delete() == 200


# --- the Host check (DNS rebinding without an Origin) ---------------------------------------


def post_with_hosts(
    server: HttpServer, hosts: list[str], authorization: str | None = None
) -> tuple[int, bytes]:
    """An initialize whose request carries exactly these Host headers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True)
        for host in hosts:
            connection.putheader("Host", host)
        for name, value in MCP_HEADERS.items():
            connection.putheader(name, value)
        if authorization:
            connection.putheader("Authorization", authorization)
        body = json.dumps(INITIALIZE).encode()
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:8080",
        "127.0.0.1:{port}",
        "127.1.2.3",
        "[::1]:{port}",
        "LOCALHOST:{port}",
        "boris.example:{port}",  # --allow-host boris.example: any port
        "port.example:8443",  # --allow-host port.example:8443: that port
    ],
)
def test_loopback_and_allowed_hosts_are_served_without_a_token(
    open_server: HttpServer, host: str
) -> None:
    status, body = post_with_hosts(open_server, [host.format(port=open_server.port)])
    assert status == 200, body


@pytest.mark.parametrize(
    "hosts",
    [
        ["evil.example"],
        ["evil.example:{port}"],
        ["localhost.evil.example:{port}"],
        ["127.0.0.1.evil.example"],
        ["port.example:8444"],
        ["10.0.0.1:{port}"],
    ],
)
def test_a_foreign_host_is_refused_without_a_token(
    open_server: HttpServer, hosts: list[str]
) -> None:
    """A page on a name of the attacker's that now resolves to 127.0.0.1 (DNS rebinding)
    sends no Origin, but its Host header names the attacker's host."""
    status, body = post_with_hosts(open_server, [h.format(port=open_server.port) for h in hosts])
    assert (status, json.loads(body)) == (421, {"error": "forbidden host"})


def test_with_a_token_the_token_decides_over_the_host(token_server: HttpServer) -> None:
    assert post_with_hosts(token_server, ["evil.example"])[0] == 401
    status, _ = post_with_hosts(token_server, ["evil.example"], f"Bearer {TOKEN}")
    assert status == 200


def test_the_host_check_only_guards_mcp(open_server: HttpServer) -> None:
    status, _, _ = http_request("GET", f"{open_server.base}/health", {"Host": "evil.example"})
    assert status == 200


@pytest.mark.parametrize(
    ("bound", "host", "allowed"),
    [
        ("192.0.2.7", "192.0.2.7:8080", True),
        ("boris.lan", "BORIS.lan:80", True),
        ("fd00::7", "[fd00::7]:8080", True),
        ("192.0.2.7", "192.0.2.8:8080", False),
        ("0.0.0.0", "192.0.2.7:8080", False),  # every interface: no name follows from it
        ("::", "[fd00::7]:8080", False),
    ],
)
def test_the_bound_address_is_an_allowed_host(bound: str, host: str, allowed: bool) -> None:
    """Bound to one address or name beyond loopback (with --allow-unauthenticated), Boris
    answers requests naming it; bound to every interface, only --allow-host adds names.
    (Tests bind loopback only: the rule is checked on its own.)"""
    assert HostNames([], bound).allow(host) is allowed
