"""Concurrent MCP sessions over streamable HTTP under a mixed load, checked for cross-talk.

Starts Boris over HTTP on 127.0.0.1 (a free port, a fresh temporary workdir) and drives
it with the raw HTTP client of ``rawhttp.py`` (no MCP client library, so the figures are
the server's). Every session does the handshake (initialize with protocol version
2025-11-25, the Mcp-Session-Id header, notifications/initialized), then --calls
tools/call one after another, all sessions at once:

  bash ``mkdir sN && cd sN`` first (a directory of its own), then in turn: bash ``pwd``,
  create_file of its own file (a relative path, so it lands in its own directory),
  bash ``echo <unique token>``, view of the file, bash ``sleep 0.05``, str_replace in
  the file; and so on until --calls.

Every answer is checked against the text it must be (its own directory, its own token,
its own file content); after the session ends (DELETE) the file on disk must hold what
the session wrote. A wrong answer, an error result or a failed request counts as an
error, is reported, and makes the script exit with status 1.

Prints tools/call per second (all calls of all sessions over the time from the first
call sent to the last answer); p50/p95 latency of bash calls, file-tool calls and all
calls (from sending the request to reading its JSON-RPC response); the CPU time per call
of the server and of this client (the shells' CPU not included); and the server's
VmRSS/VmHWM (/proc/PID/status) idle after start-up (once /health answers) and after the
load. Between the two, before the load, one session calls each tool once, so first-use
costs (imports done on a tool's first call) are not in the figures. With --runs N the
whole measurement (a new server each time) is repeated and the median of each figure is
printed. The machine's load average is printed beside the figures: on a busy machine
they move.

Usage: python bench/load.py [--sessions 50] [--calls 20] [--runs 1]
                            [--server-cmd "python3 dist/boris.pyz"]
The server command must be the server's own process (exec, no wrapper shell), as its
memory is read by pid; the script adds --transport, --host, --port and --workdir.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import (
    clean_env,
    cpu_seconds,
    exit_cleanly_on_sigterm,
    free_port,
    load_average,
    memory_kib,
    mib,
    percentile,
    stop_process,
)
from rawhttp import McpSession

HOST = "127.0.0.1"
OK = "exit_code: 0\n"
FILE_NAME = "own.txt"
#: The calls after the first (the cd), in turn.
CYCLE = ("pwd", "create_file", "echo", "view", "sleep", "str_replace")
GROUP = {
    "cd": "bash",
    "pwd": "bash",
    "echo": "bash",
    "sleep": "bash",
    "create_file": "file",
    "view": "file",
    "str_replace": "file",
}


def numbered(content: str) -> str:
    """A whole short file as view shows it: right-aligned numbers as wide as the last, a tab."""
    lines = content.splitlines()
    width = len(str(len(lines)))
    return "".join(f"{n:>{width}}\t{line}\n" for n, line in enumerate(lines, 1))


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    first_sent: float = float("inf")
    last_answer: float = 0.0
    calls: int = 0


@dataclass
class Step:
    kind: str
    tool: str
    arguments: dict[str, Any]
    expected: str  # the exact answer, or its start when ``prefix_only``
    prefix_only: bool = False


class Worker:
    """One session's workload and what it must see."""

    def __init__(self, name: str, port: int, root: Path, run_tag: str) -> None:
        self.name = name
        self.port = port
        self.own = root / name
        self.tag = f"{run_tag}-{name}"
        self.content: str | None = None  # what the session's file holds

    def step(self, index: int) -> Step:
        if index == 0:
            command = f"mkdir {self.own.name} && cd {self.own.name}"
            return Step("cd", "bash", {"command": command}, OK)
        kind = CYCLE[(index - 1) % len(CYCLE)]
        token = f"{self.tag}-c{index}-{secrets.token_hex(4)}"
        if kind == "pwd":
            return Step(kind, "bash", {"command": "pwd"}, f"{OK}\nstdout:\n{self.own}\n")
        if kind == "echo":
            return Step(kind, "bash", {"command": f"echo {token}"}, f"{OK}\nstdout:\n{token}\n")
        if kind == "sleep":
            return Step(kind, "bash", {"command": "sleep 0.05"}, OK)
        path = self.own / FILE_NAME
        if kind == "create_file":
            self.content = f"owner {self.tag}\nversion {token}\n"
            size = len(self.content.encode())
            arguments = {"path": FILE_NAME, "content": self.content}
            return Step(kind, "create_file", arguments, f"Created {path} ({size} bytes)")
        assert self.content is not None, "the cycle creates the file before using it"
        if kind == "view":
            return Step(kind, "view", {"path": FILE_NAME}, numbered(self.content))
        assert kind == "str_replace"
        old = self.content.splitlines()[-1]  # holds a token: unique in the file
        new = f"{old} edited {token}"
        self.content = self.content.replace(old, new)
        arguments = {"path": FILE_NAME, "old_str": old, "new_str": new}
        return Step(kind, "str_replace", arguments, f"Replaced in {path}\n\n", prefix_only=True)

    async def run(self, calls: int, tally: Tally) -> None:
        session = McpSession(HOST, self.port)
        try:
            try:
                await session.initialize()
            except Exception as exc:
                tally.errors.append(f"session {self.name}: handshake: {exc!r}")
                return
            for index in range(calls):
                step = self.step(index)
                start = time.perf_counter()
                tally.first_sent = min(tally.first_sent, start)
                try:
                    text, is_error, arrived = await session.call(step.tool, step.arguments)
                except Exception as exc:
                    tally.errors.append(f"session {self.name} call {index}: {exc!r}")
                    await session.close()  # the next call starts on a fresh connection
                    continue
                tally.calls += 1
                tally.last_answer = max(tally.last_answer, arrived)
                tally.latencies.setdefault(step.kind, []).append(arrived - start)
                right = (
                    text.startswith(step.expected) if step.prefix_only else text == step.expected
                )
                if is_error or not right:
                    tally.errors.append(
                        f"session {self.name} call {index} ({step.kind}): got {text!r}, "
                        f"expected {'a text starting with ' if step.prefix_only else ''}"
                        f"{step.expected!r}"
                    )
            try:
                status = await session.delete()
                if status not in (200, 202, 204):
                    tally.errors.append(f"session {self.name}: DELETE: HTTP {status}")
            except Exception as exc:
                tally.errors.append(f"session {self.name}: DELETE: {exc!r}")
        finally:
            await session.close()
        self.check_disk(tally)

    def check_disk(self, tally: Tally) -> None:
        if self.content is None:
            return
        try:
            on_disk = (self.own / FILE_NAME).read_text()
        except OSError as exc:
            on_disk = repr(exc)
        if on_disk != self.content:
            tally.errors.append(
                f"session {self.name}: {self.own / FILE_NAME} holds {on_disk!r}, "
                f"expected {self.content!r}"
            )


