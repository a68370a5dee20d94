"""Edits keep the file's owner also when the server may not give files away.

A root server started without CAP_CHOWN writes other users' files in place, since a new
copy could not get their owner (README "Writing files"). The rest of the rules are
tested in process: tests/files/test_edit_identity.py.
"""

from __future__ import annotations

import os
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
