"""view's ``symbol`` through a real client, exact texts (SPEC view, README "Code structure").

The property that a symbol's view is the view of its outline range is in
tests/structure/test_structure_properties.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.trees import write_tree

pytestmark = pytest.mark.anyio

SESSIONS = """\
class SessionStore:
    def __init__(self):
        self.sessions = {}

    def for_context(self, ctx):
        return self.sessions[ctx]


def for_context(ctx):
    return SessionStore().for_context(ctx)
"""

OTHER = """\
class Other:
    def __init__(self):
        pass
"""


CACHE = """\
class ItemCache:
    def lookup(self, key):
        return key


def lookup(key):
    return ItemCache().lookup(key)
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("view_symbol").resolve()
    return write_tree(root, {"pkg/sessions.py": SESSIONS, "pkg/other.py": OTHER})


@pytest.fixture
async def client(workdir: Path) -> AsyncIterator[Client[Any]]:
    flags = ["--allow-dir", str(workdir), "--require-view-before-edit", "true"]
    async with app_client(*flags, workdir=workdir) as connected:
        yield connected


async def view(client: Client[Any], **arguments: Any) -> str:
    return ok_text(await client.call_tool("view", arguments, raise_on_error=False))


async def view_error(client: Client[Any], **arguments: Any) -> str:
    return error_text(await client.call_tool("view", arguments, raise_on_error=False))


async def test_a_qualified_symbol_in_a_file(client: Client[Any]) -> None:
    assert await view(client, path="pkg/sessions.py", symbol="SessionStore.for_context") == (
        "5\t    def for_context(self, ctx):\n6\t        return self.sessions[ctx]\n"
    )


async def test_a_symbol_below_a_directory(client: Client[Any]) -> None:
    assert await view(client, path=".", symbol="Other") == (
        "1\tclass Other:\n2\t    def __init__(self):\n3\t        pass\n"
    )


async def test_a_name_with_several_definitions_lists_them(client: Client[Any]) -> None:
    assert await view_error(client, path="pkg", symbol="for_context") == (
        '[INVALID_INPUT] symbol "for_context" names 2 definitions; give a qualified name or '
        "the path of the file that holds the one to view:\n"
        "sessions.py:5 method SessionStore.for_context\n"
        "sessions.py:9 function for_context"
    )
    assert await view_error(client, path=".", symbol="__init__") == (
        '[INVALID_INPUT] symbol "__init__" names 2 definitions; give a qualified name or '
        "the path of the file that holds the one to view:\n"
        "pkg/other.py:2 method Other.__init__\n"
        "pkg/sessions.py:2 method SessionStore.__init__"
    )


async def test_no_such_definition_names_the_nearest(client: Client[Any], workdir: Path) -> None:
    assert await view_error(client, path="pkg/sessions.py", symbol="SessionStor") == (
        '[SYMBOL_NOT_FOUND] no definition of "SessionStor" in pkg/sessions.py; nearest '
        "names: SessionStore"
    )
    assert await view_error(client, path=".", symbol="for_contxt") == (
        f'[SYMBOL_NOT_FOUND] no definition of "for_contxt" in {workdir}; nearest names: for_context'
    )
    assert await view_error(client, path="pkg/other.py", symbol="zzz") == (
        '[SYMBOL_NOT_FOUND] no definition of "zzz" in pkg/other.py; no name there is close to it'
    )


async def test_symbol_and_view_range_together_are_refused(client: Client[Any]) -> None:
    assert await view_error(
        client, path="pkg/sessions.py", symbol="SessionStore", view_range=[1, 2]
    ) == ("[INVALID_INPUT] give symbol or view_range, not both: symbol shows a definition's lines")
    assert await view_error(client, path="pkg/sessions.py", symbol=" ") == (
        "[INVALID_INPUT] symbol: must not be empty"
    )


async def test_a_symbol_view_marks_the_file_viewed(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "edit", {"one.py": "def one():\n    return 1\n"})
    arguments = {"path": "edit/one.py", "old_str": "return 1", "new_str": "return 2"}
    refused = await client.call_tool("str_replace", arguments, raise_on_error=False)
    assert error_text(refused).startswith("[FILE_NOT_VIEWED] ")
    await view(client, path="edit", symbol="one")
    assert ok_text(await client.call_tool("str_replace", arguments, raise_on_error=False))


