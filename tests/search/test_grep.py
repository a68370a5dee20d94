"""grep's engine (boris/search/grep.py), called directly: what it finds over random trees
against a line-by-line reference, and what it reads and keeps for a page (files pulled
lazily, lines before the offset counted, not kept). tests/tools/test_grep.py checks the
tool's texts through a client.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import re2
from hypothesis import given
from hypothesis import strategies as st

from boris.files.scope import PathScope
from boris.search import file_search
from boris.search import grep as engine
from boris.search.content_lines import Rendered
from tests.support.models import reference_lines
from tests.support.strategies import grep_texts
from tests.support.trees import search_query

MAX_SIZE = 300
#: The output cap (README, "Limits and bad input").
CAP = 30000


_binary_or_text = st.one_of(grep_texts, grep_texts.map(lambda t: t + b"\x00"))


_names = st.sampled_from(["a.txt", "b.py", "c", ".hidden", "d.md"])


_dirs = st.sampled_from(["", "sub/", "sub/deep/", "other/", ".git/", "node_modules/"])


_trees = st.dictionaries(st.tuples(_dirs, _names).map("".join), _binary_or_text, max_size=8)


_literals = st.text(alphabet="abAB x.*(\xff", min_size=1, max_size=3)


def reference_counts(root: Path, needle: bytes, fold: bool) -> dict[str, int]:
    counts: dict[str, int] = {}
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        for name in filenames:
            path = Path(directory) / name
            data = path.read_bytes()
            if b"\x00" in data or len(data) > MAX_SIZE:
                continue
            lines = reference_lines(data)
            if fold:
                lines, wanted = [line.lower() for line in lines], needle.lower()
            else:
                wanted = needle
            hits = sum(1 for line in lines if wanted in line)
            if hits:
                counts[path.relative_to(root).as_posix()] = hits
    return counts


def run(root: Path, pattern: str, mode: str, fold: bool, parallel: bool = False) -> str:
    task = file_search.FileTask(
        pattern, case_insensitive=fold, multiline=False, output_mode=mode, max_size=MAX_SIZE
    )
    query = engine.Query(
        task=task,
        matcher=task.matcher(),
        include=None,
        include_has_slash=False,
        file_type=None,
        head_limit=0,
        offset=0,
    )
    files = engine._tree(str(root), query, PathScope([], []))
    return "\n".join(engine.search_files(files, query, parallel=parallel).lines)


@given(tree=_trees, literal=_literals, fold=st.booleans())
def test_grep_agrees_with_a_line_by_line_reference(
    tree: dict[str, bytes], literal: str, fold: bool
) -> None:
    needle = literal.encode("utf-8")
    if fold and not needle.isascii():
        return  # the reference folds ASCII only
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, content in tree.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(content)
        expected = reference_counts(root, needle, fold)
        pattern = re2.escape(literal)
        files = run(root, pattern, "files_with_matches", fold)
        assert sorted(files.splitlines()) == sorted(expected)
        counts = run(root, pattern, "count", fold)
        parsed = dict(line.rsplit(":", 1) for line in counts.splitlines())
        assert {rel: int(n) for rel, n in parsed.items()} == expected


def test_head_limit_stops_reading_files_early() -> None:
    # The engine pulls files from the walk lazily; with enough output it stops pulling.
    pulled: list[str] = []

    def files() -> Any:
        for n in range(100):
            pulled.append(f"f{n}")
            yield f"f{n}", __file__  # this test file mentions "import" on several lines

    for mode in ("content", "count"):
        pulled.clear()
        query = search_query("import", mode, head_limit=2)
        lines = engine.search_files(files(), query).lines
        assert len(lines) >= 2
        assert len(pulled) <= 2, mode


def test_content_output_stops_growing_past_the_cap(tmp_path: Path) -> None:
    # A file of matching lines renders only what a page can show, and the search
    # pulls no more files once the output is over the limit.
    big = tmp_path / "big.txt"
    big.write_text("match me\n" * 200_000)
    pulled: list[int] = []

    def files() -> Any:
        for n in range(50):
            pulled.append(n)
            yield f"f{n}", str(big)

    task = file_search.FileTask("match", False, False, "content", max_size=1 << 24, max_chars=CAP)
    rendered = file_search.search_file(task, task.matcher(), "big.txt", str(big))
    assert isinstance(rendered, Rendered)
    assert rendered.cut
    assert sum(len(line) + 1 for line in rendered.lines) <= CAP + 100
    query = engine.Query(
        task=task,
        matcher=task.matcher(),
        include=None,
        include_has_slash=False,
        file_type=None,
        head_limit=0,
        offset=0,
    )
    output = engine.search_files(files(), query, parallel=False)
    assert output.total is None
    assert pulled == [0]


def test_lines_before_the_offset_are_counted_not_kept(tmp_path: Path) -> None:
    # However far a page starts, the search holds only that page's lines.
    text = tmp_path / "t.txt"
    text.write_text("hit\n" * 1000)
    query = search_query("hit", "content", head_limit=2)
    query = engine.Query(**{**query.__dict__, "offset": 2500})
    output = engine.search_files(((f"f{n}", str(text)) for n in range(3)), query, parallel=False)
    assert output.lines[:2] == ["f2:501:hit", "f2:502:hit"]  # the rest of f2 at most
    assert len(output.lines) == 500
    assert output.total is None  # stopped at the end of the page
    whole = engine.Query(**{**query.__dict__, "head_limit": 0})
    output = engine.search_files(((f"f{n}", str(text)) for n in range(3)), whole, parallel=False)
    assert len(output.lines) == 500
    assert output.total == 3000
