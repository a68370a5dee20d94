"""str_replace through real clients: matching, snippets, errors, and byte-exact writes."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import (
    error_text,
    http_client,
    http_server,
    ok_text,
    sdk_stdio_client,
    stdio_client,
    text_of,
)

pytestmark = pytest.mark.anyio

LINES_20 = "".join(f"line {n}\n" for n in range(1, 21))


async def viewed(client: Client[Any], path: Path, content: bytes | str) -> Path:
    """Write ``content`` to ``path`` and view it, so it may be edited."""
    _write(path, content)
    assert not (await client.call_tool("view", {"path": str(path)}, raise_on_error=False)).is_error
    return path


def _write(path: Path, content: bytes | str) -> None:
    path.write_bytes(content.encode() if isinstance(content, str) else content)


async def replace(client: Client[Any], path: Path | str, old: str, **more: Any) -> Any:
    args = {"path": str(path), "old_str": old, **more}
    return await client.call_tool("str_replace", args, raise_on_error=False)


def window(first: int, last: int, lines: dict[int, str] | None = None) -> str:
    """Expected view-format lines ``first``..``last`` of LINES_20, with overrides."""
    width = len(str(last))
    return "".join(
        f"{n:>{width}}\t{(lines or {}).get(n, f'line {n}')}\n" for n in range(first, last + 1)
    )


# --- success and its snippet -----------------------------------------------------------


async def test_unique_replacement_shows_four_lines_of_context(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", LINES_20)
    result = await replace(client, path, "line 10", new_str="LINE TEN")
    assert ok_text(result) == f"Replaced in {path}\n\n" + window(6, 14, {10: "LINE TEN"})
    assert path.read_text() == LINES_20.replace("line 10", "LINE TEN")


async def test_multiline_new_str_is_shown_whole(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", LINES_20)
    result = await replace(client, path, "line 10", new_str="a\nb\nc")
    expected_lines = [f"line {n}" for n in range(6, 10)] + ["a", "b", "c"]
    expected_lines += [f"line {n}" for n in range(11, 15)]
    expected = "".join(f"{n:>2}\t{text}\n" for n, text in enumerate(expected_lines, 6))
    assert ok_text(result) == f"Replaced in {path}\n\n{expected}"


async def test_snippet_clamped_at_file_start(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", LINES_20)
    result = await replace(client, path, "line 2\n", new_str="second\n")
    assert ok_text(result) == f"Replaced in {path}\n\n" + window(1, 6, {2: "second"})


async def test_snippet_clamped_at_file_end_without_empty_line(
    client: Client[Any], case: Path
) -> None:
    # The final newline does not add an empty line 21.
    path = await viewed(client, case / "f.txt", LINES_20)
    result = await replace(client, path, "line 19", new_str="nineteen")
    assert ok_text(result) == f"Replaced in {path}\n\n" + window(15, 20, {19: "nineteen"})


async def test_deletion_with_new_str_omitted(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", LINES_20)
    result = await replace(client, path, "line 10\n")
    assert path.read_text() == LINES_20.replace("line 10\n", "")
    shown = {n: f"line {n + 1}" for n in range(10, 15)}
    assert ok_text(result) == f"Replaced in {path}\n\n" + window(6, 14, shown)


async def test_deletion_inside_a_line(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "keep this, drop this\n")
    result = await replace(client, path, ", drop this", new_str="")
    assert ok_text(result) == f"Replaced in {path}\n\n1\tkeep this\n"


async def test_replace_all_reports_count(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "foo bar\n" * 15)
    result = await replace(client, path, "foo", new_str="baz", replace_all=True)
    assert ok_text(result) == f"Replaced 15 occurrences in {path}"
    assert path.read_text() == "baz bar\n" * 15


async def test_replace_all_with_one_occurrence(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "only one\n")
    result = await replace(client, path, "one", new_str="two", replace_all=True)
    assert ok_text(result) == f"Replaced 1 occurrences in {path}"


async def test_relative_path_and_symlink(client: Client[Any], root: Path, case: Path) -> None:
    target = await viewed(client, case / "real.txt", "alpha\n")
    (case / "link.txt").symlink_to("real.txt")
    result = await replace(client, f"{case.name}/link.txt", "alpha", new_str="beta")
    # The link's target is edited (and named), the link stays a link.
    assert ok_text(result) == f"Replaced in {target}\n\n1\tbeta\n"
    assert (case / "link.txt").is_symlink()
    assert target.read_text() == "beta\n"


async def test_concurrent_edits_of_one_file_all_land(client: Client[Any], case: Path) -> None:
    # Edits of the same file are serialised: none overwrites another's result.
    tokens = [f"<t{n}>" for n in range(16)]
    path = await viewed(client, case / "f.txt", "".join(f"{t}\n" for t in tokens))

    async def edit(token: str) -> None:
        ok_text(await replace(client, path, token, new_str=token.upper()))

    async with anyio.create_task_group() as group:
        for token in tokens:
            group.start_soon(edit, token)
    assert path.read_text() == "".join(f"{t.upper()}\n" for t in tokens)


# --- errors ----------------------------------------------------------------------------


async def test_not_found(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "hello\n")
    result = await replace(client, path, "goodbye", new_str="x")
    assert error_text(result) == (
        f"[STR_REPLACE_NOT_FOUND] old_str was not found in {path}. It must match the file "
        "exactly, whitespace and line breaks included."
    )
    assert path.read_text() == "hello\n"


async def test_not_found_with_replace_all(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "hello\n")
    result = await replace(client, path, "goodbye", new_str="x", replace_all=True)
    assert error_text(result).startswith("[STR_REPLACE_NOT_FOUND] old_str was not found in ")


async def test_near_miss_names_line_with_tabs_visible(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.py", "def f():\n\treturn 1\n")
    result = await replace(client, path, "    return 1", new_str="    return 2")
    assert error_text(result) == (
        f"[STR_REPLACE_NOT_FOUND] old_str was not found in {path}. It must match the file "
        "exactly, whitespace and line breaks included.\n"
        "Line 2 resembles the first line of old_str (both shown as JSON strings):\n"
        '  line 2: "\\treturn 1"\n'
        '  old_str: "    return 1"'
    )


async def test_near_miss_shows_trailing_spaces(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "intro\nx = compute(1)  \ny = 2\n")
    result = await replace(client, path, "x = compute(1)\ny = 2", new_str="z")
    assert error_text(result).endswith(
        "Line 2 resembles the first line of old_str (both shown as JSON strings):\n"
        '  line 2: "x = compute(1)  "\n'
        '  old_str: "x = compute(1)"'
    )


async def test_near_miss_with_a_few_characters_different(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "first\nresult = calculate_total(items)\n")
    result = await replace(client, path, "result = calculate_totals(item)", new_str="z")
    assert error_text(result).endswith(
        '  line 2: "result = calculate_total(items)"\n  old_str: "result = calculate_totals(item)"'
    )


async def test_near_miss_where_later_line_differs(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "a\nb\nc\nd\n")
    result = await replace(client, path, "b\nc\nX", new_str="z")
    assert error_text(result).endswith(
        "Lines 2-3 match the first 2 lines of old_str, but line 4 differs "
        "(both shown as JSON strings):\n"
        '  line 4: "d"\n'
        '  old_str: "X"'
    )


async def test_no_hint_when_nothing_resembles(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "completely\ndifferent\n")
    result = await replace(client, path, "nothing like it at all", new_str="z")
    assert "\n" not in error_text(result)


async def test_ambiguous_gives_count_and_lines(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "x\ny\nx\nz\nx\n")
    result = await replace(client, path, "x", new_str="w")
    assert error_text(result) == (
        f"[STR_REPLACE_AMBIGUOUS] old_str occurs 3 times in {path} (lines 1, 3, 5); "
        "add surrounding lines to make it unique, or set replace_all to replace every occurrence"
    )
    assert path.read_text() == "x\ny\nx\nz\nx\n"


async def test_overlapping_occurrences_are_ambiguous(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "aaa\n")
    result = await replace(client, path, "aa", new_str="b")
    assert error_text(result) == (
        f"[STR_REPLACE_AMBIGUOUS] old_str occurs 2 times in {path} (line 1); "
        "add surrounding lines to make it unique, or set replace_all to replace every occurrence"
    )


async def test_empty_old_str(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "x\n")
    assert error_text(await replace(client, path, "", new_str="y")) == (
        "[INVALID_INPUT] old_str: must not be empty; give the exact text to replace "
        "(to write a whole file, use create_file)"
    )


async def test_empty_old_str_checked_before_path(client: Client[Any], case: Path) -> None:
    result = await replace(client, case / "missing.txt", "", new_str="y")
    assert error_text(result).startswith("[INVALID_INPUT] old_str: must not be empty")


async def test_missing_old_str_argument(client: Client[Any], case: Path) -> None:
    result = await client.call_tool(
        "str_replace", {"path": str(case / "f.txt")}, raise_on_error=False
    )
    # The wording is the core middleware's (its capital letter changed over time).
    assert error_text(result).lower() == "[invalid_input] old_str: missing required argument"


async def test_missing_file(client: Client[Any], case: Path) -> None:
    result = await replace(client, case / "nope.txt", "a", new_str="b")
    assert error_text(result) == f"[PATH_NOT_FOUND] {case / 'nope.txt'} does not exist"


async def test_directory(client: Client[Any], case: Path) -> None:
    assert error_text(await replace(client, case, "a", new_str="b")) == (
        f"[INVALID_INPUT] {case} is a directory; str_replace works on files only"
    )


async def test_file_with_trailing_slash_is_not_a_directory(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "a\n")
    assert error_text(await replace(client, f"{path}/", "a", new_str="b")) == (
        f"[INVALID_INPUT] {path}/ is not a directory"
    )
    assert path.read_text() == "a\n"


# --- what the write keeps ----------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640])
async def test_permissions_kept(client: Client[Any], case: Path, mode: int) -> None:
    path = await viewed(client, case / "tool.sh", "#!/bin/sh\necho hi\n")
    path.chmod(mode)
    assert not (await replace(client, path, "hi", new_str="there")).is_error
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert os.listdir(case) == ["tool.sh"]  # no temporary file left behind


async def test_invalid_utf8_bom_and_missing_final_newline_kept(
    client: Client[Any], case: Path
) -> None:
    before = b"\xef\xbb\xbfhead \xff\xfe\n caf\xe9 mid \xc3\x28\nlast \x80"
    path = await viewed(client, case / "f.txt", before)
    result = await replace(client, path, "mid", new_str="MIDDLE")
    assert path.read_bytes() == before.replace(b"mid", b"MIDDLE")
    assert ok_text(result) == (
        f"Replaced in {path}\n\n"
        "1\thead \ufffd\ufffd\n2\t caf\ufffd MIDDLE \ufffd(\n3\tlast \ufffd\n"
    )


async def test_crlf_file_edited_with_lf_strings(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "win.txt", b"one\r\ntwo\r\nthree\r\n")
    result = await replace(client, path, "one\ntwo", new_str="1\n2\n2.5")
    assert path.read_bytes() == b"1\r\n2\r\n2.5\r\nthree\r\n"
    assert ok_text(result) == f"Replaced in {path}\n\n1\t1\n2\t2\n3\t2.5\n4\tthree\n"


async def test_crlf_file_new_lines_get_crlf(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "win.txt", b"alpha\r\nbeta\r\n")
    await replace(client, path, "alpha", new_str="a\nb")
    assert path.read_bytes() == b"a\r\nb\r\nbeta\r\n"


async def test_crlf_strings_are_taken_literally(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "win.txt", b"one\r\ntwo\r\n")
    await replace(client, path, "one\r\ntwo", new_str="x\ny")
    assert path.read_bytes() == b"x\ny\r\n"


async def test_lf_file_untouched_by_crlf_rule(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "unix.txt", b"one\ntwo\n")
    await replace(client, path, "one\ntwo", new_str="1\n2")
    assert path.read_bytes() == b"1\n2\n"


async def test_mixed_line_endings_hint(client: Client[Any], case: Path) -> None:
    # Mixed files get no CRLF convenience; the hint says why the text did not match.
    path = await viewed(client, case / "mixed.txt", b"a\r\nb\nc\r\n")
    result = await replace(client, path, "a\nb", new_str="z")
    assert error_text(result).endswith(
        "Lines 1-2 match old_str apart from line endings: the file mixes LF and CRLF there; "
        "copy the line endings exactly."
    )


# --- limits, scope, other clients -----------------------------------------------------------


@pytest.fixture(scope="module")
async def small_limit(root: Path) -> AsyncIterator[Client[Any]]:
    async with stdio_client("--max-file-size", "1KB", workdir=root) as client:
        yield client


async def test_file_over_limit(small_limit: Client[Any], case: Path) -> None:
    # Viewed while small, then grown past the limit on disk.
    path = await viewed(small_limit, case / "f.txt", "small\n")
    path.write_text("x" * 1500)
    assert error_text(await replace(small_limit, path, "x" * 10, new_str="y")) == (
        f"[FILE_TOO_LARGE] {path} is 1.5 KB (1500 bytes), "
        "over the 1.0 KB limit set by --max-file-size"
    )
    assert path.read_text() == "x" * 1500


async def test_result_over_limit(small_limit: Client[Any], case: Path) -> None:
    path = await viewed(small_limit, case / "f.txt", "a" * 900)
    result = await replace(small_limit, path, "a", new_str="bb", replace_all=True)
    assert error_text(result) == (
        "[FILE_TOO_LARGE] the edited file would be 1.8 KB (1800 bytes), "
        "over the 1.0 KB limit set by --max-file-size"
    )
    assert path.read_text() == "a" * 900


async def test_scope(root: Path) -> None:
    scoped = root / "scoped"
    (scoped / "in").mkdir(parents=True)
    (scoped / "out").mkdir()
    (scoped / "out" / "f.txt").write_text("x\n")
    (scoped / "in" / "secret.pem").write_text("x\n")
    inside = scoped / "in"
    async with stdio_client(
        "--allow-dir", str(inside), "--deny-dir", "*.pem", workdir=inside
    ) as client:
        result = await replace(client, scoped / "out" / "f.txt", "x", new_str="y")
        assert error_text(result) == (
            f"[ACCESS_DENIED] {scoped / 'out' / 'f.txt'} is outside the allowed "
            f"directories ({inside})"
        )
        result = await replace(client, "secret.pem", "x", new_str="y")
        assert error_text(result) == (
            f"[ACCESS_DENIED] {inside / 'secret.pem'} is denied by the pattern *.pem"
        )
    assert (scoped / "out" / "f.txt").read_text() == "x\n"


async def test_through_the_official_sdk_client(root: Path, case: Path) -> None:
    path = case / "f.txt"
    path.write_text("one\ntwo\n")
    async with sdk_stdio_client(workdir=root) as sdk:
        await sdk.call_tool("view", {"path": str(path)})
        result = await sdk.call_tool(
            "str_replace", {"path": str(path), "old_str": "two", "new_str": "2"}
        )
    assert result.is_error is False
    assert text_of(result) == f"Replaced in {path}\n\n1\tone\n2\t2\n"


async def test_over_http(root: Path, case: Path) -> None:
    path = case / "f.txt"
    path.write_text("one\ntwo\n")
    with http_server(workdir=root) as server:
        async with http_client(server.url) as client:
            await client.call_tool("view", {"path": str(path)})
            result = await replace(client, path, "one", new_str="1")
    assert ok_text(result) == f"Replaced in {path}\n\n1\t1\n2\ttwo\n"
