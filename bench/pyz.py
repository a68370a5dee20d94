"""boris.pyz: its size, its first start and later starts under each interpreter, and the
disk its first start fills.

For each zipapp and each interpreter (default: every CPython 3.10+ under
~/.pyenv/versions and python3), over STDIO in raw JSON-RPC (``rawrpc.py``), spawn → first
``tools/list`` reply and spawn → first ``bash`` result (the tool list is answered while the
app loads, and on a first start while the archive unpacks; a tool call waits for both),
with PYTHONDONTWRITEBYTECODE=1 (as in most containers and CI) unless a row says otherwise:

- first start: into an empty SHIV_ROOT (it unpacks itself), median of --first-runs;
- second start: the start right after a first one (what a first start left behind);
- later starts: median of --runs, after those two;
- later starts with bytecode writes allowed, median of --runs, in a root of their own;
- the disk the first start filled (blocks, as du counts them) and its files.

The interpreter runs with -s (no user site-packages) and outside any virtualenv. Each
SHIV_ROOT is a fresh temporary directory, removed afterwards.

Usage: python bench/pyz.py [--runs N] [--first-runs N] [--python PATH ...] PYZ [PYZ ...]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import clean_env, exit_cleanly_on_sigterm, load_average
from rawrpc import RawServer

#: The project's start-up targets, in seconds to the first tools/list reply.
TARGET_FIRST = 0.4
TARGET_LATER = 0.4

PROBE = "import platform, sys; print(platform.python_implementation(), sys.version_info >= (3, 10))"


def interpreters() -> list[str]:
    """Every CPython 3.10+ under ~/.pyenv/versions and python3, one per executable."""
    candidates = sorted(str(p) for p in Path.home().glob(".pyenv/versions/*/bin/python"))
    candidates += [p for p in [shutil.which("python3")] if p]
    found: dict[str, str] = {}
    for path in candidates:
        probe = subprocess.run(
            [path, "-c", f"{PROBE}; print(sys.executable)"], capture_output=True, text=True
        )
        lines = probe.stdout.split("\n")
        if probe.returncode == 0 and lines[0] == "CPython True":
            found.setdefault(str(Path(lines[1]).resolve()), path)
    return list(found.values())


def version(python: str) -> str:
    done = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def listed(command: Sequence[str], root: Path, dont_write_bytecode: bool) -> tuple[float, float]:
    """Seconds from spawn to the first tools/list reply, and to the first bash result."""
    env = {k: v for k, v in clean_env().items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SHIV_ROOT"] = str(root)
    if dont_write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    start = time.perf_counter()
    with RawServer(command, env) as server:
        server.initialize()
        server.request("tools/list")
        tools = time.perf_counter() - start
        server.call("bash", {"command": "true"})
        return tools, time.perf_counter() - start


def disk(root: Path) -> tuple[int, int]:
    """Bytes of disk (allocated blocks, as du counts them) and files under ``root``."""
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_blocks * 512 for p in files), len(files)


def row(label: str, seconds: list[tuple[float, float]], target: float | None = None) -> None:
    median = statistics.median(tools for tools, _ in seconds)
    called = statistics.median(call for _, call in seconds)
    goal = (
        f"   target <= {target:.1f} s  {'ok' if median <= target else 'MISSED'}" if target else ""
    )
    print(
        f"  {label:<44}{median:7.2f} s  bash {called:5.2f} s  (n={len(seconds)}){goal}",
        flush=True,
    )


def bench(pyz: Path, python: str, workdir: Path, scratch: Path, runs: int, first_runs: int) -> None:
    command = [python, "-s", str(pyz), "--transport", "stdio", "--workdir", str(workdir)]
    print(f"{pyz.name} under CPython {version(python)} ({python})", flush=True)
    firsts: list[tuple[float, float]] = []
    seconds: list[tuple[float, float]] = []
    later: list[tuple[float, float]] = []
    unpacked = (0, 0)
    for run in range(first_runs):
        root = Path(tempfile.mkdtemp(prefix="shiv-", dir=scratch))
        try:
            firsts.append(listed(command, root, True))
            unpacked = disk(root)
            seconds.append(listed(command, root, True))
            if run == first_runs - 1:
                later = [listed(command, root, True) for _ in range(runs)]
        finally:
            shutil.rmtree(root, ignore_errors=True)
    row("first start (unpacks itself)", firsts, TARGET_FIRST)
    row("second start", seconds, TARGET_LATER)
    row("later starts", later, TARGET_LATER)
    root = Path(tempfile.mkdtemp(prefix="shiv-", dir=scratch))
    try:
        listed(command, root, False)
        writes = [listed(command, root, False) for _ in range(runs)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    row("later starts, bytecode writes allowed", writes)
    print(f"  disk after the first start: {unpacked[0] / 2**20:.1f} MiB in {unpacked[1]} files")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pyz", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=10, help="later starts per row (10)")
    parser.add_argument("--first-runs", type=int, default=3, help="first starts (3)")
    parser.add_argument("--python", action="append", help="an interpreter (repeatable)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.first_runs < 1:
        parser.error("--runs and --first-runs must be at least 1")
    exit_cleanly_on_sigterm()
    pythons = args.python or interpreters()
    scratch = Path(tempfile.mkdtemp(prefix="boris-bench-pyz-"))
    try:
        workdir = scratch / "work"
        workdir.mkdir()
        print(
            "spawn -> first tools/list reply (and -> first bash result), "
            f"PYTHONDONTWRITEBYTECODE=1; {load_average()}"
        )
        for pyz in args.pyz:
            print(f"{pyz.name}: {pyz.stat().st_size / 1e6:.1f} MB")
        for pyz in args.pyz:
            for python in pythons:
                bench(pyz, python, workdir, scratch, args.runs, args.first_runs)
        print(f"after: {load_average()}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
