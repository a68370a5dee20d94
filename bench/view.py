"""view on a 10 MB, 200,000-line file: whole (first 2000 lines) and view_range [100000, 100050].

Spawns one Boris over STDIO, speaks raw JSON-RPC on the pipes (no client library in the
measurement), and reports the median of --runs calls of each kind in that one session,
a tiny-file call for the protocol's own cost, and the server's peak memory growth
during the calls relative to the file size (Linux: VmRSS/VmHWM, peak reset through
/proc/<pid>/clear_refs).

The project's targets are printed beside the figures: each median within 25 ms, peak
growth at most 3x the file size. The temporary directory is removed at the end.

Usage: python bench/view.py [--runs N]
"""

from __future__ import annotations

import argparse
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
    options = parser.parse_args()
    exit_cleanly_on_sigterm()

    with tempfile.TemporaryDirectory(prefix="boris-bench-view-") as workdir:
        big = Path(workdir) / "big.txt"
        with big.open("wb") as out:
            for n in range(1, LINES + 1):
                out.write(f"{n:08d} ".encode().ljust(LINE_BYTES - 1, b"x") + b"\n")
        (Path(workdir) / "tiny.txt").write_text("x\n")
        size = big.stat().st_size

        with RawServer(boris_command(workdir)) as server:
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


if __name__ == "__main__":
    main()
