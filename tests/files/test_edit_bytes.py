"""The edit engine on bytes (boris/files/edit_bytes.py, boris/files/near_miss.py), called
directly: where inserted lines go, and the exact messages of a miss or an ambiguity.

The tools' own tests (tests/tools/test_str_replace.py, tests/tools/test_str_replace_editor.py) show
the same rules through a client; these pin the corners of each rule at the unit where
it is decided. Expected bytes and messages are written out literally.
"""

from __future__ import annotations

import tracemalloc

import pytest

from boris.errors import BorisError, Code
from boris.files.edit_bytes import Change, encode_argument, insert, replace, replace_each
from boris.files.lines import CHUNK

PATH = "/w/f.txt"
NOT_FOUND = (
    f"[STR_REPLACE_NOT_FOUND] old_str was not found in {PATH}. It must match the file "
    "exactly, whitespace and line breaks included."
)


def miss(data: bytes, old: bytes) -> str:
    """The message of a str_replace of ``old`` that finds nothing in ``data``."""
    with pytest.raises(BorisError) as raised:
        replace(data, old, b"new", False, PATH)
    return str(raised.value)


# --- insert ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line", "text", "edited", "begin", "end"),
    [
        # After an unterminated last line: the line is broken with the file's line
        # ending, and the file still ends without one, whatever ``text`` ends with.
        (b"a\nb", 2, b"xyz", b"a\nb\nxyz", 4, 7),
        (b"a\nb", 2, b"xyz\n", b"a\nb\nxyz", 4, 7),
        (b"a\nb", 2, b"x\ny\n", b"a\nb\nx\ny", 4, 7),
        (b"a\nb", 2, b"x\r\n", b"a\nb\nx", 4, 5),
        (b"a\r\nb", 2, b"x\ny\n", b"a\r\nb\r\nx\r\ny", 6, 10),
        (b"a\r\nb", 2, b"x\r\ny\r\n", b"a\r\nb\r\nx\r\ny", 6, 10),
        (b"a", 1, b"", b"a\n", 2, 2),
        # After a blank line, and between blank lines.
        (b"a\n\nb\n", 2, b"x", b"a\n\nx\nb\n", 3, 5),
        (b"\n\n", 1, b"x", b"\nx\n\n", 1, 3),
        (b"\n\n", 2, b"x\n", b"\n\nx\n", 2, 4),
        # Before the first line, after a BOM.
        (b"\xef\xbb\xbfa\n", 0, b"x", b"\xef\xbb\xbfx\na\n", 3, 5),
    ],
)
def test_insert_places_whole_lines(
    data: bytes, line: int, text: bytes, edited: bytes, begin: int, end: int
) -> None:
    """``text`` goes in as whole lines after line ``line``; begin and end frame what was
    inserted (the snippet is shown around them)."""
    result = insert(data, line, text, PATH)
    assert (result.data, result.begin, result.end, result.count) == (edited, begin, end, 1)


def test_insert_deep_in_a_file_of_several_blocks() -> None:
    """Lines past the first 256 KiB block are counted across block boundaries."""
    data = b"".join(b"%d\n" % n for n in range(1, 200_001))
    result = insert(data, 150_000, b"here", PATH)
    before = b"".join(b"%d\n" % n for n in range(1, 150_001))
    assert result.data == before + b"here\n" + data[len(before) :]
    assert result.begin == len(before)


def test_insert_line_past_the_end() -> None:
    with pytest.raises(BorisError) as raised:
        insert(b"a\nb", 3, b"x", PATH)
    assert str(raised.value) == (
        f"[INVALID_INPUT] insert_line 3 exceeds total lines 2 in {PATH}; use 0 to 2 "
        "(0 inserts before the first line)"
    )


# --- arguments ---------------------------------------------------------------------------


def test_a_lone_surrogate_is_refused_by_name() -> None:
    with pytest.raises(BorisError) as raised:
        encode_argument("new_str", "a\ud800b")
    assert str(raised.value) == (
        "[INVALID_INPUT] new_str: contains a lone UTF-16 surrogate, which is not valid Unicode text"
    )
    assert encode_argument("old_str", "é") == b"\xc3\xa9"


# --- not found: the first lines match, a later one differs ---------------------------------


def test_old_str_continuing_past_an_unterminated_last_line() -> None:
    """old_str's final newline is a line the file does not have."""
    assert miss(b"a\nb", b"a\nb\n") == (
        f"{NOT_FOUND}\nLines 1-2 match the first 2 lines of old_str, but old_str continues "
        "past the end of the file."
    )


def test_the_differing_last_line_is_quoted_without_its_cr() -> None:
    assert miss(b"first\nsecond\r", b"first\nother") == (
        f"{NOT_FOUND}\nLine 1 matches the first line of old_str, but line 2 differs (both "
        'shown as JSON strings):\n  line 2: "second"\n  old_str: "other"'
    )


