"""Where runs of lines are found in a file (boris/files/patch/line_search.py), against a plain
search of a list of lines: in a file of several chunks that mixes line endings (its
lines are made codes a chunk at a time), for runs at the chunks' edges, runs longer
than the pieces lines are compared in, and lines whose codes are the same; and in small
files of every kind, where the bytes search of files with one line ending and the codes
of the others agree with it, for every way of comparing lines, with or without a bound.
The line index turns offsets and line numbers into each other as counting does."""

from __future__ import annotations

import functools
from bisect import bisect_left

from hypothesis import event, given
from hypothesis import strategies as st

from boris.files.lines import CHUNK
from boris.files.patch.line_search import LineFile, Lines, Tier, _encode, around, exact, trailing
from tests.support.models import BOM, lines_of
from tests.support.strategies import LINES, line_files

TIERS = {"exact": exact, "trailing": trailing, "around": around}
# Lines a search may ask for beyond the file's own: whitespace variants, a stranger.
ASKED = [*LINES, b"tail  ", b"  tail", b"alpha\t", b" beta ", b"nowhere"]


def starts(data: bytes) -> list[int]:
    """The offset of each line of the model's reading of ``data``."""
    bom, lines, _ = lines_of(data)
    offsets, offset = [], len(bom)
    for text, ending in lines:
        offsets.append(offset)
        offset += len(text) + len(ending)
    return offsets


def plain_find(
    texts: list[bytes], wanted: list[bytes], first: int, tier: Tier, before: int | None = None
) -> int:
    last = len(texts) - len(wanted) if before is None else min(before - 1, len(texts) - len(wanted))
    for index in range(first, last + 1):
        if all(tier(texts[index + k]) == tier(line) for k, line in enumerate(wanted)):
            return index
    return -1


# --- files of several chunks: the codes of a file are made a chunk at a time ---------------

#: Texts of the large file's lines: trailing and leading blanks for the lenient tiers,
#: empty lines, and "XX" lines one after the other (so "XX\nXX" occurs).
VOCABULARY = [b"alpha", b"beta  ", b"  gamma", b"", b"XX", b"XX", b"x\ty", b"alpha"]
TAIL = b"tail \t"


@functools.cache
def large_file() -> tuple[bytes, list[bytes], list[int]]:
    """A file of several chunks (CHUNK bytes) with a BOM, LF and CRLF endings mixed, a
    line longer than a chunk and a last line without a newline: its bytes, and the
    model's texts and line offsets."""
    parts = [BOM]
    for n in range(60_000):
        text = b"line %d" % n if n % 3 == 0 else VOCABULARY[n % len(VOCABULARY)]
        if n == 25_000:
            text = b"long" + b"-" * (CHUNK + 1_000) + b"  "
        parts.append(text + (b"\r\n" if n % 7 == 3 else b"\n"))
    parts.append(TAIL)
    data = b"".join(parts)
    return data, [text for text, _ in lines_of(data)[1]], starts(data)