async def warm_up(port: int, root: Path) -> None:
    """One session that calls each tool once, so the server's first-use costs (imports
    done on the first call of a tool) are not in the figures. Any failure stops the run."""
    worker = Worker("warm-up", port, root, "w")
    tally = Tally()
    await worker.run(len(CYCLE) + 1, tally)
    if tally.errors:
        raise RuntimeError("the warm-up session failed:\n" + "\n".join(tally.errors))


async def drive(port: int, root: Path, sessions: int, calls: int, run_tag: str) -> Tally:
    await warm_up(port, root)
    tally = Tally()
    workers = [Worker(f"s{n}", port, root, run_tag) for n in range(sessions)]
    await asyncio.gather(*(worker.run(calls, tally) for worker in workers))
    return tally


# --- one measurement: a server, the load, its figures ---------------------------------


@dataclass
class Figures:
    calls_per_second: float
    p50: dict[str, float]
    p95: dict[str, float]
    cpu_ms_per_call: float
    client_cpu_ms_per_call: float
    idle_rss: int
    idle_hwm: int
    after_rss: int
    after_hwm: int
    calls: int
    errors: list[str]


def wait_healthy(proc: subprocess.Popen[bytes], port: int, log: Path, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.05)  # poll interval while waiting for /health
    raise RuntimeError(
        f"the server did not answer /health within {limit:.0f} s:\n{log.read_text()}"
    )


