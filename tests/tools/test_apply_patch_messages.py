"""apply_patch through a real client: the bytes at a file's end without a final newline,
and the words of every refusal that names where a hunk was looked for (README
"apply_patch"). Each message is written out in full: it is what a model reads to mend
its patch."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.tools.test_apply_patch import apply, patch, refused, viewed

pytestmark = pytest.mark.anyio

NOT_FOUND_RULE = "They must match lines of the file exactly, apart from trailing whitespace."


def unterminated(lines: list[bytes], eol: bytes = b"\n") -> bytes:
    """A file of ``lines`` whose last line has no newline: the model the bytes are
    checked against."""
    return eol.join(lines)


# Files without a final newline, hunks that remove or replace their last lines: the new
# last line has no newline either, and the lines before it keep theirs.
UNTERMINATED = [
    ([b"a", b"b", b"c"], [" a", "-b", "-c"], [b"a"]),
    ([b"a", b"b", b"c"], ["-b", "-c"], [b"a"]),
    ([b"a", b"b", b"c"], ["-a", " b", "-c"], [b"b"]),
    ([b"a", b"b", b"c"], [" a", " b", "-c"], [b"a", b"b"]),
    ([b"a", b"b", b"c"], ["-a", "-b", " c"], [b"c"]),
    ([b"a", b"b", b"c"], ["-a", "-b", "-c", "+z"], [b"z"]),
    ([b"a", b"b", b"c"], [" a", "-b", " c", "+d"], [b"a", b"c", b"d"]),
]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(
    ("before", "lines", "after"),
    UNTERMINATED,
    ids=[f"unterminated{n}" for n in range(len(UNTERMINATED))],
)
async def test_the_last_lines_of_a_file_without_a_final_newline(
    client: Client[Any],
    case: Path,
    eol: bytes,
    before: list[bytes],
    lines: list[str],
    after: list[bytes],
) -> None:
    path = await viewed(client, case / "f.txt", unterminated(before, eol))
    ok_text(await apply(client, patch(f"*** Update File: {path}", *lines)))
    assert path.read_bytes() == unterminated(after, eol)


async def test_an_anchor_found_only_before_the_hunk_before(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.py", "def a():\n    x = 1\ndef b():\n    y = 2\n")
    message = await refused(
        client,
        case,
        patch(
            f"*** Update File: {path}",
            "@@ def b():",
            "-    y = 2",
            "+    y = 3",
            "@@ def a():",
            "-    x = 1",
            "+    x = 0",
        ),
    )
    assert message == (
        f'[STR_REPLACE_NOT_FOUND] {path}: hunk 2 of 2: its @@ line "def a():" was not found '
        "after line 4 (the end of hunk 1). An @@ line gives a line of the file (such as the "
        "first line of a function) after which the hunk is looked for.\n"
        "It is at line 1, before that: hunks go in the order of the file."
    )


async def test_an_anchor_found_only_before_the_anchor_before(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.py", "def a():\n    x = 1\ndef b():\n    y = 2\n")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", "@@ def b():", "@@ def a():", "-    x = 1", "+    x = 0"),
    )
    assert message == (
        f'[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its @@ line "def a():" was not found '
        'after line 3 (its @@ line "def b():"). An @@ line gives a line of the file (such as '
        "the first line of a function) after which the hunk is looked for.\n"
        "It is at line 1, before that: hunks go in the order of the file."
    )


async def test_an_end_of_file_hunk_after_another_that_is_not_at_the_end(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", "a\nb\nc\nd\n")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", "-c", "+C", "@@", " b", "+x", "*** End of File"),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 2 of 2: its context and removed lines are not "
        "the last lines of the file after line 3 (the end of hunk 1) ('*** End of File' says "
        "they are).\n"
        "They are at line 2, before that: hunks go in the order of the file, each after the "
        "one before it and after its @@ lines."
    )


async def test_an_end_of_file_hunk_whose_last_lines_precede_the_hunk_before(
    client: Client[Any], case: Path
) -> None:
    """The file's last lines are the hunk's, but the hunk before ended after them."""
    path = await viewed(client, case / "f.txt", "a\nb\n")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", " a", "-b", "+B", "@@", "-b", "*** End of File"),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 2 of 2: its context and removed lines are not "
        "the last lines of the file after line 2 (the end of hunk 1) ('*** End of File' says "
        "they are).\n"
        "They are at line 2, before that: hunks go in the order of the file, each after the "
        "one before it and after its @@ lines."
    )


async def test_an_end_of_file_hunk_found_nowhere(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "one\ntwo\nthree\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", " one", "-tow", "*** End of File")
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines are not "
        "the last lines of the file ('*** End of File' says they are).\n"
        "Line 1 matches the first line of hunk 1, but line 2 differs (both shown as JSON "
        'strings):\n  line 2: "two"\n  hunk 1: "tow"'
    )


async def test_the_leading_lines_that_match(client: Client[Any], case: Path) -> None:
    """Of a hunk not found, the most leading lines found together are named, and the
    line where the file and the hunk part."""
    path = await viewed(client, case / "f.txt", "zero\none\ntwo\nthree\nfour\nfive\n")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", " one", " two", " three", "-for", "+4", " five"),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        f"found in the file. {NOT_FOUND_RULE}\n"
        "Lines 2-4 match the first 3 lines of hunk 1, but line 5 differs (both shown as JSON "
        'strings):\n  line 5: "four"\n  hunk 1: "for"'
    )


async def test_the_leading_lines_that_match_up_to_the_end(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "zero\none\ntwo\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", " one", " two", "-three")
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        f"found in the file. {NOT_FOUND_RULE}\n"
        "Lines 2-3 match the first 2 lines of hunk 1, but hunk 1 continues past the end of "
        "the file."
    )


async def test_the_leading_lines_are_looked_for_after_the_hunk_before(
    client: Client[Any], case: Path
) -> None:
    """The lines matched are counted from where the hunk is looked for, not from the
    top of the file."""
    path = await viewed(client, case / "f.txt", "a\nb\nx\na\nb\nc\n")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", "-x", "+X", "@@", " a", " b", "-d"),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 2 of 2: its context and removed lines were not "
        f"found after line 3 (the end of hunk 1). {NOT_FOUND_RULE}\n"
        "Lines 4-5 match the first 2 lines of hunk 2, but line 6 differs (both shown as JSON "
        'strings):\n  line 6: "c"\n  hunk 2: "d"'
    )


def listed(count: int) -> str:
    """The places the message lists of ``count`` occurrences on lines 1, 2, …"""
    numbers = ", ".join(str(n) for n in range(1, min(count, 10) + 1))
    return numbers + (", …" if count > 10 else "")


@pytest.mark.parametrize(
    ("count", "said"),
    [
        (2, "2"),
        (10, "10"),
        (11, "11"),
        (100, "100"),
        (101, "more than 100"),
        (150, "more than 100"),
    ],
)
async def test_how_many_places_an_ambiguous_hunk_has(
    client: Client[Any], case: Path, count: int, said: str
) -> None:
    """Up to 100 places are counted and the first 10 listed by line."""
    path = await viewed(client, case / "f.txt", "x\n" * count)
    message = await refused(client, case, patch(f"*** Update File: {path}", "-x", "+y"))
    assert message == (
        f"[STR_REPLACE_AMBIGUOUS] {path}: hunk 1 of 1: its context and removed lines occur "
        f"{said} times in the file (at lines {listed(count)}); add context lines to make them "
        "unique, or start the hunk with an '@@ ' line naming a line before it, such as the "
        "first line of its function or class (the first place after that line is taken)"
    )


async def test_an_ambiguous_hunk_counts_up_to_the_next_hunk(
    client: Client[Any], case: Path
) -> None:
    """Places beyond where the next hunk is found are no rivals; the message says where
    the count stopped, and where it started."""
    path = await viewed(client, case / "f.txt", "top\nx\nx\nmid\nx\nx\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "-top", "@@", "-x", "@@", "-mid")
    )
    assert message == (
        f"[STR_REPLACE_AMBIGUOUS] {path}: hunk 2 of 3: its context and removed lines occur "
        "2 times after line 1 (the end of hunk 1), before line 4 (where the next hunk is "
        "found) (at lines 2, 3); add context lines to make them unique, or start the hunk "
        "with an '@@ ' line naming a line before it, such as the first line of its function "
        "or class (the first place after that line is taken)"
    )


async def test_the_leading_lines_that_match_from_an_empty_line(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", "zero\n\none\ntwo\nthree\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "@@", " ", " one", " two", "-for", "+4")
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        f"found in the file. {NOT_FOUND_RULE}\n"
        "Lines 2-4 match the first 3 lines of hunk 1, but line 5 differs (both shown as JSON "
        'strings):\n  line 5: "three"\n  hunk 1: "for"'
    )


@pytest.mark.parametrize(("hunks", "taken"), [(10_000, True), (10_001, False)])
async def test_10000_hunks_are_read(
    client: Client[Any], case: Path, hunks: int, taken: bool
) -> None:
    """The limit on hunks without applying them: a patch of 10,000 is read (its first
    hunk is then looked for, and not found), one of 10,001 is refused as it is read."""
    path = await viewed(client, case / "f.txt", "a\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", *["@@\n-missing\n+x"] * hunks)
    )
    if taken:
        assert message.startswith(f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 10000: ")
    else:
        assert message == (
            "[PATCH_INVALID] line 30003: a patch holds at most 10000 hunks; split it into several"
        )


async def test_a_line_of_a_crlf_file_is_quoted_without_its_cr(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", b"zero\r\none\r\ntwo\r\nthree\r\n")
    message = await refused(client, case, patch(f"*** Update File: {path}", " one", "-for"))
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        f"found in the file. {NOT_FOUND_RULE}\n"
        "Line 2 matches the first line of hunk 1, but line 3 differs (both shown as JSON "
        'strings):\n  line 3: "two"\n  hunk 1: "for"'
    )


async def test_an_anchor_is_quoted_as_it_is(client: Client[Any], case: Path) -> None:
    """Non-ASCII text in a message stays as it is, not escaped."""
    path = await viewed(client, case / "f.py", "def café():\n    pass\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "@@ def thé():", "-    pass")
    )
    assert message.startswith(
        f'[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its @@ line "def thé():" was not found '
        "in the file."
    )


async def test_deleting_a_symlink_loop(client: Client[Any], case: Path) -> None:
    """A path that resolves to nothing but a loop of links is refused by what stat says
    of it."""
    (case / "loop").symlink_to("loop")
    message = error_text(await apply(client, patch(f"*** Delete File: {case}/loop")))
    assert os.readlink(case / "loop") == "loop"
    assert message == (f"[IO_ERROR] could not stat {case}/loop: Too many levels of symbolic links")


ENCODING_HINT = (
    "The file is not valid UTF-8 (it is in another encoding), and these lines have "
    "non-ASCII characters, which are looked for as UTF-8: the file does not store them "
    "that way. Match on ASCII text only."
)


@pytest.mark.parametrize(
    ("content", "old", "hinted"),
    [
        (b"caf\xe9\nold\n", "café", True),  # Latin-1 file, non-ASCII lines: the hint
        ("café\nold\n".encode(), "cafë", False),  # UTF-8 file: its lines are compared
        (b"caf\xe9\nold\n", "cafe", False),  # ASCII lines: the encoding does not matter
    ],
    ids=["latin1", "utf8", "ascii"],
)
async def test_lines_not_found_in_a_file_that_is_not_utf8(
    client: Client[Any], case: Path, content: bytes, old: str, hinted: bool
) -> None:
    path = await viewed(client, case / "f.txt", content)
    message = await refused(client, case, patch(f"*** Update File: {path}", f"-{old}", "+new"))
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        f"found in the file. {NOT_FOUND_RULE}" + (f"\n{ENCODING_HINT}" if hinted else "")
    )


async def test_the_first_non_blank_line_of_a_hunk_found_nowhere(
    client: Client[Any], case: Path
) -> None:
    """A hunk found nowhere, not even its first line (a blank one): the file's line most
    like its first non-blank line is named."""
    path = await viewed(client, case / "f.py", "def f(x):\n    return x\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "@@", " ", "-def  f(x):", "+def f(y):")
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        f"found in the file. {NOT_FOUND_RULE}\n"
        "Line 1 resembles the first non-blank line of hunk 1 (both shown as JSON strings):\n"
        '  line 1: "def f(x):"\n'
        '  hunk 1: "def  f(x):"'
    )


async def test_an_end_of_file_hunk_longer_than_the_file_bounds_nothing(
    client: Client[Any], case: Path
) -> None:
    """A hunk is unique up to where the next one is found; an '*** End of File' hunk of
    more lines than the file has is found nowhere, so the hunk before it must be unique
    in the whole rest of the file (here: its empty lines are at lines 1-2 and 4-5)."""
    path = await viewed(client, case / "f.txt", "\n\nA\n\n\n")
    text = patch(
        f"*** Update File: {path}",
        "@@",
        " ",
        "+new",
        " ",
        "@@",
        *[f"-x{n}" for n in range(7)],
        "*** End of File",
    )
    assert await refused(client, case, text) == (
        f"[STR_REPLACE_AMBIGUOUS] {path}: hunk 1 of 2: its context and removed lines occur 2 "
        "times in the file (at lines 1, 4); add context lines to make them unique, or start "
        "the hunk with an '@@ ' line naming a line before it, such as the first line of its "
        "function or class (the first place after that line is taken)"
    )
