"""apply_patch on a 10 MB, 200,000-line file: a hunk found, a hunk not found, and a hunk
in 10 MB of identical short lines (found twice: refused); and patches whose cost used to
grow out of bounds: one of 3.2 million lines (10 MB of patch), 10,000 hunks without an
@@ line on a 10 MB file, and 2,000 hunks whose @@ line is found indented otherwise on an
8 MB file (and on the same file with one CRLF line).

Spawns one Boris over STDIO, speaks raw JSON-RPC on the pipes, and reports the median
of --runs calls of each kind in that one session, and the server's peak memory growth
during each kind relative to the file size (Linux: VmRSS/VmHWM, peak reset through
/proc/<pid>/clear_refs). The file is written afresh before each call (the patch that
applies changes it). The temporary directory is removed at the end.

Usage: python bench/apply_patch.py [--runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import exit_cleanly_on_sigterm, load_average, memory_kib
from rawrpc import RawServer, boris_command

LINES = 200_000
LINE_BYTES = 50  # with its newline: 10,000,000 bytes in all


def numbered() -> bytes:
    return b"".join(
        f"{n:08d} ".encode().ljust(LINE_BYTES - 1, b"x") + b"\n" for n in range(1, LINES + 1)
    )


def line(n: int) -> str:
    return f"{n:08d} ".ljust(LINE_BYTES - 1, "x")


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", "*** Update File: big.txt", "@@", *lines, "*** End Patch"])


def update(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", "*** Update File: big.txt", *lines, "*** End Patch"])


def heavy_cases() -> list[tuple[str, bytes, str, Callable[[str], bool]]]:
    """The patches whose cost used to grow out of bounds."""
    many = 3_200_000
    short = (b"x\n" * many, update("@@", *([" x"] * (many - 1)), "-x", "+y"))
    lines = [line(n) for n in range(1, LINES + 1)]
    plain = []
    for n in range(0, LINES, 20):
        plain += ["@@", f"-{lines[n]}", f"+{lines[n]}!"]
    code = [
        f"    def f{n}():" if n % 80 == 0 else f"        x = {n}".ljust(40, "y")
        for n in range(LINES)
    ]
    code_bytes = "".join(text + "\n" for text in code).encode()
    anchored = []
    for n in range(0, 160_000, 80):
        anchored += [f"@@ def f{n}():", f"-{code[n + 1]}", f"+{code[n + 1]}!"]

    def written(text: str) -> bool:
        return text.startswith("M ")

    return [
        ("3.2M-line patch (10 MB)", short[0], short[1], written),
        ("10,000 hunks, no @@, 10 MB file", numbered(), update(*plain), written),
        ("2,000 hunks, @@ indented otherwise", code_bytes, update(*anchored), written),
        (
            "the same, one CRLF line in the file",
            code_bytes.replace(b"\n", b"\r\n", 1),
            update(*anchored),
            written,
        ),
    ]


def measure(
    server: RawServer, path: Path, data: bytes, text: str, runs: int, check: Callable[[str], bool]
) -> tuple[float, float]:
    """Median milliseconds and the peak memory growth (bytes) of ``runs`` calls."""
    times = []
    baseline = memory_kib(server.pid, "VmRSS")
    with contextlib.suppress(OSError):  # without the reset, the peak includes start-up
        Path(f"/proc/{server.pid}/clear_refs").write_text("5")
    for _ in range(runs):
        path.write_bytes(data)
        server.call("view", {"path": path.name, "view_range": [1, 1]})
        start = time.perf_counter()
        try:
            answer = server.call("apply_patch", {"patch": text})
        except RuntimeError as error:
            answer = str(error)
        times.append(time.perf_counter() - start)
        assert check(answer), answer[:300]
    growth = max(0, memory_kib(server.pid, "VmHWM") - baseline) * 1024
    return statistics.median(times) * 1000, growth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--heavy-runs", type=int, default=1)
    parser.add_argument("--checkout", help="run the server of this checkout")
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    big = numbered()
    same = b"a\n" * (len(big) // 2)
    middle = LINES // 2
    found = patch(f" {line(middle)}", f"-{line(middle + 1)}", "+changed", f" {line(middle + 2)}")
    missing = patch(f" {line(middle)}", f"-{line(middle + 1)}!", "+changed")
    twice = patch(" a", "-a", "+b", " a")
    cases = [
        ("one hunk found, written", big, found, lambda text: text.startswith("M ")),
        ("one hunk not found", big, missing, lambda text: "STR_REPLACE_NOT_FOUND" in text),
        ("5M identical lines, hunk found twice", same, twice, lambda t: "AMBIGUOUS" in t),
    ]
    results = []
    with tempfile.TemporaryDirectory(prefix="boris-bench-apply-patch-") as workdir:
        path = Path(workdir) / "big.txt"
        with RawServer(boris_command(workdir), cwd=options.checkout) as server:
            server.initialize()
            for label, data, text, check in cases:
                ms, growth = measure(server, path, data, text, options.runs, check)
                results.append((label, len(data), ms, growth))
    print(f"{options.runs} calls each, one session; after: {load_average()}")
    for label, size, ms, growth in results:
        print(
            f"{label:40} {size / 1e6:.0f} MB file  median {ms:7.1f} ms  "
            f"peak growth {growth / 2**20:6.1f} MiB = {growth / size:.2f}x the file"
        )
    print(f"{options.heavy_runs} call(s) each, a fresh session each:")
    for label, data, text, check in heavy_cases():
        with tempfile.TemporaryDirectory(prefix="boris-bench-apply-patch-") as workdir:
            path = Path(workdir) / "big.txt"
            with RawServer(boris_command(workdir), cwd=options.checkout) as server:
                server.initialize()
                ms, growth = measure(server, path, data, text, options.heavy_runs, check)
        print(
            f"{label:40} {len(data) / 1e6:4.1f} MB file, {len(text) / 1e6:4.1f} MB patch  "
            f"median {ms / 1000:7.2f} s  peak growth {growth / 2**20:7.1f} MiB "
            f"= {growth / len(text):.1f}x the patch"
        )
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
