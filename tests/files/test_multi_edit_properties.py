"""multi_edit over generated files and edit sequences, against a model written here: each
edit is ``bytes.replace(old, new, 1)`` on the result of the one before, and the first edit
that cannot apply leaves the file byte-identical (README "multi_edit")."""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import assume, event, example, given
from hypothesis import strategies as st

from boris.errors import BorisError
from boris.files.edit_bytes import Change, Region, replace_each
from boris.session import Session
from boris.tools import multi_edit as multi_edit_tool
from boris.tools.multi_edit import Replacement
from tests.support.models import as_written, occurrences
from tests.support.sessions import in_loop, session_in_tempdir, view
from tests.support.strategies import edgy_files, texts

# Mostly what an agent writes: ASCII, which fits a file in any encoding.
ascii_texts = st.text(alphabet=st.sampled_from(["a", "b", "x", " ", "\n"]), max_size=8)


def valid_utf8(data: bytes) -> bool:
    try:
        codecs.decode(data, "utf-8")
    except UnicodeDecodeError:
        return False
    return True


def model(before: bytes, edits: list[tuple[str, str]]) -> tuple[bytes, int | None]:
    """The file after ``edits``, or the number of the first edit that fails (1-based)."""
    data = before
    for number, (old_str, new_str) in enumerate(edits, 1):
        if not old_str or old_str == new_str:
            return before, number
        old, new = as_written(data, old_str.encode(), new_str.encode())
        if not new.isascii() and not valid_utf8(data):
            return before, number
        if occurrences(data, old) != 1:
            return before, number
        data = data.replace(old, new, 1)
    return data, None


@st.composite
def edit_sequences(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, str]]]:
    """A file and 1-6 edits, most of them cut from the text as the edits before left it (so
    usually unique at their turn), some arbitrary (so sometimes failing)."""
    before = draw(edgy_files)
    data = before
    edits = []
    for _ in range(draw(st.integers(1, 6))):
        old = ""
        if data and draw(st.integers(0, 4)) > 0:
            start = draw(st.integers(0, len(data) - 1))
            old = unique_text_from(data, start, draw(st.integers(1, 12)))
        if not old:
            old = draw(texts)
        new = draw(st.one_of(ascii_texts, texts))
        edits.append((old, new))
        data, _ = model(data, [(old, new)])
    return before, edits


def unique_text_from(data: bytes, start: int, length: int) -> str:
    """The first slice of ``data`` from about ``start`` that is valid UTF-8 and occurs once,
    as an agent copies text from a file ("" if there is none)."""
    for begin in range(start, len(data)):
        for end in range(min(begin + length, len(data)), len(data) + 1):
            piece = data[begin:end]
            if occurrences(data, piece) == 1:
                try:
                    return piece.decode("utf-8")
                except UnicodeDecodeError:
                    break
    return ""


multi_edit = in_loop(multi_edit_tool.multi_edit)


def run(session: Session, root: Path, before: bytes, edits: list[tuple[str, str]]) -> str:
    path = root / "f.txt"
    path.write_bytes(before)
    view(path=str(path), session=session)
    replacements = [Replacement(old_str=old, new_str=new) for old, new in edits]
    try:
        return multi_edit(path=str(path), edits=replacements, session=session)
    except BorisError as failure:
        return str(failure)


@given(edit_sequences())
def test_multi_edit_is_replace_once_in_sequence(case: tuple[bytes, list[tuple[str, str]]]) -> None:
    before, edits = case
    expected, failed = model(before, edits)
    with session_in_tempdir() as (session, root):
        result = run(session, root, before, edits)
        after = (root / "f.txt").read_bytes()
    if failed is None:
        event("applied")
        assert result.startswith(f"Applied {len(edits)} edits to {root / 'f.txt'}\n\n"), result
        assert after == expected
    else:
        event(f"edit {failed} of {len(edits)} failed")
        assert result.startswith("["), result
        assert f"] edit {failed} of {len(edits)}: " in result, result
        assert after == before


# --- where the edits are, for the result's snippets -------------------------------------

