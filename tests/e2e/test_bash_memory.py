"""Memory stays bounded however much a command prints (README "Limits and bad input": bash
stdout and stderr, "memory bounded however much a command prints").

The server keeps the head a result shows and a count, never the whole stream. Its
peak resident memory (VmHWM) is read from /proc while it serves a real client.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.support import http_client, http_server, ok_text, sdk_http_client
from tests.support.files import memory_kib, peak_start
from tests.support.pids import cpu_seconds, pids_in, wait_gone

pytestmark = pytest.mark.anyio

MB = 1024 * 1024
TRUNCATED = "\n\n[Truncated: output was {n} characters, showing first 30000]"


async def test_200_mb_of_stdout(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as server:
        pid = server.proc.pid
        # The fastmcp client asks for progress, so the line splitter and the
        # notification queue are under test as well.
        async with http_client(server.url) as client:
            warm = await client.call_tool("bash", {"command": "yes | head -c 1000000"})
            assert ok_text(warm).endswith(TRUNCATED.format(n=1_000_000))
            before = peak_start(pid)
            result = await client.call_tool("bash", {"command": "yes | head -c 200000000"})
            peak = memory_kib(pid, "VmHWM")
        assert ok_text(result) == (
            "exit_code: 0\n\nstdout:\n" + "y\n" * 15000 + TRUNCATED.format(n=200_000_000)
        )
        assert (peak - before) * 1024 < 50 * MB, f"grew by {(peak - before) // 1024} MB"


async def test_100_mb_of_stderr_without_progress(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path) as server:
        pid = server.proc.pid
        async with sdk_http_client(server.url) as client:
            await client.call_tool("bash", {"command": "yes | head -c 1000000 >&2"})
            before = peak_start(pid)
            result = await client.call_tool(
                "bash", {"command": "yes abc | head -c 100000000 >&2; echo end"}
            )
            peak = memory_kib(pid, "VmHWM")
        assert ok_text(result) == (
            "exit_code: 0\n\nstderr:\n"
            + "abc\n" * 7500
            + TRUNCATED.format(n=100_000_000)
            + "\nstdout:\nend\n"
        )
        assert (peak - before) * 1024 < 50 * MB, f"grew by {(peak - before) // 1024} MB"


def bytes_written(pid: int) -> int:
    """What ``pid`` has written so far, all files and pipes together (/proc/PID/io)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise LookupError("wchar")


async def until_waiting_on_a_full_pipe(pid: int) -> None:
    """Wait until ``pid`` sleeps in a write to a pipe: nobody is reading that pipe now."""
    deadline = time.monotonic() + 30
    while True:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "S" and "pipe" in Path(f"/proc/{pid}/wchan").read_text():
            return
        assert time.monotonic() < deadline, "the pipe never filled up"
        await anyio.sleep(0.01)


async def test_leftover_flood_does_not_keep_the_server_busy(tmp_path: Path) -> None:
    """`yes &` outlives its call and writes to a pipe nobody collects any more: the
    server reads it only now and then (one read of at most 64 KiB every 0.1 s or
    less often), so `yes` waits on the full pipe instead of eating a core, and so
    does the server.

    Measured over ten of those reads: what `yes` got to write in that time, and the
    CPU the server used. Load on the machine can only make both smaller."""
    with http_server(workdir=tmp_path) as server:
        async with sdk_http_client(server.url) as client:
            text = ok_text(await client.call_tool("bash", {"command": "yes & echo $!"}))
            (pid,) = pids_in(text)
            try:
                await until_waiting_on_a_full_pipe(pid)
                start, written, used = (
                    time.monotonic(),
                    bytes_written(pid),
                    cpu_seconds(server.proc.pid),
                )
                reads, last = 0, written
                deadline = start + 60
                while reads < 10:
                    assert time.monotonic() < deadline, f"only {reads} reads of the pipe"
                    await anyio.sleep(0.01)
                    now = bytes_written(pid)
                    reads, last = reads + (now != last), now
                span = time.monotonic() - start
                written = bytes_written(pid) - written
                used = cpu_seconds(server.proc.pid) - used
            finally:
                await client.call_tool("bash", {"command": f"kill {pid}"})
        assert await wait_gone([pid]) == []
        # About 640 KiB a second at most; a server reading all the time would let
        # `yes` write hundreds of MB a second.
        assert written < 4 * MB * span, f"{written} bytes in {span:.2f} s"
        assert used < 0.5 * span, f"the server used {used:.2f} s of CPU in {span:.2f} s"
