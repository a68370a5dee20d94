"""str_replace where the server process is the point: other clients and transports, the
server's own memory, and lone surrogates as they arrive on the wire.

Everything else about str_replace is tested in process: tests/tools/test_str_replace.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    BORIS,
    INITIALIZE,
    MCP_HEADERS,
    error_text,
    http_client,
    http_request,
    http_server,
    json_body,
    ok_text,
    sdk_stdio_client,
    server_env,
    stdio_client,
    stop_process,
    text_of,
)
from tests.support.calls import replace
from tests.support.files import child_pid, memory_kib, peak_start
from tests.support.pids import costing_at_most

pytestmark = pytest.mark.anyio


async def test_through_the_official_sdk_client(root: Path, case: Path) -> None:
    path = case / "f.txt"
    path.write_text("one\ntwo\n")
    async with sdk_stdio_client(workdir=root) as sdk:
        await sdk.call_tool("view", {"path": str(path)})
        result = await sdk.call_tool(
            "str_replace", {"path": str(path), "old_str": "two", "new_str": "2"}
        )
    assert result.is_error is False
    assert text_of(result) == f"Replaced in {path}\n\n1\tone\n2\t2\n"


async def test_over_http(root: Path, case: Path) -> None:
    path = case / "f.txt"
    path.write_text("one\ntwo\n")
    with http_server(workdir=root) as server:
        async with http_client(server.url) as client:
            await client.call_tool("view", {"path": str(path)})
            result = await replace(client, path, "one", new_str="1")
    assert ok_text(result) == f"Replaced in {path}\n\n1\t1\n2\ttwo\n"


async def test_not_found_memory_stays_proportional_to_the_file(root: Path) -> None:
    """Looking for a near miss in a 10 MB file of two million short non-ASCII lines
    grows the server's peak memory by less than four times the file's size."""
    work = root / "memory_case"
    work.mkdir()
    content = "".join(f"€{n % 10}\n" for n in range(2_000_000)).encode()
    (work / "big.txt").write_bytes(content)
    (work / "small.txt").write_bytes(b"x\n")
    async with stdio_client(workdir=work) as client:
        pid = child_pid(str(work))
        await client.call_tool("view", {"path": "big.txt", "view_range": [1, 1]})
        await client.call_tool("view", {"path": "small.txt"})
        await replace(client, "small.txt", "y", new_str="z")  # warm up the miss path
        before = peak_start(pid)
        async with costing_at_most(pid, cpu=5):
            result = await replace(client, "big.txt", "€1 €2 €3", new_str="x")
        peak = memory_kib(pid, "VmHWM")
    assert error_text(result).startswith("[STR_REPLACE_NOT_FOUND] ")
    assert (peak - before) * 1024 < 4 * len(content), (before, peak)


@pytest.mark.parametrize("tool", ["str_replace", "multi_edit"])
async def test_replace_all_growth_is_refused_before_it_is_built(root: Path, tool: str) -> None:
    """A replace_all whose result would pass --max-file-size is refused from the count of
    occurrences: 20,000 one-byte matches each replaced by 50,000 bytes (a 1 GB result)
    raise the server's peak memory by less than 10 MB."""
    work = root / f"growth_{tool}"
    work.mkdir()
    (work / "big.txt").write_bytes(b"a" * 20_000)
    edit = {"old_str": "a", "new_str": "b" * 50_000, "replace_all": True}
    arguments = (
        {"path": "big.txt", **edit}
        if tool == "str_replace"
        else {"path": "big.txt", "edits": [edit]}
    )
    async with stdio_client(workdir=work) as client:
        pid = child_pid(str(work))
        await client.call_tool("view", {"path": "big.txt"})
        before = peak_start(pid)
        result = await client.call_tool(tool, arguments, raise_on_error=False)
        peak = memory_kib(pid, "VmHWM")
    prefix = "" if tool == "str_replace" else "edit 1 of 1: "
    assert error_text(result) == (
        f"[FILE_TOO_LARGE] {prefix}the edited file would be 953.7 MB (1000000000 bytes), over "
        "the 10.0 MB limit set by --max-file-size"
    )
    assert (work / "big.txt").read_bytes() == b"a" * 20_000
    assert (peak - before) * 1024 < 10 * 1024 * 1024, (before, peak)


# --- lone surrogates -------------------------------------------------------------------------

# JSON can spell a lone UTF-16 surrogate ("\ud800"), which is not Unicode text and has
# no UTF-8 form. Each call puts one in a different text argument.
SURROGATE_CALLS = [
    ("str_replace", {"path": "f.txt", "old_str": "\ud800", "new_str": "x"}, "old_str"),
    ("str_replace", {"path": "f.txt", "old_str": "keep", "new_str": "a\udfffb"}, "new_str"),
    ("create_file", {"path": "f.txt", "content": "\udc00"}, "content"),
    ("create_file", {"path": "new.txt", "content": "x\ud83d"}, "content"),
]


SURROGATE_ERROR = (
    "[INVALID_INPUT] {}: contains a lone UTF-16 surrogate, which is not valid Unicode text"
)


def _refused(reply: dict[str, Any], number: int, argument: str) -> None:
    assert reply["id"] == number
    result = reply["result"]
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": SURROGATE_ERROR.format(argument)}]


def test_lone_surrogates_change_nothing_over_stdio(tmp_path: Path) -> None:
    """A call carrying a lone surrogate in old_str, new_str or content gets an
    INVALID_INPUT result naming the argument; no file is written, and the server keeps
    serving."""
    (tmp_path / "f.txt").write_text("keep\n")
    proc = subprocess.Popen(
        [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env({"BORIS_REQUIRE_VIEW_BEFORE_EDIT": "false"}),
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        stdin.write(json.dumps(message).encode() + b"\n")  # ASCII: "\ud800" as an escape
        stdin.flush()
        reply: dict[str, Any] = json.loads(stdout.readline())
        return reply

    try:
        assert "result" in ask(INITIALIZE)
        stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for number, (tool, arguments, argument) in enumerate(SURROGATE_CALLS, 10):
            call = {"name": tool, "arguments": arguments}
            reply = ask({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call})
            _refused(reply, number, argument)
        view = {"name": "view", "arguments": {"path": "f.txt"}}
        reply = ask({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": view})
        assert reply["result"]["content"][0]["text"] == "1\tkeep\n"
    finally:
        stop_process(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "keep\n"


def test_lone_surrogates_change_nothing_over_http(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("keep\n")
    with http_server("--require-view-before-edit", "false", workdir=tmp_path) as server:
        status, headers, _ = http_request(
            "POST", server.url, MCP_HEADERS, json.dumps(INITIALIZE).encode()
        )
        assert status == 200
        session = {**MCP_HEADERS, "Mcp-Session-Id": headers.get("mcp-session-id", "")}
        for number, (tool, arguments, argument) in enumerate(SURROGATE_CALLS, 10):
            call = {"name": tool, "arguments": arguments}
            body = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call}
            status, _, reply = http_request("POST", server.url, session, json.dumps(body).encode())
            assert status == 200
            _refused(json_body(reply), number, argument)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "keep\n"