def test_a_quoted_line_of_exactly_300_characters_is_whole() -> None:
    """A quote holds up to 300 characters (here 1,200 bytes), and says "(cut)" only when
    the line had more."""
    emoji = "\U0001f600"
    line = (emoji * 300).encode()
    assert miss(b"first\n" + line + b"\nlast\n", b"first\nzzz") == (
        f"{NOT_FOUND}\nLine 1 matches the first line of old_str, but line 2 differs (both "
        f'shown as JSON strings):\n  line 2: "{emoji * 300}"\n  old_str: "zzz"'
    )
    assert miss(b"first\n" + line + emoji.encode() + b"\n", b"first\nzzz") == (
        f"{NOT_FOUND}\nLine 1 matches the first line of old_str, but line 2 differs (both "
        f'shown as JSON strings):\n  line 2: "{emoji * 300}" (cut)\n  old_str: "zzz"'
    )


def test_bytes_that_are_not_utf8_are_quoted_as_replacement_characters() -> None:
    assert miss(b"first\ncaf\xe9\n", b"first\nnope") == (
        f"{NOT_FOUND}\nLine 1 matches the first line of old_str, but line 2 differs (both "
        'shown as JSON strings):\n  line 2: "caf\ufffd"\n  old_str: "nope"'
    )


def test_insert_of_non_ascii_into_a_file_in_another_encoding() -> None:
    """The message names the argument the text came from: ``new_str`` unless told."""
    with pytest.raises(BorisError) as raised:
        insert(b"caf\xe9\n", 1, "é".encode(), PATH)
    assert str(raised.value) == (
        f"[INVALID_INPUT] new_str has non-ASCII characters, but {PATH} is not valid UTF-8 (it "
        "is in another encoding): written as UTF-8 they would mix two encodings in one file. "
        "Use ASCII text only, or convert the file to UTF-8 first; the file is unchanged."
    )


# --- ambiguity -----------------------------------------------------------------------------


def ambiguity(data: bytes, old: bytes) -> str:
    with pytest.raises(BorisError) as raised:
        replace(data, old, b"new", False, PATH)
    return str(raised.value)


@pytest.mark.parametrize(
    ("data", "old", "count", "where"),
    [
        # The count is replace_all's (occurrences that do not overlap) ...
        (b"aaaa", b"aa", 2, "line 1"),
        (b"aaaaa\n", b"aa", 2, "line 1"),
        # ... unless overlapping occurrences are all there is.
        (b"aaa", b"aa", 2, "line 1"),
        (b"x\naaa\n", b"aa", 2, "line 2"),
    ],
)
def test_overlapping_occurrences_are_counted_as_replace_all_counts(
    data: bytes, old: bytes, count: int, where: str
) -> None:
    assert ambiguity(data, old) == (
        f"[STR_REPLACE_AMBIGUOUS] old_str occurs {count} times in {PATH} ({where}); add "
        "surrounding lines to make it unique, or set replace_all to replace every occurrence"
    )


# --- not found: line by line ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "old", "hint"),
    [
        # A middle line matches whatever ends it in the file (LF, CRLF, or a lone CR at
        # the end of the file) ...
        (
            b"a\nb\r\nc\nd\n",
            b"a\nb\nX",
            "Lines 1-2 match the first 2 lines of old_str, but line 3 differs (both shown as "
            'JSON strings):\n  line 3: "c"\n  old_str: "X"',
        ),
        (
            b"a\nb\r",
            b"a\nb\nc",
            "Lines 1-2 match the first 2 lines of old_str, but old_str continues past the end "
            "of the file.",
        ),
        # ... so when every line matches, the line endings are what differs. old_str's
        # final newline is matched by the file's own, also at the end of the file, and
        # is not a line of its own in the message.
        (
            b"a\r\nb\nc\n",
            b"a\nb\nc\n",
            "Lines 1-3 match old_str apart from line endings: the file mixes LF and CRLF "
            "there; copy the line endings exactly.",
        ),
        (
            b"a\r\nb\n",
            b"a\nb\n",
            "Lines 1-2 match old_str apart from line endings: the file mixes LF and CRLF "
            "there; copy the line endings exactly.",
        ),
        (
            b"a\r\nb\nc\n",
            b"a\nb\n",
            "Lines 1-2 match old_str apart from line endings: the file mixes LF and CRLF "
            "there; copy the line endings exactly.",
        ),
        (
            b"a\r\nb\n",
            b"a\n",
            "Line 1 matches old_str apart from line endings: the file mixes LF and CRLF "
            "there; copy the line endings exactly.",
        ),
        # A file without a final newline does not have old_str's.
        (
            b"a\r\nb\nc",
            b"a\nb\nc\n",
            "Lines 1-3 match the first 3 lines of old_str, but old_str continues past the end "
            "of the file.",
        ),
        # Text after the file's final newline is past its end.
        (
            b"a\r\nb\n",
            b"a\nb\nc",
            "Lines 1-2 match the first 2 lines of old_str, but old_str continues past the end "
            "of the file.",
        ),
        # A CR that old_str's last line still ends with (after the one taken as its line
        # ending) must be the line's own, not a CR before the line's end.
        (
            b"a\nc\r\nz\n",
            b"a\nc\r\r",
            "Line 1 matches the first line of old_str, but line 2 differs (both shown as JSON "
            'strings):\n  line 2: "c"\n  old_str: "c\\r"',
        ),
        (
            b"a\nc\r",
            b"a\nc\r\r",
            "Line 1 matches the first line of old_str, but line 2 differs (both shown as JSON "
            'strings):\n  line 2: "c"\n  old_str: "c\\r"',
        ),
    ],
)
def test_partial_match_line_by_line(data: bytes, old: bytes, hint: str) -> None:
    assert miss(data, old) == f"{NOT_FOUND}\n{hint}"


