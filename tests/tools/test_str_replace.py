"""str_replace through a real client: matching, snippets, errors, and byte-exact writes.

What needs a real server process (other clients and transports, the server's memory, lone
surrogates on the wire) is in tests/e2e/test_str_replace.py.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.calls import replace
from tests.support.inprocess import app_client
from tests.support.pids import costing_at_most, server_pid

pytestmark = pytest.mark.anyio

LINES_20 = "".join(f"line {n}\n" for n in range(1, 21))


async def viewed(client: Client[Any], path: Path, content: bytes | str) -> Path:
    """Write ``content`` to ``path`` and view it, so it may be edited."""
    _write(path, content)
    assert not (await client.call_tool("view", {"path": str(path)}, raise_on_error=False)).is_error
    return path


def _write(path: Path, content: bytes | str) -> None:
    path.write_bytes(content.encode() if isinstance(content, str) else content)


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


# --- limits and scope --------------------------------------------------------------------


@pytest.fixture(scope="module")
async def small_limit(root: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--max-file-size", "1KB", workdir=root) as client:
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
    async with app_client(
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
        # Identical strings are invalid input, which is checked before the scope.
        result = await replace(client, scoped / "out" / "f.txt", "x", new_str="x")
        assert error_text(result) == IDENTICAL
    assert (scoped / "out" / "f.txt").read_text() == "x\n"


# --- near misses stay cheap on large input ---------------------------------------------------

NOT_FOUND = (
    "[STR_REPLACE_NOT_FOUND] old_str was not found in {path}. It must match the file "
    "exactly, whitespace and line breaks included."
)


def _letters(count: int, seed: int) -> str:
    """``count`` pseudo-random letters: a line nothing in a file resembles by chance."""
    state, out = seed, []
    for _ in range(count):
        state = (state * 1103515245 + 12345) % 2**31
        out.append(chr(ord("a") + state % 26))
    return "".join(out)


def _one_changed(text: str) -> str:
    middle = len(text) // 2
    return text[:middle] + ("X" if text[middle] != "X" else "Y") + text[middle + 1 :]


LONG_LINE = _letters(50_000, 7)

# Each case: the file, an old_str that is not in it. Every one of them made the old hint
# search quadratic (a long line compared character by character with another, thousands
# of similar lines each compared in full, or a partial match re-walked from every line).
COSTLY_MISSES: dict[str, tuple[bytes, str]] = {
    "a 50 KB line against a 50 KB line": (
        (LONG_LINE + "\n").encode(),
        _one_changed(LONG_LINE),
    ),
    "two 50 KB lines of one repeated pair": (("ab" * 25_000 + "\n").encode(), "ba" * 25_000),
    "300,000 lines like the first line of old_str": (
        "".join(f"value_{n:07d} = compute({n})\n" for n in range(300_000)).encode(),
        "value_0000001 = computer(1, 2)",
    ),
    "old_str of 100,000 lines that match from every line of the file": (
        b"a\n" * 2_000_000,
        "a\n" * 100_000 + "b",
    ),
    "a 10 MB line": (b"q" * (10 * 1024 * 1024 - 1) + b"\n", "q" * 1000 + "!"),
}


@pytest.mark.parametrize("name", sorted(COSTLY_MISSES))
async def test_not_found_answers_promptly_whatever_the_input(
    client: Client[Any], case: Path, name: str
) -> None:
    """The near-miss search is bounded: a miss answers in about the time reading the file
    takes, however long the lines or however many resemble old_str (the bound, on the
    server's CPU time, is generous: a search growing with the square of the input would
    take hours)."""
    content, old = COSTLY_MISSES[name]
    path = await viewed(client, case / "big.txt", content)
    async with costing_at_most(await server_pid(client), cpu=5):
        result = await replace(client, path, old, new_str="x")
    assert error_text(result).startswith(NOT_FOUND.format(path=path))
    assert path.read_bytes() == content


async def test_hint_for_a_long_partial_match_names_where_it_stops(
    client: Client[Any], case: Path
) -> None:
    """Of the places where the first lines of old_str match, the first one that matches
    the most lines is named, with the line where the match stops."""
    content = b"a\n" * 300_000
    path = await viewed(client, case / "f.txt", content)
    async with costing_at_most(await server_pid(client), cpu=5):
        result = await replace(client, path, "a\n" * 100_000 + "b", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLines 1-100000 match the first 100000 lines of old_str, but line 100001 differs "
        "(both shown as JSON strings):\n"
        '  line 100001: "a"\n'
        '  old_str: "b"'
    )


async def test_no_resemblance_hint_for_a_line_over_1000_characters(
    client: Client[Any], case: Path
) -> None:
    """Only a first line of old_str of at most 1000 characters is compared with the
    file's lines; a longer one gets the plain message."""
    line = _letters(1001, 3)
    path = await viewed(client, case / "f.txt", line + "\n")
    result = await replace(client, path, _one_changed(line), new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path)