def edges(data: bytes, offsets: list[int]) -> list[int]:
    """The lines near each multiple of CHUNK, and near the long line's ends, where a
    chunk of the file may end."""
    long = next(i for i, offset in enumerate(offsets) if data.startswith(b"long", offset))
    marks = [k * CHUNK for k in range(1, len(data) // CHUNK + 1)]
    marks += [offsets[long], offsets[long + 1], offsets[long + 1] + CHUNK]
    near: set[int] = set()
    for mark in marks:
        line = bisect_left(offsets, mark)
        near.update(range(max(line - 6, 0), min(line + 6, len(offsets))))
    return sorted(near)


def variants(texts: list[bytes], name: str) -> list[bytes]:
    """Lines as a search under ``name`` would be asked them: other blanks where the
    tier ignores them (without the file's, or with some it has not)."""
    if name == "trailing":
        return [text.rstrip(b" \t") if text[-1:].isspace() else text + b" " for text in texts]
    if name == "around":
        return [
            b"\t" + text.strip(b" \t") if text.strip() != text else b" " + text for text in texts
        ]
    return texts


def test_a_file_of_several_chunks_is_searched_as_a_plain_search_finds() -> None:
    data, texts, offsets = large_file()
    file = LineFile(data)
    assert file.ending is None  # mixed: every tier goes through the codes
    assert file.count == len(texts)
    offsets = [*offsets, len(data)]
    for name, tier in TIERS.items():
        keys = [tier(text) for text in texts]
        for line in edges(data, offsets[:-1]):
            for size in (1, 3):
                wanted = variants(texts[line : line + size], name)
                asked = Lines.of(wanted)
                first = max(line - 40, 0)
                expected = plain_find(keys, [tier(text) for text in wanted], first, exact)
                assert expected >= 0
                assert file.find(asked, offsets[first], tier) == offsets[expected]
                # Bounded just after the place, and at it.
                before = offsets[expected + 1]
                assert file.find(asked, offsets[first], tier, before) == offsets[expected]
                limited = plain_find(keys, [tier(text) for text in wanted], first, exact, expected)
                assert file.find(asked, offsets[first], tier, offsets[expected]) == (
                    offsets[limited] if limited >= 0 else -1
                )
        # The first places of runs that occur everywhere, some on consecutive lines.
        for run in ([b"XX"], [b"XX", b"XX"]):
            wanted = variants(run, name)
            size = len(wanted)
            firsts = [
                n for n in range(len(keys)) if keys[n : n + size] == [tier(t) for t in wanted]
            ]
            assert file.places(Lines.of(wanted), 0, tier, None, 3) == [
                offsets[n] for n in firsts[:3]
            ]
        # The last line, which has no newline, and the lines before it.
        wanted = variants(texts[-3:], name)
        assert file.find(Lines.of(wanted), offsets[-60], tier) == offsets[-4]
        assert file.find(Lines.of([*wanted, b""]), offsets[-60], tier) == -1


def test_runs_of_lines_longer_than_a_piece_are_compared_whole() -> None:
    """Runs of lines of more than a piece (64 KiB), across the chunks of the file: found,
    and told apart from runs that differ only in their last line."""
    data, texts, offsets = large_file()
    file = LineFile(data)
    for line, size in ((3, 12_000), (24_990, 20), (40_000, 19_999)):
        run = texts[line : line + size]
        assert len(b"\n".join(run)) > 1 << 16
        for name, tier in TIERS.items():
            asked = Lines.of(variants(run, name))
            assert file.matches_at(offsets[line], asked, tier)
            assert file.find(asked, offsets[line - 3], tier) == offsets[line]
            assert file.find(asked, offsets[line - 3], tier, offsets[line]) == -1
            changed = Lines.of([*variants(run[:-1], name), b"nowhere"])
            assert not file.matches_at(offsets[line], changed, tier)
            assert file.find(changed, offsets[line - 3], tier) == -1


def test_lines_that_share_a_code_are_told_apart() -> None:
    """Two different lines whose codes are the same (found among many lines: a code
    keeps 28 bits of a hash) are still told apart: a place is found only where the
    lines are equal."""
    texts = [b"line %d" % n for n in range(100_000)]
    codes = _encode(texts, exact)
    first: dict[bytes, int] = {}
    for n in range(len(texts)):
        other = first.setdefault(codes[4 * n : 4 * n + 4], n)
        if other != n:
            one, two = texts[other], texts[n]
            break
    else:
        raise AssertionError("no two codes alike among 100000 lines")
    # Mixed line endings: every tier goes through the codes.
    data = two + b"\r\n" + one + b"\n" + two + b"\n"
    file = LineFile(data)
    second = len(two) + 2
    for tier in TIERS.values():
        assert file.find(Lines.of([two]), second, tier) == second + len(one) + 1
        assert file.find(Lines.of([one]), 0, tier) == second
        assert file.find(Lines.of([two, one]), 0, tier) == 0


def test_the_line_index_at_the_end_of_files_of_every_length() -> None:
    """Line numbers and offsets at and near the end of files of every length near the
    ends of the index's first steps (1 KiB each), with and without a BOM: lines of 0
    to 4 bytes."""
    text = b"".join(b"x" * (n % 5) + b"\n" for n in range(2000))
    lines = starts(text)
    for size in (size for size in range(5000) if size < 64 or min(size % 1024, -size % 1024) < 9):
        count = bisect_left(lines, size)  # the lines that start before the end
        for bom in (b"", BOM):
            data = bom + text[:size]
            file = LineFile(data)
            assert file.count == count
            assert file.number(len(data)) == count
            assert file.offset_of(count) == len(data)
            if count:
                last = len(bom) + lines[count - 1]
                assert file.number(last) == count - 1
                assert file.offset_of(count - 1) == last


# --- against a plain search, on small files of every kind ---------------------------------


@st.composite
def searches(draw: st.DrawFn) -> tuple[bytes, list[bytes], int, str]:
    data = draw(line_files())
    _, lines, _ = lines_of(data)
    texts = [text for text, _ in lines]
    wanted: list[bytes]
    from_the_file = draw(st.booleans())
    if texts and from_the_file:
        begin = draw(st.integers(0, len(texts) - 1))
        wanted = texts[begin : begin + draw(st.integers(1, 3))]
    else:
        wanted = draw(st.lists(st.sampled_from(ASKED), min_size=1, max_size=3))
    first = draw(st.integers(0, len(texts)))
    return data, wanted, first, draw(st.sampled_from(sorted(TIERS)))


@given(searches(), st.integers(0, 40))
def test_found_where_a_plain_search_finds(
    search: tuple[bytes, list[bytes], int, str], bound: int
) -> None:
    data, wanted, first, name = search
    tier = TIERS[name]
    _, lines, _ = lines_of(data)
    texts = [text for text, _ in lines]
    offsets = [*starts(data), len(data)]
    file = LineFile(data)
    event("one line ending" if file.ending is not None else "mixed line endings")
    asked = Lines.of(wanted)
    expected = plain_find(texts, wanted, first, tier)
    found = file.find(asked, offsets[first], tier)
    assert found == (offsets[expected] if expected >= 0 else -1)
    if expected >= 0:
        event("found")
        following = plain_find(texts, wanted, expected + 1, tier)
        places = file.places(asked, found, tier, None, 2)
        assert places[1:] == ([offsets[following]] if following >= 0 else [])
    # Bounded: only places before the line ``bound`` (or the end) count.
    before = min(bound, len(texts))
    limited = plain_find(texts, wanted, first, tier, before)
    assert file.find(asked, offsets[first], tier, offsets[before]) == (
        offsets[limited] if limited >= 0 else -1
    )
    assert file.count == len(texts)


@given(line_files(), st.integers(1, 7))
def test_the_line_index_counts_as_counting_does(data: bytes, every: int) -> None:
    file = LineFile(data * 150)  # past several of the index's steps
    many = [*starts(data * 150), len(data * 150)]
    for line in [*range(0, len(many), every), len(many) - 1]:  # a sample: each call walks
        offset = many[line]
        assert file.number(offset) == (line if line < len(many) - 1 else file.count)
        assert file.offset_of(line) == offset
    assert LineFile(data).last_lines(0) == len(data)
