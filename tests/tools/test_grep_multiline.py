"""grep's multiline count against ripgrep, through a real client (README "grep and glob,
and ripgrep"): the number of lines the matches touch, on texts made to stress it: many
matches on one line, matches that span lines or start on a line another match ended on.

The oracle is the ``rg`` of the pinned ``ripgrep`` wheel: its content output in multiline
mode (``-U --multiline-dotall -n``) lists each line the matches touch once; its own
``-c`` counts matches instead (README, "Differences from ripgrep").

That the count takes time in proportion to the file (a one-line file of a million
matches was quadratic) is measured in CPU time with a wide margin, and printed by
``bench/grep_limits.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st

from tests.support import ok_text
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio

RG = Path(sys.executable).parent / "rg"

#: Patterns that cross lines, or cannot, or match at line ends; none matches the empty
#: string (ripgrep's treatment of an empty match after the last newline is its own).
PATTERNS = [
    "b",
    "ab",
    "a.b",
    "b\\na",
    "b\\n",
    "\\na",
    "a.*?b",
    "b.*a",
    "^b",
    "a$",
    "b$\\n^a",
    "[ab]\\n[ab]",
    "(?:ab)+",
    "b.{0,3}a",
    "a\\n\\n",
    "ba|\\nb",
]

texts = st.lists(st.sampled_from(["a", "b", "ab", "ba", "\n", "abab", "\n\n"]), max_size=40).map(
    "".join
)


def rg_lines_touched(path: Path, pattern: str) -> int:
    """The lines ripgrep shows for ``pattern`` in multiline mode: those its matches touch."""
    done = subprocess.run(
        [str(RG), "--no-config", "-U", "--multiline-dotall", "-n", "--no-filename",
         f"--regexp={pattern}", str(path)],
        capture_output=True,
        check=False,
        timeout=60,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return len(done.stdout.splitlines())


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal(backend="asyncio") as portal:
        yield portal


@pytest.fixture(scope="module")
def sync_client(
    portal: BlockingPortal, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Client[Any]]:
    with portal.wrap_async_context_manager(
        app_client(workdir=tmp_path_factory.mktemp("multiline"))
    ) as client:
        yield client


@pytest.mark.skipif(not RG.exists(), reason="needs the rg of the ripgrep test extra")
@given(text=texts, pattern=st.sampled_from(PATTERNS))
def test_multiline_count_is_the_lines_ripgrep_shows(
    portal: BlockingPortal, sync_client: Client[Any], text: str, pattern: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.txt"
        path.write_text(text)
        arguments = {
            "pattern": pattern,
            "path": str(path),
            "output_mode": "count",
            "multiline": True,
        }
        result = portal.call(lambda: sync_client.call_tool("grep", arguments))
        touched = rg_lines_touched(path, pattern)
        assert ok_text(result) == (f"{path}:{touched}" if touched else "")


@pytest.mark.skipif(not RG.exists(), reason="needs the rg of the ripgrep test extra")
async def test_millions_of_matches_on_one_line_take_linear_time(tmp_path: Path) -> None:
    """A one-line file of "ab" two million times: one line, found in about two seconds of
    CPU (a quadratic search took minutes). CPU time, so a busy machine cannot make it
    fail; the bound is some fifteen times what it takes."""
    (tmp_path / "one.txt").write_text("ab" * 2_000_000)
    (tmp_path / "two.txt").write_text(("ab" * 1_000_000 + "\n") * 2)
    async with app_client(workdir=tmp_path) as client:
        for name, lines in (("one.txt", 1), ("two.txt", 2)):
            arguments = {"pattern": "b", "path": name, "output_mode": "count", "multiline": True}
            before = time.process_time()
            text = ok_text(await client.call_tool("grep", arguments))
            used = time.process_time() - before
            assert text == f"{name}:{lines}" == f"{name}:{rg_lines_touched(tmp_path / name, 'b')}"
            assert used < 30, f"{used:.1f} s of CPU for {name}"
