"""Edits keep the file they edit, and never lose what another writer wrote meanwhile.

The rules (README, "Writing files"): an edit replaces the file by renaming a new copy over
it only where that keeps the file's identity (one link, an owner and group the server can
give the copy); otherwise it writes in place, after a backup copy that is removed once the
write is synced. Just before replacing, the file must be as it was read (inode, size,
mtime); if not, the edit is redone once on the new content, and if the file changed again
nothing is written and the result is ``[IO_ERROR] /p changed while being edited; view it
again``. This holds for str_replace, create_file over an existing file, the compat
editor's str_replace, insert and create, and apply_patch (whose whole patch is redone).
A server that may not give files away (no CAP_CHOWN) is checked in
tests/e2e/test_edit_identity.py.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.calls import call
from tests.support.files import NOBODY, require_root
from tests.support.inprocess import app_client
from tests.support.interpose import Unavailable, on_open

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def compat(root: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--anthropic-compat", workdir=root) as connected:
        yield connected


# --- hard links ------------------------------------------------------------------------


async def test_hard_link_shares_the_edit(client: Client[Any], case: Path) -> None:
    path, other = case / "a.txt", case / "b.txt"
    path.write_text("one\ntwo\n")
    os.link(path, other)
    inode = path.stat().st_ino
    ok_text(await call(client, "view", path=str(path)))
    assert ok_text(await call(client, "str_replace", path=str(path), old_str="two", new_str="2"))
    assert other.read_text() == "one\n2\n"
    ok_text(await call(client, "view", path=str(other)))
    assert ok_text(await call(client, "create_file", path=str(other), content="new\n")) == (
        f"Created {other} (4 bytes)"
    )
    assert path.read_text() == "new\n"
    assert path.stat().st_ino == inode == other.stat().st_ino
    assert path.stat().st_nlink == 2
    assert sorted(os.listdir(case)) == ["a.txt", "b.txt"]  # the backup is gone


async def test_hard_link_shares_the_editors_edits(compat: Client[Any], case: Path) -> None:
    path, other = case / "a.txt", case / "b.txt"
    path.write_text("one\ntwo\n")
    os.link(path, other)
    inode = path.stat().st_ino
    ok_text(await call(compat, "str_replace_editor", command="view", path=str(path)))
    ok_text(
        await call(
            compat, "str_replace_editor", command="str_replace", path=str(path), old_str="two"
        )
    )
    assert other.read_text() == "one\n\n"
    ok_text(
        await call(
            compat,
            "str_replace_editor",
            command="insert",
            path=str(path),
            insert_line=0,
            new_str="zero",
        )
    )
    assert other.read_text() == "zero\none\n\n"
    ok_text(
        await call(compat, "str_replace_editor", command="create", path=str(path), file_text="c")
    )
    assert other.read_text() == "c"
    assert path.stat().st_ino == inode == other.stat().st_ino
    assert sorted(os.listdir(case)) == ["a.txt", "b.txt"]


# --- owner and group -------------------------------------------------------------------


async def test_owner_and_group_kept(client: Client[Any], case: Path) -> None:
    require_root()
    path = case / "f.txt"
    path.write_text("one\n")
    os.chown(path, NOBODY, NOBODY)
    ok_text(await call(client, "view", path=str(path)))
    ok_text(await call(client, "str_replace", path=str(path), old_str="one", new_str="1"))
    assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)
    ok_text(await call(client, "create_file", path=str(path), content="two\n"))
    assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)
    assert path.read_text() == "two\n"


# --- another writer --------------------------------------------------------------------
# The server opens the temporary copy (or the backup) after reading the file and before
# replacing it. A fanotify permission event holds it inside that open while the test
# appends to the file, which is exactly the writer the rule is about.


@contextmanager
def appending(path: Path, *chunks: bytes) -> Iterator[list[str]]:
    """Append the next chunk to ``path`` each time a file beside it, not it, is opened.

    Yields the names opened in the directory meanwhile.
    """
    pending = list(chunks)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # opened before the watch starts

    def react(name: str) -> None:
        if name != path.name and pending:
            os.write(fd, pending.pop(0))

    try:
        with on_open(path.parent, react) as opened:
            yield opened
    except Unavailable as exc:
        pytest.skip(f"fanotify permission events unavailable: {exc}")
    finally:
        os.close(fd)


def _file(case: Path, linked: bool, content: str) -> Path:
    path = case / "f.txt"
    path.write_text(content)
    if linked:
        os.link(path, case / "other-name.txt")
    return path


@pytest.mark.parametrize("linked", [False, True], ids=["renamed", "in-place"])
async def test_bytes_appended_during_an_edit_are_kept(
    client: Client[Any], case: Path, linked: bool
) -> None:
    path = _file(case, linked, "one\ntwo\n")
    ok_text(await call(client, "view", path=str(path)))
    with appending(path, b"three\n"):
        result = await call(client, "str_replace", path=str(path), old_str="two", new_str="2")
    assert ok_text(result) == f"Replaced in {path}\n\n1\tone\n2\t2\n3\tthree\n"
    assert path.read_text() == "one\n2\nthree\n"
    assert len(os.listdir(case)) == 1 + linked


@pytest.mark.parametrize("linked", [False, True], ids=["renamed", "in-place"])
async def test_file_changing_again_is_not_written(
    client: Client[Any], case: Path, linked: bool
) -> None:
    path = _file(case, linked, "one\ntwo\n")
    ok_text(await call(client, "view", path=str(path)))
    with appending(path, b"three\n", b"four\n"):
        result = await call(client, "str_replace", path=str(path), old_str="two", new_str="2")
    assert error_text(result) == f"[IO_ERROR] {path} changed while being edited; view it again"
    assert path.read_text() == "one\ntwo\nthree\nfour\n"
    assert len(os.listdir(case)) == 1 + linked  # no temporary file or backup left


async def test_editor_insert_redone_on_the_new_content(compat: Client[Any], case: Path) -> None:
    path = _file(case, False, "one\n")
    ok_text(await call(compat, "str_replace_editor", command="view", path=str(path)))
    with appending(path, b"two\n"):
        result = await call(
            compat,
            "str_replace_editor",
            command="insert",
            path=str(path),
            insert_line=0,
            new_str="zero",
        )
    assert ok_text(result) == f"Inserted in {path}\n\n1\tzero\n2\tone\n3\ttwo\n"
    assert path.read_text() == "zero\none\ntwo\n"


@pytest.mark.parametrize("linked", [False, True], ids=["renamed", "in-place"])
async def test_overwrite_of_a_file_changing_again_is_not_written(
    client: Client[Any], case: Path, linked: bool
) -> None:
    path = _file(case, linked, "one\n")
    ok_text(await call(client, "view", path=str(path)))
    with appending(path, b"two\n", b"three\n"):
        result = await call(client, "create_file", path=str(path), content="new\n")
    # Tried once more, the overwrite finds the file changed since the session viewed it.
    assert error_text(result).startswith(
        f"[FILE_CHANGED] {path} changed since this session last viewed it (size 4 → "
    )
    assert path.read_text().startswith("one\ntwo\n")
    assert len(os.listdir(case)) == 1 + linked


async def test_create_does_not_clobber_a_file_that_appeared(
    client: Client[Any], case: Path
) -> None:
    # Another process creates the file while the server writes its temporary copy: the
    # copy is not renamed over it; the call is redone and finds an existing file. (The
    # file is renamed in from outside: an open in the watched directory would wait for
    # the watcher itself.)
    path = case / "f.txt"
    staged = case.parent / f"{case.name}-staged.txt"
    staged.write_text("theirs\n")

    def create_it(name: str) -> None:
        if name != path.name and staged.exists():
            staged.rename(path)

    try:
        with on_open(case, create_it):
            result = await call(client, "create_file", path=str(path), content="mine\n")
    except Unavailable as exc:
        pytest.skip(f"fanotify permission events unavailable: {exc}")
    assert error_text(result) == (
        f"[FILE_NOT_VIEWED] file {path} must be viewed before overwriting. Use the view tool first."
    )
    assert path.read_text() == "theirs\n"
    assert os.listdir(case) == ["f.txt"]


# --- apply_patch ------------------------------------------------------------------------
# The patch writes other/a.txt (a directory not watched) before f.txt, whose temporary
# copy is where the other writer strikes.


def _patch(case: Path) -> str:
    (case / "other").mkdir()
    (case / "other/a.txt").write_text("a\n")
    return (
        f"*** Begin Patch\n*** Update File: {case}/other/a.txt\n-a\n+A\n"
        f"*** Update File: {case}/f.txt\n one\n-two\n+2\n*** End Patch"
    )


async def test_a_patch_is_redone_on_what_another_writer_wrote(
    client: Client[Any], case: Path
) -> None:
    """A file changed between the patch's read and its write: what was written is undone,
    and the whole patch is applied again to the new content."""
    path = _file(case, False, "one\ntwo\n")
    patch = _patch(case)
    for name in ("other/a.txt", "f.txt"):
        ok_text(await call(client, "view", path=str(case / name)))
    with appending(path, b"three\n"):
        result = await call(client, "apply_patch", patch=patch)
    assert ok_text(result) == f"M {case}/other/a.txt\nM {path}"
    assert path.read_text() == "one\n2\nthree\n"
    assert (case / "other/a.txt").read_text() == "A\n"
    assert sorted(os.listdir(case)) == ["f.txt", "other"]


async def test_a_patch_whose_file_keeps_changing_is_not_written(
    client: Client[Any], case: Path
) -> None:
    path = _file(case, False, "one\ntwo\n")
    patch = _patch(case)
    for name in ("other/a.txt", "f.txt"):
        ok_text(await call(client, "view", path=str(case / name)))
    with appending(path, b"three\n", b"four\n"):
        result = await call(client, "apply_patch", patch=patch)
    assert error_text(result) == (
        f"[IO_ERROR] {path} changed while the patch was being applied; view it again. "
        "Nothing was changed."
    )
    assert path.read_text() == "one\ntwo\nthree\nfour\n"
    assert (case / "other/a.txt").read_text() == "a\n"
    assert sorted(os.listdir(case)) == ["f.txt", "other"]
    assert os.listdir(case / "other") == ["a.txt"]


async def test_a_patch_keeps_owner_and_group(client: Client[Any], case: Path) -> None:
    require_root()
    path = case / "f.txt"
    path.write_text("one\n")
    os.chown(path, NOBODY, NOBODY)
    ok_text(await call(client, "view", path=str(path)))
    patch = f"*** Begin Patch\n*** Update File: {path}\n-one\n+1\n*** End Patch"
    ok_text(await call(client, "apply_patch", patch=patch))
    assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)
    assert path.read_text() == "1\n"


# --- set-user-ID files ---------------------------------------------------------------------
# A file never gains privileges by passing through Boris: a root server keeps another
# user's set-user-ID file that user's, whichever tool writes or moves it.

SET_ID = 0o6755  # set-user-ID and set-group-ID, executable
NOTEBOOK = '{"cells": [{"cell_type": "code", "execution_count": null, "id": "a", '
NOTEBOOK += '"metadata": {}, "outputs": [], "source": "x = 1"}], "metadata": {}, '
NOTEBOOK += '"nbformat": 4, "nbformat_minor": 5}\n'


def setuid_file(path: Path, content: str = "one\n") -> os.stat_result:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    os.chown(path, NOBODY, NOBODY)
    os.chmod(path, SET_ID)  # after chown, which clears the bits
    return path.stat()


def owner_and_mode(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def patch_text(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


WRITES: dict[str, tuple[str, Callable[[Path], dict[str, Any]]]] = {
    "str_replace": ("str_replace", lambda p: {"path": str(p), "old_str": "one", "new_str": "1"}),
    "multi_edit": (
        "multi_edit",
        lambda p: {"path": str(p), "edits": [{"old_str": "one", "new_str": "1"}]},
    ),
    "create_file": ("create_file", lambda p: {"path": str(p), "content": "two\n"}),
    "apply_patch update": (
        "apply_patch",
        lambda p: {"patch": patch_text(f"*** Update File: {p}", "-one", "+1")},
    ),
}


@pytest.mark.parametrize("tool", sorted(WRITES))
async def test_a_set_id_file_keeps_its_owner_when_written(
    client: Client[Any], case: Path, tool: str
) -> None:
    require_root()
    path = case / "tool"
    setuid_file(path)
    ok_text(await call(client, "view", path=str(path)))
    name, arguments = WRITES[tool]
    ok_text(await call(client, name, **arguments(path)))
    assert owner_and_mode(path) == (NOBODY, NOBODY, SET_ID)
    assert path.read_text() != "one\n"


async def test_a_set_id_notebook_keeps_its_owner_when_edited(
    client: Client[Any], case: Path
) -> None:
    require_root()
    path = case / "tool.ipynb"
    setuid_file(path, NOTEBOOK)
    ok_text(await call(client, "view", path=str(path)))
    ok_text(await call(client, "notebook_edit", path=str(path), cell=1, new_source="x = 2"))
    assert owner_and_mode(path) == (NOBODY, NOBODY, SET_ID)


@pytest.mark.parametrize(
    ("command", "arguments"),
    [
        ("str_replace", {"old_str": "one", "new_str": "1"}),
        ("insert", {"insert_line": 0, "new_str": "zero"}),
        ("create", {"file_text": "two\n"}),
    ],
)
async def test_a_set_id_file_keeps_its_owner_through_the_editor(
    compat: Client[Any], case: Path, command: str, arguments: dict[str, Any]
) -> None:
    require_root()
    path = case / "tool"
    setuid_file(path)
    ok_text(await call(compat, "str_replace_editor", command="view", path=str(path)))
    ok_text(await call(compat, "str_replace_editor", command=command, path=str(path), **arguments))
    assert owner_and_mode(path) == (NOBODY, NOBODY, SET_ID)


async def test_a_set_id_file_moved_without_changes_is_the_same_file(
    client: Client[Any], case: Path
) -> None:
    """A move without hunks is one rename: the very file, its owner, mode and inode."""
    require_root()
    path = case / "tool"
    before = setuid_file(path)
    ok_text(await call(client, "view", path=str(path)))
    text = patch_text(f"*** Update File: {path}", f"*** Move to: {case}/bin/tool")
    assert ok_text(await call(client, "apply_patch", patch=text)) == (
        f"M {path} -> {case / 'bin/tool'}"
    )
    moved = case / "bin/tool"
    assert owner_and_mode(moved) == (NOBODY, NOBODY, SET_ID)
    assert moved.stat().st_ino == before.st_ino
    assert moved.read_text() == "one\n"
    assert not path.exists()
    assert sorted(os.listdir(case)) == ["bin"]


async def test_a_set_id_file_moved_with_changes_keeps_its_owner(
    client: Client[Any], case: Path
) -> None:
    require_root()
    path = case / "tool"
    setuid_file(path)
    ok_text(await call(client, "view", path=str(path)))
    text = patch_text(f"*** Update File: {path}", f"*** Move to: {case}/bin/tool", "-one", "+1")
    ok_text(await call(client, "apply_patch", patch=text))
    moved = case / "bin/tool"
    assert owner_and_mode(moved) == (NOBODY, NOBODY, SET_ID)
    assert moved.read_text() == "1\n"
    assert sorted(os.listdir(case)) == ["bin"]


async def test_a_patch_does_not_add_over_a_set_id_file(client: Client[Any], case: Path) -> None:
    require_root()
    path = case / "tool"
    before = setuid_file(path)
    ok_text(await call(client, "view", path=str(path)))
    text = patch_text(f"*** Add File: {path}", "+#!/bin/sh")
    assert error_text(await call(client, "apply_patch", patch=text)).startswith(
        f"[INVALID_INPUT] {path} already exists (a file)"
    )
    assert path.stat().st_ino == before.st_ino
    assert owner_and_mode(path) == (NOBODY, NOBODY, SET_ID)
