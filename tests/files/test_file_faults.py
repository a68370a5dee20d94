"""Failed writes leave the original intact and report IO_ERROR: a full filesystem; a
file that cannot be read is reported the same way.

A tiny tmpfs (when this machine lets us mount one) has no room for the temporary copy,
the backup or the new content. The faults that need a server process of their own (a
file-size limit on it, a server that file permissions hold for) are in
tests/e2e/test_file_faults.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import error_text, ok_text
from tests.support.calls import call
from tests.support.files import original_text, tiny_tmpfs
from tests.support.inprocess import app_client

__all__ = ["tiny_tmpfs"]  # the fixture, used by name

pytestmark = pytest.mark.anyio


async def test_disk_full(tiny_tmpfs: Path) -> None:
    # A 36 KB file on a 64 KB filesystem: the temporary copy cannot fit.
    path = tiny_tmpfs / "f.txt"
    path.write_text(original_text())
    before = path.read_bytes()
    async with app_client(workdir=tiny_tmpfs) as client:
        ok_text(await call(client, "view", path="f.txt", view_range=[1, 1]))
        result = await call(client, "str_replace", path="f.txt", old_str="line 7\n", new_str="")
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: No space left on device; the file is unchanged"
        )
        result = await call(client, "create_file", path="f.txt", content="x" * 40_000)
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: No space left on device; the file is unchanged"
        )
    assert path.read_bytes() == before
    assert os.listdir(tiny_tmpfs) == ["f.txt"]


async def test_disk_full_for_the_backup_of_an_in_place_write(tiny_tmpfs: Path) -> None:
    # A hard-linked file is written in place, after a backup copy beside it: here a
    # 36 KB file on a 64 KB filesystem has no room for its backup.
    path = tiny_tmpfs / "f.txt"
    path.write_text(original_text())
    os.link(path, tiny_tmpfs / "link.txt")
    before = path.read_bytes()
    async with app_client(workdir=tiny_tmpfs) as client:
        ok_text(await call(client, "view", path="f.txt", view_range=[1, 1]))
        result = await call(client, "str_replace", path="f.txt", old_str="line 7\n", new_str="")
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: No space left on device; the file is unchanged"
        )
    assert path.read_bytes() == before
    assert sorted(os.listdir(tiny_tmpfs)) == ["f.txt", "link.txt"]


async def test_disk_full_for_the_new_content_of_an_in_place_write(tiny_tmpfs: Path) -> None:
    # The 20 KB file's backup fits, its 60 KB replacement does not: the room is claimed
    # before the first byte is overwritten, and the backup goes again.
    path = tiny_tmpfs / "f.txt"
    path.write_bytes(b"x" * 20_000)
    os.link(path, tiny_tmpfs / "link.txt")
    async with app_client(workdir=tiny_tmpfs) as client:
        ok_text(await call(client, "view", path="f.txt"))
        result = await call(client, "create_file", path="f.txt", content="y" * 60_000)
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: No space left on device; the file is unchanged"
        )
    assert path.read_bytes() == b"x" * 20_000
    assert sorted(os.listdir(tiny_tmpfs)) == ["f.txt", "link.txt"]


async def test_a_file_that_fails_to_read(tmp_path: Path) -> None:
    """A regular file whose read fails (this process's memory file, unmapped at offset 0:
    EIO, as a failing disk gives, and root is no exception) is IO_ERROR with the
    system's reason."""
    mem = f"/proc/{os.getpid()}/mem"  # the app runs in this process
    async with app_client("--require-view-before-edit", "false", workdir=tmp_path) as client:
        result = await call(client, "str_replace", path="/proc/self/mem", old_str="a", new_str="b")
        assert error_text(result) == f"[IO_ERROR] could not read {mem}: Input/output error"
