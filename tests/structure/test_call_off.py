"""A structure search called off ends with Stopped wherever the call off finds it: in
the walk of a tree, among its files, or, for view's symbol, in the look for the nearest
names after the search by name found none; and one whose page is full looks no further.
Every search here runs in this process (the workers' call off is in
test_structure_pool.py)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from boris.search import pool as searchpool
from boris.stop import Stopped
from boris.structure import symbols as engine
from boris.structure.locate import locate
from boris.structure.task import DEFINITIONS, NameQuery, StructureTask
from boris.text import LIMIT
from tests.support.sessions import open_access as access
from tests.support.trees import write_tree


@pytest.fixture(autouse=True)
def in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(searchpool, "shared_pool", lambda parsing=False: None)


def called_off() -> threading.Event:
    stop = threading.Event()
    stop.set()
    return stop


class SetOnLook:
    """A stop set from its ``look``-th look on: a call off that comes while the search
    runs, after the looks before it."""

    def __init__(self, look: int) -> None:
        self.look = look
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= self.look


@pytest.mark.parametrize(
    "request_",
    [engine.Request(), engine.Request(name="one"), engine.Request(name="one", references=True)],
    ids=["map", "definitions", "references"],
)
def test_a_search_called_off_stops(tmp_path: Path, request_: engine.Request) -> None:
    """Called off before it starts: in a tree of files, as it looks at the first file;
    in a tree of directories alone, as it enters the first."""
    files = write_tree(tmp_path / "files", {"a.py": "def one(): pass\n", "b.py": "one()\n"})
    directories = write_tree(tmp_path / "directories", {"empty/": ""})
    for root in (files, directories):
        with pytest.raises(Stopped):
            engine.run(access(root), request_, called_off())


def test_a_map_called_off_after_the_first_files_stops(tmp_path: Path) -> None:
    """Called off once the first hundred files of a map are done (here looked at in this
    process: there are no workers), it looks at no other."""
    first = 100
    root = write_tree(tmp_path, {"f0.py": "def one(): pass\n"})
    for n in range(1, first + 1):
        os.link(root / "f0.py", root / f"f{n}.py")
    with pytest.raises(Stopped):
        engine.run(access(root), engine.Request(), SetOnLook(first + 1))


def test_a_chunk_of_files_called_off_stops_between_them(tmp_path: Path) -> None:
    """A worker is handed files in chunks: called off once it looked at one file, it
    looks at no other of its chunk."""
    root = write_tree(tmp_path, {"a.py": "def one(): pass\n", "b.py": "def one(): pass\n"})
    chunk = [(name, str(root / name)) for name in ("a.py", "b.py")]
    task = StructureTask(DEFINITIONS, 1 << 20, NameQuery(parts=("one",)))
    assert [index for index, _ in task.run_chunk(chunk, 0)] == [0, 1]
    with pytest.raises(Stopped):
        task.run_chunk(chunk, 0, SetOnLook(2))


def test_a_symbol_called_off_stops(tmp_path: Path) -> None:
    """In a file: as the search by name looks at it; once that search looked (and found
    nothing), as the nearest names are looked for. In a tree of one directory: as
    either walk enters it."""
    root = write_tree(tmp_path, {"file/a.py": "def one(): pass\n", "tree/empty/": ""})
    with pytest.raises(Stopped):
        locate(access(root), "file/a.py", "one", called_off())
    with pytest.raises(Stopped):
        locate(access(root), "file/a.py", "two", SetOnLook(2))
    for look in (1, 2):
        with pytest.raises(Stopped):
            locate(access(root), "tree", "two", SetOnLook(look))


def test_a_search_by_name_looks_at_no_file_after_a_full_page(tmp_path: Path) -> None:
    """A page is full at ``head_limit`` lines, or past 30,001 characters of lines with
    their newlines: the search looks at no file after the one that filled it (the look
    at the stop before each file tells)."""
    few = write_tree(tmp_path / "few", {f"f{n}.py": "def get(): pass\n" for n in range(3)})
    assert engine.run(access(few), engine.Request(name="get", head_limit=1), SetOnLook(2)) == (
        "f0.py:1-1  function get  def get(): pass"
    )
    # a.py's lines are 30,002 characters, newlines counted; b.py comes after it.
    names: list[str] = []

    def size(names: list[str]) -> int:
        return sum(
            len(f"a.py:{2 * k + 2}-{2 * k + 2}  method {name}.get  def get(self): pass") + 1
            for k, name in enumerate(names)
        )

    while size([*names, "C9999"]) < LIMIT:
        names.append(f"C{len(names):04}")
    names[-1] += "x" * (LIMIT + 2 - size(names))
    assert size(names) == LIMIT + 2
    source = "".join(f"class {name}:\n    def get(self): pass\n" for name in names)
    # A file of many definitions is looked at inside too: as often alone as before b.py.
    alone = write_tree(tmp_path / "alone", {"a.py": source})
    counted = SetOnLook(1 << 30)
    engine.run(access(alone), engine.Request(name="get"), counted)
    full = write_tree(tmp_path / "full", {"a.py": source, "b.py": "def get(): pass\n"})
    page = engine.run(access(full), engine.Request(name="get"), SetOnLook(counted.looks + 1))
    assert page.endswith(f"To see more, call again with offset: {len(names) - 1}.]")
