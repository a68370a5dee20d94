"""A real server's large grep uses worker processes, and they end with the server.

How the workers search is tested in process: tests/search/test_searchpool.py.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.search.test_searchpool import query, run, write_big_tree
from tests.support import http_client, http_server, text_of

pytestmark = pytest.mark.anyio


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_server_search_uses_workers_that_end_with_the_server(tmp_path: Path) -> None:
    big_tree = write_big_tree(tmp_path.resolve())
    expected = "\n".join(run(big_tree, query("count"), parallel=False))
    with http_server(workdir=big_tree) as server:
        async with http_client(server.url) as client:
            result: Any = await client.call_tool("grep", {"pattern": "hit", "output_mode": "count"})
            assert text_of(result) == expected
        workers = _children(server.proc.pid)
        assert workers  # the search was big enough to start them
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)
