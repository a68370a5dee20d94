"""A worker process's side of the pool (boris.search.pool): read a request, do its task on
each file of its chunk, write the results, until the server closes the socket.

A worker is started by the server with its command line (``COMMAND``), whose first
statement makes the process non-dumpable, before Python imports anything of Boris and
long before a request is read: a command of the same user can then no longer open its
``/proc`` files, read its memory or trace it. Its environment holds none of the server's
secrets (boris.secret_names) and its only descriptors besides stderr are the two ends of
one Unix socket (a socket cannot be opened again through ``/proc/<pid>/fd``, a pipe can).

A task that runs a native parser (its class says ``ISOLATED``) is given each file under
a memory limit (``RLIMIT_AS``: what the process maps now, plus the task's budget for the
file), and its results are sent file by file, so that the server knows which file a
worker was on when it died. Python running out of memory or of stack on a file gives up
on that file alone.

This module imports nothing of the server; a task's class is imported by its name when
the first request for it arrives.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from boris.search import frames

#: The code a worker runs: non-dumpable first (PR_SET_DUMPABLE is 4; there is no prctl
#: outside Linux), then the loop. Before 3.11 there is no -P: the working directory, a
#: user's repository, is taken off sys.path before anything is imported from it.
_CODE = (
    "import sys\n"
    "if sys.platform.startswith('linux'):\n"
    "    import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n"
    "{path}"
    "from boris.search.worker import serve; serve()\n"
)
if sys.version_info >= (3, 11):
    COMMAND = ["-P", "-c", _CODE.format(path="")]
else:
    COMMAND = ["-c", _CODE.format(path="sys.path.remove('')\n")]


def serve() -> None:
    """A worker's loop: say it is ready, then answer each request until EOF."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the server
    sys.stdout = sys.stderr  # the socket carries frames only
    try:
        _send(["ready"])
        while (request := _receive()) is not None:
            name, fields = request["task"]
            task = _task_class(name).from_wire(fields)
            chunk = [(label, path) for label, path in request["chunk"]]
            if getattr(task, "ISOLATED", False):
                _run_isolated(task, chunk)
            else:
                found = task.run_chunk(chunk, request["skip"])
                _send(["chunk", [[index, task.result_to_wire(result)] for index, result in found]])
    except (BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass  # the server went away


def _task_class(name: str) -> Any:
    module, _, qualname = name.partition(":")
    if not module.startswith("boris."):
        raise ValueError(f"not a task of Boris: {name}")
    return getattr(importlib.import_module(module), qualname)


#: Seconds of work after which a worker says how far it got in its chunk, before its
#: next file: the server then knows, should the worker die or hang, that the files
#: before are done (a file with a result says so itself).
PROGRESS_SECONDS = 0.02


def _run_isolated(task: Any, chunk: list[tuple[str, str]]) -> None:
    _send(["at", 0])  # the task is loaded: the server's clock of the first file starts
    said = time.monotonic()
    for index, entry in enumerate(chunk):
        if time.monotonic() - said > PROGRESS_SECONDS:
            _send(["at", index])
            said = time.monotonic()
        try:
            with _memory_limit(task.memory_budget(entry[1])):
                found = task.run_chunk([entry], 0)
        except MemoryError:
            message: list[Any] = ["skip", index, frames.MEMORY]
        except RecursionError:
            message = ["skip", index, frames.DEPTH]
        else:
            if not found:
                continue
            message = ["file", index, task.result_to_wire(found[0][1])]
        _send(message)
        said = time.monotonic()
    _send(["chunk", []])


@contextlib.contextmanager
def _memory_limit(budget: int | None) -> Iterator[None]:
    """At most ``budget`` bytes more of address space while the block runs (where the
    system has such a limit)."""
    try:
        import resource
    except ImportError:  # not a Unix
        yield
        return
    if budget is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped() + budget
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def mapped() -> int:
    """The bytes of address space this process maps now (0 where /proc cannot tell)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


# --- frames over the socket (the worker's fds 0 and 1) ------------------------------------


def _send(message: Any) -> None:
    data = memoryview(frames.encode(message))
    while data:
        written = os.write(1, data)
        data = data[written:]


def _read(size: int) -> bytes | None:
    parts = []
    while size:
        part = os.read(0, min(size, 1 << 20))
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _receive() -> Any:
    header = _read(frames.HEADER.size)
    if header is None:
        return None
    body = _read(frames.body_size(header))
    return None if body is None else frames.decode(body)
