"""Throughput of the bash tool.

1. Sequential ``bash {"command": "true"}`` calls in one STDIO session: calls per second
   and p50/p90 latency, measured twice: with raw JSON-RPC over the pipes (the server's
   own cost) and with the fastmcp Client (what an agent built on it sees).
2. 50 concurrent HTTP sessions, each running 20 short commands; every session moves
   to its own directory first and checks each reply names it: no error, no cross-talk.

Usage: python bench/bash.py [--calls N] [--sessions N] [--commands N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rawrpc import RawServer, boris_command

from tests.support import (
    http_client,
    http_server,
    stdio_client,
    text_of,
)

TRUE_RESULT = "exit_code: 0\n"


def cpu_seconds(pid: int, children: bool = False) -> float:
    """User + system CPU time of a process so far (or of its reaped children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    first = 13 if children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")


def summary(label: str, latencies: list[float]) -> None:
    total = sum(latencies)
    cuts = statistics.quantiles(latencies, n=10)
    print(
        f"{label:<34} {len(latencies) / total:6.0f} calls/s   "
        f"p50 {cuts[4] * 1000:5.2f} ms   p90 {cuts[8] * 1000:5.2f} ms"
    )


def raw_stdio(calls: int, workdir: str) -> list[float]:
    """Latencies of ``calls`` bash calls; prints the CPU each call cost the server and the shell."""
    server = RawServer(boris_command(workdir)).initialize()
    latencies = []
    try:
        cpu_before = (0.0, 0.0)
        for i in range(calls + 50):
            if i == 50:  # the first calls warm up
                cpu_before = (cpu_seconds(server.pid), cpu_seconds(server.pid, children=True))
            start = time.perf_counter()
            text = server.call("bash", {"command": "true"})
            elapsed = time.perf_counter() - start
            assert text == TRUE_RESULT, text
            if i >= 50:
                latencies.append(elapsed)
        own = (cpu_seconds(server.pid) - cpu_before[0]) / calls * 1000
        shells = (cpu_seconds(server.pid, children=True) - cpu_before[1]) / calls * 1000
        print(
            f"  CPU per call: server {own:.2f} ms, shell {shells:.2f} ms "
            f"(one core serves {1000 / (own + shells):.0f} calls/s)"
        )
    finally:
        server.stop()
    return latencies


async def client_stdio(calls: int, workdir: str, mode: str) -> list[float]:
    latencies = []
    async with stdio_client(workdir=workdir, mode=mode) as client:
        for i in range(calls + 50):
            start = time.perf_counter()
            result = await client.call_tool("bash", {"command": "true"})
            elapsed = time.perf_counter() - start
            assert text_of(result) == TRUE_RESULT
            if i >= 50:
                latencies.append(elapsed)
    return latencies


async def http_sessions(sessions: int, commands: int, workdir: str) -> None:
    root = Path(workdir)
    for n in range(sessions):
        (root / f"s{n}").mkdir()
    errors: list[str] = []

    async def one_session(url: str, n: int) -> None:
        own = str(root / f"s{n}")
        async with http_client(url) as client:
            result = await client.call_tool("bash", {"command": f"cd s{n}"})
            if text_of(result) != "exit_code: 0\n":
                errors.append(f"session {n}: cd: {text_of(result)!r}")
            for i in range(commands):
                result = await client.call_tool("bash", {"command": f"echo {n}-{i}; pwd"})
                expected = f"exit_code: 0\n\nstdout:\n{n}-{i}\n{own}\n"
                if result.is_error or text_of(result) != expected:
                    errors.append(f"session {n} call {i}: {text_of(result)!r}")

    with http_server(workdir=workdir) as server:
        cpu_before = cpu_seconds(server.proc.pid)
        start = time.perf_counter()
        async with anyio.create_task_group() as group:
            for n in range(sessions):
                group.start_soon(one_session, server.url, n)
        elapsed = time.perf_counter() - start
        cpu = cpu_seconds(server.proc.pid) - cpu_before
    calls = sessions * (commands + 1)
    print(
        f"HTTP: {sessions} sessions x {commands + 1} calls: {elapsed:.2f} s, "
        f"{calls / elapsed:.0f} calls/s overall, server CPU {cpu * 1000 / calls:.2f} ms/call, "
        f"{len(errors)} errors"
    )
    for error in errors[:10]:
        print("  ", error)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--commands", type=int, default=20)
    args = parser.parse_args(argv)
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    workdir = tempfile.mkdtemp(prefix="boris-bench-")
    print(f"{args.calls} sequential bash 'true' calls over STDIO")
    summary("raw JSON-RPC", raw_stdio(args.calls, workdir))
    summary("fastmcp Client (legacy mode)", anyio.run(client_stdio, args.calls, workdir, "legacy"))
    summary("fastmcp Client (default mode)", anyio.run(client_stdio, args.calls, workdir, "auto"))
    anyio.run(http_sessions, args.sessions, args.commands, workdir)


if __name__ == "__main__":
    main()
