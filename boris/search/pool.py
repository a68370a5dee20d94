"""Worker processes that read and search files for large greps, one per CPU core.

Threads cannot spread grep over cores: between the system calls and RE2 calls that
release the GIL, the per-file work is Python, and two threads hand the GIL back and
forth so often that they are slower than one (measured on the benchmark tree: 1.3 s
with two threads against 0.6 s with one). Processes are not bound by the GIL.

The server process still walks the tree (scope checks and .gitignore rules stay in
one place) and sends the paths in chunks to the workers with the task of the search
(a :class:`ChunkTask`, plain data: grep's :class:`~boris.search.file_search.FileTask`,
or the code-structure search's), which does its work on each file; the server reads
the results in order, so the output is the same as a search done in one process. A
task's class is loaded in the worker when the first task of its kind arrives: a grep
worker loads nothing of what only other kinds of task need. Workers are
started on the first search that needs them, serve one search at a time, and exit
when their stdin closes, which happens at the latest when the server exits, however
it exits. A worker that fails is dropped and its chunk searched in the server.

Messages are length-prefixed pickles over the worker's stdin and stdout pipes.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol, TypeVar

from boris.stop import Stop, check

R = TypeVar("R")


class ChunkTask(Protocol[R]):
    """What a search does with each file, as plain data that pickles (its class must be
    importable by module and name in a worker)."""

    def run_chunk(
        self, chunk: list[tuple[str, str]], skip: int, stop: Stop | None = None
    ) -> list[tuple[int, R]]:
        """``(index, result)`` for the files of ``chunk`` (``(label, path)`` pairs) with
        a result. ``skip`` is what grep's content mode may leave out before the page
        (see :meth:`boris.search.file_search.FileTask.run_chunk`); other tasks ignore it."""
        ...


#: Files per message. Small enough that a queued request always fits in a pipe buffer
#: (so sending never waits on a worker that is itself waiting to send a reply).
CHUNK_FILES = 128
CHUNK_BYTES = 32 * 1024

#: Requests in flight per worker: the next chunk is waiting when one is done.
IN_FLIGHT = 2

_HEADER = struct.Struct("<I")

_WORKER_CODE = "from boris.search.pool import serve; serve()"
#: The worker's command line after the interpreter. -c puts the working directory (a
#: user's repository) first on sys.path; -P keeps it off, and before 3.11, which has
#: no -P, the code takes it off itself before importing anything.
if sys.version_info >= (3, 11):
    _WORKER_ARGS = ["-P", "-c", _WORKER_CODE]
else:
    _WORKER_ARGS = ["-c", f"import sys; sys.path.remove(''); {_WORKER_CODE}"]


def worker_count() -> int:
    """Workers worth starting here: one per usable core, none on a single core."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(cores, 8)


# --- the worker side ----------------------------------------------------------------------


