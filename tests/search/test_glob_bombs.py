"""Glob patterns built to make a backtracking matcher explode answer at once, wherever
they come from (glob's pattern, grep's include, deny patterns), and other clients are
served meanwhile.

README: every glob pattern is matched in time linear in the name's length times the
pattern's length; runs of ``*`` are one ``*``; braces are alternatives, never expanded
one pattern per combination. The bound asserted here only catches a hang.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import ok_text
from tests.support.inprocess import app_clients
from tests.support.trees import write_tree

pytestmark = pytest.mark.anyio

#: Seconds within which every call here must answer: generous, it only catches a hang
#: (a backtracking or expanding matcher would take days on these patterns), so a
#: busy machine does not fail it.
HANG_BOUND = 20.0

#: Ten "*a" then "*b": a backtracking matcher tries every way to place ten stars.
STARS_AND_AS = "*a" * 10 + "*b"
#: Fourteen stars in a row, then a letter the name does not have.
STAR_RUN = "*" * 14 + "x"
LONG_NAME = "a" * 120
#: Twenty-four brace groups: 16,777,216 combinations if each were a pattern of its own.
BRACE_CHAIN = "{a,b}" * 24 + "*.txt"
#: Nested braces, twelve in a row: 16,777,216 combinations.
NESTED_CHAIN = "{a,{b,{c,d}}}" * 12 + "*.md"

TREE = {
    LONG_NAME: "hit\n",
    "a" * 10 + "b": "hit\n",  # matches STARS_AND_AS
    "bx": "hit\n",  # matches STAR_RUN
    "ab" * 12 + ".txt": "hit\n",  # matches BRACE_CHAIN
    "abcd" * 3 + ".md": "hit\n",  # matches NESTED_CHAIN
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("bombs").resolve(), TREE)


async def within_bound(call: Awaitable[Any]) -> Any:
    """The call's result; fails (instead of waiting on) a call slower than HANG_BOUND."""
    start = time.monotonic()
    with anyio.fail_after(HANG_BOUND * 2):  # stop waiting on a hung server
        result = await call
    assert time.monotonic() - start < HANG_BOUND
    return result


async def while_another_client_is_served(
    first: Client[Any], second: Client[Any], call: Callable[[Client[Any]], Awaitable[Any]]
) -> Any:
    """Run ``call`` on ``first`` while ``second`` globs; both answer within the bound."""
    results: dict[str, Any] = {}

    async def attack() -> None:
        results["attack"] = await within_bound(call(first))

    async def bystander() -> None:
        results["other"] = await within_bound(
            second.call_tool("glob", {"pattern": "abcd*"}, raise_on_error=False)
        )

    async with anyio.create_task_group() as group:
        group.start_soon(attack)
        group.start_soon(bystander)
    assert ok_text(results["other"]) == "abcdabcdabcd.md"
    return results["attack"]


@pytest.mark.parametrize(
    ("pattern", "found"),
    [
        (STARS_AND_AS, "aaaaaaaaaab"),
        (STAR_RUN, "bx"),
        (BRACE_CHAIN, "abababababababababababab.txt"),
        (NESTED_CHAIN, "abcdabcdabcd.md"),
    ],
)
async def test_glob_and_include_bombs_answer_and_others_are_served(
    workdir: Path, pattern: str, found: str
) -> None:
    async with app_clients(workdir=workdir, count=2) as (first, second):
        globbed = await while_another_client_is_served(
            first, second, lambda c: c.call_tool("glob", {"pattern": pattern})
        )
        assert ok_text(globbed) == found
        grepped = await while_another_client_is_served(
            first,
            second,
            lambda c: c.call_tool("grep", {"pattern": "hit", "include": pattern}),
        )
        assert ok_text(grepped) == found


async def test_deny_pattern_bombs_answer(workdir: Path) -> None:
    flags = ["--deny-dir", STARS_AND_AS, "--deny-dir", STAR_RUN]
    async with app_clients(*flags, workdir=workdir, count=2) as (first, second):
        listed = await while_another_client_is_served(
            first, second, lambda c: c.call_tool("glob", {"pattern": "a*"})
        )
        # Every name is checked against both deny patterns; two of them are denied.
        assert ok_text(listed) == f"{LONG_NAME}\nabababababababababababab.txt\nabcdabcdabcd.md"
        assert ok_text(await within_bound(first.call_tool("glob", {"pattern": "*x"}))) == (
            "No files found"
        )


async def test_gitignore_bombs_answer(tmp_path: Path) -> None:
    """A repository's .gitignore is anyone's text too: its rules are matched in linear
    time as well."""
    root = write_tree(tmp_path.resolve(), {**TREE, ".gitignore": f"{STARS_AND_AS}\n{STAR_RUN}\n"})
    async with app_clients(workdir=root, count=2) as (first, second):
        listed = await while_another_client_is_served(
            first, second, lambda c: c.call_tool("glob", {"pattern": "*"})
        )
        assert ok_text(listed) == (
            f".gitignore\n{LONG_NAME}\nabababababababababababab.txt\nabcdabcdabcd.md"
        )
