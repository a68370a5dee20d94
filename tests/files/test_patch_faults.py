"""apply_patch when a write fails after others succeeded: the files already changed are
restored (deleted files put back, moved files moved back, written files given their old
content or removed), and the error says so. A tiny tmpfs (as in
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


async def test_a_failed_write_restores_every_file_already_changed(tiny_tmpfs: Path) -> None:
    # 40 KB of a 64 KB filesystem is the big file: the small steps fit, the big file's
    # new copy does not.
    files = {
        "gone.txt": b"deleted\n",
        "old.txt": b"moved\n",
        "small.txt": b"updated\n",
        "big.txt": original_text().encode(),
    }
    for name, content in files.items():
        (tiny_tmpfs / name).write_bytes(content)
    inodes = {name: (tiny_tmpfs / name).stat().st_ino for name in files}
    patch = "\n".join(
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
            "+line seven",
            "*** End Patch",
        ]
    )
    async with app_client(workdir=tiny_tmpfs) as client:
        for name in files:
            ok_text(await call(client, "view", path=name, view_range=[1, 1]))
        result = await call(client, "apply_patch", patch=patch)
    paths = [tiny_tmpfs / name for name in ("gone.txt", "old.txt", "sub/new.txt", "small.txt")]
    assert error_text(result) == (
        f"[IO_ERROR] could not write {tiny_tmpfs / 'big.txt'}: No space left on device; the "
        f"files already changed were restored ({', '.join(map(str, paths))}), so nothing "
        "was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted(files)  # no sub/, nothing set aside
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content
    # Files set aside come back as themselves; the rewritten one gets its old content.
    for name in ("gone.txt", "old.txt", "big.txt"):
        assert (tiny_tmpfs / name).stat().st_ino == inodes[name]
