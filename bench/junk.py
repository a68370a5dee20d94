"""A tools/call carrying a large junk array, and what it costs everyone else.

Spawns one Boris over HTTP. Session A sends ``view`` with ``{"path": "x", "junk": [0, 0,
…]}`` of --size MB (an argument the tool does not take); meanwhile session B calls
``glob`` over and over. Prints how long A waited for its answer, B's slowest ``glob``
while A's request was being handled (against B's median on a quiet server), and the
server's peak memory growth against the size of A's message (Linux: VmHWM, peak reset
through /proc/<pid>/clear_refs). With --copies N, N such requests are sent at once.

Usage: python bench/junk.py [--size MB] [--copies N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import (
    clean_env,
    exit_cleanly_on_sigterm,
    free_port,
    load_average,
    memory_kib,
    mib,
    peak_reset,
    stop_process,
    wait_listening,
)
from rawhttp import McpSession


def junk_body(size: int) -> bytes:
    """``size`` bytes of a view call with ``"junk": [0,0,…]``, built as bytes (encoding
    ten million values with json.dumps would hold this script's own event loop)."""
    head = (
        b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"view",'
        b'"arguments":{"path":"x","junk":['
    )
    tail = b"0]}}}"
    return head + b"0," * ((size - len(head) - len(tail)) // 2) + tail


async def measure(port: int, pid: int, size: int, copies: int) -> None:
    quiet = McpSession("127.0.0.1", port)
    await quiet.initialize()
    baseline = []
    for _ in range(20):
        start = time.perf_counter()
        await quiet.call("glob", {"pattern": "*"})
        baseline.append(time.perf_counter() - start)

    senders = [McpSession("127.0.0.1", port) for _ in range(copies)]
    for sender in senders:
        await sender.initialize()
    body = junk_body(size)
    wire = len(body)
    before = peak_reset(pid)

    async def send(session: McpSession) -> float:
        start = time.perf_counter()
        head = await session.connection.send("POST", "/mcp", session._headers(), body)
        answer = b"".join([piece async for piece in session.connection.body(head)])
        assert b'"id":77' in answer.replace(b" ", b""), answer[:300]
        return time.perf_counter() - start

    started = time.perf_counter()
    tasks = [asyncio.create_task(send(sender)) for sender in senders]
    worst = 0.0
    while not all(task.done() for task in tasks):
        start = time.perf_counter()
        await quiet.call("glob", {"pattern": "*"})
        worst = max(worst, time.perf_counter() - start)
    answers = [task.result() for task in tasks]
    peak = memory_kib(pid, "VmHWM")
    print(f"message: {wire / 1e6:.1f} MB × {copies} at once")
    print(f"answer to the junk request(s): slowest {max(answers):.2f} s")
    print(
        f"other session's glob: median {statistics.median(baseline) * 1000:.1f} ms quiet, "
        f"slowest {worst * 1000:.0f} ms while the junk was handled "
        f"({time.perf_counter() - started:.2f} s)"
    )
    growth = peak - before
    ratio = growth * 1024 / (wire * copies)
    print(f"server peak growth: {mib(growth)} = {ratio:.1f}× the message(s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=30, help="MB of junk")
    parser.add_argument("--copies", type=int, default=1)
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    print(load_average())
    with tempfile.TemporaryDirectory(prefix="boris-bench-junk-") as workdir:
        (Path(workdir) / "a.txt").write_text("a\n")
        port = free_port()
        command = [sys.executable, "-m", "boris", "--host", "127.0.0.1", "--port", str(port)]
        proc = subprocess.Popen(
            [*command, "--workdir", workdir],
            stdin=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=clean_env(),
        )
        try:
            asyncio.run(wait_listening(port))
            asyncio.run(measure(port, proc.pid, options.size * 1000 * 1000, options.copies))
        finally:
            stop_process(proc)


if __name__ == "__main__":
    main()