# Few short pieces, so that edits overlap, touch and repeat: regions merge and move.
dense_files = st.lists(st.sampled_from([b"a", b"b", b"ab", b"\n", b"\r\n", b"ba"]), max_size=30)
dense_texts = st.sampled_from(["", "a", "b", "ab", "ba", "x", "xy", "a\n", "\n", "b\nb"])

Token = tuple[int | None, bool]  # a byte (None: the place of a deletion), edited or not


def edited_regions(
    before: bytes, changes: list[tuple[str, str, bool]]
) -> tuple[bytes, list[Region]] | None:
    """The result of ``changes`` and its edited regions (None if one cannot apply): each
    byte carries whether an edit wrote it, a deletion leaves an empty edited mark, and a
    region is a run of edited bytes and marks, as ranges of the result."""
    tokens: list[Token] = [(byte, False) for byte in before]
    for old_str, new_str, replace_all in changes:
        data = bytes(byte for byte, _ in tokens if byte is not None)
        old, new = as_written(data, old_str.encode(), new_str.encode())
        if not old or old == new or (not replace_all and occurrences(data, old) != 1):
            return None
        starts, at = [], data.find(old)
        while at >= 0:  # bytes.replace's places: left to right, without overlaps
            starts.append(at)
            at = data.find(old, at + len(old))
        if not starts:
            return None
        written: list[Token] = [(byte, True) for byte in new] or [(None, True)]
        result: list[Token] = []
        offset = 0
        for token in tokens:
            if token[0] is None:
                result.append(token)
                continue
            if offset in starts:
                result += written
            inside = any(start <= offset < start + len(old) for start in starts)
            if not inside:
                result.append(token)
            offset += 1
        tokens = result
    regions: list[Region] = []
    offset, run_start = 0, None
    for byte, edited in [*tokens, (None, False)]:
        if edited and run_start is None:
            run_start = offset
        elif not edited and run_start is not None:
            regions.append((run_start, offset))
            run_start = None
        offset += byte is not None
    return bytes(byte for byte, _ in tokens if byte is not None), regions


@st.composite
def dense_edits(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, str, bool]]]:
    """A file and 1-5 edits that apply, most of them cut from the text as the edits before
    left it."""
    before = draw(st.one_of(dense_files.map(b"".join), edgy_files))
    data, changes = before, []
    for _ in range(draw(st.integers(1, 5))):
        every = draw(st.booleans())
        old = ""
        if data and draw(st.integers(0, 3)) > 0:
            start = draw(st.integers(0, len(data) - 1))
            length = draw(st.integers(1, 3))
            if every:
                old = data[start : start + length].decode("utf-8", "replace")
            else:
                old = unique_text_from(data, start, length)
        if not old or "\ufffd" in old:
            old = draw(dense_texts)
        change = (old, draw(dense_texts), every)
        after = edited_bytes(data, change)
        if after is None:  # the edits that apply, and at least one
            break
        changes.append(change)
        data = after
    assume(changes)
    return before, changes


def edited_bytes(data: bytes, change: tuple[str, str, bool]) -> bytes | None:
    old, new = as_written(data, change[0].encode(), change[1].encode())
    if not old or old == new or occurrences(data, old) == 0:
        return None
    if not change[2] and occurrences(data, old) != 1:
        return None
    return data.replace(old, new)


@given(dense_edits())
# A region's end inside a later edit's text; its start inside a deleted text; its start
# inside the second place of a replace_all.
@example((b"xxyz", [("xx", "pqrs", False), ("syz", "t", False)]))
@example((b"abxx", [("xx", "pqrs", False), ("bp", "", False)]))
@example((b"ab-ab-cd", [("-cd", "-bX", False), ("b-", "QQQQ", True)]))
def test_edited_regions_follow_every_edit(case: tuple[bytes, list[tuple[str, str, bool]]]) -> None:
    before, changes = case
    expected = edited_regions(before, changes)
    if expected is None:
        return
    event(f"{len(expected[1])} regions")
    edits = [Change(old.encode(), new.encode(), every) for old, new, every in changes]
    data, regions = replace_each(before, edits, "f.txt", lambda size, what: None)
    assert (data, regions) == expected
