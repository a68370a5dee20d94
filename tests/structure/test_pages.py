"""A search by name goes on from where its last page stopped (boris.structure.pages):
the same pages as a search from the start each time, kept per session, bounded, and
dropped when the tree may have changed.

The oracle is the same search without anything kept (``pages`` None): every page from
the start, as before pages were kept.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from boris import changes
from boris.structure import pages as pages_module
from boris.structure import symbols
from boris.structure.pages import Pages
from tests.support import ok_text
from tests.support.inprocess import app_client
from tests.support.sessions import open_access

NEXT = re.compile(r"\n\n\[Truncated at \d+ characters: [^\]]*offset: (\d+)\.\]$")

GO = """\
package store

// Get returns a value: Get is cheap.
func (c *Cache) Get(key string) string {{
\treturn c.items[key]
}}

func use{n}(c *Cache) {{
\tv := c.Get("a")
\tw := c.Get("b") + Getenv("GET")
\t_ = "Get" + v + w
}}
"""

PY = """\
class Store{n}:
    def Get(self, key):
        return self.items.get(key)

    def use(self):
        # Get is named in a comment
        return self.Get("a") + self.Get("b")
"""

JS = """\
class Box{n} {{
  Get(key) {{ return this.items.get(key); }}
  use() {{ return this.Get('a') + GetValue(this.Get('b')); }}
}}
"""


def write_code(root: Path, files: int) -> None:
    """``files`` files of Go, Python and JavaScript using and defining Get, some with
    only longer names (``GetValue``), in a few directories."""
    for index in range(files):
        directory = root / f"d{index % 7}" / f"p{index % 3}"
        directory.mkdir(parents=True, exist_ok=True)
        template, suffix = ((GO, "go"), (PY, "py"), (JS, "js"))[index % 3]
        text = template.format(n=index)
        if index % 5 == 4:
            text = text.replace("Get", "GetValue")
        (directory / f"f{index:04d}.{suffix}").write_text(text)


def read_pages(
    root: Path, pages: Pages | None, *, references: bool, head_limit: int = 0
) -> list[str]:
    """Every page of the search for Get, one after another."""
    access = open_access(root)
    found = []
    offset = 0
    while True:
        request = symbols.Request(
            name="Get", references=references, head_limit=head_limit, offset=offset
        )
        text = symbols.run(access, request, None, pages)
        found.append(text)
        more = NEXT.search(text)
        if more is not None:
            offset = int(more.group(1))
        elif head_limit and text.count("\n") + 1 == head_limit:
            offset += head_limit
        else:
            return found


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pages").resolve()
    write_code(root, 400)  # more than the server parses before the workers take over
    return root


@pytest.mark.parametrize(("references", "head_limit"), [(True, 0), (True, 150), (False, 40)])
def test_pages_gone_on_from_are_the_pages_of_a_search_from_the_start(
    tree: Path, references: bool, head_limit: int
) -> None:
    kept = Pages()
    fresh = read_pages(tree, None, references=references, head_limit=head_limit)
    assert len(fresh) > 1
    assert read_pages(tree, kept, references=references, head_limit=head_limit) == fresh
    # Asked again from the start (the first page is kept no longer): the same.
    assert read_pages(tree, kept, references=references, head_limit=head_limit) == fresh


def test_lines_past_what_a_search_may_keep_are_searched_again(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = read_pages(tree, None, references=True, head_limit=200)
    monkeypatch.setattr(symbols, "MAX_CHARS", 3000)
    assert read_pages(tree, Pages(), references=True, head_limit=200) == fresh


def test_a_later_page_goes_on_from_where_the_last_stopped(tmp_path: Path) -> None:
    """A page goes on from the walk where it stood: a file of an earlier page, gone
    since, still counts (a search from the start would now start elsewhere)."""
    write_code(tmp_path, 60)
    access = open_access(tmp_path)
    kept = Pages()
    pages = [
        symbols.run(access, symbols.Request(name="Get", references=True, head_limit=4, offset=n))
        for n in (0, 4, 8)
    ]
    for offset in (0, 4):
        request = symbols.Request(name="Get", references=True, head_limit=4, offset=offset)
        assert symbols.run(access, request, None, kept) == pages[offset // 4]
    first_file = pages[0].split(":", 1)[0]
    assert first_file not in pages[1] + pages[2]
    (tmp_path / first_file).unlink()
    request = symbols.Request(name="Get", references=True, head_limit=4, offset=8)
    assert symbols.run(access, request, None, kept) == pages[2]
    assert symbols.run(access, request) != pages[2]


def test_a_change_to_a_file_whose_lines_are_kept_drops_them(tmp_path: Path) -> None:
    write_code(tmp_path, 3)
    access = open_access(tmp_path)
    kept = Pages()
    first = symbols.run(
        access, symbols.Request(name="Get", references=True, head_limit=1), None, kept
    )
    path = tmp_path / first.split(":", 1)[0]
    path.write_text("// moved down a line\n" + path.read_text())
    request = symbols.Request(name="Get", references=True, head_limit=1, offset=1)
    again = symbols.run(access, request, None, kept)
    assert again == symbols.run(access, request)
    assert again.split(":")[1] != first.split(":")[1]  # its line, one further down


def test_a_write_through_the_server_drops_what_was_kept(tmp_path: Path) -> None:
    """A file added to a directory the walk has listed is not seen by a page that goes
    on, unless the server wrote since (a bash call, an edit)."""
    write_code(tmp_path, 30)
    access = open_access(tmp_path)

    def page(offset: int, pages: Pages | None) -> str:
        request = symbols.Request(name="Get", references=True, head_limit=3, offset=offset)
        return symbols.run(access, request, None, pages)

    before = page(3, None)
    for wrote in (False, True):
        kept = Pages()
        page(0, kept)
        added = tmp_path / "d0" / "a_first.py"
        added.write_text(PY.format(n=0))
        if wrote:
            changes.wrote()
        assert page(3, kept) == (page(3, None) if wrote else before)
        added.unlink()


def test_a_first_page_is_searched_from_the_start(tmp_path: Path) -> None:
    write_code(tmp_path, 30)
    access = open_access(tmp_path)
    kept = Pages()
    request = symbols.Request(name="Get", references=True, head_limit=3)
    symbols.run(access, request, None, kept)
    (tmp_path / "d0" / "a_first.py").write_text(PY.format(n=0))
    again = symbols.run(access, request, None, kept)
    assert again.startswith("d0/a_first.py:")
    assert again == symbols.run(access, request)


def test_a_session_keeps_a_few_searches(tmp_path: Path) -> None:
    write_code(tmp_path, 6)
    access = open_access(tmp_path)
    kept = Pages()
    for name in ("Get", "use", "items", "key", "Store0"):
        symbols.run(access, symbols.Request(name=name, head_limit=1), None, kept)
    assert len(kept) == pages_module.MAX_SEARCHES
    kept.clear()
    assert len(kept) == 0


def test_every_session_together_keeps_a_bounded_amount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the bound on what all sessions keep, the oldest search of any is dropped."""
    write_code(tmp_path, 6)
    access = open_access(tmp_path)
    first, second = Pages(), Pages()
    request = symbols.Request(name="Get", references=True, head_limit=1)
    symbols.run(access, request, None, first)
    size = sum(chars for _, _, chars in first.sizes())
    assert size > 0
    monkeypatch.setattr(pages_module, "MAX_TOTAL_CHARS", size)
    symbols.run(access, request, None, second)
    assert (len(first), len(second)) == (0, 1)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--allow-dir", str(tmp_path), workdir=tmp_path) as connected:
        yield connected


@pytest.mark.anyio
async def test_calls_that_may_write_are_counted(client: Client[Any], tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    start = changes.writes()
    ok_text(await client.call_tool("view", {"path": "a.py"}))
    ok_text(await client.call_tool("symbols", {"name": "x"}))
    assert changes.writes() == start
    ok_text(await client.call_tool("bash", {"command": "true"}))
    assert changes.writes() == start + 2  # as it starts, as it ends
    arguments = {"path": "a.py", "old_str": "nothing", "new_str": ""}
    await client.call_tool("str_replace", arguments, raise_on_error=False)
    assert changes.writes() == start + 4  # failed, but it might have written
