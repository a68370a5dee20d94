"""Large greps are searched by worker processes (boris.search.pool): same output, and the
workers never leave a search half read. That they end with their server is checked on a
real server process in tests/e2e/test_searchpool.py.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from boris.files.scope import PathScope
from boris.search import engine
from boris.search.pool import Pool, search_here
from tests.trees import search_query, set_mtimes, write_tree

pytestmark = pytest.mark.anyio

#: More files than a search handles in-process, so that workers take part.
MANY = engine.IN_PROCESS_FILES + 700


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_tree(tmp_path_factory.mktemp("big").resolve())


def write_big_tree(root: Path) -> Path:
    """MANY files under ``root``; some with hits, some newer, and one binary."""
    files: dict[str, str | bytes] = {}
    for n in range(MANY):
        body = f"file {n}\n"
        if n % 7 == 0:
            body += "hit one\ncontext\nhit two\n"
        if n % 11 == 0:
            body += "\n" * 5 + "hit far\n"
        files[f"d{n % 13:02d}/f{n:05d}.txt"] = body
    files["bin/blob.dat"] = b"hit\x00"
    write_tree(root, files)
    set_mtimes(root, [f"d{n % 13:02d}/f{n:05d}.txt" for n in range(0, MANY, 97)])
    return root


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


def test_a_worker_that_dies_is_replaced_by_this_process(big_tree: Path) -> None:
    q = query("count")
    expected = run(big_tree, q, parallel=False)
    files = list(engine._tree(str(big_tree), q, PathScope([], [])))
    pool = Pool(2)
    try:
        assert [*pool.results(q.task, iter(files))] != []
        victim = pool.checkout()
        assert len(victim) == 2
        os.kill(victim[0].proc.pid, signal.SIGKILL)
        victim[0].proc.wait()
        pool.release(victim)
        found = [f"{label}:{count}" for label, count in pool.results(q.task, iter(files))]
        assert found == expected
        replaced = pool.checkout()  # the dead one was dropped, a new one started
        assert len(replaced) == 2
        assert victim[0] not in replaced
        pool.release(replaced)
    finally:
        pool.close()


def test_workers_that_cannot_start_leave_the_search_to_this_process(
    big_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker that exits at once (as one would where Python cannot import Boris).
    monkeypatch.setattr("boris.search.pool._WORKER_CODE", "import sys; sys.exit(3)")
    q = query("files_with_matches")
    files = list(engine._tree(str(big_tree), q, PathScope([], [])))
    pool = Pool(2)
    try:
        found = [label for label, _ in pool.results(q.task, iter(files))]
        alone = [label for label, _ in search_here(q.task, files)]
        assert found == alone
        assert pool.checkout() == []  # given up on
    finally:
        pool.close()
