"""apply_patch when a write fails. While the new contents are being made ready nothing
has changed yet, and nothing does. Once the changes take effect, a failure restores the
files already changed (deleted files put back, moved files moved back, written files
given their old content or removed), and the error says so. A tiny tmpfs (as in
tests/files/test_file_faults.py) has no room for the last file's new content; an
immutable file (chattr +i) cannot be renamed, even by root."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tests.support import error_text, ok_text
from tests.support.calls import call
from tests.support.files import immutable_files, original_text, set_immutable, tiny_tmpfs
from tests.support.inprocess import app_client
from tests.support.interpose import Unavailable, on_open

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


def big_failed_restoring(root: Path, *restored: str) -> str:
    """The error of a patch whose write of big.txt ran out of room, the files already
    changed (``restored``, in the patch's order) restored."""
    paths = ", ".join(str(root / name) for name in restored)
    return (
        f"[IO_ERROR] could not write {root / 'big.txt'}: No space left on device; the "
        f"files already changed were restored ({paths}), so nothing was changed"
    )


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
    assert error_text(result) == big_failed_restoring(
        tiny_tmpfs, "gone.txt", "old.txt", "sub/new.txt", "small.txt"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted([*files, "link.txt"])  # nothing left over
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content
    # Files set aside come back as themselves; the one written in place is itself.
    for name in ("gone.txt", "old.txt", "big.txt"):
        assert (tiny_tmpfs / name).stat().st_ino == inodes[name]


async def test_a_file_moved_unchanged_is_moved_back(tiny_tmpfs: Path) -> None:
    """A move without hunks is a rename; when a later file fails, it is renamed back and
    the directories made for it go."""
    big = "".join(f"original line {n}\n" for n in range(1000)).encode()  # 18 KB
    files = small_files(tiny_tmpfs, big)
    files["still.txt"] = b"still\n"
    (tiny_tmpfs / "still.txt").write_bytes(files["still.txt"])
    os.link(tiny_tmpfs / "big.txt", tiny_tmpfs / "link.txt")
    inode = (tiny_tmpfs / "still.txt").stat().st_ino
    text = PATCH.replace(
        "*** Update File: big.txt",
        "*** Update File: still.txt\n*** Move to: deep/er/still.txt\n*** Update File: big.txt",
    )
    async with app_client(workdir=tiny_tmpfs) as client:
        for name in files:
            ok_text(await call(client, "view", path=name, view_range=[1, 1]))
        result = await call(client, "apply_patch", patch=text)
    assert error_text(result) == big_failed_restoring(
        tiny_tmpfs, "gone.txt", "old.txt", "sub/new.txt", "small.txt", "still.txt"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted([*files, "link.txt"])  # no deep/
    assert (tiny_tmpfs / "still.txt").read_bytes() == b"still\n"
    assert (tiny_tmpfs / "still.txt").stat().st_ino == inode


RESTORE = "\n".join(
    [
        "*** Begin Patch",
        "*** Delete File: gone.txt",
        "*** Update File: small.txt",
        "-updated",
        "+UPDATED",
        "*** Update File: other.txt",
        "-other",
        "+OTHER",
        "*** Update File: big.txt",
        "-original line 7",
        "+line seven" + "!" * 14_000,
        "*** End Patch",
    ]
)


GONE = "[Errno 2] it is gone: '{path}'"
CHANGED = "another process changed or removed it meanwhile"


@pytest.mark.parametrize(
    ("when", "removed", "unrestored", "restored"),
    [
        # While other.txt is restored (last written, first restored): small.txt is gone
        # before its own restore begins.
        (".other.txt.", ["small.txt"], {"small.txt": GONE}, ["gone.txt", "other.txt"]),
        # While small.txt's old content is being made ready: it is not the file the
        # patch wrote any more, and is left alone.
        (".small.txt.", ["small.txt"], {"small.txt": CHANGED}, ["gone.txt", "other.txt"]),
        # Both, and nothing else was changed (gone.txt is not deleted): none restored.
        (
            ".other.txt.",
            ["small.txt", "other.txt"],
            {"small.txt": GONE, "other.txt": CHANGED},
            [],
        ),
    ],
    ids=["gone", "changed", "none"],
)
async def test_a_file_that_cannot_be_restored_is_named(
    tiny_tmpfs: Path,
    when: str,
    removed: list[str],
    unrestored: dict[str, str],
    restored: list[str],
) -> None:
    """A file the patch changed, removed by another process before the patch's failure
    is undone, cannot be put back: the error names it, with why, and the files that
    were put back."""
    big = "".join(f"original line {n}\n" for n in range(1000)).encode()  # 18 KB
    files = small_files(tiny_tmpfs, big)
    files["other.txt"] = b"other\n"
    (tiny_tmpfs / "other.txt").write_bytes(files["other.txt"])
    os.link(tiny_tmpfs / "big.txt", tiny_tmpfs / "link.txt")
    small = tiny_tmpfs / "small.txt"
    inode = small.stat().st_ino

    def remove_once_written(name: str) -> None:
        # Restoring a file writes its old content to a new copy beside it: the open
        # named ``when`` after small.txt was replaced is one of the restores.
        if name.startswith(when) and small.exists() and small.stat().st_ino != inode:
            for each in removed:
                (tiny_tmpfs / each).unlink()

    text = RESTORE if "gone.txt" in restored else RESTORE.replace("*** Delete File: gone.txt\n", "")
    async with app_client(workdir=tiny_tmpfs) as client:
        for name in files:
            ok_text(await call(client, "view", path=name, view_range=[1, 1]))
        try:
            with on_open(tiny_tmpfs, remove_once_written):
                result = await call(client, "apply_patch", patch=text)
        except Unavailable as exc:
            pytest.skip(str(exc))
    named = ", ".join(
        f"{tiny_tmpfs / name} ({why.format(path=tiny_tmpfs / name)})"
        for name, why in unrestored.items()
    )
    also = f" (restored: {', '.join(str(tiny_tmpfs / name) for name in restored)})"
    assert error_text(result) == (
        f"[IO_ERROR] could not write {tiny_tmpfs / 'big.txt'}: No space left on device; the "
        f"files already changed could not all be restored: {named} keep the patch's "
        f"changes{also if restored else ''}"
    )
    for name in removed:
        assert not (tiny_tmpfs / name).exists()
    for name in {"other.txt", "big.txt", "gone.txt"} - set(removed):
        assert (tiny_tmpfs / name).read_bytes() == files[name]


async def test_a_file_added_before_a_failed_write_is_removed(tiny_tmpfs: Path) -> None:
    """An added file is undone by removing it (and the directories made for it), not by
    giving it an old content it never had."""
    big = "".join(f"original line {n}\n" for n in range(1000)).encode()  # 18 KB
    files = small_files(tiny_tmpfs, big)
    os.link(tiny_tmpfs / "big.txt", tiny_tmpfs / "link.txt")
    text = PATCH.replace(
        "*** Update File: big.txt", "*** Add File: new/added.txt\n+added\n*** Update File: big.txt"
    )
    async with app_client(workdir=tiny_tmpfs) as client:
        for name in files:
            ok_text(await call(client, "view", path=name, view_range=[1, 1]))
        result = await call(client, "apply_patch", patch=text)
    assert error_text(result) == big_failed_restoring(
        tiny_tmpfs, "gone.txt", "old.txt", "sub/new.txt", "small.txt", "new/added.txt"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted([*files, "link.txt"])  # no new/
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content


HELD = ["*** Update File: small.txt", "-updated", "+UPDATED", "*** End Patch"]


@pytest.mark.parametrize(
    ("lines", "verb", "named"),
    [
        # A file to delete is first renamed to a hidden name beside it.
        (["*** Delete File: held.txt"], "remove", "held.txt"),
        # A file moved without changes is renamed, itself.
        (["*** Update File: held.txt", "*** Move to: sub/held.txt"], "move", "sub/held.txt"),
    ],
    ids=["delete", "move"],
)
async def test_a_file_that_cannot_be_renamed_changes_nothing(
    tiny_tmpfs: Path, lines: list[str], verb: str, named: str
) -> None:
    files = {"held.txt": b"held\n", "small.txt": b"updated\n"}
    for name, content in files.items():
        (tiny_tmpfs / name).write_bytes(content)
    text = "\n".join(["*** Begin Patch", *lines, *HELD])
    with immutable_files(tiny_tmpfs):
        set_immutable(tiny_tmpfs / "held.txt", True)
        async with app_client(workdir=tiny_tmpfs) as client:
            for name in files:
                ok_text(await call(client, "view", path=name))
            result = await call(client, "apply_patch", patch=text)
    assert error_text(result) == (
        f"[IO_ERROR] could not {verb} {tiny_tmpfs / named}: Operation not permitted; "
        "nothing was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted(files)  # no sub/, no copies left
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content


async def test_a_new_file_that_cannot_be_put_in_place_changes_nothing(tiny_tmpfs: Path) -> None:
    """The copy made ready for an added file cannot be renamed to its name (it was made
    immutable meanwhile): the error names the file, and nothing was changed."""
    sub = tiny_tmpfs / "sub"
    sub.mkdir()
    (tiny_tmpfs / "small.txt").write_bytes(b"updated\n")
    directory = os.open(sub, os.O_RDONLY | os.O_DIRECTORY)

    def hold_the_copy(name: str) -> None:
        # The added file's copy is ready when the next file's copy is opened.
        if name.startswith(".small.txt."):
            for entry in os.listdir(directory):
                set_immutable(entry, True, dir_fd=directory)

    text = "\n".join(["*** Begin Patch", "*** Add File: sub/added.txt", "+added", *HELD])
    try:
        with immutable_files(tiny_tmpfs):
            async with app_client(workdir=tiny_tmpfs) as client:
                ok_text(await call(client, "view", path="small.txt"))
                try:
                    with on_open(tiny_tmpfs, hold_the_copy):
                        result = await call(client, "apply_patch", patch=text)
                except Unavailable as exc:
                    pytest.skip(str(exc))
    finally:
        os.close(directory)
    assert error_text(result) == (
        f"[IO_ERROR] could not write {sub / 'added.txt'}: Operation not permitted; "
        "nothing was changed"
    )
    assert not (sub / "added.txt").exists()
    assert (tiny_tmpfs / "small.txt").read_bytes() == b"updated\n"


async def test_a_file_set_aside_that_cannot_be_removed_is_logged(
    tiny_tmpfs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A deleted file is set aside under a hidden name, removed once every change took
    effect. One that cannot be removed then (made immutable meanwhile) stays under its
    hidden name, and the log says where; the patch itself was applied."""
    sub = tiny_tmpfs / "sub"
    sub.mkdir()
    (sub / "gone.txt").write_bytes(b"deleted\n")
    small = tiny_tmpfs / "small.txt"
    small.write_bytes(b"updated\n")
    directory = os.open(sub, os.O_RDONLY | os.O_DIRECTORY)
    held: list[str] = []

    def hold_the_hidden_file(name: str) -> None:
        # Opens in tiny_tmpfs, itself included: the directory is synced after small.txt
        # took effect, after sub/gone.txt was set aside.
        for entry in os.listdir(directory):
            if entry.startswith(".gone.txt.") and entry not in held:
                set_immutable(entry, True, dir_fd=directory)
                held.append(entry)

    text = "\n".join(["*** Begin Patch", "*** Delete File: sub/gone.txt", *HELD])
    try:
        with immutable_files(tiny_tmpfs):
            async with app_client(workdir=tiny_tmpfs) as client:
                for name in ("sub/gone.txt", "small.txt"):
                    ok_text(await call(client, "view", path=name))
                try:
                    with on_open(tiny_tmpfs, hold_the_hidden_file, itself=True):
                        result = await call(client, "apply_patch", patch=text)
                except Unavailable as exc:
                    pytest.skip(str(exc))
            assert ok_text(result) == f"D {sub / 'gone.txt'}\nM {small}"
            assert len(held) == 1
            assert os.listdir(sub) == held
            assert (sub / held[0]).read_bytes() == b"deleted\n"
    finally:
        os.close(directory)
    assert small.read_bytes() == b"UPDATED\n"
    assert [
        record.getMessage()
        for record in caplog.records
        if record.name == "boris.files" and record.levelno == logging.WARNING
    ] == [
        f"could not remove {sub / 'gone.txt'}, set aside as {held[0]}: [Errno 1] Operation "
        f"not permitted: '{held[0]}'"
    ]


async def test_a_file_changed_before_it_is_removed_is_kept(tiny_tmpfs: Path) -> None:
    """A file to delete that another process changes after the patch read it, before it
    is set aside, is not removed: nothing is changed, and the whole patch, tried once
    more, finds the file changed since the session viewed it (a deletion does not look
    at the content: FILE_CHANGED)."""
    sub = tiny_tmpfs / "sub"
    sub.mkdir()
    gone = sub / "gone.txt"
    gone.write_bytes(b"deleted\n")
    small = tiny_tmpfs / "small.txt"
    small.write_bytes(b"updated\n")
    writer = os.open(gone, os.O_WRONLY | os.O_APPEND)

    def change_it(name: str) -> None:
        if name.startswith(".small.txt."):  # small.txt's copy: after every file was read
            os.write(writer, b"+")

    text = "\n".join(["*** Begin Patch", "*** Delete File: sub/gone.txt", *HELD])
    try:
        async with app_client(workdir=tiny_tmpfs) as client:
            for name in ("sub/gone.txt", "small.txt"):
                ok_text(await call(client, "view", path=name))
            try:
                with on_open(tiny_tmpfs, change_it):
                    result = await call(client, "apply_patch", patch=text)
            except Unavailable as exc:
                pytest.skip(str(exc))
    finally:
        os.close(writer)
    assert error_text(result).startswith(
        f"[FILE_CHANGED] {gone} changed since this session last viewed it (size 8 → 9 bytes, "
    )
    assert gone.read_bytes() == b"deleted\n+"  # changed on the first try
    assert small.read_bytes() == b"updated\n"
    assert sorted(os.listdir(tiny_tmpfs)) == ["small.txt", "sub"]
    assert os.listdir(sub) == ["gone.txt"]


async def test_no_room_for_an_added_file_changes_nothing(tiny_tmpfs: Path) -> None:
    (tiny_tmpfs / "small.txt").write_bytes(b"updated\n")
    text = "\n".join(["*** Begin Patch", "*** Add File: new/big.txt", *["+" + "x" * 99] * 700])
    text += "\n" + "\n".join(HELD)
    async with app_client(workdir=tiny_tmpfs) as client:
        ok_text(await call(client, "view", path="small.txt"))
        result = await call(client, "apply_patch", patch=text)
    assert error_text(result) == (
        f"[IO_ERROR] could not write {tiny_tmpfs / 'new/big.txt'}: No space left on device; "
        "nothing was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == ["small.txt"]  # no new/, no copies left
    assert (tiny_tmpfs / "small.txt").read_bytes() == b"updated\n"


async def test_a_directory_a_move_cannot_make_changes_nothing(tiny_tmpfs: Path) -> None:
    """The directories a moved file needs are made while the patch is made ready: one
    that cannot be made (its parent was made immutable meanwhile) changes nothing."""
    sub = tiny_tmpfs / "sub"
    sub.mkdir()
    files = {"small.txt": b"updated\n", "still.txt": b"still\n"}
    for name, content in files.items():
        (tiny_tmpfs / name).write_bytes(content)
    directory = os.open(sub, os.O_RDONLY | os.O_DIRECTORY)

    def hold_the_directory(name: str) -> None:
        if name.startswith(".small.txt."):  # small.txt's copy: before the move is made ready
            set_immutable(".", True, dir_fd=directory)

    text = "\n".join(
        [
            "*** Begin Patch",
            *HELD[:-1],
            "*** Update File: still.txt",
            "*** Move to: sub/deep/still.txt",
        ]
    )
    text += "\n*** End Patch"
    try:
        with immutable_files(tiny_tmpfs):
            async with app_client(workdir=tiny_tmpfs) as client:
                for name in files:
                    ok_text(await call(client, "view", path=name))
                try:
                    with on_open(tiny_tmpfs, hold_the_directory):
                        result = await call(client, "apply_patch", patch=text)
                except Unavailable as exc:
                    pytest.skip(str(exc))
                finally:
                    set_immutable(".", False, dir_fd=directory)
    finally:
        os.close(directory)
    assert error_text(result) == (
        f"[IO_ERROR] could not write {sub / 'deep/still.txt'}: Operation not permitted; "
        "nothing was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == sorted([*files, "sub"])  # no copies left
    assert os.listdir(sub) == []
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content


@pytest.mark.parametrize(
    ("held", "lines", "refused"),
    [
        # The file itself: it is written (or replaced) in place.
        ("small.txt", HELD[:-1], "small.txt"),
        # Its directory: a file is removed from it, or made in it.
        ("sub", ["*** Delete File: sub/gone.txt"], "sub/gone.txt"),
        ("sub", ["*** Add File: sub/new.txt", "+new"], "sub/new.txt"),
    ],
    ids=["file", "delete", "add"],
)
async def test_a_file_or_directory_that_cannot_be_written_is_refused_first(
    tiny_tmpfs: Path, held: str, lines: list[str], refused: str
) -> None:
    """Before anything is written, a file the patch writes, or the directory a file is
    removed from or made in, must be writable (here: immutable, which root cannot
    write either)."""
    sub = tiny_tmpfs / "sub"
    sub.mkdir()
    files = {"small.txt": b"updated\n", "sub/gone.txt": b"deleted\n"}
    for name, content in files.items():
        (tiny_tmpfs / name).write_bytes(content)
    text = "\n".join(["*** Begin Patch", *lines, "*** End Patch"])
    with immutable_files(tiny_tmpfs):
        async with app_client(workdir=tiny_tmpfs) as client:
            for name in files:
                ok_text(await call(client, "view", path=name))
            set_immutable(tiny_tmpfs / held, True)
            try:
                result = await call(client, "apply_patch", patch=text)
            finally:
                set_immutable(tiny_tmpfs / held, False)
    assert error_text(result) == (
        f"[IO_ERROR] could not write {tiny_tmpfs / refused}: Permission denied; nothing was changed"
    )
    assert sorted(os.listdir(tiny_tmpfs)) == ["small.txt", "sub"]
    assert os.listdir(sub) == ["gone.txt"]
    for name, content in files.items():
        assert (tiny_tmpfs / name).read_bytes() == content
