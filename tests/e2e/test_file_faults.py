"""Failed writes leave the original intact and report IO_ERROR: faults of the server
process itself.

Ways to make a write fail for real: a file-size limit on the server process (works
anywhere, as any user), and read-only files and directories (as root, the server runs
without CAP_DAC_OVERRIDE so that permissions hold for it). A full filesystem is tested in
process: tests/files/test_file_faults.py.
"""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

import pytest

from tests.support import BORIS, error_text, ok_text, stdio_client
from tests.support.calls import call
from tests.support.files import CAP_DAC_OVERRIDE, boris_without, child_pid, original_text
from tests.support.interpose import Unavailable, on_open

pytestmark = pytest.mark.anyio


def test_boris_command_is_python() -> None:
    # The wrappers below (a file-size limit, dropped capabilities) rely on BORIS being
    # "<python> -m boris".
    assert BORIS[0] == sys.executable


async def test_write_over_the_file_size_limit(tmp_path: Path) -> None:
    # `ulimit -f 8` caps files the server writes at a few KB; writes beyond get EFBIG
    # (Python ignores SIGXFSZ). Reading the larger original is unaffected.
    path = tmp_path / "big.txt"
    path.write_text(original_text())
    before = path.read_bytes()
    command = ["/bin/sh", "-c", 'ulimit -f 8 && exec "$0" "$@"', *BORIS]
    async with stdio_client(workdir=tmp_path, command=command) as client:
        ok_text(await call(client, "view", path="big.txt", view_range=[1, 1]))
        result = await call(client, "str_replace", path="big.txt", old_str="line 7\n", new_str="")
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: File too large; the file is unchanged"
        )
        created = await call(client, "create_file", path="new.txt", content=original_text())
        assert error_text(created) == (
            f"[IO_ERROR] could not write {tmp_path / 'new.txt'}: File too large; "
            "no file was created"
        )
        # Small edits still work: the server is fine after the failures.
        small = await call(client, "create_file", path="small.txt", content="ok\n")
        assert ok_text(small) == f"Created {tmp_path / 'small.txt'} (3 bytes)"
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["big.txt", "small.txt"]  # no temp files left


async def test_in_place_write_over_the_file_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 2000)
    os.link(path, tmp_path / "link.txt")
    command = ["/bin/sh", "-c", 'ulimit -f 8 && exec "$0" "$@"', *BORIS]
    async with stdio_client(workdir=tmp_path, command=command) as client:
        ok_text(await call(client, "view", path="f.txt"))
        result = await call(client, "create_file", path="f.txt", content="y" * 10_000)
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: File too large; the file is unchanged"
        )
    assert path.read_bytes() == b"x" * 2000
    assert sorted(os.listdir(tmp_path)) == ["f.txt", "link.txt"]


async def test_in_place_write_failing_midway_keeps_its_backup(tmp_path: Path) -> None:
    # Once the backup of a hard-linked file is synced, the server's file size limit is
    # cut below the new content (at the moment the server opens the directory to sync
    # the backup's name), so the write in place stops partway and undoing it fails the
    # same way. The backup then holds the original, and the result says where it is.
    path = tmp_path / "f.txt"
    original = b"".join(b"line %04d\n" % n for n in range(400))  # 4000 bytes
    path.write_bytes(original)
    os.link(path, tmp_path / "link.txt")
    async with stdio_client(workdir=tmp_path) as client:
        ok_text(await call(client, "view", path="f.txt", view_range=[1, 1]))
        pid = child_pid(str(tmp_path))

        def limit_writes(name: str) -> None:
            if name == tmp_path.name:
                resource.prlimit(pid, resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))

        try:
            with on_open(tmp_path, limit_writes, itself=True):
                result = await call(
                    client, "str_replace", path="f.txt", old_str="line 0007\n", new_str=""
                )
        except Unavailable as exc:
            pytest.skip(f"fanotify permission events unavailable: {exc}")
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
        backups = [name for name in os.listdir(tmp_path) if name.endswith(".bak")]
        assert len(backups) == 1, os.listdir(tmp_path)
        backup = tmp_path / backups[0]
        assert backup.name.startswith(".f.txt.")
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: File too large; "
            f"its old content is kept in {backup}"
        )
        assert backup.read_bytes() == original
        # The server goes on serving.
        ok_text(await call(client, "view", path="f.txt", view_range=[1, 1]))


