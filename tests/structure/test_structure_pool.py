"""A structure search runs in grep's worker processes: the same output as in this process
(where none can run), pages that fit together, a call off that stops it; a worker that
dies is replaced, and a file that kills its worker, or takes longer than its time
budget, is skipped with a note."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boris.errors import BorisError
from boris.search import pool as searchpool
from boris.search.pool import TIME, Pool, Skipped
from boris.stop import Stopped
from boris.structure import symbols as engine
from boris.structure.task import DEFINITIONS, OUTLINE, NameQuery, StructureTask
from tests.support.sessions import open_access as access
from tests.support.trees import set_mtimes, write_tree

#: Files in the tree: more than the structure search looks at in this process.
FILES = 2600


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {}
    for n in range(FILES):
        body = f"def helper_{n}():\n    return {n}\n"
        if n % 7 == 0:
            body += (
                f"\n\nclass Target{n % 3}:\n    def target(self):\n        return helper_{n}()\n"
            )
        files[f"d{n % 13:02d}/m{n:05d}.py"] = body
    root = write_tree(tmp_path_factory.mktemp("pool").resolve(), files)
    set_mtimes(root, [f"d{n % 13:02d}/m{n:05d}.py" for n in range(0, FILES, 50)])
    return root


def expected_targets() -> list[str]:
    """Each file that defines Target*.target, in walk order, from how the tree was made."""
    lines = []
    for n in sorted(range(0, FILES, 7), key=lambda n: (n % 13, n)):
        label = f"d{n % 13:02d}/m{n:05d}.py"
        lines.append(f"{label}:6-7  method Target{n % 3}.target  def target(self):")
    return lines


def run(
    root: Path, request: engine.Request, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> str:
    with monkeypatch.context() as patched:
        if not parallel:
            patched.setattr(searchpool, "shared_pool", lambda parsing=False: None)
        return engine.run(access(root), request)


@pytest.mark.parametrize("parallel", [False, True])
def test_definitions_by_name_over_a_large_tree(
    tree: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = run(tree, engine.Request(name="target"), parallel, monkeypatch)
    assert found.splitlines() == expected_targets()
    qualified = run(tree, engine.Request(name="Target1.target"), parallel, monkeypatch)
    assert qualified.splitlines() == [line for line in expected_targets() if "Target1" in line]


@pytest.mark.parametrize("parallel", [False, True])
def test_pages_of_references_fit_together(
    tree: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = engine.Request(name="helper_7", references=True)
    assert run(tree, request, parallel, monkeypatch) == (
        "d07/m00007.py:7:16  in Target1.target  return helper_7()"
    )
    whole = run(tree, engine.Request(name="target"), parallel, monkeypatch).splitlines()
    pages = []
    for offset in range(0, len(whole), 50):
        page = engine.Request(name="target", offset=offset, head_limit=50)
        pages += run(tree, page, parallel, monkeypatch).splitlines()
    assert pages == whole


@pytest.mark.parametrize("parallel", [False, True])
def test_the_map_pages_files_newest_first(
    tree: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run(tree, engine.Request(head_limit=3), parallel, monkeypatch)
    # The newest files are those set_mtimes made newest, the last of them first.
    assert first.splitlines()[0] == "d02/m02550.py (Python, 2 lines)"
    assert first.count(" lines)") == 3
    page = run(tree, engine.Request(offset=200, head_limit=1), parallel, monkeypatch)
    assert page.splitlines()[1].startswith("  function helper_")
    capped = run(tree, engine.Request(), parallel, monkeypatch)
    assert capped.endswith(" To see more, call again with offset: " + capped.rsplit(": ", 1)[1])
    assert f"of {FILES}." in capped


def test_a_worker_does_a_structure_task_as_this_process_does(tree: Path) -> None:
    files = [(f"d00/m{n:05d}.py", str(tree / f"d00/m{n:05d}.py")) for n in range(0, 1300, 13)]
    task = StructureTask(DEFINITIONS, 1 << 20, NameQuery(parts=("target",)), r"\btarget\b")
    here = [(label, task.run_file(label, path)) for label, path in files]
    pool = Pool(2)
    try:
        there = [(label, lines) for label, _, lines in pool.results(task, iter(files), int)]
    finally:
        pool.close()
    assert there == [(label, lines) for label, lines in here if lines]


def test_a_structure_search_called_off_stops(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped):
        engine.run(access(tree), engine.Request(name="target"), stop)
    # Called off once the workers have given their first result.
    pools: list[Pool] = []
    original = Pool.results

    def results(self: Pool, *arguments: Any) -> Iterator[Any]:
        pools.append(self)
        for count, item in enumerate(original(self, *arguments)):
            if count == 0:
                later.set()
            yield item

    later = threading.Event()
    monkeypatch.setattr(Pool, "results", results)
    with pytest.raises(Stopped):
        engine.run(access(tree), engine.Request(name="^Target0$", regex=True), later)
    assert pools
    assert pools[0]._idle == []  # the workers busy with it were ended, not waited for


def deep_cpp(path: Path) -> Path:
    """A C++ file of nested templates: its syntax tree takes some 1,600 bytes a byte of
    text, far past a worker's memory budget for it; the worker dies on it."""
    n = 100_000
    path.write_text("A<" * n + "int" + ">" * n + " x;\n")
    return path


