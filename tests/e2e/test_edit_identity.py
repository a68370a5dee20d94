"""Edits keep the file's owner also when the server may not give files away.

A root server started without CAP_CHOWN writes other users' files in place, since a new
copy could not get their owner, and a moved file's new copy loses its set-id bits
(README "Writing files"). The rest of the rules are
tested in process: tests/files/test_edit_identity.py.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support import ok_text, stdio_client
from tests.support.calls import call
from tests.support.files import CAP_CHOWN, NOBODY, boris_without, require_root

pytestmark = pytest.mark.anyio


async def test_server_that_cannot_chown_keeps_the_owner(case: Path) -> None:
    # The server may write other users' files but cannot give a new file their owner.
    require_root()
    path = case / "f.txt"
    path.write_text("one\n")
    os.chown(path, NOBODY, NOBODY)
    async with stdio_client(workdir=case, command=boris_without(CAP_CHOWN)) as client:
        ok_text(await call(client, "view", path=str(path)))
        ok_text(await call(client, "str_replace", path=str(path), old_str="one", new_str="1"))
        assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)
        ok_text(await call(client, "create_file", path=str(path), content="two\n"))
        assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)
        ok_text(await call(client, "create_file", path="mine.txt", content="m\n"))
    assert path.read_text() == "two\n"
    assert (case / "mine.txt").stat().st_uid == 0  # its own new files are its own
    assert sorted(os.listdir(case)) == ["f.txt", "mine.txt"]


async def test_a_set_id_file_moved_by_a_server_that_cannot_chown(case: Path) -> None:
    """A moved file's new copy that cannot get the old one's owner loses its set-user-ID
    and set-group-ID bits: it must not pass the other user's privileges to the server's
    user. Moved without changes, it is the same file, renamed."""
    require_root()
    for name in ("same", "changed"):
        path = case / name
        path.write_text("one\n")
        os.chown(path, NOBODY, NOBODY)
        os.chmod(path, 0o6755)
    inode = (case / "same").stat().st_ino
    patch = "\n".join(
        [
            "*** Begin Patch",
            "*** Update File: same",
            "*** Move to: bin/same",
            "*** Update File: changed",
            "*** Move to: bin/changed",
            "-one",
            "+1",
            "*** End Patch",
        ]
    )
    async with stdio_client(workdir=case, command=boris_without(CAP_CHOWN)) as client:
        ok_text(await call(client, "view", path="same"))
        ok_text(await call(client, "view", path="changed"))
        ok_text(await call(client, "apply_patch", patch=patch))
    same, changed = (case / "bin/same").stat(), (case / "bin/changed").stat()
    assert (same.st_uid, same.st_gid, stat.S_IMODE(same.st_mode)) == (NOBODY, NOBODY, 0o6755)
    assert same.st_ino == inode
    assert (changed.st_uid, stat.S_IMODE(changed.st_mode)) == (0, 0o755)
    assert (case / "bin/changed").read_text() == "1\n"
    assert sorted(os.listdir(case)) == ["bin"]
