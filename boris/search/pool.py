"""Worker processes that look at files for large greps and for every structure search
(the code's native parsers run nowhere else), one per CPU core.

Threads cannot spread grep over cores: between the system calls and RE2 calls that
release the GIL, the per-file work is Python, and two threads hand the GIL back and
forth so often that they are slower than one (measured on the benchmark tree: 1.3 s
with two threads against 0.6 s with one). Processes are not bound by the GIL. And a
native parser (tree-sitter's) that crashes or swallows the memory on a hostile file
takes a worker with it, never the server.

The server process still walks the tree (scope checks and .gitignore rules stay in
one place) and sends the paths in chunks to the workers with the task of the search
(a :class:`ChunkTask`, plain data: grep's :class:`~boris.search.file_search.FileTask`,
or the code-structure search's), which does its work on each file; the server reads
the results in order, so the output is the same as a search done in one process. A
task's class is loaded in the worker when the first task of its kind arrives: a grep
worker loads nothing of what only other kinds of task need. Workers are
started on the first search that needs them, serve one search at a time, and exit
when their socket closes, which happens at the latest when the server exits, however
it exits.

The messages are JSON frames over a Unix socket (boris.search.frames): data only, checked
before use. What a worker does is in boris.search.worker; how it is kept from the
commands the server runs is said there.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from boris.search import frames
from boris.search.worker import COMMAND
from boris.secret_names import without_secrets
from boris.stop import Stop, check

R = TypeVar("R")


class ChunkTask(Protocol[R]):
    """What a search does with each file, as plain data that travels to a worker (its
    class must be importable by module and name there, and rebuilt from ``wire()`` by
    its ``from_wire`` class method)."""

    #: Whether the task runs a native parser: then its files are looked at only in
    #: workers, one by one, each within ``memory_budget`` and ``file_seconds``.
    ISOLATED: ClassVar[bool]

    @property
    def file_seconds(self) -> float | None:
        """The longest a worker may take over one file of an ISOLATED task (None: no limit)."""
        ...

    def memory_budget(self, path: str) -> int | None:
        """The most memory the work on ``path`` may take beyond what a worker holds
        already (None: no limit)."""
        ...

    def wire(self) -> dict[str, Any]:
        """The task's fields, as JSON."""
        ...

    def result_to_wire(self, result: R) -> Any:
        """A file's result, as JSON."""
        ...

    def result_from_wire(self, value: Any) -> R:
        """A file's result from a worker's JSON; ValueError if it is not of its shape."""
        ...

    def run_chunk(
        self, chunk: list[tuple[str, str]], skip: int, stop: Stop | None = None
    ) -> list[tuple[int, R]]:
        """``(index, result)`` for the files of ``chunk`` (``(label, path)`` pairs) with
        a result. ``skip`` is what grep's content mode may leave out before the page
        (see :meth:`boris.search.file_search.FileTask.run_chunk`); other tasks ignore it."""
        ...


#: Files per message. Small enough that a queued request always fits in a socket's
#: buffer (so sending never waits on a worker that is itself waiting to send a reply).
CHUNK_FILES = 128
CHUNK_BYTES = 32 * 1024

#: Requests in flight per worker: the next chunk is waiting when one is done.
IN_FLIGHT = 2


def worker_count() -> int:
    """Workers worth starting here: one per usable core, none on a single core."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(cores, 8)


#: Seconds between two looks at whether a search was called off, while a reply is awaited.
STOP_POLL = 0.05


# --- the server side ----------------------------------------------------------------------


#: Why a file was skipped: beyond its memory budget or Python's stack (the worker said
#: so), beyond its time budget, or its worker died on it twice.
MEMORY = frames.MEMORY
DEPTH = frames.DEPTH
TIME = "time"
CRASH = "crash"


@dataclass(frozen=True)
class Skipped:
    """A file of an ``ISOLATED`` task that was not looked at to the end, and why (one of
    MEMORY, DEPTH, TIME, CRASH)."""

    reason: str


class WorkerGone(Exception):
    """A worker that cannot be used any more: it died, sent what the protocol does not
    allow, or took longer than its file's time budget."""

    def __init__(self, reason: str = CRASH) -> None:
        super().__init__(reason)
        self.reason = reason


class WorkerFailed(Exception):
    """A worker failed while answering a chunk: what it answered before, and why."""

    def __init__(self, found: list[tuple[int, Any]], answered: int, reason: str) -> None:
        super().__init__(reason)
        self.found = found
        self.answered = answered
        self.reason = reason


#: Seconds a worker may take to start and say it is ready, and to load an ISOLATED
#: task's class (and its imports) before it says it started on the chunk.
START_SECONDS = 60.0


