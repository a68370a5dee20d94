"""The server process as clients see it: instructions and identity over each transport,
STDIO hygiene, logs, signals. How the app answers bad arguments is tested in process:
tests/test_app.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    BORIS,
    DEFAULT_TOOLS,
    INITIALIZE,
    VERSION,
    RawStdio,
    http_client,
    http_server,
    raw_stdio,
    sdk_stdio_client,
    server_env,
)

pytestmark = pytest.mark.anyio


async def test_instructions_over_stdio(tmp_path: Path) -> None:
    workdir = Path(os.path.realpath(tmp_path))
    os.mkdir(workdir / "a")
    os.mkdir(workdir / "b")
    flags = ["--allow-dir", str(workdir / "a"), "--allow-dir", str(workdir / "b")]
    flags += ["--deny-dir", "**/.env", "--deny-dir", "**/*.{pem,key}"]
    async with sdk_stdio_client(*flags, workdir=workdir) as client:
        assert client.instructions == (
            f"Working directory: {workdir}\n"
            f"Allowed directories: {workdir / 'a'}, {workdir / 'b'}\n"
            "Denied patterns: **/.env, **/*.{pem,key}"
        )
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("boris", VERSION)


async def test_instructions_over_http_minimal(tmp_path: Path) -> None:
    workdir = os.path.realpath(tmp_path)
    with http_server(workdir=workdir) as server:
        async with http_client(server.url) as client:
            result = client.initialize_result
            assert result is not None
            assert result.instructions == f"Working directory: {workdir}"
            assert result.server_info.name == "boris"


# --- raw STDIO ------------------------------------------------------------------------


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawStdio]:
    with raw_stdio("--log-level", "debug", workdir=tmp_path) as server:
        yield server


def test_stdio_answers_malformed_lines_and_keeps_serving(raw: RawStdio) -> None:
    raw.initialize()
    raw.send(b"this is not json")
    assert raw.receive() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: expected ident at line 1 column 2"},
    }
    raw.send(b'{"jsonrpc": "2.0", "id": "x"}')
    assert raw.receive() == {
        "jsonrpc": "2.0",
        "id": "x",
        "error": {"code": -32600, "message": "Invalid Request"},
    }
    raw.send(b"[1, 2]")
    assert raw.receive()["error"]["code"] == -32600
    raw.send({"jsonrpc": "2.0", "id": 5, "method": "no/such/method"})
    assert raw.receive() == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {"code": -32601, "message": "Method not found", "data": "no/such/method"},
    }
    raw.send({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
    assert len(raw.receive()["result"]["tools"]) == len(DEFAULT_TOOLS)


def test_stdio_eof_exits_cleanly_with_logs_only_on_stderr(raw: RawStdio) -> None:
    raw.initialize()
    raw.stdin.close()
    # Initialize is answered while the app loads (boris.early): it loads, then ends.
    assert raw.proc.wait(timeout=60) == 0
    assert raw.rest() == b""  # nothing but protocol on stdout
    assert "boris" in raw.stderr()  # debug logs went to stderr


def test_json_logs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path), "--log-format", "json"],
        input=json.dumps(INITIALIZE).encode() + b"\n",
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    lines = proc.stderr.decode().splitlines()
    assert lines
    for line in lines:
        entry = json.loads(line)
        assert set(entry) >= {"time", "level", "logger", "msg"}
    assert any(json.loads(line)["msg"].startswith("boris ") for line in lines)
    assert json.loads(proc.stdout.decode().splitlines()[0])["id"] == 1


def test_log_level_error_is_quiet(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path), "--log-level", "error"],
        input=json.dumps(INITIALIZE).encode() + b"\n",
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stderr == b""


def test_stdio_ignores_token_flags(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path), "--generate-token"],
        input=json.dumps(INITIALIZE).encode() + b"\n",
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    assert proc.returncode == 0
    assert b"bearer token" not in proc.stderr
    assert (
        json.loads(proc.stdout.decode().splitlines()[0])["result"]["serverInfo"]["name"] == "boris"
    )


def test_bad_arguments_are_not_server_warnings(tmp_path: Path) -> None:
    # The client gets [INVALID_INPUT]; the server's log stays quiet about it at info level.
    with raw_stdio(workdir=tmp_path) as raw:
        raw.initialize()
        assert raw.call(2, "view", {"path": 3})["isError"] is True
        raw.stdin.close()
        raw.proc.wait(timeout=20)
        log = raw.stderr()
    assert "WARNING" not in log
    assert "Invalid arguments" not in log


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_stdio_exits_on_signals(raw: RawStdio, signum: int) -> None:
    # SIGTERM alone would kill the process without cleanup, SIGINT would wait for stdin
    # to close: both must end the session and exit promptly while stdin stays open.
    raw.initialize()
    raw.proc.send_signal(signum)
    assert raw.proc.wait(timeout=5) == 128 + signum


#: The server as ``python -m boris`` runs it, reporting at exit (on stderr, after a
#: marker) which modules of the given top-level packages it had loaded.
_REPORTING_SERVER = """
import atexit, json, runpy, sys
roots = set(sys.argv.pop(1).split(","))
def report():
    loaded = sorted(m for m in sys.modules if any(m == r or m.startswith(r + ".") for r in roots))
    print("LOADED " + json.dumps(loaded), file=sys.stderr)
atexit.register(report)
sys.argv[0] = "boris"
runpy.run_module("boris", run_name="__main__")
"""


def test_serving_leaves_unused_libraries_unloaded(tmp_path: Path) -> None:
    """A server never loads what serving does not use: the MCP SDK's client side, the
    key-value store package fastmcp would keep per-session state in (Boris sets none),
    or nbformat and its validators before a notebook is read, not even after a
    tools/list and tool calls (a view of a file that is not a notebook among them)."""
    (tmp_path / "a.txt").write_text("a\n")
    messages = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": "echo hi"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "view", "arguments": {"path": "a.txt"}},
        },
        # The first tools/list may be answered while the app loads (boris.early); this
        # one, after calls, is the app's.
        {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
    ]
    libraries = "key_value,beartype,nbformat,fastjsonschema,jsonschema,traitlets"
    argv = [libraries, "--transport", "stdio", "--workdir", str(tmp_path)]
    proc = subprocess.Popen(
        [BORIS[0], "-c", _REPORTING_SERVER, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    try:
        assert proc.stdin is not None
        assert proc.stdout is not None
        for message in messages:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        replies: dict[int, Any] = {}
        while len(replies) < 5:  # each reply is read before stdin closes, which ends it
            reply = json.loads(proc.stdout.readline())
            replies[reply["id"]] = reply
        assert replies[3]["result"]["content"][0]["text"] == "exit_code: 0\n\nstdout:\nhi\n"
        assert replies[4]["result"]["content"][0]["text"] == "1\ta\n"
        _, errors = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (report,) = [line for line in errors.decode().splitlines() if line.startswith("LOADED ")]
    assert json.loads(report.removeprefix("LOADED ")) == []
