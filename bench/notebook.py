"""view of a large notebook (10 MB, 160,000 cells) and what it costs everyone else.

Spawns one Boris over HTTP. Session A views the notebook --views times in a row (the
first view of an unchanged file checks it with nbformat); meanwhile session B views a
small file over and over. Then --concurrent sessions view the notebook at once. Prints
A's first and later view times, B's p50/p95/slowest view during A's first view and
during its later ones (against B on a quiet server), the server's peak memory growth
during A's views and during the concurrent ones (Linux: VmHWM, peak reset through
/proc/<pid>/clear_refs).

``--checkout DIR`` runs the server of another checkout (from DIR, which ``-m boris``
imports first), to compare builds alternately in one window. The temporary directory
is removed at the end.

Usage: python bench/notebook.py [--views N] [--concurrent N] [--checkout DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
    percentile,
    stop_process,
)
from rawhttp import McpSession

CELLS = 160_000


def notebook() -> bytes:
    """About 10 MB: markdown cells of a few characters, compact JSON."""
    cells = [
        {"cell_type": "markdown", "id": f"{n:x}", "metadata": {}, "source": "x"}
        for n in range(CELLS)
    ]
    content = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(content, separators=(",", ":")).encode()


def peak_reset(pid: int) -> int:
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    return memory_kib(pid, "VmRSS")


async def wait_healthy(port: int) -> None:
    for _ in range(600):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise RuntimeError("the server did not start")


async def timed_view(session: McpSession, path: str) -> float:
    start = time.perf_counter()
    result, _ = await session.request("tools/call", {"name": "view", "arguments": {"path": path}})
    assert not result.get("isError"), result
    return time.perf_counter() - start


async def measure(port: int, pid: int, views: int, concurrent: int) -> None:
    a, b = McpSession("127.0.0.1", port), McpSession("127.0.0.1", port)
    await a.initialize()
    await b.initialize()
    quiet = [await timed_view(b, "small.txt") for _ in range(30)]

    before = peak_reset(pid)
    done = asyncio.Event()
    during: list[list[float]] = [[]]  # B's views during A's first view, then its later ones

    async def other() -> None:
        while not done.is_set():
            during[-1].append(await timed_view(b, "small.txt"))

    other_task = asyncio.create_task(other())
    a_times = [await timed_view(a, "big.ipynb")]
    during.append([])
    a_times += [await timed_view(a, "big.ipynb") for _ in range(views - 1)]
    done.set()
    await other_task
    growth = memory_kib(pid, "VmHWM") - before

    sessions = [McpSession("127.0.0.1", port) for _ in range(concurrent)]
    for session in sessions:
        await session.initialize()
    before = peak_reset(pid)
    started = time.perf_counter()
    await asyncio.gather(*(timed_view(session, "big.ipynb") for session in sessions))
    together = time.perf_counter() - started
    concurrent_growth = memory_kib(pid, "VmHWM") - before

    print(f"session A, {views} views of the notebook: first {a_times[0]:.2f} s, later ", end="")
    print(f"median {statistics.median(a_times[1:]):.2f} s" if views > 1 else "none")
    print(f"session B's view of a small file: quiet p50 {statistics.median(quiet) * 1000:.1f} ms")
    for label, times in (("A's first view", during[0]), ("A's later views", during[1])):
        if times:
            print(
                f"  during {label}: p50 {percentile(times, 0.5) * 1000:.0f} ms, "
                f"p95 {percentile(times, 0.95) * 1000:.0f} ms, "
                f"slowest {max(times) * 1000:.0f} ms ({len(times)} calls)"
            )
    print(f"server peak growth during A's views: {growth / 1024:.0f} MiB")
    print(
        f"{concurrent} sessions viewing it at once: {together:.2f} s, "
        f"server peak growth {concurrent_growth / 1024:.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=5)
    parser.add_argument("--concurrent", type=int, default=4)
    parser.add_argument("--checkout", help="run the server of this checkout")
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="boris-bench-notebook-") as workdir:
        big = Path(workdir) / "big.ipynb"
        big.write_bytes(notebook())
        (Path(workdir) / "small.txt").write_text("a\n")
        print(f"{big.stat().st_size / 1e6:.1f} MB, {CELLS} cells; {load_average()}")
        port = free_port()
        command = [sys.executable, "-m", "boris", "--host", "127.0.0.1", "--port", str(port)]
        proc = subprocess.Popen(
            [*command, "--workdir", workdir],
            stdin=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=clean_env(),
            cwd=options.checkout,
        )
        try:
            asyncio.run(wait_healthy(port))
            # A file changed in the last seconds is checked on every view (it may still
            # be changing): let it settle, as a notebook being read usually has.
            time.sleep(max(0.0, big.stat().st_ctime + 2.5 - time.time()))
            asyncio.run(measure(port, proc.pid, options.views, options.concurrent))
        finally:
            stop_process(proc)
        print(load_average())


if __name__ == "__main__":
    main()
