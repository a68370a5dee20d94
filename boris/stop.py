"""Calling off a long search: what tells it to stop, the exception that ends it, and
the look at one from inside its loops.

A cancelled grep or glob call sets a :class:`threading.Event` (``Session.blocking``);
the walk, the pattern matcher and the worker pool look at it every so often and raise
:class:`Stopped`, so the work ends soon after nobody waits for it. Grep's worker
processes load this module, so it holds nothing else.
"""

from __future__ import annotations

from typing import Protocol


class Stopped(Exception):
    """The search was called off (its call was cancelled): nobody waits for its result."""


class Stop(Protocol):
    """What tells a search to stop (a :class:`threading.Event`)."""

    def is_set(self) -> bool: ...


#: Matches (or files) between two looks at whether a search was called off.
CHECK_EVERY = 4096


def check(stop: Stop | None) -> None:
    """Raise :class:`Stopped` if ``stop`` is set."""
    if stop is not None and stop.is_set():
        raise Stopped