async def test_resemblance_hint_for_a_line_of_1000_characters(
    client: Client[Any], case: Path
) -> None:
    line = _letters(1000, 3)
    path = await viewed(client, case / "f.txt", "intro\n" + line + "\n")
    changed = _one_changed(line)
    result = await replace(client, path, changed, new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 2 resembles the first line of old_str (both shown as JSON strings):\n"
        f'  line 2: "{line[:300]}" (cut)\n'
        f'  old_str: "{changed[:300]}" (cut)'
    )


async def test_hint_for_whitespace_differences_beyond_many_similar_lines(
    client: Client[Any], case: Path
) -> None:
    """A line that differs from the first line of old_str only in whitespace is found
    wherever it is in the file, even after many merely similar lines."""
    similar = "".join(f"value_{n:07d} = compute({n})\n" for n in range(200_000))
    path = await viewed(client, case / "f.txt", similar + "\t total  =   compute(all)  \n")
    result = await replace(client, path, "total = compute(all)", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 200001 resembles the first line of old_str (both shown as JSON strings):\n"
        '  line 200001: "\\t total  =   compute(all)  "\n'
        '  old_str: "total = compute(all)"'
    )


# --- files that are not UTF-8 ------------------------------------------------------------

CP1251 = "numbers = [1]\nтекст = 'привет'\n".encode("cp1251")


def _identity(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_ino, info.st_mtime_ns


async def test_non_ascii_new_str_refused_in_a_file_that_is_not_utf8(
    client: Client[Any], case: Path
) -> None:
    """Non-ASCII text is never written into a file that is not valid UTF-8: its UTF-8
    bytes would mix encodings in one file. The file is left as it was."""
    path = await viewed(client, case / "legacy.py", CP1251)
    before = _identity(path)
    result = await replace(client, path, "numbers = [1]", new_str='numbers = "мир"')
    assert error_text(result) == (
        f"[INVALID_INPUT] new_str has non-ASCII characters, but {path} is not valid UTF-8 "
        "(it is in another encoding): written as UTF-8 they would mix two encodings in one "
        "file. Use ASCII text only, or convert the file to UTF-8 first; the file is unchanged."
    )
    assert path.read_bytes() == CP1251
    assert _identity(path) == before


async def test_non_ascii_new_str_refused_with_replace_all(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "legacy.py", CP1251)
    result = await replace(client, path, "1", new_str="½", replace_all=True)
    assert error_text(result).startswith("[INVALID_INPUT] new_str has non-ASCII characters, ")
    assert path.read_bytes() == CP1251


async def test_ascii_edit_of_a_file_that_is_not_utf8_keeps_every_other_byte(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "legacy.py", CP1251)
    result = await replace(client, path, "numbers = [1]", new_str="numbers = [1, 2]")
    assert path.read_bytes() == CP1251.replace(b"[1]", b"[1, 2]")
    assert ok_text(result) == (
        f"Replaced in {path}\n\n1\tnumbers = [1, 2]\n2\t\ufffd\ufffd\ufffd\ufffd\ufffd = "
        "'\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd'\n"
    )


async def test_non_ascii_new_str_is_fine_in_utf8_files(client: Client[Any], case: Path) -> None:
    """A BOM, or non-ASCII text already in the file, is valid UTF-8 too."""
    path = await viewed(client, case / "f.txt", "\ufeffname = 'é'\n".encode())
    result = await replace(client, path, "'é'", new_str="'мир'")
    assert ok_text(result) == f"Replaced in {path}\n\n1\tname = 'мир'\n"
    assert path.read_bytes() == "\ufeffname = 'мир'\n".encode()


async def test_not_found_says_when_the_file_is_not_utf8(client: Client[Any], case: Path) -> None:
    """When old_str has non-ASCII characters and the file is not UTF-8, the miss says
    why nothing could match."""
    path = await viewed(client, case / "legacy.py", CP1251)
    result = await replace(client, path, "привет", new_str="hello")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        f"\n{path} is not valid UTF-8 (it is in another encoding), and old_str has "
        "non-ASCII characters, which are looked for as UTF-8: the file does not store "
        "them that way. Match on ASCII text only."
    )
    assert path.read_bytes() == CP1251


