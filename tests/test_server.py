"""The server as clients see it: instructions, identity, argument errors, STDIO hygiene, logs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from boris import __version__
from tests.support import (
    BORIS,
    INITIALIZE,
    error_text,
    http_client,
    http_server,
    sdk_stdio_client,
    server_env,
    stdio_client,
    stop_process,
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
        assert (client.server_info.name, client.server_info.version) == ("boris", __version__)


async def test_instructions_over_http_minimal(tmp_path: Path) -> None:
    workdir = os.path.realpath(tmp_path)
    with http_server(workdir=workdir) as server:
        async with http_client(server.url) as client:
            result = client.initialize_result
            assert result is not None
            assert result.instructions == f"Working directory: {workdir}"
            assert result.server_info.name == "boris"


async def test_argument_errors_are_invalid_input_results(tmp_path: Path) -> None:
    async with stdio_client(workdir=tmp_path) as client:

        async def call(name: str, arguments: dict[str, Any]) -> str:
            return error_text(await client.call_tool(name, arguments, raise_on_error=False))

        assert (
            await call("view", {"path": 3})
            == "[INVALID_INPUT] path: Input should be a valid string"
        )
        assert await call("view", {}) == "[INVALID_INPUT] path: missing required argument"
        assert (
            await call("view", {"path": "x", "bogus": 1})
            == "[INVALID_INPUT] bogus: unknown argument"
        )
        assert await call("nope", {}) == (
            "[INVALID_INPUT] unknown tool 'nope'; available: "
            "bash, task_output, view, str_replace, create_file, grep, glob"
        )
        # The server is still serving after all of that.
        assert len(await client.list_tools()) == 7


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "bash",
            {"command": "true", "timeout": "1000"},
            "timeout.int: Input should be a valid integer; timeout.none: Input should be null",
        ),
        (
            "bash",
            {"command": "true", "timeout": 1000.0},
            "timeout.int: Input should be a valid integer; timeout.none: Input should be null",
        ),
        (
            "bash",
            {"command": "true", "run_in_background": 1},
            "run_in_background: Input should be a valid boolean",
        ),
        (
            "bash",
            {"command": "true", "run_in_background": "true"},
            "run_in_background: Input should be a valid boolean",
        ),
        (
            "grep",
            {"pattern": "x", "line_numbers": "false"},
            "line_numbers: Input should be a valid boolean",
        ),
        (
            "grep",
            {"pattern": "x", "head_limit": "3"},
            "head_limit: Input should be a valid integer",
        ),
        ("grep", {"pattern": "x", "-B": "2"}, "-B: Input should be a valid integer"),
        (
            "view",
            {"path": "x", "view_range": ["1", 2]},
            "view_range.0: Input should be a valid integer",
        ),
        (
            "view",
            {"path": "x", "view_range": [1.0, 2]},
            "view_range.0: Input should be a valid integer",
        ),
        ("view", {"path": None}, "path: Input should be a valid string"),
        ("glob", {"pattern": ["a"]}, "pattern: Input should be a valid string"),
    ],
)
async def test_arguments_are_not_coerced(
    client: Any, tool: str, arguments: dict[str, Any], message: str
) -> None:
    # A value of another JSON type is the client's mistake: "10" is not taken for 10,
    # nor 1 for true (README).
    result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert error_text(result) == f"[INVALID_INPUT] {message}"


# --- raw STDIO ------------------------------------------------------------------------


def send(proc: subprocess.Popen[bytes], message: dict[str, Any] | bytes) -> None:
    assert proc.stdin is not None
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    proc.stdin.write(data + b"\n")
    proc.stdin.flush()


def receive(stdout: IO[bytes]) -> dict[str, Any]:
    line = stdout.readline()
    assert line, "server closed stdout"
    message: dict[str, Any] = json.loads(line)  # every stdout line is a JSON-RPC message
    return message


@pytest.fixture
def raw_stdio(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path), "--log-level", "debug"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    try:
        yield proc
    finally:
        stop_process(proc)


def test_stdio_answers_malformed_lines_and_keeps_serving(
    raw_stdio: subprocess.Popen[bytes],
) -> None:
    assert raw_stdio.stdout is not None
    send(raw_stdio, INITIALIZE)
    assert receive(raw_stdio.stdout)["result"]["serverInfo"]["name"] == "boris"
    send(raw_stdio, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(raw_stdio, b"this is not json")
    assert receive(raw_stdio.stdout) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    send(raw_stdio, b'{"jsonrpc": "2.0", "id": "x"}')
    assert receive(raw_stdio.stdout) == {
        "jsonrpc": "2.0",
        "id": "x",
        "error": {"code": -32600, "message": "Invalid Request"},
    }
    send(raw_stdio, b"[1, 2]")
    assert receive(raw_stdio.stdout)["error"]["code"] == -32600
    send(raw_stdio, {"jsonrpc": "2.0", "id": 5, "method": "no/such/method"})
    assert receive(raw_stdio.stdout) == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {"code": -32601, "message": "Method not found", "data": "no/such/method"},
    }
    send(raw_stdio, {"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
    assert len(receive(raw_stdio.stdout)["result"]["tools"]) == 7


def test_stdio_eof_exits_cleanly_with_logs_only_on_stderr(
    raw_stdio: subprocess.Popen[bytes],
) -> None:
    assert raw_stdio.stdout is not None
    assert raw_stdio.stdin is not None
    send(raw_stdio, INITIALIZE)
    receive(raw_stdio.stdout)
    raw_stdio.stdin.close()
    assert raw_stdio.wait(timeout=20) == 0
    assert raw_stdio.stdout.read() == b""  # nothing but protocol on stdout
    assert raw_stdio.stderr is not None
    assert b"boris" in raw_stdio.stderr.read()  # debug logs went to stderr


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
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "view", "arguments": {"path": 3}},
    }
    messages: list[dict[str, Any]] = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        call,
    ]
    proc = subprocess.Popen(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    try:
        assert proc.stdout is not None
        for message in messages:
            send(proc, message)
        reply = receive(proc.stdout)
        while reply.get("id") != 2:
            reply = receive(proc.stdout)
        assert reply["result"]["isError"] is True
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=20)
    assert proc.stderr is not None
    log = proc.stderr.read().decode()
    assert "WARNING" not in log
    assert "Invalid arguments" not in log


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_stdio_exits_on_signals(raw_stdio: subprocess.Popen[bytes], signum: int) -> None:
    # SIGTERM alone would kill the process without cleanup, SIGINT would wait for stdin
    # to close: both must end the session and exit promptly while stdin stays open.
    assert raw_stdio.stdout is not None
    send(raw_stdio, INITIALIZE)
    receive(raw_stdio.stdout)
    raw_stdio.send_signal(signum)
    assert raw_stdio.wait(timeout=5) == 128 + signum