@dataclass(eq=False)
class Worker:
    proc: subprocess.Popen[bytes]
    sock: socket.socket
    ready: bool = False  # has it said so?

    @classmethod
    def start(cls) -> Worker:
        env = without_secrets(os.environ)
        # Whatever this process can import (a venv, an unpacked zipapp), so can the worker.
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        here, there = socket.socketpair()
        try:
            proc = subprocess.Popen(
                [sys.executable, *COMMAND], stdin=there.fileno(), stdout=there.fileno(), env=env
            )
        except BaseException:
            here.close()
            raise
        finally:
            there.close()
        return cls(proc, here)

    def send(self, task: ChunkTask[Any], chunk: list[tuple[str, str]], skip: int) -> None:
        request = {"task": [frames.task_name(task), task.wire()], "chunk": chunk, "skip": skip}
        try:
            self.sock.sendall(frames.encode(request))
        except OSError as exc:
            raise WorkerGone from exc

    def receive(
        self, task: ChunkTask[R], size: int, stop: Stop | None = None
    ) -> list[tuple[int, R | Skipped]]:
        """The worker's answer to a chunk of ``size`` files: ``(index, result)`` for the
        files with one. Raises :class:`WorkerFailed` when the worker fails on the way
        (with what it answered before), :class:`~boris.stop.Stopped` if ``stop`` is set
        while it is awaited.

        An ISOLATED task's worker says how far it got as it goes: it fails when it says
        nothing for longer than the task's ``file_seconds`` (its first word, once it has
        loaded the task, may take up to START_SECONDS)."""
        found: list[tuple[int, R | Skipped]] = []
        answered = 0  # the files before this one are done (an ISOLATED task's)
        seconds = START_SECONDS if task.ISOLATED else None
        try:
            while True:
                message = self._next(stop, seconds)
                seconds = task.file_seconds
                if type(message) is not list or not message:
                    raise frames.Malformed("not a reply")
                kind = message[0]
                if kind == "chunk" and len(message) == 2:
                    if task.ISOLATED:
                        if message[1] != []:
                            raise frames.Malformed("an isolated chunk answered whole")
                        return found
                    return self._whole(task, message[1], size)
                if not task.ISOLATED:
                    raise frames.Malformed("not a reply")
                if kind == "at" and len(message) == 2:
                    answered = self._onwards(message[1], answered, size)
                    continue
                if len(message) != 3:
                    raise frames.Malformed("not a reply")
                index = self._onwards(message[1], answered, size - 1)
                if kind == "file":
                    found.append((index, task.result_from_wire(message[2])))
                elif kind == "skip" and message[2] in frames.SKIP_REASONS:
                    found.append((index, Skipped(message[2])))
                else:
                    raise frames.Malformed("not a reply")
                answered = index + 1
        except WorkerGone as gone:
            raise WorkerFailed(found, answered, gone.reason) from gone
        except (frames.Malformed, ValueError, TypeError) as exc:
            raise WorkerFailed(found, answered, CRASH) from exc

    @staticmethod
    def _onwards(value: Any, answered: int, size: int) -> int:
        """A file index a worker gave, which may not go back."""
        index = frames.index_of(value, size + 1)
        if index < answered:
            raise frames.Malformed("a file answered out of order")
        return index

    def _whole(self, task: ChunkTask[R], value: Any, size: int) -> list[tuple[int, R | Skipped]]:
        if type(value) is not list:
            raise frames.Malformed("not a list of results")
        found: list[tuple[int, R | Skipped]] = []
        last = -1
        for item in value:
            if type(item) is not list or len(item) != 2:
                raise frames.Malformed("not a result")
            index = frames.index_of(item[0], size)
            if index <= last:
                raise frames.Malformed("results out of order")
            found.append((index, task.result_from_wire(item[1])))
            last = index
        return found

    def _next(self, stop: Stop | None, seconds: float | None) -> Any:
        """The worker's next message other than its first ``ready``."""
        if not self.ready:
            if self._frame(stop, START_SECONDS) != ["ready"]:
                raise frames.Malformed("a worker that did not start as one")
            self.ready = True
        return self._frame(stop, seconds)

    def _frame(self, stop: Stop | None, seconds: float | None) -> Any:
        deadline = None if seconds is None else time.monotonic() + seconds
        size = frames.body_size(self._read(frames.HEADER.size, stop, deadline))
        return frames.decode(self._read(size, stop, deadline))

    def _read(self, size: int, stop: Stop | None, deadline: float | None) -> bytes:
        """``size`` bytes from the socket; WorkerGone at its end or past ``deadline``.
        While waiting, looks every ``STOP_POLL`` seconds at ``stop``."""
        parts: list[bytes] = []
        have = 0
        fd = self.sock.fileno()
        while have < size:
            if stop is not None or deadline is not None:
                while not select.select([fd], [], [], STOP_POLL)[0]:
                    check(stop)
                    if deadline is not None and time.monotonic() > deadline:
                        raise WorkerGone(TIME)
            try:
                part = self.sock.recv(min(size - have, 1 << 20))
            except OSError as exc:
                raise WorkerGone from exc
            if not part:
                raise WorkerGone
            parts.append(part)
            have += len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def kill(self) -> None:
        """End a worker in the middle of its work (its search was called off, or it failed)."""
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.stop()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def ended_by_itself(self) -> bool:
        """Whether a stopped worker that never said it was ready ended on its own (its
        Python could not start: workers cannot run here), not by a signal."""
        return not self.ready and self.proc.returncode is not None and self.proc.returncode >= 0