async def test_not_found_of_ascii_text_in_a_file_that_is_not_utf8(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "legacy.py", CP1251)
    result = await replace(client, path, "absent", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path)


async def test_encoding_checked_before_matching(client: Client[Any], case: Path) -> None:
    """A non-ASCII new_str for a file that is not UTF-8 is refused whether or not
    old_str is found: no old_str could make that edit possible."""
    path = await viewed(client, case / "legacy.py", CP1251)
    result = await replace(client, path, "absent", new_str="é")
    assert error_text(result).startswith("[INVALID_INPUT] new_str has non-ASCII characters, ")


# --- old_str equal to new_str -------------------------------------------------------------

IDENTICAL = "[INVALID_INPUT] old_str and new_str are identical: nothing to replace"


async def test_identical_strings_refused_and_file_untouched(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", LINES_20)
    before = _identity(path)
    assert error_text(await replace(client, path, "line 3", new_str="line 3")) == IDENTICAL
    result = await replace(client, path, "line", new_str="line", replace_all=True)
    assert error_text(result) == IDENTICAL
    assert path.read_text() == LINES_20
    assert _identity(path) == before


async def test_identical_strings_checked_before_the_file(client: Client[Any], case: Path) -> None:
    """Identical strings are invalid input: refused before the path is looked at, so
    before PATH_NOT_FOUND and FILE_NOT_VIEWED (and ACCESS_DENIED, see test_scope)."""
    result = await replace(client, case / "missing.txt", "a", new_str="a")
    assert error_text(result) == IDENTICAL
    unviewed = case / "unviewed.txt"
    unviewed.write_text("a\n")
    assert error_text(await replace(client, unviewed, "a", new_str="a")) == IDENTICAL
    # An empty old_str is the first thing checked.
    result = await replace(client, case / "missing.txt", "", new_str="")
    assert error_text(result).startswith("[INVALID_INPUT] old_str: must not be empty")


async def test_strings_differing_only_in_line_endings_are_not_identical(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", b"a\r\nb\n")
    result = await replace(client, path, "a\r\nb", new_str="a\nb")
    assert ok_text(result) == f"Replaced in {path}\n\n1\ta\n2\tb\n"
    assert path.read_bytes() == b"a\nb\n"


# --- how misses and ambiguities are reported -------------------------------------------------


@pytest.mark.parametrize(
    ("content", "count", "where"),
    [
        ("x\n" * 10, 10, "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10"),
        ("x\n" * 11, 11, "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …"),
        ("x\n" * 25, 25, "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …"),
        ("x x x x\n" * 3, 12, "lines 1, 2, 3, …"),
        ("y\n" * 5 + "x\n" * 12, 12, "lines 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, …"),
    ],
    ids=["10", "11", "25", "12 on 3 lines", "12 after 5 lines"],
)
async def test_ambiguity_lists_the_lines_of_the_first_ten_occurrences(
    client: Client[Any], case: Path, content: str, count: int, where: str
) -> None:
    """The lines of the first 10 occurrences are listed (each line once); an ellipsis
    says there are more occurrences than those."""
    path = await viewed(client, case / "f.txt", content)
    assert error_text(await replace(client, path, "x", new_str="w")) == (
        f"[STR_REPLACE_AMBIGUOUS] old_str occurs {count} times in {path} ({where}); add "
        "surrounding lines to make it unique, or set replace_all to replace every occurrence"
    )


async def test_partial_match_middle_lines_must_be_whole(client: Client[Any], case: Path) -> None:
    """In a partial match, a line of old_str between its first and last must equal a
    whole line of the file (without its CR): a line that merely starts with it differs."""
    path = await viewed(client, case / "f.txt", b"a\r\nbc\nd\n")
    result = await replace(client, path, "a\nb\nd", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 1 matches the first line of old_str, but line 2 differs "
        "(both shown as JSON strings):\n"
        '  line 2: "bc"\n'
        '  old_str: "b"'
    )


async def test_partial_match_last_line_may_be_a_prefix(client: Client[Any], case: Path) -> None:
    """The last line of old_str may be the start of a line: old_str can end mid-line."""
    path = await viewed(client, case / "f.txt", b"a\r\nbc\n")
    result = await replace(client, path, "a\nb", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLines 1-2 match old_str apart from line endings: the file mixes LF and CRLF "
        "there; copy the line endings exactly."
    )


@pytest.mark.parametrize(
    ("content", "old", "lines"),
    [
        (b"a\r\nb\n", "a\nb\n", "Lines 1-2 match"),
        (b"x\na\r\n", "a\n", "Line 2 matches"),
        (b"x\r\ny\na\r\n", "y\r\na\n", "Lines 2-3 match"),
    ],
)
async def test_partial_match_up_to_the_final_newline(
    client: Client[Any], case: Path, content: bytes, old: str, lines: str
) -> None:
    """An old_str that ends with a newline and matches, apart from line endings, up to the
    end of a file ending with a newline is told so; its final newline is not a line of
    its own (README "Edit rules worth knowing")."""
    path = await viewed(client, case / f"end{len(content)}.txt", content)
    result = await replace(client, path, old, new_str="z")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        f"\n{lines} old_str apart from line endings: the file mixes LF and CRLF there; "
        "copy the line endings exactly."
    )
    assert path.read_bytes() == content


async def test_partial_match_first_line_may_be_the_end_of_a_line(
    client: Client[Any], case: Path
) -> None:
    """The first line of old_str may be the end of a line: old_str can start mid-line."""
    path = await viewed(client, case / "f.txt", "x = first\nsecond\nthird\n")
    result = await replace(client, path, "first\nsecond\nTHIRD", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLines 1-2 match the first 2 lines of old_str, but line 3 differs "
        "(both shown as JSON strings):\n"
        '  line 3: "third"\n'
        '  old_str: "THIRD"'
    )


async def test_partial_match_past_the_end_of_the_file(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "one\ntwo")
    result = await replace(client, path, "one\ntwo\nthree", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLines 1-2 match the first 2 lines of old_str, but old_str continues past the "
        "end of the file."
    )


@pytest.mark.parametrize(
    ("length", "shown"),
    [(300, '"{line}"'), (301, '"{line300}" (cut)'), (5000, '"{line300}" (cut)')],
)
async def test_hint_quotes_at_most_300_characters(
    client: Client[Any], case: Path, length: int, shown: str
) -> None:
    """A quoted line is cut after 300 characters (characters, not bytes), and says so."""
    line = ("é\t" * length)[:length]
    path = await viewed(client, case / "f.txt", f"start\n{line}\n")
    result = await replace(client, path, "start\nother", new_str="x")
    expected = shown.format(line=line.replace("\t", "\\t"), line300=line[:300].replace("\t", "\\t"))
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 1 matches the first line of old_str, but line 2 differs "
        "(both shown as JSON strings):\n"
        f"  line 2: {expected}\n"
        '  old_str: "other"'
    )


