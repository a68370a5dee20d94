"""The origin check, proven in a real browser (README "Using it over HTTP").

Headless Chromium opens a page served from another origin than the server's, whose script
tries what a hostile web page can against a local Boris without a token: JSON and
text/plain fetches (text/plain and form posts need no CORS preflight) and form posts of an
initialize and a tools/call of bash. The server must refuse every one (no session is
created, the command never runs) and the page must see them fail. A page on a loopback
origin, or on one given with --allow-origin, is a client like any other: it initializes,
reads Mcp-Session-Id (CORS exposes it) and runs a command. With --token the token is the
authority: a foreign page holding it is served, one without it is refused.

Every page is served from this process (a thread per origin); the server and Chromium are
processes, ended by their pids.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import HttpServer, http_server

PAGE = (Path(__file__).parent / "browser" / "page.html").read_bytes()
FOREIGN_HOST = "127.0.0.2"  # loopback, yet another origin than the server's
ALLOWED_HOST = "127.0.0.3"
CREATED_SESSION = "Created new transport with session ID"
# The access log (each request's status) is logged at debug level.
LOGGED = ("--log-level", "debug")
ACCESS_LINE = re.compile(r'"POST /mcp HTTP/1\.1" (\d{3})')


def chromium_problem() -> str | None:
    """Why Chromium cannot run here, or None."""
    binary = shutil.which("chromium")
    if binary is None:
        return "chromium is not installed (Debian package `chromium`; .ci/run installs it)"
    try:
        done = subprocess.run(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "about:blank"],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"chromium cannot run: {exc}"
    if b"<html>" not in done.stdout:
        return f"chromium cannot run: exit {done.returncode}, {done.stderr[-500:]!r}"
    return None


@pytest.fixture(scope="module", autouse=True)
def chromium() -> None:
    """Skip (saying why) only where Chromium cannot run at all."""
    problem = chromium_problem()
    if problem is not None:
        print(f"skipping the browser origin tests: {problem}")
        pytest.skip(problem)


class Origin:
    """A page server on ``host``: serves the page, collects what the page reports."""

    def __init__(self, host: str) -> None:
        reports: queue.Queue[dict[str, Any]] = queue.Queue()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                reports.put(json.loads(body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.reports = reports
        self.server = http.server.ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def origin(host: str) -> Iterator[Origin]:
    served = Origin(host)
    try:
        yield served
    finally:
        served.close()


def visit(page: Origin, url: str, within: float = 60) -> dict[str, Any]:
    """Open ``url`` in headless Chromium and return what the page reports."""
    with tempfile.TemporaryDirectory(prefix="boris-chromium-") as profile:
        browser = subprocess.Popen(
            [
                "chromium",
                "--headless",
                "--no-sandbox",  # needed as root, and where user namespaces are unavailable
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                f"--user-data-dir={profile}",
                url,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its helper processes share its group
        )
        try:
            return page.reports.get(timeout=within)
        finally:
            end_group(browser)


def end_group(proc: subprocess.Popen[bytes]) -> None:
    """End the process group led by ``proc`` (its own pid): SIGTERM, then SIGKILL."""
    for signum, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # helpers that outlived the browser


def page_url(
    page: Origin, host: str, server: HttpServer, mode: str, marker: Path, token: str = ""
) -> str:
    query = {"mcp": server.url, "mode": mode, "marker": str(marker)}
    if token:
        query["token"] = token
    return f"http://{host}:{page.port}/page.html?{urllib.parse.urlencode(query)}"


def mcp_statuses(server: HttpServer) -> list[int]:
    """The status of every POST /mcp the server answered, from its access log."""
    return [int(status) for status in ACCESS_LINE.findall(server.stderr())]


def assert_refused(findings: dict[str, Any], status: int, error: str) -> None:
    """What the page saw of each attempt: refusals it can read, opaque replies, and form
    posts whose reply it cannot read."""
    for name in ("json_initialize", "json_call", "plain_initialize", "plain_call"):
        seen = findings[name]
        assert (seen["status"], seen["session"]) == (status, None), (name, findings)
        assert json.loads(seen["text"]) == {"error": error}, (name, findings)
    for name in ("no_cors_initialize", "no_cors_call"):
        assert findings[name]["type"] == "opaque", (name, findings)
    for name in ("form_initialize", "form_call"):
        assert findings[name] == {"submitted": True, "readable": None}, (name, findings)


def assert_served(findings: dict[str, Any], marker: Path) -> None:
    initialize, call = findings["initialize"], findings["call"]
    assert initialize["status"] == 200, findings
    assert re.fullmatch(r"[0-9a-f]{32}", initialize["session"]), findings
    assert findings["initialized"]["status"] == 202, findings
    assert call["status"] == 200, findings
    assert '"text":"exit_code: 0\\n"' in call["text"], findings
    assert marker.exists()


def test_foreign_origin_is_refused_and_allowed_origins_are_served(tmp_path: Path) -> None:
    with (
        origin(FOREIGN_HOST) as foreign,
        origin("127.0.0.1") as local,
        origin(ALLOWED_HOST) as allowed,
    ):
        allowed_origin = f"http://{ALLOWED_HOST}:{allowed.port}"
        with http_server("--allow-origin", allowed_origin, *LOGGED, workdir=tmp_path) as server:
            marker = tmp_path / "attacked"
            url = page_url(foreign, FOREIGN_HOST, server, "attack", marker)
            findings = visit(foreign, url)
            assert findings["origin"] == f"http://{FOREIGN_HOST}:{foreign.port}"
            assert_refused(findings, 403, "forbidden origin")
            # Server side: every request refused, no session, the command never ran.
            assert mcp_statuses(server) == [403] * 8, server.stderr()
            assert CREATED_SESSION not in server.stderr()
            assert not marker.exists()

            for page, host in ((local, "localhost"), (allowed, ALLOWED_HOST)):
                marker = tmp_path / f"served-{host}"
                findings = visit(page, page_url(page, host, server, "client", marker))
                assert findings["origin"] == f"http://{host}:{page.port}"
                assert_served(findings, marker)
            assert server.stderr().count(CREATED_SESSION) == 2


def test_with_a_token_the_token_is_the_authority(tmp_path: Path) -> None:
    token = "s3cret-token"
    with (
        origin(FOREIGN_HOST) as foreign,
        http_server("--token", token, *LOGGED, workdir=tmp_path) as server,
    ):
        marker = tmp_path / "attacked"
        findings = visit(foreign, page_url(foreign, FOREIGN_HOST, server, "attack", marker))
        assert_refused(findings, 401, "unauthorized")
        assert mcp_statuses(server) == [401] * 8, server.stderr()
        assert CREATED_SESSION not in server.stderr()
        assert not marker.exists()

        marker = tmp_path / "served"
        url = page_url(foreign, FOREIGN_HOST, server, "client", marker, token=token)
        assert_served(visit(foreign, url), marker)
