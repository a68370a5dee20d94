"""What the syntax check costs an edit: str_replace of one line of a 10 KB and a 1 MB
Python file, with --check-syntax warn and off, in one window.

Spawns two Borises over STDIO (one per mode) and speaks raw JSON-RPC on the pipes. The
servers take turns, each call timed from request to reply: the file is written afresh
and viewed, then one line in its middle is changed (a valid edit: the check parses,
finds nothing to say). A third figure, a broken edit under warn, shows the price of
the path that has something to say. Prints the median of --runs calls per case, and
the check's own time (boris.structure.edit_syntax.check_syntax_off_loop on the same
texts, in this process): on a loaded machine the calls' times move by more than it.

Usage: python bench/edit_syntax.py [--runs N]
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

from boris.structure.edit_syntax import check_syntax_off_loop


def python_file(size: int) -> bytes:
    """Top-level functions of a few lines each, up to ``size`` bytes."""
    parts = []
    total = 0
    n = 0
    while total < size:
        part = (
            f"def function_{n}(first, second):\n"
            f'    """Add {n} to the sum."""\n'
            f"    total = first + second + {n}\n"
            f"    return total\n\n\n"
        ).encode()
        parts.append(part)
        total += len(part)
        n += 1
    return b"".join(parts)


def timed_edit(server: RawServer, path: Path, data: bytes, old: str, new: str) -> float:
    path.write_bytes(data)
    server.call("view", {"path": str(path), "view_range": [1, 1]})
    start = time.perf_counter()
    server.call("str_replace", {"path": str(path), "old_str": old, "new_str": new})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    print(f"before: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="boris-bench-edit-syntax-") as workdir:
        command = boris_command(workdir)
        with (
            RawServer([*command, "--check-syntax", "warn"]) as warn,
            RawServer([*command, "--check-syntax", "off"]) as off,
        ):
            warn.initialize()
            off.initialize()
            for size in (10 * 1024, 1024 * 1024):
                data = python_file(size)
                middle = data.count(b"def function_") // 2
                old = f"    total = first + second + {middle}\n"
                new = f"    total = first - second + {middle}\n"
                broken = f"    total = (first + second + {middle}\n"
                times: dict[str, list[float]] = {"off": [], "warn": [], "warn, broken": []}
                for _ in range(options.runs):
                    times["off"].append(timed_edit(off, Path(workdir) / "off.py", data, old, new))
                    times["warn"].append(timed_edit(warn, Path(workdir) / "on.py", data, old, new))
                    times["warn, broken"].append(
                        timed_edit(warn, Path(workdir) / "on.py", data, old, broken)
                    )
                medians = {mode: statistics.median(values) * 1000 for mode, values in times.items()}
                extra = (medians["warn"] / medians["off"] - 1) * 100
                edited = data.replace(old.encode(), new.encode())
                own = []
                for _ in range(options.runs):
                    start = time.perf_counter()
                    check_syntax_off_loop("python", data, edited)
                    own.append(time.perf_counter() - start)
                check = statistics.median(own) * 1000
                print(
                    f"{len(data):>9,} bytes: str_replace median of {options.runs}: "
                    f"off {medians['off']:.2f} ms, warn {medians['warn']:.2f} ms ({extra:+.1f}%), "
                    f"warn with an error brought in {medians['warn, broken']:.2f} ms; "
                    f"the check itself {check:.3f} ms ({check / medians['off'] * 100:.1f}% of "
                    "the edit off)"
                )
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
