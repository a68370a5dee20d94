"""The pure pieces the bash tool runs on every chunk of output, checked against simple references.

Output arrives in pieces of any size; whatever the split, the streaming code must give
the answer the whole text gives (README "bash": the first 30000 characters of each
stream; progress one notification per line).
"""

from __future__ import annotations

import codecs
import itertools

from hypothesis import given
from hypothesis import strategies as st

from boris.shell.capture import Capture, sections, truncated
from boris.shell.progress import BURST, LineSplitter


def splits(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


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
    shown = whole
    if len(whole) > keep:
        shown = (
            f"{whole[:keep]}\n\n[Truncated: output was {len(whole)} characters, "
            f"showing first {keep}]"
        )
    assert capture.text(limit=keep) == shown


def test_truncation_message() -> None:
    assert truncated("abc", 3, limit=3) == "abc"
    assert (
        truncated("abcd", 4, limit=3)
        == "abc\n\n[Truncated: output was 4 characters, showing first 3]"
    )
    assert sections("", "") == ""
    assert sections("e\n", "o\n") == "\nstderr:\ne\n\nstdout:\no\n"


def lines_of(chunks: list[str]) -> list[tuple[int, str]]:
    sent: list[tuple[int, str]] = []
    count = 0

    def emit(skipped: int, line: str) -> None:
        nonlocal count
        count += skipped + 1
        sent.append((count, line))

    splitter = LineSplitter(emit)
    for chunk in chunks:
        splitter.feed(chunk)
    splitter.finish()
    return sent


def test_progress_lines() -> None:
    out = "a\n\nb\n__S__\n/tmp\n"
    expected = [(1, "a"), (2, ""), (3, "b"), (4, "__S__"), (5, "/tmp")]
    assert lines_of([out]) == expected
    assert lines_of(list(out)) == expected
    # The last unterminated line is sent too; a final newline adds no empty line.
    assert lines_of(["a\npartial"]) == [(1, "a"), (2, "partial")]
    assert lines_of(["\n", "\n"]) == [(1, ""), (2, "")]


@given(st.lists(st.sampled_from(["a", "b", "\n", "\n\n", "é", ""]), max_size=30), st.data())
def test_progress_lines_match_splitting_the_whole_text(
    pieces: list[str], data: st.DataObject
) -> None:
    """However the text is cut, every line goes out once, in order, counted from 1."""
    text = "".join(pieces)
    cuts = data.draw(st.lists(st.integers(min_value=0), max_size=8))
    whole = text.split("\n")
    if whole[-1] == "":
        whole.pop()
    assert lines_of(splits(text, cuts)) == list(enumerate(whole, 1))


@given(st.integers(BURST + 1, 5 * BURST))
def test_progress_bursts_skip_old_lines_but_count_them(n: int) -> None:
    text = "".join(f"{i}\n" for i in range(1, n + 1))
    sent = lines_of([text])
    assert len(sent) <= BURST
    assert sent[-1] == (n, str(n))
    assert all(line == str(count) for count, line in sent)
