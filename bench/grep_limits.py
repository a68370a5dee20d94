"""grep where it used to hurt: a multiline count over one long line, and a page far into
a content output.

1. ``grep b`` with ``multiline`` and ``output_mode: count`` on a one-line file of "ab"
   repeated (200 KB, 800 KB, 3.2 MB, 10 MB): the time of one call, which grows with
   the file's size. A call that takes longer than --cap seconds is given up (its
   server is stopped) and shown as "> cap".
2. A content page one million lines into a file (one "a" a line, under a directory
   with a 200-character name): the time of the call and the server's peak memory
   growth during it (VmHWM, peak reset through /proc/<pid>/clear_refs).

Each figure comes from a fresh Boris over STDIO spoken to in raw JSON-RPC. The
temporary directory is removed at the end.

Usage: python bench/grep_limits.py [--cap SECONDS]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import exit_cleanly_on_sigterm, load_average, memory_kib, mib
from rawrpc import RawServer, boris_command

SIZES = [200_000, 800_000, 3_200_000, 10_000_000]
PAGE_LINES = 1_000_000
LONG = "d" * 200


def multiline_count(workdir: Path, size: int, cap: float) -> str:
    name = f"ab-{size}.txt"
    (workdir / name).write_text("ab" * (size // 2))
    with RawServer(boris_command(workdir)) as server:
        server.initialize()
        watchdog = threading.Timer(cap, server.proc.kill)
        watchdog.start()
        try:
            start = time.perf_counter()
            text = server.call(
                "grep", {"pattern": "b", "path": name, "output_mode": "count", "multiline": True}
            )
            took = time.perf_counter() - start
        except RuntimeError:
            return f"> {cap:g} s (given up)"
        finally:
            watchdog.cancel()
    assert text == f"{name}:1", text
    return f"{took:.2f} s"


def far_page(workdir: Path) -> tuple[float, int]:
    (workdir / LONG).mkdir()
    (workdir / LONG / "big.txt").write_text("a\n" * PAGE_LINES)
    label = f"{LONG}/big.txt"
    arguments = {"pattern": "a", "path": label, "output_mode": "content"}
    with RawServer(boris_command(workdir)) as server:
        server.initialize()
        server.call("grep", {**arguments, "head_limit": 1})
        pid = server.pid
        before = memory_kib(pid, "VmRSS")
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        start = time.perf_counter()
        text = server.call("grep", {**arguments, "offset": PAGE_LINES - 3})
        took = time.perf_counter() - start
        grown = memory_kib(pid, "VmHWM") - before
    assert text == "\n".join(f"{label}:{n}:a" for n in range(PAGE_LINES - 2, PAGE_LINES + 1))
    return took, grown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=120)
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    print(f"load average: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="boris-bench-grep-") as tmp:
        workdir = Path(tmp)
        for size in SIZES:
            shown = multiline_count(workdir, size, options.cap)
            print(f"multiline count, one line of {size:>10,} bytes: {shown}", flush=True)
        took, grown = far_page(workdir)
        print(
            f"content page {PAGE_LINES:,} lines in ({len(LONG)}-character directory): "
            f"{took:.2f} s, server peak growth {mib(grown)}"
        )
    print(f"load average: {load_average()}")


if __name__ == "__main__":
    main()
