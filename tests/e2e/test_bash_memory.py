"""Memory stays bounded however much a command prints (README "Limits and bad input": bash
stdout and stderr, "memory bounded however much a command prints").

The server keeps the head a result shows and a count, never the whole stream. Its
peak resident memory (VmHWM) is read from /proc while it serves a real client.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from tests.pids import pids_in, wait_gone
from tests.support import http_client, http_server, ok_text, sdk_http_client

pytestmark = pytest.mark.anyio

MB = 1024 * 1024
TRUNCATED = "\n\n[Truncated: output was {n} characters, showing first 30000]"


def memory_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


async def test_200_mb_of_stdout(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as server:
        pid = server.proc.pid
        # The fastmcp client asks for progress, so the line splitter and the
        # notification queue are under test as well.
        async with http_client(server.url) as client:
            warm = await client.call_tool("bash", {"command": "yes | head -c 1000000"})
            assert ok_text(warm).endswith(TRUNCATED.format(n=1_000_000))
            before = memory_kb(pid, "VmRSS")
            result = await client.call_tool("bash", {"command": "yes | head -c 200000000"})
            peak = memory_kb(pid, "VmHWM")
        assert ok_text(result) == (
            "exit_code: 0\n\nstdout:\n" + "y\n" * 15000 + TRUNCATED.format(n=200_000_000)
        )
        assert (peak - before) * 1024 < 50 * MB, f"grew by {(peak - before) // 1024} MB"


async def test_100_mb_of_stderr_without_progress(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as server:
        pid = server.proc.pid
        async with sdk_http_client(server.url) as client:
            await client.call_tool("bash", {"command": "yes | head -c 1000000 >&2"})
            before = memory_kb(pid, "VmRSS")
            result = await client.call_tool(
                "bash", {"command": "yes abc | head -c 100000000 >&2; echo end"}
            )
            peak = memory_kb(pid, "VmHWM")
        assert ok_text(result) == (
            "exit_code: 0\n\nstderr:\n"
            + "abc\n" * 7500
            + TRUNCATED.format(n=100_000_000)
            + "\nstdout:\nend\n"
        )
        assert (peak - before) * 1024 < 50 * MB, f"grew by {(peak - before) // 1024} MB"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_leftover_flood_does_not_keep_the_server_busy(tmp_path: Path) -> None:
    # `yes &` outlives its call and writes to a pipe nobody collects any more: the
    # server reads it only now and then, so `yes` blocks instead of eating a core.
    with http_server(workdir=tmp_path) as server:
        async with sdk_http_client(server.url) as client:
            text = ok_text(await client.call_tool("bash", {"command": "yes & echo $!"}))
            (pid,) = pids_in(text)
            await anyio.sleep(0.5)
            before = cpu_seconds(server.proc.pid)
            await anyio.sleep(2)
            used = cpu_seconds(server.proc.pid) - before
            await client.call_tool("bash", {"command": f"kill {pid}"})
        assert await wait_gone([pid]) == []
        assert used < 0.5, f"the server used {used:.2f} s of CPU in 2 s"