async def test_hint_shows_non_ascii_text_as_it_is(client: Client[Any], case: Path) -> None:
    """Quoted lines keep non-ASCII characters (not \\u escapes); tabs, CRs and quotes are
    escaped as in JSON."""
    path = await viewed(client, case / "f.txt", 'greeting = "привет, мир"\t\n'.encode())
    result = await replace(client, path, 'greeting = "привет мир!"', new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 1 resembles the first line of old_str (both shown as JSON strings):\n"
        '  line 1: "greeting = \\"привет, мир\\"\\t"\n'
        '  old_str: "greeting = \\"привет мир!\\""'
    )


async def test_hint_names_the_first_non_blank_line(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "def f():\n    return  1\n")
    result = await replace(client, path, "\n   \n    return 1\n", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 2 resembles the first non-blank line of old_str (both shown as JSON strings):\n"
        '  line 2: "    return  1"\n'
        '  old_str: "    return 1"'
    )


async def test_partial_match_last_line_ending_in_cr(client: Client[Any], case: Path) -> None:
    """A last line of old_str that ends in a CR is not a prefix of a line whose only CR
    is its line ending."""
    path = await viewed(client, case / "f.txt", b"a\r\nb\r\n")
    result = await replace(client, path, "a\nb\r\r", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 1 matches the first line of old_str, but line 2 differs "
        "(both shown as JSON strings):\n"
        '  line 2: "b"\n'
        '  old_str: "b\\r"'
    )


