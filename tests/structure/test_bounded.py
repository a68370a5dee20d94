"""The symbols engine on files real repositories hold that are hard on it: memory that
does not grow with the nesting, minified lines read in linear time, a page that stops
the work inside one large file, a call off seen inside one file's work, a notebook
nested deeper than Python recurses.

Memory is measured as the peak RSS of a child process, against
:func:`~boris.structure.task.memory_budget` of the file (what the work on it may
take); the old figures were many times over it. Work is counted, not timed, except
where the old figure was minutes: then only "far below" it is asked.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boris.errors import BorisError, Code
from boris.search import pool as searchpool
from boris.stop import Stopped
from boris.structure import definitions as engine_definitions
from boris.structure import symbols as engine
from boris.structure import task as engine_task
from boris.structure.languages import PYTHON
from boris.structure.locate import locate
from boris.structure.source import Part, Source
from boris.structure.task import (
    MAP,
    MAX_BUDGET,
    MAX_SIGNATURE,
    MIN_BUDGET,
    OUTLINE,
    StructureTask,
    memory_budget,
    outline,
    signature,
)
from boris.text import LIMIT, printable
from tests.structure.test_call_off import SetOnLook
from tests.support import hostile_sources as hostile
from tests.support.sessions import open_access as access
from tests.support.trees import write_tree

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(searchpool, "shared_pool", lambda parsing=False: None)


# --- memory, measured in a child process ------------------------------------------------

#: A child that makes its RSS the baseline (the grammar loaded on a small file), then
#: runs each call of argv[2] (JSON) on the directory argv[1], and prints the growth of
#: its peak RSS over the baseline and the head of each answer.
CHILD = r"""
import dataclasses, json, resource, sys
from pathlib import Path
from boris.search import pool
pool.shared_pool = lambda parsing=False: None
from boris.errors import BorisError
from boris.structure import symbols
from boris.structure.locate import locate
from tests.support.sessions import open_access

root = Path(sys.argv[1])
access = dataclasses.replace(open_access(root), max_size=64 << 20)
calls = json.loads(sys.argv[2])
warm = root / "warm"
symbols.run(access, symbols.Request(path=str(warm)))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
heads = []
for call in calls:
    try:
        if "symbol" in call:
            found = locate(access, call["path"], call["symbol"])
            heads.append(f"{found.start}-{found.end}")
        else:
            heads.append(symbols.run(access, symbols.Request(**call))[:200])
    except BorisError as exc:
        heads.append(str(exc)[:200])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"growth": peak - base, "heads": heads}))
