"""create_file through a real client: new files, parents, overwrites, modes, limits, scope.

The check with the official SDK client over STDIO is in tests/e2e/test_create_file.py.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio


async def create(client: Client[Any], path: Path | str, content: str) -> Any:
    args = {"path": str(path), "content": content}
    return await client.call_tool("create_file", args, raise_on_error=False)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_create_new_file(client: Client[Any], case: Path) -> None:
    result = await create(client, case / "hello.txt", "hello\n")
    assert ok_text(result) == f"Created {case / 'hello.txt'} (6 bytes)"
    assert (case / "hello.txt").read_bytes() == b"hello\n"
    assert mode_of(case / "hello.txt") == 0o644


async def test_size_counts_utf8_bytes(client: Client[Any], case: Path) -> None:
    result = await create(client, case / "u.txt", "héllo ✓")
    assert ok_text(result) == f"Created {case / 'u.txt'} (10 bytes)"
    assert (case / "u.txt").read_bytes() == "héllo ✓".encode()


async def test_content_written_exactly(client: Client[Any], case: Path) -> None:
    content = "\ufeffwin\r\nlines\r\nno final newline"
    await create(client, case / "exact.txt", content)
    assert (case / "exact.txt").read_bytes() == content.encode()


async def test_empty_content(client: Client[Any], case: Path) -> None:
    assert (
        ok_text(await create(client, case / "e.txt", "")) == f"Created {case / 'e.txt'} (0 bytes)"
    )
    assert (case / "e.txt").read_bytes() == b""


async def test_nested_parents_created_0755(client: Client[Any], case: Path) -> None:
    target = case / "src" / "pkg" / "new" / "file.go"
    result = await create(client, target, "package new\n")
    assert ok_text(result) == f"Created {target} (12 bytes)"
    for directory in (case / "src", case / "src" / "pkg", case / "src" / "pkg" / "new"):
        assert mode_of(directory) == 0o755, directory
    assert mode_of(target) == 0o644


async def test_relative_path(client: Client[Any], root: Path, case: Path) -> None:
    result = await create(client, f"{case.name}/rel.txt", "r")
    assert ok_text(result) == f"Created {case / 'rel.txt'} (1 bytes)"


async def test_overwrite_replaces_everything(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    path.write_text("a much longer original content\n" * 50)
    await client.call_tool("view", {"path": str(path)})
    assert ok_text(await create(client, path, "short")) == f"Created {path} (5 bytes)"
    assert path.read_bytes() == b"short"
    assert os.listdir(case) == ["f.txt"]  # no temporary file left behind


async def test_overwrite_keeps_permission_bits(client: Client[Any], case: Path) -> None:
    path = case / "run.sh"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o750)
    await client.call_tool("view", {"path": str(path)})
    await create(client, path, "#!/bin/sh\necho new\n")
    assert mode_of(path) == 0o750


async def test_overwrite_through_symlink_writes_target(client: Client[Any], case: Path) -> None:
    (case / "real.txt").write_text("old\n")
    (case / "link.txt").symlink_to("real.txt")
    await client.call_tool("view", {"path": str(case / "link.txt")})
    result = await create(client, case / "link.txt", "new\n")
    assert ok_text(result) == f"Created {case / 'real.txt'} (4 bytes)"
    assert (case / "link.txt").is_symlink()
    assert (case / "real.txt").read_text() == "new\n"


async def test_path_is_a_directory(client: Client[Any], case: Path) -> None:
    (case / "d").mkdir()
    assert error_text(await create(client, case / "d", "x")) == (
        f"[INVALID_INPUT] {case / 'd'} is a directory; create_file works on files only"
    )


async def test_parent_is_a_file(client: Client[Any], case: Path) -> None:
    (case / "file").write_text("x")
    target = case / "file" / "child.txt"
    assert error_text(await create(client, target, "x")) == (
        f"[IO_ERROR] could not write {target}: {case / 'file'} exists and is not a directory; "
        "no file was created"
    )


async def test_path_ending_in_slash_names_a_directory(
    client: Client[Any], root: Path, case: Path
) -> None:
    # A path ending in / names a directory whatever is there: no file is made of it.
    (case / "a.txt").write_text("keep\n")
    for given in (f"{case}/newdir/", f"{case}/a.txt/", f"{case}/x/y/", f"{case.name}/rel/"):
        absolute = given if given.startswith("/") else f"{root}/{given}"
        assert error_text(await create(client, given, "x")) == (
            f"[INVALID_INPUT] {absolute} names a directory (it ends in /); "
            "create_file writes files only"
        )
    assert os.listdir(case) == ["a.txt"]
    assert (case / "a.txt").read_text() == "keep\n"


async def test_failed_create_removes_the_directories_it_made(
    client: Client[Any], case: Path
) -> None:
    # The parents are made, then the file cannot be: its name is over the 255-byte limit.
    # The directories made for it go again; the ones that were there stay.
    (case / "kept").mkdir()
    name = "n" * 300
    for target in (case / "a" / "b" / "c" / name, case / "kept" / "b" / name):
        assert error_text(await create(client, target, "x")) == (
            f"[IO_ERROR] could not write {target}: File name too long; no file was created"
        )
    assert os.listdir(case) == ["kept"]
    assert os.listdir(case / "kept") == []


async def test_empty_path(client: Client[Any]) -> None:
    assert error_text(await create(client, "", "x")) == "[INVALID_INPUT] path: must not be empty"


@contextlib.contextmanager
def process_umask(mask: int) -> Iterator[None]:
    """This process's umask (the app's, since it runs here) set to ``mask`` for a while."""
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.parametrize("umask", ["077", "000"])
async def test_modes_whatever_the_umask(root: Path, umask: str) -> None:
    # New files are 0644 and new directories 0755 under any umask.
    work = root / f"umask_{umask}"
    work.mkdir()
    with process_umask(int(umask, 8)):
        async with app_client(workdir=work) as client:
            result = await create(client, "a/b/c.txt", "content\n")
    assert ok_text(result) == f"Created {work / 'a' / 'b' / 'c.txt'} (8 bytes)"
    assert mode_of(work / "a") == 0o755
    assert mode_of(work / "a" / "b") == 0o755
    assert mode_of(work / "a" / "b" / "c.txt") == 0o644


async def test_content_over_limit(root: Path) -> None:
    work = root / "limit"
    work.mkdir()
    async with app_client("--max-file-size", "1KB", workdir=work) as client:
        result = await create(client, "big.txt", "x" * 2048)
        assert error_text(result) == (
            "[FILE_TOO_LARGE] content is 2.0 KB (2048 bytes), "
            "over the 1.0 KB limit set by --max-file-size"
        )
        assert not (work / "big.txt").exists()
        assert ok_text(await create(client, "fits.txt", "y" * 1024)) == (
            f"Created {work / 'fits.txt'} (1024 bytes)"
        )


async def test_scope(root: Path) -> None:
    scoped = root / "scoped"
    (scoped / "in").mkdir(parents=True)
    inside = scoped / "in"
    async with app_client(
        "--allow-dir", str(inside), "--deny-dir", "**/.env", workdir=inside
    ) as client:
        outside = scoped / "out" / "new.txt"
        assert error_text(await create(client, outside, "x")) == (
            f"[ACCESS_DENIED] {outside} is outside the allowed directories ({inside})"
        )
        assert error_text(await create(client, "sub/.env", "x")) == (
            f"[ACCESS_DENIED] {inside / 'sub' / '.env'} is denied by the pattern **/.env"
        )
        # A new file cannot escape through a symlinked parent.
        (inside / "door").symlink_to(scoped)
        result = await create(client, "door/escaped.txt", "x")
        assert error_text(result).startswith(f"[ACCESS_DENIED] {scoped / 'escaped.txt'} ")
    assert not (scoped / "out").exists()
    assert not (inside / "sub").exists()
    assert not (scoped / "escaped.txt").exists()


async def test_a_symlink_loop_is_not_written_through(client: Client[Any], case: Path) -> None:
    """A path that is a symlink loop resolves to itself; create_file refuses it with the
    system's reason and leaves the link as it was."""
    (case / "loop").symlink_to("loop")
    assert error_text(await create(client, case / "loop", "x")) == (
        f"[IO_ERROR] could not stat {case / 'loop'}: Too many levels of symbolic links"
    )
    assert os.readlink(case / "loop") == "loop"
