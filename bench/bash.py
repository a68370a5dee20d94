"""Sequential bash calls in one STDIO session: per-call latency and calls per second.

Each measurement spawns Boris over STDIO, makes 50 warm-up calls, then --calls
sequential ``bash {"command": "true"}`` calls, each checked to answer ``exit_code: 0``,
and prints p50, p90 and mean latency (from sending the request to reading its answer)
and calls per second (calls / their summed latency). It is measured:

1. with raw JSON-RPC over the pipes (``rawrpc.py``): the server's own cost; this
   measurement also prints the CPU time per call of the server and of the shells;
2. with the fastmcp Client, in legacy mode (the handshake) and in its default mode
   (it first tries the stateless protocol, then falls back): what an agent built on
   that client sees.

The target (the project's own goal) is at least 300 calls/s with raw JSON-RPC.
Concurrent HTTP sessions are measured by load.py.

Usage: python bench/bash.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import clean_env, cpu_seconds, exit_cleanly_on_sigterm, load_average, percentile
from rawrpc import RawServer, boris_command

TRUE_RESULT = "exit_code: 0\n"
WARM_UP_CALLS = 50
#: Raw JSON-RPC calls per second the server is held to.
TARGET_CALLS_PER_SECOND = 300


def summary(label: str, latencies: list[float], target: str = "") -> None:
    mean = statistics.fmean(latencies)
    print(
        f"{label:<32}{1 / mean:7.0f} calls/s   p50 {percentile(latencies, 0.5) * 1000:5.2f} ms"
        f"   p90 {percentile(latencies, 0.9) * 1000:5.2f} ms   mean {mean * 1000:5.2f} ms"
        f"{target}"
    )


def raw_stdio(calls: int, workdir: str) -> list[float]:
    """Latencies of ``calls`` bash calls; prints the CPU each call cost the server and shell."""
    latencies = []
    with RawServer(boris_command(workdir)) as server:
        server.initialize()
        for _ in range(WARM_UP_CALLS):
            server.call("bash", {"command": "true"})
        cpu_before = (cpu_seconds(server.pid), cpu_seconds(server.pid, reaped_children=True))
        for _ in range(calls):
            start = time.perf_counter()
            text = server.call("bash", {"command": "true"})
            latencies.append(time.perf_counter() - start)
            if text != TRUE_RESULT:
                raise RuntimeError(f"bash 'true' answered {text!r}")
        own = (cpu_seconds(server.pid) - cpu_before[0]) / calls * 1000
        shells = (cpu_seconds(server.pid, reaped_children=True) - cpu_before[1]) / calls * 1000
    print(
        f"  CPU per call: server {own:.2f} ms, shell {shells:.2f} ms "
        f"(one core serves {1000 / (own + shells):.0f} calls/s)"
    )
    return latencies


async def client_stdio(calls: int, workdir: str, mode: str, log: TextIO) -> list[float]:
    """Latencies of ``calls`` bash calls through the fastmcp Client, which spawns the server
    itself and ends it when the ``async with`` block is left."""
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport
    from mcp_types import TextContent

    command = boris_command(workdir)
    latencies = []
    transport = StdioTransport(
        command=command[0], args=command[1:], env=clean_env(), keep_alive=False, log_file=log
    )
    async with Client(transport, mode=mode, timeout=60) as client:
        for n in range(WARM_UP_CALLS + calls):
            start = time.perf_counter()
            result = await client.call_tool("bash", {"command": "true"})
            elapsed = time.perf_counter() - start
            block = result.content[0]
            text = block.text if isinstance(block, TextContent) else repr(block)
            if text != TRUE_RESULT:
                raise RuntimeError(f"bash 'true' answered {text!r}")
            if n >= WARM_UP_CALLS:
                latencies.append(elapsed)
    return latencies


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    if args.calls < 2:
        parser.error("--calls must be at least 2")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    print(f"{args.calls} sequential bash 'true' calls over STDIO; {load_average()}")
    workdir = tempfile.mkdtemp(prefix="boris-bench-bash-")
    try:
        raw = raw_stdio(args.calls, workdir)
        met = "ok" if 1 / statistics.fmean(raw) >= TARGET_CALLS_PER_SECOND else "MISSED"
        summary("raw JSON-RPC", raw, f"   target >= {TARGET_CALLS_PER_SECOND} calls/s  {met}")
        # The server's log goes to /dev/null, as with raw JSON-RPC.
        with open(os.devnull, "w") as no_log:
            for mode, label in (("legacy", "legacy mode"), ("auto", "default mode")):
                latencies = asyncio.run(client_stdio(args.calls, workdir, mode, no_log))
                summary(f"fastmcp Client ({label})", latencies)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