def measure(server_cmd: Sequence[str], sessions: int, calls: int, run_tag: str) -> Figures:
    scratch = Path(tempfile.mkdtemp(prefix="boris-bench-load-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        root = scratch / "work"
        root.mkdir()
        root = root.resolve()
        log = scratch / "server.log"
        port = free_port()
        argv = [*server_cmd, "--transport", "http", "--host", HOST, "--port", str(port)]
        with log.open("wb") as out:
            # A session of its own: Ctrl-C reaches this script only, which then stops the
            # server by pid in the finally below.
            proc = subprocess.Popen(
                [*argv, "--workdir", str(root)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                env=clean_env(),
                start_new_session=True,
            )
        wait_healthy(proc, port, log)
        idle_rss, idle_hwm = memory_kib(proc.pid, "VmRSS"), memory_kib(proc.pid, "VmHWM")
        cpu_before, client_before = cpu_seconds(proc.pid), time.process_time()
        tally = asyncio.run(drive(port, root, sessions, calls, run_tag))
        cpu = cpu_seconds(proc.pid) - cpu_before
        client_cpu = time.process_time() - client_before
        after_rss, after_hwm = memory_kib(proc.pid, "VmRSS"), memory_kib(proc.pid, "VmHWM")
    finally:
        if proc is not None:
            stop_process(proc)
        shutil.rmtree(scratch, ignore_errors=True)

    every = [t for kind in tally.latencies.values() for t in kind]
    groups: dict[str, list[float]] = {"bash": [], "file": [], "all": every}
    for kind, times in tally.latencies.items():
        groups[GROUP[kind]].extend(times)
        groups[kind] = times
    elapsed = tally.last_answer - tally.first_sent
    return Figures(
        calls_per_second=tally.calls / elapsed if tally.calls and elapsed > 0 else 0.0,
        p50={name: percentile(times, 0.50) for name, times in groups.items() if times},
        p95={name: percentile(times, 0.95) for name, times in groups.items() if times},
        cpu_ms_per_call=cpu * 1000 / tally.calls if tally.calls else 0.0,
        client_cpu_ms_per_call=client_cpu * 1000 / tally.calls if tally.calls else 0.0,
        idle_rss=idle_rss,
        idle_hwm=idle_hwm,
        after_rss=after_rss,
        after_hwm=after_hwm,
        calls=tally.calls,
        errors=tally.errors,
    )


# --- output ------------------------------------------------------------------------------

ROWS = [
    ("bash", "bash (all)"),
    ("file", "file tools (all)"),
    ("all", "every tools/call"),
    ("cd", "  bash mkdir && cd"),
    ("pwd", "  bash pwd"),
    ("echo", "  bash echo"),
    ("sleep", "  bash sleep 0.05"),
    ("create_file", "  create_file"),
    ("view", "  view"),
    ("str_replace", "  str_replace"),
]


def mid(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(runs: list[Figures], sessions: int, calls: int) -> None:
    label = f"median of {len(runs)} runs" if len(runs) > 1 else "one run"
    print(f"\n{label}, {sessions} sessions x {calls} tools/call")
    print(f"tools/call per second (overall)   {mid([r.calls_per_second for r in runs]):7.0f}")
    print(f"server CPU per tools/call         {mid([r.cpu_ms_per_call for r in runs]):7.2f} ms")
    client = mid([r.client_cpu_ms_per_call for r in runs])
    print(f"this client's CPU per tools/call  {client:7.2f} ms")
    print(f"{'latency':<34}{'p50':>8}{'p95':>10}")
    for key, name in ROWS:
        p50 = [r.p50[key] for r in runs if key in r.p50]
        p95 = [r.p95[key] for r in runs if key in r.p95]
        if p50:
            print(f"{name:<34}{mid(p50) * 1000:6.1f} ms{mid(p95) * 1000:7.1f} ms")
    errors = sum(len(r.errors) for r in runs)
    print(f"errors (wrong or failed answers)  {errors:7d}")
    print(
        f"server memory idle after start-up VmRSS {mib(mid([r.idle_rss for r in runs]))}, "
        f"VmHWM {mib(mid([r.idle_hwm for r in runs]))}"
    )
    print(
        f"server memory after the load      VmRSS {mib(mid([r.after_rss for r in runs]))}, "
        f"VmHWM {mib(mid([r.after_hwm for r in runs]))}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--calls", type=int, default=20, help="tools/call per session")
    parser.add_argument("--runs", type=int, default=1, help="repeat, print the median")
    parser.add_argument(
        "--server-cmd",
        default=shlex.join([sys.executable, "-m", "boris"]),
        help="the command that starts Boris (default: this interpreter, -m boris)",
    )
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    if args.sessions < 1 or args.calls < 1 or args.runs < 1:
        parser.error("--sessions, --calls and --runs must be at least 1")
    server_cmd = shlex.split(args.server_cmd)
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    print(f"server: {shlex.join(server_cmd)} (HTTP on {HOST})")
    print(f"before: {load_average()}")
    runs: list[Figures] = []
    for run in range(1, args.runs + 1):
        try:
            figures = measure(server_cmd, args.sessions, args.calls, f"r{run}")
        except RuntimeError as exc:  # the server did not start, or the warm-up failed
            print(f"run {run}: {exc}", file=sys.stderr)
            return 2
        runs.append(figures)
        print(
            f"run {run}: {figures.calls} tools/call, {figures.calls_per_second:.0f}/s, "
            f"p50 {figures.p50.get('all', float('nan')) * 1000:.1f} ms, "
            f"p95 {figures.p95.get('all', float('nan')) * 1000:.1f} ms, "
            f"{len(figures.errors)} errors; {load_average()}"
        )
        for error in figures.errors[:10]:
            print(f"  {error}")
        if len(figures.errors) > 10:
            print(f"  ... and {len(figures.errors) - 10} more")
    report(runs, args.sessions, args.calls)
    print(f"after: {load_average()}")
    return 1 if any(r.errors for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