async def test_hint_skips_lines_identical_to_the_first_non_blank_line(
    client: Client[Any], case: Path
) -> None:
    """A file line identical to the line of old_str being compared is not a near miss
    (the difference lies elsewhere): the line differing only in whitespace is named."""
    path = await viewed(client, case / "f.txt", "x\nfoo bar\nbaz\n\n  foo  bar\n")
    result = await replace(client, path, "\nfoo bar\nqux", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 5 resembles the first non-blank line of old_str (both shown as JSON strings):\n"
        '  line 5: "  foo  bar"\n'
        '  old_str: "foo bar"'
    )


async def test_hint_never_names_an_identical_line_as_resembling(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", "x\nfoo bar\nbaz\n\nfoo baz\n")
    result = await replace(client, path, "\nfoo bar\nqux", new_str="x")
    assert error_text(result) == NOT_FOUND.format(path=path) + (
        "\nLine 5 resembles the first non-blank line of old_str (both shown as JSON strings):\n"
        '  line 5: "foo baz"\n'
        '  old_str: "foo bar"'
    )


@pytest.mark.parametrize(("line", "hinted"), [("abcdX", True), ("abcXY", False)])
async def test_resemblance_means_four_fifths_alike(
    client: Client[Any], case: Path, line: str, hinted: bool
) -> None:
    """A line resembles when difflib's ratio (twice the matching characters over the
    total length) is at least 0.8: 4 of 5 characters alike is enough, 3 of 5 is not."""
    path = await viewed(client, case / "f.txt", f"first\n{line}\n")
    result = await replace(client, path, "abcde", new_str="x")
    hint = (
        "\nLine 2 resembles the first line of old_str (both shown as JSON strings):\n"
        f'  line 2: "{line}"\n'
        '  old_str: "abcde"'
    )
    assert error_text(result) == NOT_FOUND.format(path=path) + (hint if hinted else "")