"""


def peak_growth(root: Path, warm: str, calls: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """The bytes the child's peak RSS grew by over the calls, and their answers' heads.
    ``warm`` is a small file of the same language, outlined first."""
    (root / "warm").mkdir()
    (root / "warm" / warm).write_text("")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), json.dumps(calls)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    found = json.loads(done.stdout)
    return found["growth"], found["heads"]


#: Deep enough that a tuple of every part per definition took many times the budget
#: (JavaScript 12,000 deep: 0.95 GB; this deep about 0.4 GB).
DEPTH = 8_000


@pytest.mark.timeout(600)  # a child's seven calls, on a machine other tests load too
@pytest.mark.parametrize("language", sorted(hostile.NESTING))
def test_memory_does_not_grow_with_the_nesting(tmp_path: Path, language: str) -> None:
    extension = hostile.NESTING[language][2]
    data = hostile.nested(language, DEPTH)
    path = tmp_path / f"deep.{extension}"
    path.write_bytes(data)
    inner = hostile.NESTING[language][0].format(n=DEPTH - 1).split()[1].rstrip("(){")
    calls: list[dict[str, Any]] = [
        {"path": str(path)},
        {"path": str(path), "head_limit": 3},
        {"path": str(tmp_path)},
        {"path": str(tmp_path), "name": inner},
        {"path": str(path), "symbol": inner},
        {"path": str(path), "symbol": "no_such_name"},
        {"path": str(path), "symbol": "Outer.no_such_name"},
    ]
    growth, heads = peak_growth(tmp_path, f"warm.{extension}", calls)
    assert growth < memory_budget(len(data)), (growth, heads)
    assert heads[0].startswith(f"{path} (")
    assert f"deep.{extension}:" in heads[3]  # the innermost definition found by name
    assert heads[4] == f"{DEPTH}-{DEPTH + 1}"  # view's symbol: its two lines
    assert "no definition of" in heads[5]


@pytest.mark.timeout(600)  # large files, on a machine other tests load too
def test_memory_per_byte_of_a_minified_bundle(tmp_path: Path) -> None:
    data = hostile.minified(900_000)
    path = tmp_path / "bundle.min.js"
    path.write_bytes(data)
    calls: list[dict[str, Any]] = [{"path": str(path)}, {"path": str(path), "head_limit": 3}]
    growth, heads = peak_growth(tmp_path, "warm.js", calls)
    assert growth < memory_budget(len(data)), growth
    assert heads[0].startswith(f"{path} (JavaScript, 1 line)\nfunction a0  1-1  function a0(b,c)")


def test_the_budget_is_bounded() -> None:
    assert memory_budget(0) == MIN_BUDGET
    assert memory_budget(1 << 40) == MAX_BUDGET
    assert MIN_BUDGET < memory_budget(1 << 20) <= MAX_BUDGET


@pytest.mark.timeout(600)  # large files, on a machine other tests load too
def test_a_large_python_file_is_outlined_a_piece_at_a_time(tmp_path: Path) -> None:
    """Its tree is let go of once it told its syntax errors, then each piece is parsed
    alone: the memory is not the whole file's matches and definitions (85 bytes per
    byte before)."""
    data = hostile.python_module(6_000_000)
    path = tmp_path / "generated.py"
    path.write_bytes(data)
    calls: list[dict[str, Any]] = [{"path": str(path)}, {"path": str(path), "head_limit": 3}]
    growth, heads = peak_growth(tmp_path, "warm.py", calls)
    assert growth < 48 * len(data), growth
    lines = data.count(b"\n")
    assert heads[1] == (
        f"{path} (Python, {lines} lines)\n"
        "function function_0  1-2  def function_0(a, b):\n"
        "class Holder0  5-7  class Holder0:"
    )


def stdlib_modules() -> list[Path]:
    """Python files of the standard library that read without a syntax error here."""
    import sysconfig

    root = Path(sysconfig.get_paths()["stdlib"])
    found = sorted(root.glob("*.py")) + sorted((root / "email").glob("*.py"))
    return [path for path in found if path.stat().st_size > 20_000][:40]


@pytest.mark.timeout(600)  # large files, on a machine other tests load too
def test_pieces_outline_a_file_as_the_whole_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 2 KB of the standard library's larger modules (each cut where a
    top-level statement starts, by the rule a search by name cuts with): the same
    outline, byte for byte, as the whole file's tree gives."""
    compared = 0
    for path in stdlib_modules():
        source = Source(PYTHON, [Part(None, path.read_bytes())])
        whole = outline("m.py", source, None, top_only=False)
        methods = outline("m.py", source, "method", top_only=True)
        if whole[1].startswith("[Syntax errors"):
            continue  # only a file that reads cleanly is read in pieces
        with monkeypatch.context() as patched:
            patched.setattr(engine_task, "PIECEWISE_FROM", 0)
            patched.setattr(engine_task, "PIECE_BYTES", 2048)
            assert outline("m.py", source, None, top_only=False) == whole, path
            assert outline("m.py", source, "method", top_only=True) == methods, path
        compared += 1
    assert compared >= 20


# --- minified lines: linear time ----------------------------------------------------------


def test_a_signature_reads_its_line_only_as_far_as_it_shows() -> None:
    """Every definition of a 9 MB one-line bundle has that line for its signature:
    decoded whole each time, 20,000 signatures took minutes."""
    line = hostile.minified(9_000_000).rstrip(b"\n")
    started = time.monotonic()
    for _ in range(20_000):
        shown = signature([line], 1)
    assert time.monotonic() - started < 10  # 87 s before, on a loaded machine
    assert shown == line[:MAX_SIGNATURE].decode()


#: What a line is made of: whitespace Python's strip() removes (ASCII, Unicode),
#: characters of every UTF-8 length, bytes that are no UTF-8 (a lone lead byte, a
#: lone continuation, a sequence cut short), long runs.
PIECES = [
    b" ",
    b"\t",
    b"\x1c",
    b"\xc2\x85",
    b"\xe2\x80\x83",
    b"\xe3\x80\x80",
    b"a",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\x85",
    b"\xff",
    b"\xe2\x80",
    b"x" * 60,
    b" " * 400,
]


