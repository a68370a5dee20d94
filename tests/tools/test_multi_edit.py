"""multi_edit through a real client (README "multi_edit"): several replacements in one file,
in order, written at once or not at all, with str_replace's rules and byte guarantees."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio

LINES_40 = "".join(f"line {n}\n" for n in range(1, 41))


async def viewed(client: Client[Any], path: Path, content: bytes | str) -> Path:
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    assert not (await client.call_tool("view", {"path": str(path)}, raise_on_error=False)).is_error
    return path


async def multi_edit(client: Client[Any], path: Path | str, *edits: dict[str, Any]) -> Any:
    args = {"path": str(path), "edits": list(edits)}
    return await client.call_tool("multi_edit", args, raise_on_error=False)


def window(first: int, last: int, lines: dict[int, str] | None = None) -> str:
    """View-format lines ``first``..``last`` of LINES_40 (as numbered in the result), with
    overrides."""
    width = len(str(last))
    return "".join(
        f"{n:>{width}}\t{(lines or {}).get(n, f'line {n}')}\n" for n in range(first, last + 1)
    )


def unchanged(path: Path, before: os.stat_result, content: bytes) -> None:
    after = path.stat()
    assert path.read_bytes() == content
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


async def test_edits_apply_in_order_with_a_snippet_per_region(
    client: Client[Any], case: Path
) -> None:
    """Each edit sees the result of the ones before; far-apart regions get a snippet each
    (four lines of context, as str_replace), separated by a blank line."""
    path = await viewed(client, case / "f.txt", LINES_40)
    result = await multi_edit(
        client,
        path,
        {"old_str": "line 5\n", "new_str": "five\n"},
        {"old_str": "five", "new_str": "FIVE"},  # matches what the first edit wrote
        {"old_str": "line 30\n", "new_str": ""},
    )
    assert ok_text(result) == (
        f"Applied 3 edits to {path}\n\n"
        + window(1, 9, {5: "FIVE"})
        + "\n"
        + "".join(f"{n}\tline {n + (n >= 30)}\n" for n in range(26, 35))
    )
    expected = LINES_40.replace("line 5\n", "FIVE\n").replace("line 30\n", "")
    assert path.read_text() == expected


async def test_regions_whose_snippets_touch_merge(client: Client[Any], case: Path) -> None:
    """Regions whose context windows overlap or meet show as one snippet."""
    path = await viewed(client, case / "f.txt", LINES_40)
    # Lines 10 and 19: windows 6-14 and 15-23 meet; line 28's window 24-32 meets that too.
    result = await multi_edit(
        client,
        path,
        {"old_str": "line 19\n", "new_str": "nineteen\n"},
        {"old_str": "line 10\n", "new_str": "ten\n"},
        {"old_str": "line 28\n", "new_str": "twenty-eight\n"},
    )
    lines = {10: "ten", 19: "nineteen", 28: "twenty-eight"}
    assert ok_text(result) == f"Applied 3 edits to {path}\n\n" + window(6, 32, lines)
    # Lines 10 and 20: windows 6-14 and 16-24 leave line 15 between them.
    path = await viewed(client, case / "g.txt", LINES_40)
    result = await multi_edit(
        client,
        path,
        {"old_str": "line 10\n", "new_str": "ten\n"},
        {"old_str": "line 20\n", "new_str": "twenty\n"},
    )
    assert ok_text(result) == (
        f"Applied 2 edits to {path}\n\n"
        + window(6, 14, {10: "ten"})
        + "\n"
        + window(16, 24, {20: "twenty"})
    )


async def test_replace_all_counts_every_place(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "a x\n" + LINES_40 + "x b\n")
    result = await multi_edit(client, path, {"old_str": "x", "new_str": "y", "replace_all": True})
    body = "".join(f"line {n}\n" for n in range(1, 41))
    assert path.read_text() == "a y\n" + body + "y b\n"
    first = "".join(
        f"{n}\t{t}\n" for n, t in enumerate(["a y", "line 1", "line 2", "line 3", "line 4"], 1)
    )
    last = "".join(f"{n}\tline {n - 1}\n" for n in range(38, 42)) + "42\ty b\n"
    assert ok_text(result) == f"Applied 1 edits to {path}\n\n{first}\n{last}"


async def test_a_failing_edit_writes_nothing_and_says_which(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", LINES_40)
    before = path.stat()
    result = await multi_edit(
        client,
        path,
        {"old_str": "line 1\n", "new_str": "one\n"},
        {"old_str": "line 2\n", "new_str": "two\n"},
        {"old_str": "line  3"},
        {"old_str": "line 4\n", "new_str": "four\n"},
        {"old_str": "line 5\n", "new_str": "five\n"},
    )
    assert error_text(result) == (
        f"[STR_REPLACE_NOT_FOUND] edit 3 of 5: old_str was not found in {path}. It must match "
        "the file exactly, whitespace and line breaks included.\n"
        "Line 3 resembles the first line of old_str (both shown as JSON strings):\n"
        '  line 3: "line 3"\n'
        '  old_str: "line  3"'
    )
    unchanged(path, before, LINES_40.encode())


async def test_ambiguity_is_judged_on_the_edited_text(client: Client[Any], case: Path) -> None:
    """An edit that makes a later old_str occur twice fails that later edit."""
    path = await viewed(client, case / "f.txt", LINES_40)
    before = path.stat()
    result = await multi_edit(
        client,
        path,
        {"old_str": "line 2\n", "new_str": "line 1\n"},
        {"old_str": "line 1\n", "new_str": "first\n"},
    )
    assert error_text(result) == (
        f"[STR_REPLACE_AMBIGUOUS] edit 2 of 2: old_str occurs 2 times in {path} (lines 1, 2); "
        "add surrounding lines to make it unique, or set replace_all to replace every occurrence"
    )
    unchanged(path, before, LINES_40.encode())


async def test_argument_errors_name_the_edit(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", LINES_40)
    before = path.stat()
    cases: list[tuple[list[Any], str]] = [
        (
            [{"old_str": "line 1\n", "new_str": "x\n"}, {"old_str": ""}],
            "[INVALID_INPUT] edit 2 of 2: old_str: must not be empty; give the exact text to "
            "replace (to write a whole file, use create_file)",
        ),
        (
            [{"old_str": "line 1", "new_str": "line 1"}],
            "[INVALID_INPUT] edit 1 of 1: old_str and new_str are identical: nothing to replace",
        ),
        ([], "[INVALID_INPUT] edits: List should have at least 1 item after validation, not 0"),
        (
            [{"old_str": "line 1", "new_str": "x"}] * 101,
            "[INVALID_INPUT] edits: List should have at most 100 items after validation, not 101",
        ),
        ([{"new_str": "x"}], "[INVALID_INPUT] edits.0.old_str: missing required argument"),
        (
            [{"old_str": "line 1", "replace_all": "yes"}],
            "[INVALID_INPUT] edits.0.replace_all: Input should be a valid boolean",
        ),
        ([None], "[INVALID_INPUT] edits.0: Input should be an object"),
        (["line 1"], "[INVALID_INPUT] edits.0: Input should be an object"),
        (
            [{"old_str": "line 1", "new": "x"}],
            "[INVALID_INPUT] edits.0.new: Extra inputs are not permitted",
        ),
    ]
    for edits, expected in cases:
        arguments = {"path": str(path), "edits": edits}
        result = await client.call_tool("multi_edit", arguments, raise_on_error=False)
        assert error_text(result) == expected
    text = error_text(
        await client.call_tool("multi_edit", {"path": str(path)}, raise_on_error=False)
    )
    assert text == "[INVALID_INPUT] edits: missing required argument"
    unchanged(path, before, LINES_40.encode())


async def test_the_first_failing_edit_in_order_is_reported(client: Client[Any], case: Path) -> None:
    """Edits are judged in order, arguments included: a not-found edit 1 is reported before
    an empty old_str in edit 2."""
    path = await viewed(client, case / "f.txt", LINES_40)
    result = await multi_edit(client, path, {"old_str": "nowhere", "new_str": "x"}, {"old_str": ""})
    assert error_text(result).startswith("[STR_REPLACE_NOT_FOUND] edit 1 of 2: old_str was not ")


async def test_bytes_line_endings_and_mode_are_kept(client: Client[Any], case: Path) -> None:
    """A BOM, CRLF (LF strings mean CRLF there), invalid bytes elsewhere, no final newline,
    the mode and hard links survive, as with str_replace."""
    content = b"\xef\xbb\xbfone\r\ntwo \xff\r\nthree\r\nfour"
    path = await viewed(client, case / "f.txt", content)
    path.chmod(0o751)
    link = case / "link.txt"
    os.link(path, link)
    result = await multi_edit(
        client,
        path,
        {"old_str": "one\ntwo", "new_str": "1\n2"},
        {"old_str": "four", "new_str": "4\n5"},
    )
    assert (
        ok_text(result) == f"Applied 2 edits to {path}\n\n1\t1\n2\t2 \ufffd\n3\tthree\n4\t4\n5\t5\n"
    )
    expected = b"\xef\xbb\xbf1\r\n2 \xff\r\nthree\r\n4\r\n5"
    assert path.read_bytes() == expected
    assert link.read_bytes() == expected
    assert path.stat().st_mode & 0o777 == 0o751


async def test_growth_is_bounded_before_it_happens(case: Path) -> None:
    """Every intermediate content is held to --max-file-size before it is built: a chain of
    replace_all edits cannot grow a file without bound."""
    path = case / "f.txt"
    path.write_text("x\n")
    async with app_client("--max-file-size", "1KB", workdir=case) as client:
        await viewed(client, path, "x\n")
        result = await multi_edit(
            client,
            path,
            {"old_str": "x", "new_str": "y" * 100},
            *[{"old_str": "y", "new_str": "y" * 100, "replace_all": True}] * 99,
        )
    assert error_text(result) == (
        "[FILE_TOO_LARGE] edit 2 of 100: the edited file would be 9.8 KB (10001 bytes), over "
        "the 1.0 KB limit set by --max-file-size"
    )
    assert path.read_bytes() == b"x\n"


async def test_view_before_edit_and_missing_files(case: Path) -> None:
    path = case / "f.txt"
    path.write_text(LINES_40)
    async with app_client(workdir=case) as client:
        result = await multi_edit(client, path, {"old_str": "line 1\n", "new_str": "x\n"})
        assert error_text(result) == (
            f"[FILE_NOT_VIEWED] file {path} must be viewed before editing. Use the view tool first."
        )
        result = await multi_edit(client, case / "nope", {"old_str": "a", "new_str": "b"})
        assert error_text(result) == f"[PATH_NOT_FOUND] {case / 'nope'} does not exist"
    assert path.read_text() == LINES_40


async def test_disabled_alone(case: Path) -> None:
    async with app_client("--disable-tools", "multi_edit", workdir=case) as client:
        result = await multi_edit(client, case / "f.txt", {"old_str": "a", "new_str": "b"})
        assert error_text(result).startswith("[INVALID_INPUT] unknown tool 'multi_edit'; ")


async def test_many_regions_far_apart_in_a_large_file(client: Client[Any], case: Path) -> None:
    """999 places changed by one edit across a 10 MB file: each snippet shown has the line
    numbers of its place, up to the output cap, and the rest are counted."""
    every, total = 200, 200_000
    lines = [
        f"{n:08d} " + ("MARK" if n % every == 0 and n < total else "") for n in range(1, total + 1)
    ]
    content = "".join(line.ljust(49, "x") + "\n" for line in lines)
    path = await viewed(client, case / "big.txt", content)
    result = ok_text(
        await multi_edit(client, path, {"old_str": "MARK", "new_str": "DONE", "replace_all": True})
    )
    head, *snippets, rest = result.split("\n\n")
    assert head == f"Applied 1 edits to {path}"
    assert 10 <= len(snippets) < 999
    for number, snippet in enumerate(snippets, 1):
        marked = number * every
        width = len(str(marked + 4))
        expected = "".join(
            f"{n:>{width}}\t{lines[n - 1].replace('MARK', 'DONE').ljust(49, 'x')}\n"
            for n in range(marked - 4, marked + 5)
        )
        assert snippet + "\n" == expected, number
    assert (
        rest
        == f"[{999 - len(snippets)} more edited regions not shown: view the file to see them]\n"
    )
    assert path.read_text() == content.replace("MARK", "DONE")


async def test_a_single_replacement_over_the_limit(case: Path) -> None:
    """A replacement without replace_all is held to --max-file-size too, and named."""
    path = case / "f.txt"
    async with app_client("--max-file-size", "1KB", workdir=case) as client:
        await viewed(client, path, "x\n")
        result = await multi_edit(
            client,
            path,
            {"old_str": "\n", "new_str": "\n\n"},
            {"old_str": "x", "new_str": "y" * 2000},
        )
    assert error_text(result) == (
        "[FILE_TOO_LARGE] edit 2 of 2: the edited file would be 2.0 KB (2002 bytes), over "
        "the 1.0 KB limit set by --max-file-size"
    )
    assert path.read_bytes() == b"x\n"


@pytest.mark.parametrize("places", [1000, 1001])
async def test_a_thousand_places_are_shown_and_more_are_not(
    client: Client[Any], case: Path, places: int
) -> None:
    """Up to 1,000 changed places the result shows them (here in one snippet, as they are
    lines apart); past that it only says so."""
    path = await viewed(client, case / "f.txt", "x\n" * places)
    result = ok_text(
        await multi_edit(client, path, {"old_str": "x", "new_str": "y", "replace_all": True})
    )
    head = f"Applied 1 edits to {path}\n\n"
    if places > 1000:
        assert result == head + "(more than 1000 places changed: view the file to see them)"
    else:
        assert result.startswith(head + "   1\ty\n   2\ty\n"), result[:200]
        assert result.endswith(" 999\ty\n1000\ty\n"), result[-200:]
    assert path.read_bytes() == b"y\n" * places