def test_a_worker_killed_during_a_structure_search_is_replaced(tree: Path) -> None:
    """A worker killed by its pid while it parses: its files are parsed by a new one,
    and the output is whole and in order."""
    files = [(f"d00/m{n:05d}.py", str(tree / f"d00/m{n:05d}.py")) for n in range(0, FILES, 13)]
    task = StructureTask(DEFINITIONS, 1 << 20, NameQuery(parts=("target",)), r"\btarget\b")
    pool = Pool(2)
    try:
        whole = [(label, lines) for label, _, lines in pool.results(task, iter(files), int)]
        assert len(whole) == len([n for n in range(0, FILES, 13) if n % 7 == 0])
        workers = pool.checkout()
        pids = [worker.proc.pid for worker in workers]
        pool.release(workers)
        results = pool.results(task, iter(files), int)
        label, _, lines = next(results)
        os.kill(pids[0], signal.SIGKILL)
        assert [(label, lines), *((label, lines) for label, _, lines in results)] == whole
        again = pool.checkout()
        assert len(again) == 2
        assert pids[0] not in [worker.proc.pid for worker in again]
        pool.release(again)
    finally:
        pool.close()


def test_a_file_that_kills_its_worker_is_skipped_with_a_note(tmp_path: Path) -> None:
    """The file is tried once more in a new worker, then left out with a note that
    names it (a map, a search by name) or answered with an error (the file alone);
    every other file is read, and the server process parses none of them."""
    root = write_tree(
        tmp_path,
        {"a.py": "def deep():\n    pass\n", "z.py": "class deep:\n    pass\n"},
    )
    deep_cpp(root / "m.cpp")
    set_mtimes(root, ["a.py", "m.cpp", "z.py"])
    assert engine.run(access(root), engine.Request()) == (
        "z.py (Python, 2 lines)\n  class deep  1-2  class deep:\n"
        "m.cpp [not read: the parser failed on it (out of its memory budget, or it crashed)]\n"
        "a.py (Python, 2 lines)\n  function deep  1-2  def deep():"
    )
    # m.cpp holds no "deep": a search by name does not parse it.
    (root / "n.cpp").write_text("int deep;\n" + (root / "m.cpp").read_text())
    assert engine.run(access(root), engine.Request(name="deep")) == (
        "a.py:1-2  function deep  def deep():\n"
        "z.py:1-2  class deep  class deep:\n\n"
        "[Skipped 1 file(s) the parser could not finish: n.cpp (the parser failed on it "
        "(out of its memory budget, or it crashed))]"
    )
    with pytest.raises(BorisError) as raised:
        engine.run(access(root), engine.Request(path="m.cpp"))
    assert str(raised.value) == (
        "[IO_ERROR] could not read the structure of m.cpp: the parser failed on it "
        "(out of its memory budget, or it crashed)"
    )
    assert engine.run(access(root), engine.Request(path="a.py")) == (
        "a.py (Python, 2 lines)\nfunction deep  1-2  def deep():"
    )


def test_a_file_past_its_time_budget_is_skipped_at_once(tmp_path: Path) -> None:
    """A file whose parse takes longer than the task's time budget: its worker is ended
    and replaced, the file given as skipped (not tried again), the next file read."""
    slow = tmp_path / "slow.py"
    # Some 5 s to outline on this machine, busy or not.
    slow.write_text("".join(f"def f{n}(a, b):\n    return [a, b, {n}]\n" for n in range(60_000)))
    fast = tmp_path / "fast.py"
    fast.write_text("def f():\n    pass\n")
    task = StructureTask(OUTLINE, 1 << 30, seconds=1.0)
    files = [("slow.py", str(slow)), ("fast.py", str(fast))]
    pool = Pool(1)
    try:
        found = [(label, lines) for label, _, lines in pool.results(task, iter(files), int)]
        assert found == [
            ("slow.py", Skipped(TIME)),
            ("fast.py", ["fast.py (Python, 2 lines)", "function f  1-2  def f():"]),
        ]
    finally:
        pool.close()