@given(st.lists(st.sampled_from(PIECES), max_size=80))
def test_a_long_line_signature_is_the_whole_lines(pieces: list[bytes]) -> None:
    line = b"".join(pieces)
    whole = line.decode("utf-8", "replace").strip()[:MAX_SIGNATURE]
    assert signature([line], 1) == printable(whole)


@pytest.mark.timeout(600)  # large files, on a machine other tests load too
def test_references_on_one_long_line_count_columns_in_linear_time(tmp_path: Path) -> None:
    """Each column was the characters before it, decoded from the line's start."""
    calls = "".join(f"é(target,{n});" for n in range(30_000))
    path = tmp_path / "calls.min.js"
    path.write_text(f"function target(){{}};{calls}\n")
    started = time.monotonic()
    page = engine.run(
        access(tmp_path),
        engine.Request(path=str(path), name="target", references=True, offset=29_998),
    )
    assert time.monotonic() - started < 20  # 66 s before, on a loaded machine
    # The 29,999th reference: after "function target(){};" and 29,998 calls before it,
    # and the "é(" of its own.
    before = len("function target(){};") + sum(len(f"é(target,{n});") for n in range(29_998))
    assert page.splitlines()[0].startswith(f"{path}:1:{before + 3}  in (top level)  ")


# --- paging stops the work ----------------------------------------------------------------


class Counted:
    """Definitions made, counted (the engine makes them through this name)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        made = engine_definitions.Definition

        def counting(*fields: Any) -> Any:
            self.count += 1
            return made(*fields)

        monkeypatch.setattr(engine_definitions, "Definition", counting)


def test_a_full_page_of_one_file_stops_making_its_definitions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "generated.c"
    path.write_bytes(hostile.declarations(1_000_000))
    made = Counted(monkeypatch)
    page = engine.run(access(tmp_path), engine.Request(path=str(path), head_limit=3))
    assert page.splitlines()[1:] == [  # the header is the page's first line
        f"variable value_{n}  {n + 1}-{n + 1}  int value_{n} = {n};" for n in range(2)
    ]
    assert made.count <= 3


def test_a_file_gives_no_more_than_its_page_can_take(tmp_path: Path) -> None:
    """A worker's result for a file is bounded by the page: a map's file by the output
    cap, a search's by the offset and head_limit."""
    source = hostile.declarations(1_000_000)
    path = write_tree(tmp_path, {"generated.c": source.decode()}) / "generated.c"
    mapped = StructureTask(MAP, 1 << 30, capped=True).run_file("generated.c", str(path))
    assert LIMIT < len("\n".join(mapped)) < LIMIT + 200
    outlined = StructureTask(OUTLINE, 1 << 30, most=13, uncounted=10, capped=True)
    assert len(outlined.run_file("generated.c", str(path))) == 13
    text = engine.run(access(tmp_path), engine.Request(name="value_.*", regex=True, head_limit=2))
    assert text.splitlines() == [
        "generated.c:1-1  variable value_0  int value_0 = 0;",
        "generated.c:2-2  variable value_1  int value_1 = 1;",
    ]


# --- a call off inside one file -----------------------------------------------------------


@pytest.mark.parametrize("look", [1, 2, 3, 5, 20])
def test_a_call_off_is_seen_inside_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, look: int
) -> None:
    """Called off while one large file is parsed, its matches read or its definitions
    made: the work on it ends there, with few of its 40,000 definitions made."""
    path = tmp_path / "generated.c"
    path.write_bytes(hostile.declarations(1_000_000))
    made = Counted(monkeypatch)
    with pytest.raises(Stopped):
        engine.run(access(tmp_path), engine.Request(path=str(path)), SetOnLook(look))
    assert made.count < 10_000


# --- a notebook nested deeper than Python recurses -----------------------------------------


def test_a_notebook_nested_too_deep_is_a_note_and_the_map_goes_on(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"a.py": "def one():\n    pass\n"})
    (root / "deep.ipynb").write_bytes(hostile.deep_notebook(100_000))
    one = engine.run(access(root), engine.Request(path="deep.ipynb"))
    assert one == "deep.ipynb: not read: a notebook whose JSON nests too deep to read"
    mapped = engine.run(access(root), engine.Request())
    assert "a.py (Python, 2 lines)\n  function one  1-2  def one():" in mapped
    assert engine.run(access(root), engine.Request(name="one")) == (
        "a.py:1-2  function one  def one():"
    )
    with pytest.raises(BorisError) as raised:
        locate(access(root), ".", "nothing_here")
    assert raised.value.code == Code.SYMBOL_NOT_FOUND
