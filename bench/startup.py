"""Start-up time of Boris over STDIO: spawn → initialize reply (or, with --discover, the
2026-07-28 protocol's server/discover reply), spawn → first tools/list reply, spawn → first
bash result, the server's CPU time by then and its memory right after that result.

Speaks raw JSON-RPC over the pipes (``rawrpc.py``), so no client library start-up is
counted; each request is sent as soon as the reply before it is in, as a client does. Each
row is the median of --runs starts (default 10), each a new process; an unmeasured start
before a row's runs warms the page cache. VmRSS is read from /proc/PID/status after the
first bash result (the app has loaded by then), before the server is stopped.

The server's environment has PYTHONDONTWRITEBYTECODE=1 unless --allow-bytecode-writes
is given: nothing the runs do is written as bytecode, so the figure does not depend on
earlier runs (a source checkout whose __pycache__ directories are missing compiles its
modules at each start under it).

Rows: the venv (this interpreter, ``-m boris``) or the command given after ``--`` (one
that serves STDIO, e.g. ``-- python3 boris.pyz --transport stdio``; --workdir is added),
each with the project's start-up targets. The zipapp's first and later starts under each
interpreter: bench/pyz.py.

Usage: python bench/startup.py [--runs N] [--allow-bytecode-writes] [--discover] [-- command ...]
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

from procs import (
    clean_env,
    cpu_seconds,
    exit_cleanly_on_sigterm,
    load_average,
    memory_kib,
    mib,
)
from rawrpc import RawServer, boris_command

#: The project's start-up targets, in seconds from spawn: the initialize (or discover)
#: reply, the first tools/list reply (and its stretch goal).
TARGET_INITIALIZE = 0.3
TARGET_LIST = 0.4
STRETCH_LIST = 0.1

#: The 2026-07-28 protocol: each request carries its version, and no handshake.
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@dataclass
class Start:
    initialized: float  # seconds from spawn to the initialize (or discover) reply
    listed: float  # seconds from spawn to the first tools/list reply
    called: float  # seconds from spawn to the first bash result
    cpu: float  # the server's CPU seconds by then (its shells' not counted)
    rss_kib: int  # VmRSS right after that result


def measure(command: Sequence[str], env: dict[str, str], discover: bool) -> Start:
    meta = {"_meta": ENVELOPE} if discover else {}
    start = time.perf_counter()
    with RawServer(command, env) as server:
        if discover:
            server.request("server/discover", meta)
        else:
            server.initialize()
        initialized = time.perf_counter() - start
        server.request("tools/list", meta or None)
        listed = time.perf_counter() - start
        result = server.request(
            "tools/call", {"name": "bash", "arguments": {"command": "true"}, **meta}
        )
        called = time.perf_counter() - start
        cpu = cpu_seconds(server.pid)
        if result.get("isError"):
            raise RuntimeError(result)
        rss = memory_kib(server.pid, "VmRSS")
    return Start(initialized, listed, called, cpu, rss)


def report(label: str, starts: list[Start], targets: bool) -> None:
    init = statistics.median(s.initialized for s in starts)
    listed = statistics.median(s.listed for s in starts)
    called = statistics.median(s.called for s in starts)
    cpu = statistics.median(s.cpu for s in starts)
    rss = statistics.median(s.rss_kib for s in starts)
    print(
        f"{label:<44}{init * 1000:7.0f} ms{listed * 1000:9.0f} ms{called * 1000:9.0f} ms"
        f"{cpu * 1000:9.0f} ms{mib(rss):>12}",
        flush=True,
    )
    if targets:
        print(
            f"{'':<4}targets: initialize <= {TARGET_INITIALIZE} s "
            f"{'ok' if init <= TARGET_INITIALIZE else 'MISSED'}, tools/list <= {TARGET_LIST} s "
            f"{'ok' if listed <= TARGET_LIST else 'MISSED'} (stretch {STRETCH_LIST} s: "
            f"{'ok' if listed <= STRETCH_LIST else 'missed'})",
            flush=True,
        )


def environment(dont_write_bytecode: bool, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in clean_env(extra).items() if k != "PYTHONDONTWRITEBYTECODE"}
    if dont_write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def bytecode_label(dont_write_bytecode: bool) -> str:
    return "PYTHONDONTWRITEBYTECODE=1" if dont_write_bytecode else "bytecode writes allowed"


def warm_runs(
    command: Sequence[str], env: dict[str, str], runs: int, discover: bool
) -> list[Start]:
    measure(command, env, discover)  # unmeasured: page cache, and a pyz's unpacking
    return [measure(command, env, discover) for _ in range(runs)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="starts per row (default 10)")
    parser.add_argument(
        "--allow-bytecode-writes",
        action="store_true",
        help="do not set PYTHONDONTWRITEBYTECODE=1 for the venv's (or command's) server",
    )
    parser.add_argument(
        "--discover",
        action="store_true",
        help="speak the 2026-07-28 protocol: server/discover instead of initialize",
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
        first = "discover" if args.discover else "initialize"
        print(f"{'':<44}{first:>10}{'tools/list':>12}{'bash':>11}{'CPU':>12}{'VmRSS':>12}")
        dont_write = not args.allow_bytecode_writes
        env = environment(dont_write)
        if args.command:
            command = [*args.command, "--workdir", str(workdir)]
            label = f"command ({bytecode_label(dont_write)})"
        else:
            command = boris_command(workdir)
            label = f"venv ({bytecode_label(dont_write)})"
        report(label, warm_runs(command, env, args.runs, args.discover), True)
        print(f"after: {load_average()}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
