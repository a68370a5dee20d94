"""Large greps are searched by worker processes (boris.search.pool): same output, and the
workers never leave a search half read. That they end with their server is checked on a
real server process in tests/e2e/test_pool.py.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path

import pytest

from boris.files.scope import PathScope
from boris.search import grep as engine
from boris.search import pool as searchpool
from boris.search.pool import Pool
from tests.support.pids import pid_alive
from tests.support.trees import (
    MANY,
    expected_counts,
    search_query,
    write_big_tree,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_tree(tmp_path_factory.mktemp("big").resolve())


def no_skip() -> int:
    """No output lines before the page (the offset is 0)."""
    return 0


def query(mode: str, *, context: int = 0, head_limit: int = 0) -> engine.Query:
    return search_query(
        "hit", mode, context=context, head_limit=head_limit, budget=head_limit or None
    )


def run(root: Path, q: engine.Query, parallel: bool) -> list[str]:
    files = engine._tree(str(root), q, PathScope([], []))
    return engine.search_files(files, q, parallel=parallel).lines


@pytest.mark.parametrize(
    ("mode", "context", "head_limit"),
    [
        ("files_with_matches", 0, 0),
        ("count", 0, 0),
        ("content", 0, 0),
        ("content", 2, 0),
        ("count", 0, 2300),  # the page fills while chunks are still out at the workers
        ("content", 1, 5000),
    ],
)
def test_workers_give_the_same_output_as_one_process(
    big_tree: Path, mode: str, context: int, head_limit: int
) -> None:
    q = query(mode, context=context, head_limit=head_limit)
    alone = run(big_tree, q, parallel=False)
    assert alone
    assert run(big_tree, q, parallel=True) == alone
    # And again: the workers went back idle with nothing left unread.
    assert run(big_tree, q, parallel=True) == alone


def expected_content(context: int) -> list[str]:
    """The content output for "hit" in ``big_tree`` with ``context`` lines around each
    match, modelled from how the tree was made: match lines and their context, a "--"
    between groups that do not touch and between files (when there is context)."""
    out: list[str] = []
    for n in sorted(range(MANY), key=lambda n: (n % 13, n)):
        lines = [f"file {n}"]
        if n % 7 == 0:
            lines += ["hit one", "context", "hit two"]
        if n % 11 == 0:
            lines += [""] * 5 + ["hit far"]
        hits = {i for i, line in enumerate(lines) if "hit" in line}
        if not hits:
            continue
        shown = sorted(
            {
                j
                for i in hits
                for j in range(max(i - context, 0), min(i + context, len(lines) - 1) + 1)
            }
        )
        if context and out:
            out.append("--")
        for previous, j in zip([None, *shown], shown, strict=False):
            if context and previous is not None and j > previous + 1:
                out.append("--")
            mark = ":" if j in hits else "-"
            out.append(f"d{n % 13:02d}/f{n:05d}.txt{mark}{j + 1}{mark}{lines[j]}")
    return out


@pytest.mark.parametrize("context", [0, 1])
def test_a_page_far_into_the_output_is_the_same_wherever_files_are_searched(
    big_tree: Path, context: int
) -> None:
    """Files leave out the lines before the page; those searched by the workers are told
    how many before the files ahead of them are known, and one that left out too many
    is searched again. The page is the same either way, wherever it starts: in the
    files searched in this process, across the first chunks sent to the workers, deep
    in their part, at the very end."""
    whole = expected_content(context)
    page = 40
    q = query("content", context=context)
    starts = sorted({0, 1, 2, 7, len(whole) // 3, len(whole) // 2, len(whole) - 5, len(whole) - 1})
    starts += [n for n in range(len(whole) // 4, len(whole), max(len(whole) // 23, 1))]
    for offset in starts:
        task = dataclasses.replace(q.task, budget=offset + page)
        paged = dataclasses.replace(q, task=task, offset=offset, head_limit=page)
        for parallel in (False, True):
            lines = run(big_tree, paged, parallel=parallel)
            assert lines[:page] == whole[offset : offset + page], (offset, parallel)


def counts(pool: Pool, q: engine.Query, files: list[tuple[str, str]]) -> list[str]:
    """A count search's lines, searched by ``pool``."""
    return [f"{label}:{count}" for label, _, count in pool.results(q.task, iter(files), no_skip)]


def until_ended(pid: int) -> None:
    deadline = time.monotonic() + 30
    while pid_alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still alive"
        time.sleep(0.01)


