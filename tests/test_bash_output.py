"""The pure pieces the bash tool runs on every chunk of output, checked against simple references.

Output arrives in pieces of any size; whatever the split, the streaming code must give
the answer the whole-text rule gives (SPEC §5 "bash": the last sentinel line and the
pwd line after it; truncation at 30000 characters after sentinel parsing).
"""

from __future__ import annotations

import codecs
import itertools

from hypothesis import given
from hypothesis import strategies as st

from boris.output import (
    MAX_PWD,
    Capture,
    SentinelBlock,
    SentinelScanner,
    sections,
    truncated,
)
from boris.progress import BURST, LineSplitter

SENTINEL = "__S__"


def last_block(text: str, sentinel: str, max_pwd: int = MAX_PWD) -> SentinelBlock | None:
    """The reference rule on a whole text: the last ``⏎sentinel⏎`` and the line after it."""
    max_pwd = max(max_pwd, len(sentinel))
    marker = f"\n{sentinel}\n"
    start = text.rfind(marker)
    if start < 0:
        return None
    pwd_from = start + len(marker)
    nl = text.find("\n", pwd_from)
    if nl < 0:
        return SentinelBlock(start, len(text), None) if len(text) - pwd_from <= max_pwd else None
    pwd = text[pwd_from:nl]
    return SentinelBlock(start, nl + 1, pwd) if len(pwd) <= max_pwd else None


# Text made of the pieces that matter: newlines, the sentinel, fragments of it.
pieces = st.lists(
    st.sampled_from(
        ["\n", SENTINEL, f"\n{SENTINEL}\n", "\n/p\n", "__S", "_", "S__", "/dir", "x", "é", ""]
    ),
    max_size=40,
).map("".join)


def splits(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def scan(chunks: list[str], max_pwd: int) -> SentinelBlock | None:
    scanner = SentinelScanner(SENTINEL, max_pwd=max_pwd)
    for chunk in chunks:
        scanner.feed(chunk)
    return scanner.result()


@given(pieces, st.lists(st.integers(min_value=0), max_size=8), st.integers(5, 12))
def test_scanner_matches_the_whole_text_rule(text: str, cuts: list[int], max_pwd: int) -> None:
    assert scan(splits(text, cuts), max_pwd) == last_block(text, SENTINEL, max_pwd)


@given(pieces, st.integers(5, 12))
def test_scanner_one_character_at_a_time(text: str, max_pwd: int) -> None:
    assert scan(list(text), max_pwd) == last_block(text, SENTINEL, max_pwd)


def test_scanner_examples() -> None:
    # The wrapper's newline, sentinel and pwd after `printf abc` and after `echo abc`.
    assert last_block("abc\n__S__\n/tmp\n", SENTINEL) == SentinelBlock(3, 15, "/tmp")
    assert last_block("abc\n\n__S__\n/tmp\n", SENTINEL) == SentinelBlock(4, 16, "/tmp")
    # A sentinel on the first line has no newline before it: never the wrapper's.
    assert last_block("__S__\n/tmp\n", SENTINEL) is None
    # Cut short (killed while printing it): removed, but no cwd.
    assert last_block("out\n__S__\n/tm", SENTINEL) == SentinelBlock(3, 13, None)
    # Output after the pwd line (a late background writer) stays.
    assert last_block("\n__S__\n/d\nlate\n", SENTINEL) == SentinelBlock(0, 10, "/d")
    # A "pwd" line that is itself a sentinel line starts a newer block.
    assert last_block("\n__S__\n__S__\n/p\n", SENTINEL) == SentinelBlock(6, 16, "/p")
    # A "pwd" line too long to be one: not the wrapper's block.
    assert last_block("\n__S__\n" + "x" * 5000 + "\n", SENTINEL) is None


@given(st.binary(max_size=300), st.lists(st.integers(min_value=0), max_size=6), st.integers(1, 50))
def test_capture_keeps_the_head_and_counts_characters(
    data: bytes, cuts: list[int], keep: int
) -> None:
    capture = Capture(keep=keep)
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    decoded = "".join(capture.feed(data[a:b]) for a, b in itertools.pairwise(bounds))
    decoded += capture.finish()
    whole = codecs.decode(data, "utf-8", "replace")
    assert decoded == whole
    assert capture.total == len(whole)
    assert capture.head == whole[:keep]
    assert capture.text(limit=keep) == truncated(whole[:keep], len(whole), keep)


@given(pieces, st.lists(st.integers(min_value=0), max_size=6), st.integers(5, 12))
def test_cutting_the_block_from_a_bounded_capture(text: str, cuts: list[int], max_pwd: int) -> None:
    # The capture keeps `limit + scanner.keep` characters, so cutting the block from it
    # shows what cutting it from the whole text would.
    limit = 7
    scanner = SentinelScanner(SENTINEL, max_pwd=max_pwd)
    capture = Capture(keep=limit + scanner.keep)
    for chunk in splits(text, cuts):
        scanner.feed(capture.feed(chunk.encode()))
    scanner.feed(capture.finish())
    block = scanner.result()
    expected = text
    if block is not None:
        capture.cut(block.start, block.end)
        expected = text[: block.start] + text[block.end :]
    assert capture.text(limit) == truncated(expected[:limit], len(expected), limit)


def test_truncation_message() -> None:
    assert truncated("abc", 3, limit=3) == "abc"
    assert (
        truncated("abcd", 4, limit=3)
        == "abc\n\n[Truncated: output was 4 characters, showing first 3]"
    )
    assert sections("", "") == ""
    assert sections("e\n", "o\n") == "\nstderr:\ne\n\nstdout:\no\n"


def lines_of(chunks: list[str], sentinel: str | None = SENTINEL) -> list[tuple[int, str]]:
    sent: list[tuple[int, str]] = []
    count = 0

    def emit(skipped: int, line: str) -> None:
        nonlocal count
        count += skipped + 1
        sent.append((count, line))

    splitter = LineSplitter(emit, sentinel)
    for chunk in chunks:
        splitter.feed(chunk)
    splitter.finish()
    return sent


def test_progress_lines_hide_the_wrapper() -> None:
    # `echo a; echo; printf b` then the wrapper's newline, sentinel and pwd.
    out = "a\n\nb\n__S__\n/tmp\n"
    assert lines_of([out]) == [(1, "a"), (2, ""), (3, "b")]
    assert lines_of(list(out)) == [(1, "a"), (2, ""), (3, "b")]
    # `echo a; echo` keeps the user's blank line, drops the wrapper's.
    assert lines_of(["a\n\n\n__S__\n/tmp\n"]) == [(1, "a"), (2, "")]
    # No sentinel (a killed command): the last unterminated line is still sent.
    assert lines_of(["a\npartial"]) == [(1, "a"), (2, "partial")]
    # stderr has no sentinel handling at all.
    assert lines_of(["\n__S__\n"], sentinel=None) == [(1, ""), (2, "__S__")]


@given(st.integers(BURST + 1, 5 * BURST))
def test_progress_bursts_skip_old_lines_but_count_them(n: int) -> None:
    text = "".join(f"{i}\n" for i in range(1, n + 1)) + "\n__S__\n/tmp\n"
    sent = lines_of([text])
    assert len(sent) <= BURST
    assert sent[-1] == (n, str(n))
    assert all(line == str(count) for count, line in sent)
