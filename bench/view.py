"""view on a 10 MB, 200,000-line file: whole (first 2000 lines) and view_range [100000, 100050];
and views that used to be unbounded: view_range [1, -1] on a file of ten million (empty)
lines, a notebook whose one cell has 4.9 million (empty) source lines, and view_range
[1, 1] on a file that is one line of 100 MB.

Spawns one Boris over STDIO, speaks raw JSON-RPC on the pipes (no client library in the
measurement), and reports the median of --runs calls of each kind in that one session,
a tiny-file call for the protocol's own cost, and the server's peak memory growth
during the calls relative to the file size (Linux: VmRSS/VmHWM, peak reset through
/proc/<pid>/clear_refs).

The project's targets are printed beside the figures: each median within 25 ms, peak
growth at most 3x the file size. For the unbounded views, one call each on a fresh
server: its time, the answer's size, the server's peak growth. ``--checkout DIR`` runs
the server of another checkout (from DIR), to compare builds alternately in one window.
The temporary directory is removed at the end.

Usage: python bench/view.py [--runs N] [--checkout DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import exit_cleanly_on_sigterm, load_average, memory_kib
from rawrpc import RawServer, boris_command

LINES = 200_000
LINE_BYTES = 50  # with its newline: 10,000,000 bytes in all
#: The project's targets.
TARGET_MS = 25
TARGET_GROWTH = 3


def timed(server: RawServer, arguments: dict[str, Any], runs: int) -> tuple[float, str]:
    times = []
    text = ""
    for _ in range(runs):
        start = time.perf_counter()
        text = server.call("view", arguments)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--checkout", help="run the server of this checkout")
    options = parser.parse_args()
    exit_cleanly_on_sigterm()

    with tempfile.TemporaryDirectory(prefix="boris-bench-view-") as workdir:
        big = Path(workdir) / "big.txt"
        with big.open("wb") as out:
            for n in range(1, LINES + 1):
                out.write(f"{n:08d} ".encode().ljust(LINE_BYTES - 1, b"x") + b"\n")
        (Path(workdir) / "tiny.txt").write_text("x\n")
        size = big.stat().st_size

        with RawServer(boris_command(workdir), cwd=options.checkout) as server:
            server.initialize()
            pid = server.pid
            for arguments in ({"path": "tiny.txt"}, {"path": "big.txt"}):
                server.call("view", arguments)  # warm up the call path and the page cache
            baseline = memory_kib(pid, "VmRSS")
            peak_reset = True
            try:
                Path(f"/proc/{pid}/clear_refs").write_text("5")
            except OSError:
                peak_reset = False

            tiny_ms, _ = timed(server, {"path": "tiny.txt"}, options.runs)
            whole_ms, whole = timed(server, {"path": "big.txt"}, options.runs)
            range_ms, ranged = timed(
                server, {"path": "big.txt", "view_range": [100000, 100050]}, options.runs
            )
            peak = memory_kib(pid, "VmHWM")

    assert whole.endswith(
        f"[Truncated: file has {LINES} lines. Use view_range to read specific sections.]"
    )
    assert ranged.startswith("100000\t00100000 ")
    assert ranged.count("\n") == 51

    growth = max(0, peak - baseline) * 1024
    print(f"file: {size:,} bytes, {LINES:,} lines; {options.runs} calls each, one session")
    print(f"after: {load_average()}")
    target = f"(target <= {TARGET_MS} ms)"
    print(f"view tiny file (protocol cost)    median {tiny_ms:6.2f} ms")
    print(f"view big file, no range           median {whole_ms:6.2f} ms   {target}")
    print(f"view big file, [100000, 100050]   median {range_ms:6.2f} ms   {target}")
    note = "" if peak_reset else " (peak not resettable: includes start-up)"
    print(
        f"server RSS before calls {baseline / 1024:.1f} MiB, peak during calls "
        f"{peak / 1024:.1f} MiB{note}"
    )
    print(
        f"peak growth {growth / 2**20:.1f} MiB = {growth / size:.2f}x the file size "
        f"(target at most {TARGET_GROWTH}x)"
    )
    unbounded(options.checkout)


def unbounded(checkout: str | None) -> None:
    """One call of each view that used to have no bound, on a fresh server each."""
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "big",
                "metadata": {},
                "outputs": [],
                "source": "\n" * 4_900_000,
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    cases: list[tuple[str, str, bytes, dict[str, Any]]] = [
        (
            "view_range [1, -1], 10,000,000 lines",
            "lines.txt",
            b"\n" * 10_000_000,
            {"view_range": [1, -1]},
        ),
        ("notebook, one cell of 4,900,000 lines", "cell.ipynb", json.dumps(notebook).encode(), {}),
        (
            "view_range [1, 1], one line of 100 MB",
            "line.txt",
            b"a" * 100 * 2**20,
            {"view_range": [1, 1]},
        ),
    ]
    for label, name, data, extra in cases:
        with tempfile.TemporaryDirectory(prefix="boris-bench-view-") as workdir:
            (Path(workdir) / name).write_bytes(data)
            (Path(workdir) / "tiny.txt").write_text("x\n")
            # Above the default limit (10 MB), for the 100 MB line.
            command = [*boris_command(workdir), "--max-file-size", "200MB"]
            with RawServer(command, cwd=checkout) as server:
                server.initialize()
                server.call("view", {"path": "tiny.txt"})
                baseline = memory_kib(server.pid, "VmRSS")
                with contextlib.suppress(OSError):
                    Path(f"/proc/{server.pid}/clear_refs").write_text("5")
                start = time.perf_counter()
                text = server.call("view", {"path": name, **extra})
                took = time.perf_counter() - start
                growth = memory_kib(server.pid, "VmHWM") - baseline
        print(
            f"{label:40} {took:7.2f} s  answer {len(text) / 1e6:7.2f} M characters  "
            f"peak growth {growth / 1024:6.1f} MiB"
        )


if __name__ == "__main__":
    main()
