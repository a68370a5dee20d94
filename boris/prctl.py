"""What the server asks of the Linux kernel about itself, through prctl(2) (by ctypes: the
standard library has no binding).

- Not dumpable (``PR_SET_DUMPABLE`` 0): a process of the same user that is not root (a
  command the server runs, first of all) can then no longer open the server's
  ``/proc/<pid>/fd/*`` (its pipes to a STDIO client, other sessions' output pipes),
  read its memory or environment, or trace it. Root can still do all of that.
- Child subreaper (``PR_SET_CHILD_SUBREAPER``): a process whose parent ends is handed to
  the server instead of to init, so what a command detaches (``setsid``, a double fork)
  stays among the server's descendants, where it can be found and ended
  (boris.shell.processes) and reaped (boris.shell.reaper).

Neither is inherited by a command: dumpability is reset by ``execve``, the subreaper
attribute by ``fork``. Where there is no prctl (macOS) every function here does nothing
and returns False.
"""

from __future__ import annotations

import ctypes
import sys

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


def _prctl(option: int, argument: object) -> bool:
    """prctl(option, argument, 0, 0, 0); whether it succeeded (False where there is no
    prctl; a refusal is logged)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    zero = ctypes.c_ulong(0)
    if prctl(ctypes.c_int(option), argument, zero, zero, zero) != 0:
        errno = ctypes.get_errno()
        # logging imported only here: make_undumpable runs before the early answers,
        # which load nothing they can do without (boris.early).
        import logging

        logging.getLogger("boris.prctl").warning("prctl(%d) failed: errno %d", option, errno)
        return False
    return True


def make_undumpable() -> bool:
    """Make this process non-dumpable; whether it is now."""
    return _prctl(PR_SET_DUMPABLE, ctypes.c_ulong(0))


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans; whether it is now."""
    return _prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1))


def is_subreaper() -> bool:
    """Whether this process is a child subreaper."""
    flag = ctypes.c_int(0)
    return _prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag)) and flag.value != 0
