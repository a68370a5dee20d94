"""View-before-edit: what marks a file viewed, what edits it allows, per flag.

That each HTTP session has its own viewed files is tested in
tests/e2e/test_view_before_edit.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.calls import call, not_viewed
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio


async def test_edit_rejected_without_prior_view(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    path.write_text("old\n")
    result = await call(client, "str_replace", path=str(path), old_str="old", new_str="new")
    assert error_text(result) == not_viewed(path)
    assert path.read_text() == "old\n"


async def test_edit_succeeds_after_view(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    path.write_text("old\n")
    ok_text(await call(client, "view", path=str(path)))
    result = await call(client, "str_replace", path=str(path), old_str="old", new_str="new")
    assert ok_text(result) == f"Replaced in {path}\n\n1\tnew\n"


async def test_range_view_marks(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    path.write_text("a\nb\nc\n")
    ok_text(await call(client, "view", path=str(path), view_range=[2, 2]))
    assert not (
        await call(client, "str_replace", path=str(path), old_str="c", new_str="C")
    ).is_error


async def test_overwrite_rejected_without_prior_view(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    path.write_text("keep me\n")
    result = await call(client, "create_file", path=str(path), content="clobber")
    assert error_text(result) == not_viewed(path, "overwriting")
    assert path.read_text() == "keep me\n"


async def test_overwrite_succeeds_after_view(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    path.write_text("old\n")
    ok_text(await call(client, "view", path=str(path)))
    result = await call(client, "create_file", path=str(path), content="new\n")
    assert ok_text(result) == f"Created {path} (4 bytes)"


async def test_new_file_needs_no_view(client: Client[Any], case: Path) -> None:
    result = await call(client, "create_file", path=str(case / "new.txt"), content="x")
    assert ok_text(result) == f"Created {case / 'new.txt'} (1 bytes)"


async def test_created_file_counts_as_viewed(client: Client[Any], case: Path) -> None:
    path = case / "made.txt"
    ok_text(await call(client, "create_file", path=str(path), content="first\n"))
    ok_text(await call(client, "str_replace", path=str(path), old_str="first", new_str="second"))
    ok_text(await call(client, "create_file", path=str(path), content="third\n"))
    assert path.read_text() == "third\n"


async def test_directory_listing_does_not_mark(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text("x\n")
    ok_text(await call(client, "view", path=str(case)))
    result = await call(client, "str_replace", path=str(case / "f.txt"), old_str="x", new_str="y")
    assert error_text(result) == not_viewed(case / "f.txt")


async def test_failed_view_does_not_mark(client: Client[Any], case: Path) -> None:
    path = case / "f.txt"
    # A view of the path before it exists fails and marks nothing.
    assert (await call(client, "view", path=str(path))).is_error
    path.write_text("x\n")
    # So does a view with a range beyond the file.
    assert (await call(client, "view", path=str(path), view_range=[5, 6])).is_error
    result = await call(client, "str_replace", path=str(path), old_str="x", new_str="y")
    assert error_text(result) == not_viewed(path)


async def test_marks_are_by_resolved_path(client: Client[Any], case: Path) -> None:
    (case / "real.txt").write_text("x\n")
    (case / "alias.txt").symlink_to("real.txt")
    ok_text(await call(client, "view", path=str(case / "alias.txt")))
    # Viewing through the link lets the real path (and a relative spelling) be edited.
    result = await call(
        client, "str_replace", path=f"{case.name}/./real.txt", old_str="x", new_str="y"
    )
    assert ok_text(result) == f"Replaced in {case / 'real.txt'}\n\n1\ty\n"


async def test_order_not_found_before_not_viewed(client: Client[Any], case: Path) -> None:
    result = await call(client, "str_replace", path=str(case / "no.txt"), old_str="x")
    assert error_text(result) == f"[PATH_NOT_FOUND] {case / 'no.txt'} does not exist"


async def test_order_not_viewed_before_size(root: Path) -> None:
    work = root / "order_size"
    work.mkdir()
    (work / "big.txt").write_text("x" * 2048)
    async with app_client("--max-file-size", "1KB", workdir=work) as client:
        result = await call(client, "str_replace", path="big.txt", old_str="x", new_str="y")
        assert error_text(result) == not_viewed(work / "big.txt")
        result = await call(client, "create_file", path="big.txt", content="y" * 2048)
        assert error_text(result) == not_viewed(work / "big.txt", "overwriting")


async def test_concurrent_views_and_edits(client: Client[Any], case: Path) -> None:
    # Many files viewed and edited at once through one session: no mark is lost.
    paths = [case / f"f{n}.txt" for n in range(20)]
    for path in paths:
        path.write_text("before\n")
    results: dict[Path, str] = {}

    async def view_then_edit(path: Path) -> None:
        ok_text(await call(client, "view", path=str(path)))
        result = await call(
            client, "str_replace", path=str(path), old_str="before", new_str="after"
        )
        results[path] = ok_text(result)

    async with anyio.create_task_group() as group:
        for path in paths:
            group.start_soon(view_then_edit, path)
    assert all(p.read_text() == "after\n" for p in paths)
    assert len(results) == len(paths)


@pytest.mark.parametrize(
    ("flags", "env", "enforced"),
    [
        (["--require-view-before-edit", "false"], {}, False),
        (["--require-view-before-edit=false"], {}, False),
        (["--require-view-before-edit", "true"], {}, True),
        (["--require-view-before-edit", "auto"], {}, True),
        ([], {"BORIS_REQUIRE_VIEW_BEFORE_EDIT": "false"}, False),
        (["--require-view-before-edit", "true"], {"BORIS_REQUIRE_VIEW_BEFORE_EDIT": "false"}, True),
    ],
)
async def test_setting(case: Path, flags: list[str], env: dict[str, str], enforced: bool) -> None:
    work = case
    (work / "f.txt").write_text("x\n")
    (work / "g.txt").write_text("old\n")
    async with app_client(*flags, workdir=work, env=env) as client:
        edit = await call(client, "str_replace", path="f.txt", old_str="x", new_str="y")
        overwrite = await call(client, "create_file", path="g.txt", content="new\n")
    if enforced:
        assert error_text(edit) == not_viewed(work / "f.txt")
        assert error_text(overwrite) == not_viewed(work / "g.txt", "overwriting")
    else:
        assert ok_text(edit) == f"Replaced in {work / 'f.txt'}\n\n1\ty\n"
        assert ok_text(overwrite) == f"Created {work / 'g.txt'} (4 bytes)"


async def test_compat_editor_view_marks(root: Path) -> None:
    work = root / "compat"
    work.mkdir()
    (work / "f.txt").write_text("x\n")
    (work / "g.txt").write_text("g\n")
    async with app_client("--anthropic-compat", workdir=work) as client:
        # Unviewed: every editing command is refused with the split tools' texts.
        edit = await call(
            client, "str_replace_editor", command="str_replace", path="f.txt", old_str="x"
        )
        assert error_text(edit) == not_viewed(work / "f.txt")
        insert = await call(
            client, "str_replace_editor", command="insert", path="f.txt", insert_line=0, new_str="a"
        )
        assert error_text(insert) == not_viewed(work / "f.txt")
        create = await call(
            client, "str_replace_editor", command="create", path="g.txt", file_text="new"
        )
        assert error_text(create) == not_viewed(work / "g.txt", "overwriting")
        ok_text(await call(client, "str_replace_editor", command="view", path="f.txt"))
        edit = await call(
            client, "str_replace_editor", command="str_replace", path="f.txt", old_str="x"
        )
        assert ok_text(edit) == f"Replaced in {work / 'f.txt'}\n\n1\t\n"
