"""apply_patch when a write fails. While the new contents are being made ready nothing
has changed yet, and nothing does. Once the changes take effect, a failure restores the
files already changed (deleted files put back, moved files moved back, written files
given their old content or removed), and the error says so. A tiny tmpfs (as in
tests/files/test_file_faults.py) has no room for the last file's new content."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import error_text, ok_text
from tests.support.calls import call
from tests.support.files import original_text, tiny_tmpfs
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio

__all__ = ["tiny_tmpfs"]  # the fixture, used by name


PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Delete File: gone.txt",
        "*** Update File: old.txt",
        "*** Move to: sub/new.txt",
        "-moved",
        "+MOVED",
        "*** Update File: small.txt",
        "-updated",
        "+UPDATED",
        "*** Update File: big.txt",
        "-original line 7",
        "+line seven" + "!" * 14_000,
        "*** End Patch",
    ]
)


def small_files(directory: Path, big: bytes) -> dict[str, bytes]:
    files = {
        "gone.txt": b"deleted\n",
        "old.txt": b"moved\n",
        "small.txt": b"updated\n",
        "big.txt": big,
    }
    for name, content in files.items():
        (directory / name).write_bytes(content)
    return files


async def test_no_room_for_a_new_copy_changes_nothing(tiny_tmpfs: Path) -> None:
    # 40 KB of a 64 KB filesystem is the big file: the small copies fit, the big file's
    # new copy does not, and it is made ready before anything takes effect.
    files = small_files(tiny_tmpfs, original_text().encode())
    inodes = {name: (tiny_tmpfs / name).stat().st_ino for name in files}
    async with app_client(workdir=tiny_tmpfs) as client:
        for name in files:
            ok_text(await call(client, "view", path=name, view_range=[1, 1]))
        result = await call(client, "apply_patch", patch=PATCH)
    assert error_text(result) == (
        f"[IO_ERROR] could not write {tiny_tmpfs / 'big.txt'}: No space left on device; "
        "nothing was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted(files)  # no sub/, no copies left
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content
        assert (tiny_tmpfs / name).stat().st_ino == inodes[name]


async def test_a_failed_write_restores_every_file_already_changed(tiny_tmpfs: Path) -> None:
    # The big file has a second link, so it is written in place, after a backup: the
    # backup fits while the changes are made ready, then there is no room for the
    # longer content, after the other files have changed.
    big = "".join(f"original line {n}\n" for n in range(1000)).encode()  # 18 KB
    files = small_files(tiny_tmpfs, big)
    os.link(tiny_tmpfs / "big.txt", tiny_tmpfs / "link.txt")
    inodes = {name: (tiny_tmpfs / name).stat().st_ino for name in files}
    async with app_client(workdir=tiny_tmpfs) as client:
        for name in files:
            ok_text(await call(client, "view", path=name, view_range=[1, 1]))
        result = await call(client, "apply_patch", patch=PATCH)
    paths = [tiny_tmpfs / name for name in ("gone.txt", "old.txt", "sub/new.txt", "small.txt")]
    assert error_text(result) == (
        f"[IO_ERROR] could not write {tiny_tmpfs / 'big.txt'}: No space left on device; the "
        f"files already changed were restored ({', '.join(map(str, paths))}), so nothing "
        "was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted([*files, "link.txt"])  # nothing left over
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content
    # Files set aside come back as themselves; the one written in place is itself.
    for name in ("gone.txt", "old.txt", "big.txt"):
        assert (tiny_tmpfs / name).stat().st_ino == inodes[name]
