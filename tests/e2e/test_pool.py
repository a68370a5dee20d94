"""A real server's large grep uses worker processes, and they end with the server.

How the workers search is tested in process: tests/search/test_pool.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import http_client, http_server, text_of
from tests.support.pids import children, wait_gone
from tests.support.trees import expected_counts, write_big_tree

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_tree(tmp_path_factory.mktemp("big").resolve())


async def test_server_search_uses_workers_that_end_with_the_server(big_tree: Path) -> None:
    with http_server(workdir=big_tree) as server:
        async with http_client(server.url) as client:
            result: Any = await client.call_tool("grep", {"pattern": "hit", "output_mode": "count"})
            assert text_of(result) == "\n".join(expected_counts())
        workers = children(server.proc.pid)
    # The search was big enough to start them, where there is more than one core.
    assert bool(workers) == (len(os.sched_getaffinity(0)) > 1)
    assert await wait_gone(sorted(workers)) == []


async def test_a_server_whose_python_is_gone_searches_alone(big_tree: Path, tmp_path: Path) -> None:
    """A server whose interpreter was removed after it started (as an upgrade may do)
    cannot start workers: it searches by itself, with the same answer."""
    python = tmp_path / "python3"
    python.symlink_to(sys.executable)
    env = {"PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}
    with http_server(workdir=big_tree, command=[str(python), "-m", "boris"], env=env) as server:
        python.unlink()
        async with http_client(server.url) as client:
            result: Any = await client.call_tool("grep", {"pattern": "hit", "output_mode": "count"})
            assert text_of(result) == "\n".join(expected_counts())
            again: Any = await client.call_tool("grep", {"pattern": "hit", "output_mode": "count"})
            assert text_of(again) == text_of(result)
        assert children(server.proc.pid) == set()