@pytest.mark.parametrize(
    ("data", "old", "hint"),
    [
        # Every place the first line ends a line is tried; the one matching most lines
        # is named.
        (
            b"a\nX\na\nb\nc\na\nY\n",
            b"a\nb\nd",
            "Lines 3-4 match the first 2 lines of old_str, but line 5 differs (both shown as "
            'JSON strings):\n  line 5: "c"\n  old_str: "d"',
        ),
        # Lines are counted from the first, an empty one included.
        (
            b"\nfoo\nbar\n",
            b"foo\nbaz",
            "Line 2 matches the first line of old_str, but line 3 differs (both shown as JSON "
            'strings):\n  line 3: "bar"\n  old_str: "baz"',
        ),
        # Only the first 1,000 places are tried: the 1,000th is, the 1,500th is not.
        (
            b"a\n" * 1000 + b"b\n",
            b"a\nb\nc",
            "Lines 1000-1001 match the first 2 lines of old_str, but old_str continues past "
            "the end of the file.",
        ),
        (
            b"a\n" * 1500 + b"b\n",
            b"a\nb\nc",
            "Line 1 matches the first line of old_str, but line 2 differs (both shown as JSON "
            'strings):\n  line 2: "a"\n  old_str: "b"',
        ),
        # The first line may end the file, before a lone CR.
        (
            b"x\nfoo\r",
            b"foo\nbar",
            "Line 2 matches the first line of old_str, but old_str continues past the end of "
            "the file.",
        ),
    ],
)
def test_partial_match_where_the_first_line_ends_a_line(data: bytes, old: bytes, hint: str) -> None:
    assert miss(data, old) == f"{NOT_FOUND}\n{hint}"


# --- not found: a line resembles the first line of old_str --------------------------------

WANTED = b"def computeTotal(x):"
OLD = b"def computeTotals(x):"


def resembles(number: int, line: str, old: str, which: str = "the first line") -> str:
    return (
        f"{NOT_FOUND}\nLine {number} resembles {which} of old_str (both shown as JSON "
        f'strings):\n  line {number}: "{line}"\n  old_str: "{old}"'
    )


@pytest.mark.parametrize(
    ("data", "number"),
    [
        # Lines are numbered across the 256 KiB blocks the file is split in, ...
        (b"#\n" * 150_000 + WANTED + b"\n" + b"#\n" * 10, 150_001),
        # ... past a line longer than a block (counted, never compared), ...
        (b"x" * 300_000 + b"\n" + WANTED + b"\n", 2),
        (b"#\n" * 140_000 + b"y" * 300_000 + b"\n#\n" + WANTED, 140_003),
        (b"\n" + b"y" * 300_000 + b"\n" + WANTED + b"\n", 3),
        # ... and compared without their CR.
        (b"a\n" + WANTED + b"\r\nb\n", 2),
    ],
)
def test_resembling_line_anywhere_in_the_file(data: bytes, number: int) -> None:
    assert miss(data, OLD) == resembles(number, WANTED.decode(), OLD.decode())


def test_no_resembling_line_in_a_file_of_one_long_line() -> None:
    assert miss(b"y" * 300_000, OLD) == NOT_FOUND


TWENTY = "abcdefghijklmnopqrst"


