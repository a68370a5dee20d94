"""Where runs of lines are found in a file (boris/files/patch/line_search.py), against a plain
search of a list of lines: the bytes search of files with one line ending and the codes
of the others agree with it, for every way of comparing lines, with or without a bound;
and the line index turns offsets and line numbers into each other as counting does."""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from boris.files.patch.line_search import LineFile, Lines, Tier, around, exact, trailing
from tests.support.models import lines_of
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
