"""Checking, from a test, whether processes a command started are still alive."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from tests.support import ok_text


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


async def wait_gone(pids: list[int], within: float = 15) -> list[int]:
    """Wait until none of ``pids`` is alive; returns those still alive at the deadline."""
    deadline = time.monotonic() + within
    alive = [p for p in pids if pid_alive(p)]
    while alive and time.monotonic() < deadline:
        await anyio.sleep(0.05)
        alive = [p for p in alive if pid_alive(p)]
    return alive


def children(pid: int) -> set[int]:
    """The pids of ``pid``'s child processes, zombies included."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry))
    return found


def pids_in(text: str) -> list[int]:
    """Every line of ``text`` that is a number, as a pid."""
    return [int(line) for line in text.splitlines() if line.strip().isdigit()]


async def server_pid(client: Client[Any]) -> int:
    """The pid of the server behind ``client``: the parent of the shell its bash tool runs."""
    (pid,) = pids_in(ok_text(await client.call_tool("bash", {"command": "echo $PPID"})))
    return pid


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used, all its threads together."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def costing_at_most(pid: int, cpu: float) -> AsyncIterator[None]:
    """Fail unless the block costs process ``pid`` less than ``cpu`` seconds of CPU time;
    stop waiting on it after a minute (a hang).

    CPU time, not the time on the clock: a busy machine stretches the one, hardly the
    other, so the bound holds however loaded the machine is.
    """
    before = cpu_seconds(pid)
    with anyio.fail_after(60):
        yield
    used = cpu_seconds(pid) - before
    assert used < cpu, f"the server used {used:.2f} s of CPU (bound {cpu} s)"
