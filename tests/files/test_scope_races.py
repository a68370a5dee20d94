"""The scope holds while the paths the file tools are given change under them.

The scope check resolves a path; the tool then opens what the check approved, not
whatever the name leads to by then. Here a directory inside the allowed directory keeps
being swapped for a symlink to a directory outside it while a client calls the file
tools through it. With bash disabled the scope is the only boundary, so nothing outside
may be read, listed, created or changed, whatever the timing.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support import text_of
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio

CALLS = 1000
OUTSIDE_TEXT = "OUTSIDE SECRET 0 1\n"


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``directory`` with its content and mtime."""
    found = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            found[str(path.relative_to(directory))] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


def exchange(first: Path, second: Path) -> None:
    """Swap two names atomically (renameat2 RENAME_EXCHANGE): neither is ever missing."""
    assert _RENAMEAT2 is not None
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), 2) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error), str(first))


_AT_FDCWD = -100
_LIBC = ctypes.CDLL(None, use_errno=True)
_RENAMEAT2 = getattr(_LIBC, "renameat2", None)


@contextmanager
def swapping(sub: Path, link: Path) -> Iterator[list[int]]:
    """Swap ``sub`` with the symlink ``link`` over and over until the block ends.

    Yields a one-item list counting the swaps. The thread checks an event before each
    round, so it stops when the block ends, after a round that leaves ``sub`` the real
    file or directory; an error in the thread fails the test.
    """
    if _RENAMEAT2 is None:
        pytest.skip("no renameat2 in this C library")
    stop = threading.Event()
    rounds = [0]
    errors: list[BaseException] = []
    target = os.readlink(link)
    spare = link.with_name(link.name + ".spare")

    def loop() -> None:
        try:
            while not stop.is_set():
                exchange(sub, link)  # the symlink to the outside now answers to "sub"
                exchange(sub, link)  # and the real one again
                rounds[0] += 1
                if not link.is_symlink():
                    # A write renamed a new file over the symlink while it stood at
                    # "sub", which ends the attack: put a symlink back.
                    spare.symlink_to(target)
                    spare.rename(link)
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)

    thread = threading.Thread(target=loop, name="swapper")
    thread.start()
    try:
        yield rounds
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not thread.is_alive()
    assert not errors, errors
    assert not sub.is_symlink()


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    inside = tmp_path / "inside"
    outside = tmp_path / "outside"
    (inside / "sub").mkdir(parents=True)
    (inside / "sub" / "f.txt").write_text("inside 0\n")
    (inside / "g.txt").write_text("inside 0\n")
    outside.mkdir()
    (outside / "f.txt").write_text(OUTSIDE_TEXT)
    (outside / "outside-only.txt").write_text(OUTSIDE_TEXT)
    (inside / "link").symlink_to(outside)
    (inside / "g-link").symlink_to(outside / "f.txt")
    return inside, outside


def calls(swapped: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """A thousand calls of view, create_file and str_replace through ``swapped``."""
    target = "sub/f.txt" if swapped == "sub" else "g.txt"
    for n in range(CALLS):
        kind = n % 4
        if kind == 0:
            yield "view", {"path": target}
        elif kind == 1 and swapped == "sub":
            yield "create_file", {"path": f"sub/new-{n}.txt", "content": "x"}
        elif kind in (1, 2):
            yield "create_file", {"path": target, "content": "inside 0\n"}
        else:
            old, new = ("0", "1") if n % 8 == 3 else ("1", "0")
            yield "str_replace", {"path": target, "old_str": old, "new_str": new}


@pytest.mark.parametrize(
    ("swapped", "link"), [("sub", "link"), ("g.txt", "g-link")], ids=["directory", "file"]
)
async def test_file_tools_never_leave_the_allowed_directory(
    layout: tuple[Path, Path], swapped: str, link: str
) -> None:
    inside, outside = layout
    before = snapshot(outside)
    seen_inside = 0
    async with app_client(
        "--allow-dir",
        str(inside),
        "--disable-tools",
        "bash",
        "--require-view-before-edit",
        "false",
        workdir=inside,
    ) as client:
        with swapping(inside / swapped, inside / link) as rounds:
            for tool, arguments in calls(swapped):
                result = await client.call_tool(tool, arguments, raise_on_error=False)
                text = text_of(result)
                assert "SECRET" not in text, (tool, arguments, text)
                assert str(outside) not in text or text.startswith("[ACCESS_DENIED]"), text
                seen_inside += text.startswith("1\tinside")
        assert rounds[0] > 0
    assert snapshot(outside) == before
    assert seen_inside > 0  # the calls did reach the real file now and then


async def test_listing_never_shows_the_outside(layout: tuple[Path, Path]) -> None:
    inside, outside = layout
    (inside / "sub" / "deeper").mkdir()
    (outside / "deeper").mkdir()
    (outside / "deeper" / "outside-only-deeper.txt").write_text("x")
    async with app_client("--allow-dir", str(inside), "--disable-tools", "bash") as client:
        with swapping(inside / "sub", inside / "link") as rounds:
            for _ in range(CALLS // 2):
                for path in ("sub", "."):
                    result = await client.call_tool(
                        "view", {"path": str(inside / path)}, raise_on_error=False
                    )
                    assert "outside-only" not in text_of(result), text_of(result)
        assert rounds[0] > 0