@pytest.mark.parametrize(
    ("line", "hinted"),
    [
        # Whitespace collapsed, a resembling line is at most a fifth (at least 3
        # characters) longer or shorter than old_str's first line, ...
        ("abcdefghijuvwxklmnopqrst", True),
        ("abcdefghijuvwxyklmnopqrst", False),
        (TWENTY[:16], True),
        (TWENTY[:15], False),
        ("abcdefghijkl", False),
        # ... and its bytes at most 4 x (the characters + that slack) + 200 of blanks.
        ("abcdefghij" + " " * 276 + "klmnopqrst", True),
        ("abcdefghij" + " " * 277 + "klmnopqrst", False),
    ],
)
def test_how_far_a_resembling_line_may_differ_in_length(line: str, hinted: bool) -> None:
    expected = resembles(2, line, TWENTY) if hinted else NOT_FOUND
    assert miss(f"zz\n{line}\n".encode(), TWENTY.encode()) == expected


def test_the_slack_is_at_least_three_characters() -> None:
    ten = "abcdefghij"
    assert miss(b"zz\nabcdeklmfghij\n", ten.encode()) == resembles(2, "abcdeklmfghij", ten)
    assert miss(b"zz\nabcdeklmnfghij\n", ten.encode()) == NOT_FOUND


def test_a_line_too_different_in_length_does_not_end_the_search() -> None:
    data = b"abcdefghijuvwxyzklmnopqrst\nabcdefghijuklmnopqrst\n"
    assert miss(data, TWENTY.encode()) == resembles(2, "abcdefghijuklmnopqrst", TWENTY)


def test_a_whitespace_variant_of_three_characters_is_named() -> None:
    assert miss(b"x\na    b\n", b"a b") == resembles(2, "a    b", "a b")


def test_a_whitespace_variant_must_have_the_same_case() -> None:
    """Line 1 differs in case as well as whitespace: the resembling line 2 is named."""
    assert miss(b"FOO BAR\nfoo barr\n", b"foo  bar") == resembles(2, "foo barr", "foo  bar")


def test_a_file_ending_in_a_cut_utf8_sequence_is_not_utf8() -> None:
    with pytest.raises(BorisError) as raised:
        replace(b"ab caf\xc3", b"ab", "\u00e9".encode(), False, PATH)
    assert str(raised.value).startswith(
        f"[INVALID_INPUT] new_str has non-ASCII characters, but {PATH} is not valid UTF-8"
    )


def test_a_file_of_whole_blocks_ending_in_a_cut_utf8_sequence_is_not_utf8() -> None:
    """The last of several 256 KiB blocks is checked as the end of the file."""
    data = b"a" * (CHUNK - 1) + b"\xc3"
    with pytest.raises(BorisError) as raised:
        insert(data, 0, "\u00e9".encode(), PATH)
    assert str(raised.value).startswith(
        f"[INVALID_INPUT] new_str has non-ASCII characters, but {PATH} is not valid UTF-8"
    )
    assert insert(data + b"\xa9", 0, "\u00e9".encode(), PATH).data.startswith(b"\xc3\xa9\n")


def test_the_resemblance_search_is_bounded() -> None:
    """Lines of a plausible length cost their length + 64 of a 4,000,000 budget; when it
    runs out, the best line seen so far is named (here: none, then line 1)."""
    filler = (b"z" * 20 + b"\n") * 50_000  # 4,200,000 of budget
    close = b"abcdefghijuklmnopqrst"
    assert miss(filler + close + b"\n", TWENTY.encode()) == NOT_FOUND
    assert miss(close + b"\n" + filler, TWENTY.encode()) == resembles(1, close.decode(), TWENTY)


def test_of_equally_resembling_lines_the_first_is_named() -> None:
    data = b"zz\nXbcdefghijklmnopqrst\nabcdefghijklmnopqrsX\n"
    assert miss(data, TWENTY.encode()) == resembles(2, "Xbcdefghijklmnopqrst", TWENTY)


def test_the_same_characters_in_another_order_do_not_resemble() -> None:
    """Resemblance is difflib's ratio (characters in order), not the characters alone."""
    assert miss(b"zz\ntsrqponmlkjihgfedcba\n", TWENTY.encode()) == NOT_FOUND


# --- size ------------------------------------------------------------------------------


def test_a_replace_all_too_large_is_refused_before_it_is_built() -> None:
    """100 KB of ``y`` each made 1,000: the 100 MB result is judged by its size, never made."""

    def check_size(size: int, subject: str) -> None:
        if size > 1_000_000:
            raise BorisError(Code.FILE_TOO_LARGE, f"{subject} {size} bytes")

    data = b"y" * 100_000
    tracemalloc.start()
    try:
        with pytest.raises(BorisError) as raised:
            replace_each(data, [Change(b"y", b"y" * 1000, True)], PATH, check_size, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(raised.value) == (
        "[FILE_TOO_LARGE] edit 1 of 1: the edited file would be 100000000 bytes"
    )
    assert peak < 10_000_000
