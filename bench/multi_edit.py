"""multi_edit changing 999 places spread over a 10 MB file, each shown with its lines.

Spawns one Boris over STDIO and speaks raw JSON-RPC on the pipes. Each run writes the
file afresh (200,000 lines; every 200th holds a marker), views it, and replaces the
marker everywhere with one edit (replace_all): 999 regions far apart, each with its own
line numbers (as many snippets as fit in the output cap are shown). Prints the median
time of --runs such calls.

Usage: python bench/multi_edit.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import exit_cleanly_on_sigterm, load_average
from rawrpc import RawServer, boris_command

LINES = 200_000
LINE_BYTES = 50
EVERY = 200  # 999 markers: lines 200, 400, ..., 199800


def content() -> bytes:
    lines = []
    for n in range(1, LINES + 1):
        text = f"{n:08d} " + ("MARK" if n % EVERY == 0 and n < LINES else "")
        lines.append(text.encode().ljust(LINE_BYTES - 1, b"x") + b"\n")
    return b"".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    data = content()
    times = []
    with tempfile.TemporaryDirectory(prefix="boris-bench-multi-edit-") as workdir:
        path = Path(workdir) / "big.txt"
        with RawServer(boris_command(workdir)) as server:
            server.initialize()
            for _ in range(options.runs):
                path.write_bytes(data)
                server.call("view", {"path": "big.txt", "view_range": [1, 1]})
                edits = [{"old_str": "MARK", "new_str": "DONE", "replace_all": True}]
                start = time.perf_counter()
                text = server.call("multi_edit", {"path": "big.txt", "edits": edits})
                times.append(time.perf_counter() - start)
    assert text.startswith(f"Applied 1 edits to {path}"), text[:300]
    shown = text.count(" DONE")  # the snippets that fit in the output cap
    assert f"[{999 - shown} more edited regions not shown" in text, text[-300:]
    print(f"file: {len(data):,} bytes, {LINES:,} lines, 999 places changed by one edit")
    print(f"after: {load_average()}")
    print(f"multi_edit median of {options.runs}: {statistics.median(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