def test_a_worker_killed_during_a_search_is_replaced_by_this_process(big_tree: Path) -> None:
    """A worker that dies while a search is under way (killed by its pid) costs only
    time: what it did not answer is searched in this process, the output is whole and
    in order, and the next search has a new worker in its place."""
    q = query("count")
    files = list(engine._tree(str(big_tree), q, PathScope([], [])))
    pool = Pool(2)
    try:
        counted = [
            f"{label}:{count}" for label, _, count in pool.results(q.task, iter(files), no_skip)
        ]
        assert counted == expected_counts()  # both workers started, and answered
        workers = pool.checkout()
        pids = [worker.proc.pid for worker in workers]
        assert len(pids) == 2
        pool.release(workers)
        results = pool.results(q.task, iter(files), no_skip)
        first = next(results)  # under way: the workers hold chunks still to answer
        os.kill(pids[0], signal.SIGKILL)
        until_ended(pids[0])
        found = [first, *results]
        assert [f"{label}:{count}" for label, _, count in found] == expected_counts()
        replaced = pool.checkout()  # the dead one was dropped, a new one started
        assert len(replaced) == 2
        assert pids[0] not in [worker.proc.pid for worker in replaced]
        assert pids[1] in [worker.proc.pid for worker in replaced]
        pool.release(replaced)
    finally:
        pool.close()


def test_workers_that_cannot_start_leave_the_search_to_this_process(
    big_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers whose Python stops at start-up (the environment they inherit names a
    stdio encoding Python does not know) are given up on: the search is done in this
    process, with the same output, and no more workers are started."""
    monkeypatch.setenv("PYTHONIOENCODING", "no-such-encoding")
    q = query("count")
    files = list(engine._tree(str(big_tree), q, PathScope([], [])))
    pool = Pool(2)
    try:
        assert counts(pool, q, files) == expected_counts()
        assert pool.checkout() == []  # given up on
    finally:
        pool.close()


def test_a_workers_environment_holds_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's token is not in its workers' environment (a command of the server's
    user that got into a worker would find none there)."""
    monkeypatch.setenv("BORIS_TOKEN", "secret-token")
    monkeypatch.setenv("BORIS_TOKEN_FILE", "/run/secrets/token")
    pool = Pool(1)
    try:
        workers = pool.checkout()
        environ = Path(f"/proc/{workers[0].proc.pid}/environ").read_bytes().split(b"\0")
        pool.release(workers)
    finally:
        pool.close()
    assert [entry for entry in environ if entry.startswith(b"BORIS_TOKEN")] == []
    assert any(entry.startswith(b"PYTHONPATH=") for entry in environ)


# A worker that says it is ready, then answers its first request with a pickle that would
# create a file if it were unpickled (the attack of a process that got into a worker).
_FORGER = """
import json, os, pickle, struct, sys
def send(body):
    os.write(1, struct.pack("<I", len(body)) + body)
send(json.dumps(["ready"]).encode())
header = os.read(0, 4)
os.read(0, struct.unpack("<I", header)[0])
class Touch:
    def __reduce__(self):
        return os.system, ("touch " + sys.argv[1],)
send(REPLY)
os.read(0, 1)
"""

#: The forged replies, as Python expressions of the frame's body.
REPLIES = {
    "pickle": "pickle.dumps(Touch())",
    "index": 'json.dumps(["chunk", [[4096, 1]]]).encode()',
    "shape": 'json.dumps(["chunk", [[0, "1"]]]).encode()',
}


@pytest.mark.parametrize("reply", list(REPLIES))
def test_a_reply_that_is_not_what_was_asked_ends_the_worker(
    big_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str
) -> None:
    """A worker's reply that is not a JSON frame of the right shape (a pickle, a file
    index outside the chunk, a count that is not a number) is never used: the worker is
    ended, the search is done without it, with the same output, and nothing ran here."""
    marker = tmp_path / "ran-here"
    forger = _FORGER.replace("REPLY", REPLIES[reply])
    monkeypatch.setattr(searchpool, "COMMAND", ["-c", forger, str(marker)])
    q = query("count")
    files = list(engine._tree(str(big_tree), q, PathScope([], [])))
    pool = Pool(2)
    try:
        assert counts(pool, q, files) == expected_counts()
        assert pool._started == 0  # both ended
    finally:
        pool.close()
    assert not marker.exists()