@dataclass
class Entry:
    """A chunk sent to a worker (None: to be looked at when its turn comes), in order."""

    worker: Worker | None
    chunk: list[tuple[str, str]]
    skip: int


@dataclass(eq=False)
class Pool:
    """Worker processes shared by the searches of one server."""

    size: int
    _idle: list[Worker] = field(default_factory=list)
    _started: int = 0
    _broken: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def broken(self) -> bool:
        """Whether workers cannot run here (none started: searches run in this process)."""
        return self._broken

    def checkout(self, at_least_one: bool = False) -> list[Worker]:
        """Every idle worker, starting missing ones; empty if none can be had. With
        ``at_least_one``, one more than the pool's size is started when all are busy
        (it ends when it is given back)."""
        with self._lock:
            if self._broken:
                return []
            workers, self._idle = self._idle, []
            try:
                while self._started < self.size or (at_least_one and not workers):
                    workers.append(Worker.start())
                    self._started += 1
            except OSError:
                self._broken = not workers and self._started == 0
            return workers

    def release(self, workers: Iterable[Worker]) -> None:
        extra = []
        with self._lock:
            for worker in workers:
                if self._started > self.size:
                    self._started -= 1
                    extra.append(worker)
                else:
                    self._idle.append(worker)
        for worker in extra:
            worker.stop()

    def drop(self, worker: Worker) -> None:
        """Forget a worker that failed: the next search starts another, unless this one
        ended by itself before it was ready (workers cannot run here, say), which ends
        the pool's use."""
        worker.kill()
        with self._lock:
            self._started -= 1
            if worker.ended_by_itself():
                self._broken = True

    def discard(self, worker: Worker) -> None:
        """End a busy worker whose search was called off; the next search starts another."""
        worker.kill()
        with self._lock:
            self._started -= 1

    def _replacement(self) -> Worker | None:
        """A new worker in place of one that failed, None if none can be started."""
        with self._lock:
            if self._broken:
                return None
            try:
                worker = Worker.start()
            except OSError:
                return None
            self._started += 1
            return worker

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
    ) -> Iterator[tuple[str, str, R | Skipped]]:
        """``(label, path, result)`` for the files with a result, in the order of
        ``files``, looked at by the workers (in this process if none can run here, or,
        for a task that is not ``ISOLATED``, if none is idle).

        ``skip()`` says, when a chunk is sent, how many content lines before the page
        its first file may leave out (see :meth:`ChunkTask.run_chunk`). Once ``stop`` is set
        the search raises :class:`~boris.stop.Stopped`, and the workers
        still busy with it are ended rather than waited for.

        A worker that fails is replaced. What it did not answer of a task that is not
        ``ISOLATED`` is looked at in this process; an ``ISOLATED`` task's file is never
        looked at here: the file a worker failed on is tried once more in a new worker,
        then given as :class:`Skipped` (at once if it took longer than its time budget).
        """
        workers = self.checkout(at_least_one=task.ISOLATED)
        if not workers:
            yield from search_here(task, files, skip, stop)
            return
        pending: deque[Entry] = deque()
        alive: list[Worker] = list(workers)
        chunks = _chunks(files)
        try:
            for worker in list(alive):
                for _ in range(IN_FLIGHT):
                    chunk = next(chunks, None)
                    if chunk is None:
                        break
                    self._send(worker, task, Entry(worker, chunk, skip()), pending, alive)
            while pending:
                entry = pending.popleft()
                for index, result in self._answer(task, entry, alive, stop):
                    yield *entry.chunk[index], result
                refill = next(chunks, None)
                if refill is not None:
                    target = entry.worker if entry.worker in alive else None
                    if target is None and alive:
                        target = alive[0]
                    self._send(target, task, Entry(target, refill, skip()), pending, alive)
        finally:
            if stop is not None and stop.is_set():
                # Called off: nobody wants what the workers are doing, and one may be
                # half way through a reply. They are ended; the next search starts others.
                for worker in alive:
                    self.discard(worker)
                alive.clear()
            # Stopped early (a full page) or failed: collect the replies still owed,
            # so that each worker goes back idle with nothing left in its socket.
            for entry in pending:
                if entry.worker in alive:
                    try:
                        entry.worker.receive(task, len(entry.chunk))
                    except WorkerFailed:
                        self._lose(entry.worker, alive)
            self.release(alive)

    def _answer(
        self, task: ChunkTask[R], entry: Entry, alive: list[Worker], stop: Stop | None
    ) -> list[tuple[int, R | Skipped]]:
        """The results of a chunk, in order, whoever gives them."""
        chunk = entry.chunk
        found: list[tuple[int, R | Skipped]] = []
        start = 0  # the first file not answered yet
        worker = entry.worker if entry.worker in alive else None
        if worker is None and task.ISOLATED and not self._broken:
            # Its worker failed on an earlier chunk: a new one takes it whole.
            worker = self._replacement()
            if worker is not None:
                alive.append(worker)
                with contextlib.suppress(WorkerGone):  # seen as it fails to answer
                    worker.send(task, chunk, entry.skip)
        if worker is not None:
            try:
                return worker.receive(task, len(chunk), stop)
            except WorkerFailed as failure:
                self._lose(worker, alive)
                found, start = failure.found, failure.answered
        if not task.ISOLATED or self._broken:
            rest = task.run_chunk(chunk[start:], entry.skip, stop)
            return found + [(start + index, result) for index, result in rest]
        return found + self._one_by_one(task, chunk, start, alive, stop)

    def _one_by_one(
        self,
        task: ChunkTask[R],
        chunk: list[tuple[str, str]],
        start: int,
        alive: list[Worker],
        stop: Stop | None,
    ) -> list[tuple[int, R | Skipped]]:
        """The results of the files of ``chunk`` from ``start`` on, after its worker
        failed on one of them: each file sent alone, so that the one a worker fails on is
        known. It is tried once more in a new worker, then skipped (at once if it took
        longer than its time budget)."""
        found: list[tuple[int, R | Skipped]] = []
        worker: Worker | None = None
        failed_once = False
        index = start
        while index < len(chunk):
            if worker is None:
                worker = self._replacement()
                if worker is None:  # none can be started now: the rest is not looked at
                    return found + [(i, Skipped(CRASH)) for i in range(index, len(chunk))]
                alive.append(worker)
            try:
                worker.send(task, [chunk[index]], 0)
                answer = worker.receive(task, 1, stop)
            except (WorkerGone, WorkerFailed) as failure:
                self._lose(worker, alive)
                worker = None
                if failure.reason == TIME or failed_once:
                    found.append((index, Skipped(failure.reason)))
                    index += 1
                    failed_once = False
                else:
                    failed_once = True  # it may have died of something else: once more
                continue
            found += [(index, result) for _, result in answer]
            index += 1
            failed_once = False
        return found

    def _send(
        self,
        worker: Worker | None,
        task: ChunkTask[Any],
        entry: Entry,
        pending: deque[Entry],
        alive: list[Worker],
    ) -> None:
        if worker is not None and worker in alive:
            try:
                worker.send(task, entry.chunk, entry.skip)
            except WorkerGone:
                self._lose(worker, alive)
        pending.append(entry)  # a lost worker's chunks are looked at when their turn comes

    def _lose(self, worker: Worker, alive: list[Worker]) -> None:
        if worker in alive:
            alive.remove(worker)
            self.drop(worker)


def search_here(
    task: ChunkTask[R],
    files: Iterable[tuple[str, str]],
    skip: Callable[[], int],
    stop: Stop | None = None,
) -> Iterator[tuple[str, str, R]]:
    """The same results as :meth:`Pool.results`, computed in this process, each file
    leaving out exactly the lines before the page (``skip()`` is asked for each)."""
    for label, path in files:
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


def shared_pool(parsing: bool = False) -> Pool | None:
    """The process-wide pool; None where workers would not help (a single core), unless
    the search is one that ``parsing`` runs a native parser: it never runs one here."""
    global _shared
    size = worker_count()
    if size == 0 and not parsing:
        return None
    with _shared_lock:
        if _shared is None:
            _shared = Pool(max(size, 1))
            import atexit

            atexit.register(_shared.close)
        return _shared
