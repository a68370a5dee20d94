"""A spawned STDIO server answers its client's first messages while the app loads, with
the app's answers, and then serves everything else as it always has (boris.early)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from boris.early.generate import initialize, notification, request
from tests.support import BORIS, DEFAULT_TOOLS, RawStdio, raw_stdio, server_env
from tests.support.early import asked_twice

#: Each protocol, and settings that change the answers (tests/early/test_wire.py compares
#: the two paths on every setting and version, in this process).
CASES = [
    ([], "handshake", "2025-11-25"),
    ([], "2026-07-28", "2026-07-28"),
    (["--anthropic-compat", "--disable-tools", "task_stop"], "handshake", "2024-11-05"),
    (
        ["--disable-tools", "bash", "--require-view-before-edit", "false"],
        "2026-07-28",
        "2026-07-28",
    ),
]


def replies_to(server: RawStdio, lines: list[bytes], count: int) -> dict[int, Any]:
    """The replies, by id, to ``lines`` sent at once, ``count`` requests among them."""
    server.stdin.write(b"".join(line + b"\n" for line in lines))
    server.stdin.flush()
    replies: dict[int, Any] = {}
    while len(replies) < count:
        message = server.receive()
        replies[message["id"]] = message
    return replies


@pytest.mark.parametrize(("flags", "era", "version"), CASES, ids=str)
def test_the_first_answers_come_while_the_app_loads_and_are_its(
    flags: list[str], era: str, version: str, tmp_path: Path
) -> None:
    with raw_stdio(*flags, "--log-level", "debug", workdir=tmp_path) as server:
        pairs = asked_twice(server, era, version)
        server.stdin.close()
        assert server.proc.wait(timeout=30) == 0
        log = server.stderr()
    for first, again in pairs:
        assert first == again
    early = "initialize, notifications/initialized, tools/list"
    if era != "handshake":
        early = "server/discover, tools/list"
    assert "answered before the app was ready" in log
    assert log.split("answered before the app was ready")[1].split("\n")[0].endswith(f": {early}")
    assert "ERROR" not in log


def test_a_call_among_the_first_messages_waits_for_the_app_and_all_are_answered(
    tmp_path: Path,
) -> None:
    call = {"name": "bash", "arguments": {"command": "echo hi"}}
    lines = [
        initialize(1, "2025-11-25"),
        notification("notifications/initialized"),
        request(2, "tools/call", call),
        request(3, "tools/list"),
    ]
    with raw_stdio(workdir=tmp_path) as server:
        replies = replies_to(server, lines, 3)
        server.stdin.close()
        assert server.proc.wait(timeout=30) == 0
    assert replies[2]["result"]["content"][0]["text"] == "exit_code: 0\n\nstdout:\nhi\n"
    assert [tool["name"] for tool in replies[3]["result"]["tools"]] == DEFAULT_TOOLS


def test_input_that_ends_while_the_app_loads_is_answered_and_the_server_exits(
    tmp_path: Path,
) -> None:
    lines = [initialize(1, "2025-11-25"), notification("notifications/initialized")]
    lines.append(request(2, "tools/list"))
    done = subprocess.run(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path)],
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 0
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2]
    assert len(replies[1]["result"]["tools"]) == len(DEFAULT_TOOLS)


def test_a_token_file_is_read_as_before_and_reaches_no_command(tmp_path: Path) -> None:
    """A STDIO server given ``--token-file`` answers early all the same; its commands see
    neither the token nor where it is kept. A file that holds no token is refused before
    anything is answered, with the message of the full settings, exit status 2."""
    token = "early-token-7f3a"
    secret = tmp_path / "secret"
    secret.write_text(f"{token}\n")
    call = {"name": "bash", "arguments": {"command": "env; echo end"}}
    lines = [
        initialize(1, "2025-11-25"),
        notification("notifications/initialized"),
        request(2, "tools/list"),
        request(3, "tools/call", call),
    ]
    env = {"BORIS_TOKEN_FILE": str(secret)}
    with raw_stdio("--log-level", "debug", workdir=tmp_path, env=env) as server:
        replies = replies_to(server, lines, 3)
        server.stdin.close()
        assert server.proc.wait(timeout=30) == 0
        log = server.stderr()
    assert "answered before the app was ready" in log
    text = replies[3]["result"]["content"][0]["text"]
    assert text.endswith("end\n"), text
    assert token not in text
    assert "BORIS_TOKEN" not in text
    assert token not in log

    empty = tmp_path / "empty"
    empty.write_text("\n")
    done = subprocess.run(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path), "--token-file", str(empty)],
        input=b"".join(line + b"\n" for line in lines[:1]),
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert f"--token-file {empty} is empty" in done.stderr.decode()


def nested(request_id: int, depth: int) -> bytes:
    """A tools/list request whose parameters hold lists nested ``depth`` deep."""
    return (
        b'{"jsonrpc": "2.0", "id": %d, "method": "tools/list", "params": {"deep": ' % request_id
        + b"[" * depth
        + b"]" * depth
        + b"}}"
    )


@pytest.mark.parametrize("depth", [100, 500, 990, 5_000, 100_000])
@pytest.mark.parametrize("when", ["first", "after initialize"])
def test_a_deeply_nested_line_gets_the_apps_reply_and_the_server_serves_on(
    when: str, depth: int, tmp_path: Path
) -> None:
    """However deep a line nests, sent while the app loads it gets the reply the loaded
    app gives the same line (sent again once it has loaded), and the server goes on: a
    line nested a few hundred deep used to end it with a RecursionError."""
    line = nested(5, depth)
    opening = [initialize(1, "2025-11-25"), notification("notifications/initialized")]
    with raw_stdio(workdir=tmp_path) as server:
        sent = [line] if when == "first" else [*opening, line]
        server.stdin.write(b"".join(item + b"\n" for item in sent))
        server.stdin.flush()
        if when != "first":
            assert server.reply(1)["result"]["serverInfo"]["name"] == "boris"
        early = server.receive()
        server.send(line)  # the app has loaded: it answered the line before
        assert server.receive() == early
        if depth >= 500:  # beyond what any parser here reads: refused, with its id if seen
            assert early["error"]["code"] in (-32700, -32600)
            assert early["id"] == (5 if early["error"]["code"] == -32600 else None)
        if when == "first":
            server.initialize()
        assert len(server.call(6, "glob", {"pattern": "*"})["content"]) == 1
        server.stdin.close()
        assert server.proc.wait(timeout=30) == 0
        assert "Traceback" not in server.stderr()
