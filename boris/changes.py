"""Writes made through this server, counted: what a result kept for later (the next
page of a symbols search, boris.structure.pages) compares to tell that the tree may
have changed since it was made.

Every tool call that is not read-only counts (the edge counts it as it starts and as it
ends): an edit, a patch, a notebook edit, and every bash command, which may write
anything. Plain standard library: the domain packages and the edge both read it.
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_writes = 0


def wrote() -> None:
    """Note a write (or a call that may write) through this server."""
    global _writes
    with _lock:
        _writes += 1


def writes() -> int:
    """How many writes this server has noted."""
    return _writes
