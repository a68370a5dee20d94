"""Edits that check themselves, through a real client: the syntax errors an edit brings in
are in its reply (--check-syntax warn), or it is refused and nothing is written
(refuse), or nothing is said (off); a write blind to what it replaces refuses a file
changed since the session last saw it (FILE_CHANGED)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.calls import call, view
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio

GOOD = "def area(w, h):\n    return w * h\n"
NOTE = (
    "\n\nSyntax check (Python): this edit brought in 1 syntax error(s):\n"
    "  2:12  unexpected (w * h:     return (w * h"
)


def notebook(*sources: str) -> str:
    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "execution_count": None, "id": f"c{n}", "metadata": {},
         "outputs": [], "source": source}
        for n, source in enumerate(sources)
    ]  # fmt: skip
    meta = {"language_info": {"name": "python"}}
    return json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5})


async def test_str_replace_lists_the_error_it_brought_in(client: Client[Any], case: Path) -> None:
    path = case / "area.py"
    path.write_text(GOOD)
    await view(client, path)
    result = await call(
        client, "str_replace", path=str(path), old_str="return w", new_str="return (w"
    )
    assert (
        ok_text(result)
        == f"Replaced in {path}\n\n1\tdef area(w, h):\n2\t    return (w * h\n" + NOTE
    )


async def test_a_fix_and_an_edit_of_other_files_say_nothing(
    client: Client[Any], case: Path
) -> None:
    path = case / "area.py"
    path.write_text(GOOD.replace("return w", "return (w"))
    await view(client, path)
    fixed = await call(client, "str_replace", path=str(path), old_str="(w *", new_str="w *")
    assert "Syntax check" not in ok_text(fixed)
    text = case / "notes.txt"
    text.write_text("a (\n")
    await view(client, text)
    assert "Syntax check" not in ok_text(
        await call(client, "str_replace", path=str(text), old_str="a (", new_str="a ((")
    )


async def test_create_multi_edit_and_the_errors_already_there(
    client: Client[Any], case: Path
) -> None:
    path = case / "m.py"
    created = await call(client, "create_file", path=str(path), content="x = 1 2\n" + GOOD)
    assert ok_text(created).endswith(
        "this edit brought in 1 syntax error(s):\n  1:7  unexpected 2: x = 1 2"
    )
    edits = [{"old_str": "return w", "new_str": "return [w"}]
    result = await call(client, "multi_edit", path=str(path), edits=edits)
    assert ok_text(result).endswith(
        "this edit brought in 1 syntax error(s):\n"
        "  3:12  unexpected [w * h:     return [w * h\n"
        "(1 syntax error(s) were already in the file before this edit)"
    )


async def test_apply_patch_names_each_file(client: Client[Any], case: Path) -> None:
    patch = (
        f"*** Begin Patch\n*** Add File: {case}/a.py\n+ok = 1\n"
        f"*** Add File: {case}/b.go\n+package b\n+func f() {{\n+\treturn (1\n+}}\n*** End Patch"
    )
    result = ok_text(await call(client, "apply_patch", patch=patch))
    assert result == (
        f"A {case}/a.py\nA {case}/b.go\n\nSyntax check (Go): this edit brought in 1 syntax "
        f"error(s) in {case}/b.go:\n  3:11  missing ): \treturn (1"
    )


async def test_notebook_edit_checks_the_code_cell(client: Client[Any], case: Path) -> None:
    path = case / "n.ipynb"
    path.write_text(notebook("%matplotlib inline\nx = 1\n"))
    await view(client, path)
    result = await call(
        client, "notebook_edit", path=str(path), cell=1, new_source="%time\nx = (1\n"
    )
    assert ok_text(result).endswith(
        "Syntax check (Python): this edit brought in 1 syntax error(s):\n"
        "  2:5  unexpected (1: x = (1"
    )


async def test_the_compat_editor_checks_its_edits(case: Path) -> None:
    path = case / "e.py"
    path.write_text(GOOD)
    async with app_client("--anthropic-compat", workdir=case) as client:
        await call(client, "str_replace_editor", command="view", path=str(path))
        result = await call(
            client, "str_replace_editor", command="str_replace", path=str(path),
            old_str="return w", new_str="return (w",
        )  # fmt: skip
        assert ok_text(result).endswith(NOTE)
        inserted = await call(
            client, "str_replace_editor", command="insert", path=str(path), insert_line=0,
            new_str="if x\n",
        )  # fmt: skip
        assert "Syntax check (Python): this edit brought in" in ok_text(inserted)


async def test_refuse_leaves_every_byte(case: Path) -> None:
    py, nb, other = case / "r.py", case / "r.ipynb", case / "s.py"
    py.write_bytes(GOOD.encode())
    nb.write_text(notebook("x = 1\n"))
    other.write_bytes(b"ok = 1\n")
    before = {p: p.read_bytes() for p in (py, nb, other)}
    async with app_client("--check-syntax", "refuse", workdir=case) as client:
        for p in (py, nb, other):
            await view(client, p)
        refusal = (
            f"[SYNTAX_ERROR] {py}: the edit would bring in 1 syntax error(s):\n"
            "  2:12  unexpected (w * h:     return (w * h"
        )
        calls: list[tuple[str, dict[str, Any]]] = [
            ("str_replace", {"path": str(py), "old_str": "return w", "new_str": "return (w"}),
            ("multi_edit", {"path": str(py), "edits": [{"old_str": "w *", "new_str": "(w *"}]}),
            ("create_file", {"path": str(py), "content": GOOD.replace("return w", "return (w")}),
            ("create_file", {"path": str(case / "new.py"), "content": "def f(:\n"}),
            ("notebook_edit", {"path": str(nb), "cell": 1, "new_source": "x = (\n"}),
            (
                "apply_patch",
                {"patch": f"*** Begin Patch\n*** Update File: {other}\n@@\n-ok = 1\n+ok = 2\n"
                 f"*** Update File: {py}\n@@\n-    return w * h\n+    return (w * h\n"
                 f"*** Delete File: {other}x\n*** End Patch"},
            ),
        ]  # fmt: skip
        (case / "s.pyx").write_text("gone?\n")
        await view(client, case / "s.pyx")
        for tool, args in calls:
            result = await call(client, tool, **args)
            assert error_text(result).startswith("[SYNTAX_ERROR] "), (tool, result)
            if tool in ("str_replace", "multi_edit", "create_file") and args.get("path") == str(py):
                assert error_text(result) == refusal
        assert {p: p.read_bytes() for p in (py, nb, other)} == before
        assert not (case / "new.py").exists()
        assert (case / "s.pyx").exists()
        ok = await call(client, "str_replace", path=str(py), old_str="w * h", new_str="h * w")
        assert "Syntax check" not in ok_text(ok)


async def test_off_says_nothing(case: Path) -> None:
    path = case / "o.py"
    async with app_client("--check-syntax", "off", workdir=case) as client:
        result = await call(client, "create_file", path=str(path), content="def f(:\n")
        assert ok_text(result) == f"Created {path} (8 bytes)"


async def test_a_file_over_two_megabytes_is_not_checked(client: Client[Any], case: Path) -> None:
    path = case / "big.py"
    content = "x = 1\n" * (2 * 1024**2 // 6 + 1) + "y = (\n"
    result = await call(client, "create_file", path=str(path), content=content)
    assert ok_text(result) == f"Created {path} ({len(content)} bytes)"


# --- a fresh look before a content-blind write ----------------------------------------------


def changed_message(path: Path, old_size: int) -> str:
    info = path.stat()
    from datetime import datetime, timezone

    when = datetime.fromtimestamp(info.st_mtime_ns / 1e9, timezone.utc)
    return (
        f"[FILE_CHANGED] {path} changed since this session last viewed it (size {old_size} → "
        f"{info.st_size} bytes, modified {when.isoformat(timespec='milliseconds')}); "
        "view it again before overwriting"
    )


async def test_create_file_over_a_file_changed_behind_the_session(
    client: Client[Any], case: Path
) -> None:
    path = case / "c.txt"
    path.write_text("first\n")
    await view(client, path)
    path.write_text("changed by someone else\n")
    result = await call(client, "create_file", path=str(path), content="mine\n")
    assert error_text(result) == changed_message(path, 6)
    assert path.read_text() == "changed by someone else\n"
    await view(client, path)
    assert ok_text(await call(client, "create_file", path=str(path), content="mine\n"))
    assert path.read_text() == "mine\n"
    # The session's own write is what it saw last.
    assert ok_text(await call(client, "create_file", path=str(path), content="again\n"))


async def test_a_change_by_the_sessions_own_bash_counts(client: Client[Any], case: Path) -> None:
    path = case / "b.txt"
    path.write_text("one\n")
    await view(client, path)
    await call(client, "bash", command=f"echo more >> {path}")
    result = await call(client, "create_file", path=str(path), content="two\n")
    assert error_text(result) == changed_message(path, 4)
    assert path.read_text() == "one\nmore\n"


async def test_delete_and_notebook_edit_need_a_fresh_look(client: Client[Any], case: Path) -> None:
    gone, nb = case / "d.txt", case / "n.ipynb"
    gone.write_text("x\n")
    nb.write_text(notebook("x = 1\n"))
    await view(client, gone)
    await view(client, nb)
    gone.write_text("xy\n")
    other = nb.read_text().replace("x = 1", "x = 22")
    nb.write_text(other)
    deleted = await call(
        client, "apply_patch", patch=f"*** Begin Patch\n*** Delete File: {gone}\n*** End Patch"
    )
    assert error_text(deleted) == changed_message(gone, 2)
    assert gone.exists()
    edited = await call(client, "notebook_edit", path=str(nb), cell=1, new_source="y = 2\n")
    assert error_text(edited).startswith(f"[FILE_CHANGED] {nb} changed since this session")
    assert nb.read_text() == other


async def test_edits_that_match_their_text_go_ahead(client: Client[Any], case: Path) -> None:
    path = case / "s.txt"
    path.write_text("alpha\n")
    await view(client, path)
    path.write_text("alpha beta\n")
    assert ok_text(
        await call(client, "str_replace", path=str(path), old_str="beta", new_str="gamma")
    )
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-alpha gamma\n+delta\n*** End Patch"
    os.utime(path, ns=(1, 1))
    assert ok_text(await call(client, "apply_patch", patch=patch)) == f"M {path}"


async def test_no_view_rule_no_fresh_look(case: Path) -> None:
    path = case / "f.txt"
    path.write_text("one\n")
    async with app_client("--require-view-before-edit", "false", workdir=case) as client:
        await view(client, path)
        path.write_text("changed\n")
        assert ok_text(await call(client, "create_file", path=str(path), content="mine\n"))


async def test_a_new_file_in_new_directories_is_seen_too(client: Client[Any], case: Path) -> None:
    path = case / "new" / "dirs" / "f.txt"
    assert ok_text(await call(client, "create_file", path=str(path), content="one\n"))
    path.write_text("changed behind\n")
    result = await call(client, "create_file", path=str(path), content="two\n")
    assert error_text(result) == changed_message(path, 4)


async def test_a_file_that_breaks_the_parser_is_written_and_its_check_skipped(
    client: Client[Any], case: Path
) -> None:
    """C++ nested templates, whose syntax tree takes far more memory than a worker may
    give a file of that size: the worker that parses it dies, the write stands, and
    the reply says the check was skipped."""
    path = case / "deep.cpp"
    source = "A<" * 300_000 + "int" + ">" * 300_000 + " x;\n"
    result = await call(client, "create_file", path=str(path), content=source)
    assert ok_text(result).endswith(
        "\n\nSyntax check (C++): skipped, the parser failed on this file"
    )
    assert path.read_text() == source
    # The next edit of another file is checked as before.
    small = case / "small.c"
    again = await call(client, "create_file", path=str(small), content="int x = (1;\n")
    assert "Syntax check (C): this edit brought in 1 syntax error(s):" in ok_text(again)