def obeying_permissions() -> list[str]:
    """A server command that file permissions hold for, even when the tests run as root."""
    return boris_without(CAP_DAC_OVERRIDE) if os.geteuid() == 0 else BORIS


async def test_read_only_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    path = locked / "f.txt"
    path.write_text("keep\n")
    os.link(path, locked / "link.txt")
    single = locked / "single.txt"
    single.write_text("keep\n")
    locked.chmod(0o555)
    try:
        async with stdio_client(workdir=locked, command=obeying_permissions()) as client:
            # Neither a temporary copy (one link) nor a backup (two) can be made.
            for target in (single, path):
                ok_text(await call(client, "view", path=target.name))
                result = await call(
                    client, "str_replace", path=target.name, old_str="keep", new_str="x"
                )
                assert error_text(result) == (
                    f"[IO_ERROR] could not write {target}: Permission denied; the file is unchanged"
                )
            result = await call(client, "create_file", path="new.txt", content="x")
            assert error_text(result) == (
                f"[IO_ERROR] could not write {locked / 'new.txt'}: Permission denied; "
                "no file was created"
            )
    finally:
        locked.chmod(0o755)
    assert path.read_text() == single.read_text() == "keep\n"
    assert sorted(os.listdir(locked)) == ["f.txt", "link.txt", "single.txt"]


@pytest.mark.parametrize("linked", [False, True], ids=["renamed", "in-place"])
async def test_read_only_file_is_not_replaced(tmp_path: Path, linked: bool) -> None:
    # The directory is writable, so a rename would succeed: the file's own mode decides.
    path = tmp_path / "f.txt"
    path.write_text("keep\n")
    path.chmod(0o444)
    if linked:
        os.link(path, tmp_path / "link.txt")
    async with stdio_client(workdir=tmp_path, command=obeying_permissions()) as client:
        ok_text(await call(client, "view", path="f.txt"))
        result = await call(client, "str_replace", path="f.txt", old_str="keep", new_str="x")
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: Permission denied; the file is unchanged"
        )
        result = await call(client, "create_file", path="f.txt", content="x")
        assert error_text(result) == (
            f"[IO_ERROR] could not write {path}: Permission denied; the file is unchanged"
        )
    assert path.read_text() == "keep\n"
    assert len(os.listdir(tmp_path)) == 1 + linked


async def test_apply_patch_checks_every_write_before_the_first(tmp_path: Path) -> None:
    """A patch that would write into a read-only directory, or over a read-only file, is
    refused before its first write: the files it would have changed before are untouched."""
    free = tmp_path / "free"
    free.mkdir()
    first = free / "a.txt"
    first.write_text("a\n")
    readonly = free / "readonly.txt"
    readonly.write_text("r\n")
    readonly.chmod(0o444)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "b.txt").write_text("b\n")
    locked.chmod(0o555)
    before = {p: (p.read_bytes(), p.stat().st_ino) for p in (first, readonly, locked / "b.txt")}
    sections = {
        locked / "b.txt": "*** Update File: locked/b.txt\n-b\n+B",
        locked / "new.txt": "*** Add File: locked/new.txt\n+n",
        locked: "*** Delete File: locked/b.txt",
        readonly: "*** Update File: free/readonly.txt\n-r\n+R",
    }
    try:
        async with stdio_client(workdir=tmp_path, command=obeying_permissions()) as client:
            for path in before:
                ok_text(await call(client, "view", path=str(path)))
            for target, section in sections.items():
                patch = (
                    "*** Begin Patch\n*** Update File: free/a.txt\n-a\n+A\n"
                    f"{section}\n*** End Patch"
                )
                result = await call(client, "apply_patch", patch=patch)
                named = locked / "b.txt" if target == locked else target
                assert error_text(result) == (
                    f"[IO_ERROR] could not write {named}: Permission denied; nothing was changed"
                )
    finally:
        locked.chmod(0o755)
    assert {p: (p.read_bytes(), p.stat().st_ino) for p in before} == before
    assert sorted(os.listdir(free)) == ["a.txt", "readonly.txt"]
    assert os.listdir(locked) == ["b.txt"]
