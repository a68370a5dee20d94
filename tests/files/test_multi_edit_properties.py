"""multi_edit over generated files and edit sequences, against a model written here: each
edit is ``bytes.replace(old, new, 1)`` on the result of the one before, and the first edit
that cannot apply leaves the file byte-identical (README "multi_edit")."""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from boris.errors import BorisError
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