def serve() -> None:
    """A worker's loop: read a request, search its files, write the results, until EOF."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the server
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # the pipe carries messages only
    try:
        while (message := _read_message(requests)) is not None:
            task, chunk, skip = pickle.loads(message)
            results = task.run_chunk(chunk, skip)
            _write_message(replies, pickle.dumps(results, pickle.HIGHEST_PROTOCOL))
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the server went away


def _read_message(stream: IO[bytes]) -> bytes | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    body = stream.read(size)
    return body if len(body) == size else None


#: Seconds between two looks at whether a search was called off, while a reply is awaited.
STOP_POLL = 0.05


def _read_exactly(fd: int, size: int, stop: Stop | None) -> bytes:
    """``size`` bytes from the pipe ``fd``; WorkerGone at its end. While waiting,
    looks every ``STOP_POLL`` seconds at ``stop``."""
    parts: list[bytes] = []
    have = 0
    while have < size:
        if stop is not None:
            while not select.select([fd], [], [], STOP_POLL)[0]:
                check(stop)
        part = os.read(fd, min(size - have, 1 << 20))
        if not part:
            raise WorkerGone
        parts.append(part)
        have += len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _write_message(stream: IO[bytes], body: bytes) -> None:
    stream.write(_HEADER.pack(len(body)))
    stream.write(body)
    stream.flush()


# --- the server side ----------------------------------------------------------------------


class WorkerGone(Exception):
    pass


@dataclass(eq=False)
class Worker:
    proc: subprocess.Popen[bytes]
    answered: bool = False  # has it ever sent a reply?

    @classmethod
    def start(cls) -> Worker:
        env = dict(os.environ)
        # Whatever this process can import (a venv, an unpacked zipapp), so can the worker.
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        proc = subprocess.Popen(
            [sys.executable, *_WORKER_ARGS],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        return cls(proc)

    def send(self, task: ChunkTask[Any], chunk: list[tuple[str, str]], skip: int) -> None:
        assert self.proc.stdin is not None
        message = pickle.dumps((task, chunk, skip), pickle.HIGHEST_PROTOCOL)
        try:
            _write_message(self.proc.stdin, message)
        except (OSError, ValueError) as exc:  # ValueError: the pipe was closed already
            raise WorkerGone from exc

    def receive(self, stop: Stop | None = None) -> list[tuple[int, Any]]:
        """The worker's next reply; raises :class:`~boris.stop.Stopped` if
        ``stop`` is set while it is awaited.

        The pipe is read at the descriptor (its buffered reader is never used), so
        that waiting for it can be interrupted."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        try:
            (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, stop))
            message = _read_exactly(fd, size, stop)
        except (OSError, ValueError) as exc:
            raise WorkerGone from exc
        results: list[tuple[int, Any]] = pickle.loads(message)
        self.answered = True
        return results

    def kill(self) -> None:
        """End a worker in the middle of its work (its search was called off)."""
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.stop()

    def stop(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # a dead worker's pipe
                    stream.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass(eq=False)
class Pool:
    """Worker processes shared by the searches of one server."""

    size: int
    _idle: list[Worker] = field(default_factory=list)
    _started: int = 0
    _broken: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def checkout(self) -> list[Worker]:
        """Every idle worker, starting missing ones; empty if none can be had."""
        with self._lock:
            if self._broken:
                return []
            workers, self._idle = self._idle, []
            try:
                while self._started < self.size:
                    workers.append(Worker.start())
                    self._started += 1
            except OSError:
                self._broken = True
            return workers

    def release(self, workers: Iterable[Worker]) -> None:
        with self._lock:
            self._idle.extend(workers)

    def drop(self, worker: Worker) -> None:
        """Forget a worker that failed: the next search starts another, unless this one
        never worked (workers cannot run here, say), which ends the pool's use."""
        worker.stop()
        with self._lock:
            self._started -= 1
            if not worker.answered:
                self._broken = True

    def discard(self, worker: Worker) -> None:
        """End a busy worker whose search was called off; the next search starts another."""
        worker.kill()
        with self._lock:
            self._started -= 1

    def close(self) -> None:
        with self._lock:
            workers, self._idle = self._idle, []
        for worker in workers:
            worker.stop()

    def results(
        self,
        task: ChunkTask[R],
        files: Iterator[tuple[str, str]],
        skip: Callable[[], int],
        stop: Stop | None = None,
    ) -> Iterator[tuple[str, str, R]]:
        """``(label, path, result)`` for the files with a result, in the order of
        ``files``, searched by the workers (in this process if there are none).

        ``skip()`` says, when a chunk is sent, how many content lines before the page
        its first file may leave out (see :meth:`ChunkTask.run_chunk`). Once ``stop`` is set
        the search raises :class:`~boris.stop.Stopped`, and the workers
        still busy with it are ended rather than waited for.
        """
        workers = self.checkout()
        if not workers:
            yield from search_here(task, files, skip, stop)
            return
        # Each entry: the worker, its chunk and the chunk's skip. Read back in the order sent.
        pending: deque[Pending] = deque()
        alive: list[Worker] = list(workers)
        chunks = _chunks(files)
        try:
            for worker in list(alive):
                for _ in range(IN_FLIGHT):
                    chunk = next(chunks, None)
                    if chunk is None:
                        break
                    self._send(worker, task, (chunk, skip()), pending, alive)
            while pending:
                worker, chunk, chunk_skip = pending.popleft()
                if worker in alive:
                    try:
                        found = worker.receive(stop)
                    except WorkerGone:
                        self._lose(worker, alive)
                        found = task.run_chunk(chunk, chunk_skip, stop)
                else:
                    found = task.run_chunk(chunk, chunk_skip, stop)
                for index, result in found:
                    yield *chunk[index], result
                refill = next(chunks, None)
                if refill is not None:
                    target = worker if worker in alive else (alive[0] if alive else None)
                    if target is None:
                        # Searched here when its turn comes.
                        pending.append((worker, refill, skip()))
                    else:
                        self._send(target, task, (refill, skip()), pending, alive)
        finally:
            if stop is not None and stop.is_set():
                # Called off: nobody wants what the workers are doing, and one may be
                # half way through a reply. They are ended; the next search starts others.
                for worker in alive:
                    self.discard(worker)
                alive.clear()
            # Stopped early (a full page) or failed: collect the replies still owed,
            # so that each worker goes back idle with nothing left in its pipe.
            for worker, _, _ in pending:
                if worker in alive:
                    try:
                        worker.receive()
                    except WorkerGone:
                        self._lose(worker, alive)
            self.release(alive)

    def _send(
        self,
        worker: Worker,
        task: ChunkTask[Any],
        work: tuple[list[tuple[str, str]], int],
        pending: deque[Pending],
        alive: list[Worker],
    ) -> None:
        chunk, skip = work
        if worker in alive:
            try:
                worker.send(task, chunk, skip)
            except WorkerGone:
                self._lose(worker, alive)
        pending.append((worker, chunk, skip))  # a lost worker's chunks are searched here

    def _lose(self, worker: Worker, alive: list[Worker]) -> None:
        if worker in alive:
            alive.remove(worker)
            self.drop(worker)


#: A chunk sent to a worker (or to be searched here): the worker, the files, the skip.
Pending = tuple[Worker, list[tuple[str, str]], int]


def search_here(
    task: ChunkTask[R],
    files: Iterable[tuple[str, str]],
    skip: Callable[[], int],
    stop: Stop | None = None,
) -> Iterator[tuple[str, str, R]]:
    """The same results as :meth:`Pool.results`, computed in this process, each file
    leaving out exactly the lines before the page (``skip()`` is asked for each)."""
    for label, path in files:
        check(stop)
        for _, result in task.run_chunk([(label, path)], skip(), stop):
            yield label, path, result


def _chunks(files: Iterator[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    chunk: list[tuple[str, str]] = []
    size = 0
    for label, path in files:
        chunk.append((label, path))
        size += len(label) + len(path)
        if len(chunk) >= CHUNK_FILES or size >= CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


_shared: Pool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> Pool | None:
    """The process-wide pool, None where workers would not help (a single core)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            size = worker_count()
            if size == 0:
                return None
            _shared = Pool(size)
            import atexit

            atexit.register(_shared.close)
        return _shared
