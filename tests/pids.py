"""Checking, from a test, whether processes a command started are still alive."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio


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