async def test_a_symbol_in_a_notebook_shows_its_cell(client: Client[Any], workdir: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# title"},
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": "x = 1\ndef plot():\n    return x\n",
            },
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": "plot()\n",
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    write_tree(workdir / "nb", {"book.ipynb": json.dumps(notebook)})
    shown = await view(client, path="nb/book.ipynb", symbol="plot")
    assert shown == await view(client, path="nb/book.ipynb", view_range=[2, 2])
    assert "[cell 2] code" in shown


async def test_nearest_names_are_qualified_for_a_qualified_symbol(
    client: Client[Any], workdir: Path
) -> None:
    """A qualified symbol is compared with qualified names, a bare one with bare names;
    at most five (difflib's closest first); a file that defines nothing says so."""
    many = "".join(f"def handle{n}(): pass\n" for n in range(7))
    write_tree(workdir / "near", {"store.py": CACHE, "many.py": many, "plain.py": "print(1)\n"})
    assert await view_error(client, path="near/store.py", symbol="ItemCache.look_up") == (
        '[SYMBOL_NOT_FOUND] no definition of "ItemCache.look_up" in near/store.py; '
        "nearest names: ItemCache.lookup, ItemCache"
    )
    assert await view_error(client, path="near/store.py", symbol="Cache::look_up") == (
        '[SYMBOL_NOT_FOUND] no definition of "Cache::look_up" in near/store.py; '
        "nearest names: ItemCache.lookup, lookup"
    )
    assert await view_error(client, path="near/many.py", symbol="handle") == (
        '[SYMBOL_NOT_FOUND] no definition of "handle" in near/many.py; '
        "nearest names: handle6, handle5, handle4, handle3, handle2"
    )
    assert await view_error(client, path="near/plain.py", symbol="x") == (
        '[SYMBOL_NOT_FOUND] no definition of "x" in near/plain.py; '
        "it defines nothing symbols can see"
    )


async def test_at_most_thirty_definitions_are_listed(client: Client[Any], workdir: Path) -> None:
    """Thirty definitions are all listed; from thirty-one on, the rest are counted."""
    for count in (30, 31):
        body = "".join(f"class C{n:02}:\n    def run(self): pass\n" for n in range(count))
        write_tree(workdir / f"listed{count}", {"all.py": body})
        listed = [f"all.py:{2 * n + 2} method C{n:02}.run" for n in range(min(count, 30))]
        more = ["... and 1 more"] if count > 30 else []
        assert await view_error(client, path=f"listed{count}", symbol="run") == (
            f'[INVALID_INPUT] symbol "run" names {count} definitions; give a qualified name or '
            "the path of the file that holds the one to view:\n" + "\n".join(listed + more)
        )


async def test_definitions_in_notebook_cells_are_listed_by_cell(
    client: Client[Any], workdir: Path
) -> None:
    cell: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
    }
    notebook = {
        "cells": [
            {**cell, "source": "def run(): pass\n"},
            {**cell, "source": "\ndef run(): pass\n"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    write_tree(workdir / "nbs", {"twice.ipynb": json.dumps(notebook)})
    assert await view_error(client, path="nbs", symbol="run") == (
        '[INVALID_INPUT] symbol "run" names 2 definitions; give a qualified name or '
        "the path of the file that holds the one to view:\n"
        "twice.ipynb:cell 1:1 function run\n"
        "twice.ipynb:cell 2:2 function run"
    )


async def test_nearest_names_come_from_the_first_5000_files(tmp_path: Path) -> None:
    """README's limits: the names of files after the first 5,000 of a tree are not
    suggested. The tree is its own: in the module's, its 5,000 files would come
    first in the walks of the other tests' searches below ".", in whatever order
    they run."""
    root = write_tree(tmp_path.resolve() / "far", {"a/0000.txt": "", "b/store.py": CACHE})
    for n in range(1, 5000):  # names of one empty file: made fastest
        os.link(root / "a/0000.txt", root / f"a/{n:04}.txt")
    async with app_client("--allow-dir", str(root), workdir=root) as client:
        assert await view_error(client, path=".", symbol="ItemCach") == (
            f'[SYMBOL_NOT_FOUND] no definition of "ItemCach" in {root}; '
            "it defines nothing symbols can see"
        )
