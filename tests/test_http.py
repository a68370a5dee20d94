"""The HTTP surface (SPEC §2): /health, CORS, bearer auth, the origin check, the session guard."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from boris.server import is_loopback_origin
from tests.support import (
    BORIS,
    INITIALIZE,
    MCP_HEADERS,
    HttpServer,
    free_port,
    http_client,
    http_request,
    http_server,
    json_body,
    sdk_http_client,
    server_env,
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
    with http_server("--allow-origin", "https://app.example.com/", workdir=workdir) as server:
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


def test_stateless_protocol_is_refused(open_server: HttpServer) -> None:
    # Sessions need the handshake: the stateless revision gets -32022 naming the
    # handshake versions, so auto-negotiating clients fall back to initialize.
    discover = {"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {}}
    status, _, body = http_request(
        "POST",
        open_server.url,
        {**MCP_HEADERS, "MCP-Protocol-Version": "2026-07-28"},
        json.dumps(discover).encode(),
    )
    assert status == 400
    error = json.loads(body)["error"]
    assert error["code"] == -32022
    assert error["message"] == "Unsupported protocol version"
    assert error["data"] == {
        "supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"],
        "requested": "2026-07-28",
    }


async def test_default_mode_clients_get_a_session(open_server: HttpServer) -> None:
    async with http_client(open_server.url) as client:
        result = client.initialize_result
        assert result is not None
        assert result.protocol_version == "2025-11-25"


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


def test_warning_when_reachable_without_a_token(open_server: HttpServer) -> None:
    # A name that cannot be bound: the warning comes before the bind, and nothing
    # ever listens beyond loopback.
    done = subprocess.run(
        [*BORIS, "--host", "boris-test.invalid", "--port", str(free_port())],
        capture_output=True,
        text=True,
        env=server_env(),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode != 0
    assert "serving HTTP on boris-test.invalid without a token: anyone who can reach" in done.stderr
    # Loopback, as every test server binds, is not reachable from elsewhere: no warning.
    assert "without a token" not in open_server.stderr()
