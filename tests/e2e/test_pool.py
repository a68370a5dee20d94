"""A real server's large grep uses worker processes, and they end with the server.

How the workers search is tested in process: tests/search/test_pool.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import BORIS, http_client, http_server, text_of
from tests.support.files import memory_kib, peak_start
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


#: The server's address space limit in the test below: room for the server, far short of
#: what a syntax tree of the nested templates takes (some 2.5 GB).
SERVER_LIMIT = 2 << 30


async def test_a_file_that_breaks_the_parser_costs_the_server_nothing(tmp_path: Path) -> None:
    """A C++ file of nested templates, whose syntax tree takes some 1,600 bytes a byte:
    under a limit of its address space, the server lives on (the parser runs in workers,
    which die on it, never in the server), answers with an error naming the file, and
    goes on serving. It never maps a grammar, and its peak memory hardly moves."""
    n = 400_000
    (tmp_path / "deep.cpp").write_text("A<" * n + "int" + ">" * n + " x;\n")
    (tmp_path / "ok.py").write_text("def fine():\n    pass\n\n\nx = 1\n")
    command = ["prlimit", f"--as={SERVER_LIMIT}", *BORIS]
    with http_server(workdir=tmp_path, command=command) as server:
        async with http_client(server.url) as client:
            await client.call_tool("symbols", {"path": "ok.py"})  # started, grammars loaded
            base = peak_start(server.proc.pid)
            result: Any = await client.call_tool(
                "symbols", {"path": "deep.cpp"}, raise_on_error=False
            )
            assert text_of(result) == (
                "[IO_ERROR] could not read the structure of deep.cpp: the parser failed on it "
                "(out of its memory budget, or it crashed)"
            )
            assert result.is_error
            listed: Any = await client.call_tool("symbols", {"path": "."})
            assert "deep.cpp [not read: the parser failed on it" in text_of(listed)
            assert "  function fine  1-2  def fine():" in text_of(listed)
            assert "  variable x  5-5  x = 1" in text_of(listed)
            # A search by name: the other file's definition, then a note naming deep.cpp.
            found: Any = await client.call_tool("symbols", {"name": "x"})
            assert text_of(found) == (
                "ok.py:5-5  variable x  x = 1\n\n"
                "[Skipped 1 file(s) the parser could not finish: deep.cpp "
                "(the parser failed on it (out of its memory budget, or it crashed))]"
            )
            assert memory_kib(server.proc.pid, "VmHWM") - base < 64 * 1024
            maps = Path(f"/proc/{server.proc.pid}/maps").read_text()
            assert "tree_sitter" not in maps
        assert server.proc.poll() is None
