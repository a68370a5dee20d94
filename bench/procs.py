"""Process helpers shared by the benchmarks: the server's environment, its memory and CPU
time from /proc (Linux), the machine's load, and stopping a process by its pid.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment without BORIS_* settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BORIS_")}
    env.update(extra or {})
    return env


def memory_kib(pid: int, field: str) -> int:
    """A ``/proc/<pid>/status`` memory field (``VmRSS``, ``VmHWM``) in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def children(pid: int) -> list[int]:
    """The pids of a process's live children."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(p) for p in (task / "children").read_text().split()]
    return found


def cpu_seconds(pid: int, reaped_children: bool = False) -> float:
    """User + system CPU time of a process so far (or of its children it has reaped)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    first = 13 if reaped_children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def print_memory(server: int, idle_rss: int, after: str) -> None:
    """The server's VmRSS idle (``idle_rss``) and its VmHWM now, then its search workers'
    (their memory is not in the server's), summed; ``after`` names what ran."""
    server_hwm = memory_kib(server, "VmHWM")
    workers = children(server)
    print()
    print(f"server: VmRSS idle {mib(idle_rss)}, VmHWM after the {after} {mib(server_hwm)}")
    if workers:
        rss = sum(memory_kib(pid, "VmRSS") for pid in workers)
        hwm = sum(memory_kib(pid, "VmHWM") for pid in workers)
        print(
            f"search workers ({len(workers)} processes) after the {after}: "
            f"VmRSS {mib(rss)}, VmHWM {mib(hwm)}, summed"
        )
    else:
        print("search workers: none running")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop_process(proc: subprocess.Popen[Any], timeout: float = 15) -> None:
    """End a process this script started, by its pid: SIGTERM, then SIGKILL if it lingers."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def _exit_on_signal(number: int, frame: object) -> None:
    raise SystemExit(128 + number)


def exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so ``finally`` blocks stop servers and remove
    temporary directories then too (Ctrl-C does so through KeyboardInterrupt)."""
    signal.signal(signal.SIGTERM, _exit_on_signal)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.5 = p50) of a non-empty sample."""
    ordered = sorted(values)
    # Rounded first so that a product like 20 * 0.95 = 19.000000000000004 is not taken up.
    rank = max(1, math.ceil(round(len(ordered) * fraction, 9)))
    return ordered[rank - 1]
