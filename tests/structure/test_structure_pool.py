"""A structure search over a large tree runs in grep's worker processes: the same output
as in this process, pages that fit together, and a call off that stops it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boris.search import pool as searchpool
from boris.search.pool import Pool
from boris.stop import Stopped
from boris.structure import symbols as engine
from boris.structure.task import DEFINITIONS, NameQuery, StructureTask
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
            patched.setattr(searchpool, "shared_pool", lambda: None)
        return engine.run(access(root), request)


@pytest.mark.parametrize("parallel", [False, True])
def test_definitions_by_name_over_a_large_tree(
    tree: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = run(tree, engine.Request(name="target"), parallel, monkeypatch)
    assert found.splitlines() == expected_targets()
    qualified = run(tree, engine.Request(name="Target1.target"), parallel, monkeypatch)
    assert qualified.splitlines() == [line for line in expected_targets() if "Target1" in line]


def test_slow_work_goes_to_the_workers_with_the_same_output(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Work in this process that takes longer than IN_PROCESS_SECONDS hands the rest of
    the files to the workers at once: the output does not change."""
    monkeypatch.setattr(engine, "IN_PROCESS_SECONDS", 0.0)
    found = run(tree, engine.Request(name="target"), True, monkeypatch)
    assert found.splitlines() == expected_targets()
    page = run(tree, engine.Request(name="target", offset=5, head_limit=3), True, monkeypatch)
    assert page.splitlines()[:3] == expected_targets()[5:8]


def test_a_map_page_parsed_here_is_not_handed_to_the_workers(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A map's page of no more files than this process parses stays here however long
    they take: handed to the workers, the rest of the tree would be parsed ahead of the
    page, most of it for nothing."""
    expected = run(tree, engine.Request(path=".", head_limit=50), False, monkeypatch)
    monkeypatch.setattr(engine, "IN_PROCESS_SECONDS", 0.0)
    handed: list[tuple[str, str]] = []
    here = searchpool.search_here

    def to_workers(task: Any, files: Iterator[tuple[str, str]], *rest: Any) -> Any:
        handed.extend(files)
        return here(task, iter(handed), *rest)

    monkeypatch.setattr(searchpool, "shared_pool", lambda: None)
    monkeypatch.setattr(searchpool, "search_here", to_workers)
    assert engine.run(access(tree), engine.Request(path=".", head_limit=50)) == expected
    assert expected.count(" (Python, ") == 50
    assert handed == []


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
