"""Start-up time of Boris over STDIO: spawn → initialize reply, and spawn → first tools/list
reply, plus the server's idle memory right after that first tools/list.

Speaks raw JSON-RPC over the pipes (``rawrpc.py``), so no client library start-up is
counted. Each row is the median of --runs starts (default 10), each a new process; an
unmeasured start before a row's runs warms the page cache. VmRSS is read from
/proc/PID/status after the first tools/list reply, before the server is stopped.

The server's environment has PYTHONDONTWRITEBYTECODE=1 unless --allow-bytecode-writes
is given: nothing the runs do is written as bytecode, so the figure does not depend on
earlier runs (a source checkout whose __pycache__ directories are missing compiles its
modules at each start under it).

Rows: the venv (this interpreter, ``-m boris``) or the command given after ``--`` (one
that serves STDIO, e.g. ``-- python3 boris.pyz --transport stdio``; --workdir is added).
The venv's row names the project's start-up target for it. The zipapp's first and later
starts under each interpreter: bench/pyz.py.

Usage: python bench/startup.py [--runs N] [--allow-bytecode-writes] [-- command ...]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import clean_env, exit_cleanly_on_sigterm, load_average, memory_kib, mib
from rawrpc import RawServer, boris_command

#: The project's start-up targets, in seconds to the first tools/list reply.
TARGET_VENV = 0.9


@dataclass
class Start:
    initialized: float  # seconds from spawn to the initialize reply
    listed: float  # seconds from spawn to the first tools/list reply
    rss_kib: int  # VmRSS right after that reply


def measure(command: Sequence[str], env: dict[str, str]) -> Start:
    start = time.perf_counter()
    with RawServer(command, env) as server:
        server.initialize()
        initialized = time.perf_counter() - start
        server.request("tools/list")
        listed = time.perf_counter() - start
        rss = memory_kib(server.pid, "VmRSS")
    return Start(initialized, listed, rss)


def report(label: str, starts: list[Start], target: float | None) -> None:
    init = statistics.median(s.initialized for s in starts)
    listed = statistics.median(s.listed for s in starts)
    rss = statistics.median(s.rss_kib for s in starts)
    goal = ""
    if target is not None:
        goal = f"   target <= {target:.1f} s  {'ok' if listed <= target else 'MISSED'}"
    print(
        f"{label:<44}{init * 1000:7.0f} ms{listed * 1000:9.0f} ms{mib(rss):>12}{goal}",
        flush=True,
    )


def environment(dont_write_bytecode: bool, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in clean_env(extra).items() if k != "PYTHONDONTWRITEBYTECODE"}
    if dont_write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def bytecode_label(dont_write_bytecode: bool) -> str:
    return "PYTHONDONTWRITEBYTECODE=1" if dont_write_bytecode else "bytecode writes allowed"


def warm_runs(command: Sequence[str], env: dict[str, str], runs: int) -> list[Start]:
    measure(command, env)  # unmeasured: page cache, and a pyz's unpacking
    return [measure(command, env) for _ in range(runs)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="starts per row (default 10)")
    parser.add_argument(
        "--allow-bytecode-writes",
        action="store_true",
        help="do not set PYTHONDONTWRITEBYTECODE=1 for the venv's (or command's) server",
    )
    parser.add_argument("command", nargs="*", help="start this instead of the venv's boris")
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    scratch = Path(tempfile.mkdtemp(prefix="boris-bench-startup-"))
    try:
        workdir = scratch / "work"
        workdir.mkdir()
        print(f"median of {args.runs} starts per row; {load_average()}")
        print(f"{'':<44}{'initialize':>10}{'tools/list':>11}{'VmRSS':>12}")
        dont_write = not args.allow_bytecode_writes
        env = environment(dont_write)
        if args.command:
            command = [*args.command, "--workdir", str(workdir)]
            label, target = f"command ({bytecode_label(dont_write)})", None
        else:
            command = boris_command(workdir)
            label, target = f"venv ({bytecode_label(dont_write)})", TARGET_VENV
        report(label, warm_runs(command, env, args.runs), target)
        print(f"after: {load_average()}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
