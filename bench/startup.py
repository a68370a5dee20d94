"""Time from spawning Boris (STDIO) to its initialize reply and its first tools/list reply.

Speaks raw JSON-RPC over the pipes so no client library start-up is counted.
Usage: python bench/startup.py [--runs N] [-- command ...]
Default command: this interpreter running ``-m boris --transport stdio``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rawrpc import RawServer, boris_command


def measure(command: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawn to the initialize reply, and to the first tools/list reply."""
    start = time.perf_counter()
    server = RawServer(command, env)
    try:
        server.initialize()
        initialized = time.perf_counter() - start
        server.request("tools/list")
        listed = time.perf_counter() - start
    finally:
        server.stop()
    return initialized, listed


def report(label: str, command: Sequence[str], runs: int, env: dict[str, str]) -> None:
    results = [measure(command, env) for _ in range(runs)]
    init = statistics.median(r[0] for r in results)
    listed = statistics.median(r[1] for r in results)
    print(
        f"{label:<40} initialize {init * 1000:7.0f} ms   first tools/list {listed * 1000:7.0f} ms"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pyz", help="also time this boris.pyz, cold (fresh SHIV_ROOT) and warm")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="boris-bench-")
    env = dict(os.environ)
    command = [*args.command, "--workdir", workdir] if args.command else boris_command(workdir)
    print(f"median of {args.runs} runs")
    report("venv", command, args.runs, env)
    if args.pyz:
        # Not -I: that would ignore PYTHONDONTWRITEBYTECODE, one of the cases to measure.
        pyz = [sys.executable, args.pyz, "--transport", "stdio", "--workdir", workdir]
        for bytecode in ("1", ""):
            pyz_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
            if bytecode:
                pyz_env["PYTHONDONTWRITEBYTECODE"] = bytecode
            label = "PYTHONDONTWRITEBYTECODE=1" if bytecode else "bytecode writes allowed"
            colds = []
            for _ in range(min(args.runs, 3)):
                root = tempfile.mkdtemp(prefix="boris-shiv-")
                colds.append(measure(pyz, dict(pyz_env, SHIV_ROOT=root))[1])
            cold = statistics.median(colds) * 1000
            print(f"{'pyz cold (' + label + ')':<40} first tools/list {cold:7.0f} ms")
            root = tempfile.mkdtemp(prefix="boris-shiv-")
            measure(pyz, dict(pyz_env, SHIV_ROOT=root))  # extract once
            report(f"pyz warm ({label})", pyz, args.runs, dict(pyz_env, SHIV_ROOT=root))


if __name__ == "__main__":
    main()
