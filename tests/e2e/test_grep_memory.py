"""grep's memory stays in proportion to the page it returns, however far ``offset`` reaches
(README "Limits and bad input"): the lines before the offset are counted, never kept,
in the server and in its search workers.

Measured on a real server (and its worker processes): the rise of their peak resident
memory (VmHWM) during one search, against a bound far below what keeping those lines
would cost (about 300 bytes each here) and far above what the search needs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from boris.search.grep import IN_PROCESS_FILES
from tests.support import HttpServer, http_client, http_server, ok_text
from tests.support.files import memory_kib, peak_start
from tests.support.pids import children

pytestmark = pytest.mark.anyio

MB = 1024 * 1024

#: Matching lines in the big file: one "a" a line, 2 MB in all.
LINES = 1_000_000

#: A long directory name: each line kept would carry it.
LONG = "d" * 200


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """More small files than a search takes in this process, then the big file: the walk
    reaches it once the rest of the search is in the workers' hands."""
    root = tmp_path_factory.mktemp("offset")
    many = root / "a"
    many.mkdir()
    for n in range(IN_PROCESS_FILES + 10):
        (many / f"f{n:05d}.txt").write_text("nothing here\n")
    (root / LONG).mkdir()
    (root / LONG / "big.txt").write_text("a\n" * LINES)
    return root


@pytest.fixture(scope="module")
def server(tree: Path) -> Iterator[HttpServer]:
    with http_server(workdir=tree) as running:
        yield running


def expected_tail(label: str, last: int) -> str:
    return "\n".join(f"{label}:{n}:a" for n in range(LINES - last + 1, LINES + 1))


async def test_a_far_offset_in_one_file_keeps_only_the_page(server: HttpServer) -> None:
    label = f"{LONG}/big.txt"
    async with http_client(server.url) as client:
        arguments = {"pattern": "a", "path": label, "output_mode": "content"}
        warm = await client.call_tool("grep", {**arguments, "head_limit": 1})
        assert ok_text(warm) == f"{label}:1:a"
        before = peak_start(server.proc.pid)
        result = await client.call_tool("grep", {**arguments, "offset": LINES - 5})
        peak = memory_kib(server.proc.pid, "VmHWM")
    assert ok_text(result) == expected_tail(label, 5)
    # Keeping the lines before the offset costs some 300 MB here.
    assert (peak - before) * 1024 < 40 * MB, f"grew by {(peak - before) // 1024} MB"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="search workers need two cores")
async def test_a_far_offset_in_a_worker_keeps_only_the_page(server: HttpServer) -> None:
    label = f"{LONG}/big.txt"
    async with http_client(server.url) as client:
        # A first search starts the workers.
        warm = await client.call_tool("grep", {"pattern": "zzz", "output_mode": "count"})
        assert ok_text(warm) == ""
        workers = sorted(children(server.proc.pid))
        assert workers, "no search workers"
        pids = [server.proc.pid, *workers]
        before = {pid: peak_start(pid) for pid in pids}
        result = await client.call_tool(
            "grep", {"pattern": "^a$", "output_mode": "content", "offset": LINES - 3}
        )
        grown = {pid: memory_kib(pid, "VmHWM") - before[pid] for pid in pids}
    assert ok_text(result) == expected_tail(label, 3)
    for pid, kib in grown.items():
        assert kib * 1024 < 40 * MB, f"process {pid} grew by {kib // 1024} MB"
