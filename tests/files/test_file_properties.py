"""Properties of the file tools over generated files, checked against simple oracles.

These call the tool functions (``str_replace``, ``view``, ``create_file``, the
editor's) in-process, with a real Session and real files, for speed; the tests in
tests/tools/ go through a real client.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from hypothesis import assume, event, given
from hypothesis import strategies as st
from mcp_types import ImageContent

from boris.errors import BorisError
from boris.files.lines import LONG_LINE_BYTES, LongLine, format_lines, read_lines, text_line
from boris.files.sniff import UTF8_BOM
from boris.session import Session
from tests.support.models import as_written, occurrences, oracle_view
from tests.support.sessions import (
    create_file,
    session_in_tempdir,
    str_replace,
    str_replace_editor,
    view,
)
from tests.support.strategies import EDGY_PIECES, WORDS, edgy_files, text_files, texts

P = ParamSpec("P")
T = TypeVar("T")


def outcome(call: Callable[[], Any]) -> Any:
    """A tool function's result, or its failure text."""
    try:
        return call()
    except BorisError as failure:
        return str(failure)


# --- (1) str_replace changes exactly the matched bytes ----------------------------------------


def oracle_replace(before: bytes, old: bytes, new: bytes) -> bytes | None:
    old, new = as_written(before, old, new)
    return before.replace(old, new, 1) if occurrences(before, old) == 1 else None


@st.composite
def replacement_cases(draw: st.DrawFn) -> tuple[bytes, str, str]:
    before = draw(edgy_files)
    if before and draw(st.booleans()):
        start = draw(st.integers(0, len(before) - 1))
        end = draw(st.integers(start + 1, len(before)))
        try:
            old = before[start:end].decode("utf-8")
        except UnicodeDecodeError:
            old = draw(texts)
    else:
        old = draw(texts)
    assume(old)
    return before, old, draw(texts)


@given(replacement_cases())
def test_str_replace_is_byte_exact(case: tuple[bytes, str, str]) -> None:
    check_replacement(*case)


@st.composite
def crlf_cases(draw: st.DrawFn) -> tuple[bytes, str, str]:
    """A CRLF file and strings written with bare LF, cut from its LF-only twin."""
    line_pieces = [p for p in EDGY_PIECES + WORDS if b"\n" not in p and b"\r" not in p]
    lines = draw(st.lists(st.lists(st.sampled_from(line_pieces), max_size=4), min_size=1))
    joined = [b"".join(line) for line in lines]
    ending = draw(st.sampled_from([b"", b"\n"]))
    lf_twin = b"\n".join(joined) + ending
    before = lf_twin.replace(b"\n", b"\r\n")
    start = draw(st.integers(0, max(0, len(lf_twin) - 1)))
    end = draw(st.integers(start, len(lf_twin)))
    try:
        old = lf_twin[start:end].decode("utf-8")
    except UnicodeDecodeError:
        old = draw(texts.filter(lambda t: "\r" not in t))
    assume(old)
    return before, old, draw(texts.filter(lambda t: "\r" not in t))


@given(crlf_cases())
def test_crlf_file_edited_with_lf_strings(case: tuple[bytes, str, str]) -> None:
    check_replacement(*case)


def refusal(before: bytes, old: str, new: str) -> str | None:
    """The INVALID_INPUT an edit gets before any matching: identical strings, or
    non-ASCII text for a file that is not valid UTF-8."""
    if old == new:
        return "[INVALID_INPUT] old_str and new_str are identical: nothing to replace"
    try:
        before.decode("utf-8")
    except UnicodeDecodeError:
        if not new.isascii():
            return "[INVALID_INPUT] new_str has non-ASCII characters, "
    return None


def check_replacement(before: bytes, old: str, new: str) -> None:
    with session_in_tempdir() as (session, root):
        path = root / "f.txt"
        path.write_bytes(before)
        session.mark_viewed(str(path))
        refused = refusal(before, old, new)
        expected = oracle_replace(before, old.encode(), new.encode())
        event("refused as invalid" if refused else "replaced" if expected else "not replaced")
        result = outcome(lambda: str_replace("f.txt", old, new, False, session=session))
        if refused is not None:
            assert result.startswith(refused), result
            assert path.read_bytes() == before
        elif expected is None:
            found = occurrences(before, as_written(before, old.encode(), new.encode())[0])
            code = "[STR_REPLACE_NOT_FOUND] " if found == 0 else "[STR_REPLACE_AMBIGUOUS] "
            assert result.startswith(code), result
            assert path.read_bytes() == before
        else:
            assert result.startswith(f"Replaced in {path}\n\n"), result
            assert path.read_bytes() == expected
        assert [p.name for p in root.iterdir()] == ["f.txt"]


@given(edgy_files, texts, texts)
def test_replace_all_is_bytes_replace(before: bytes, old: str, new: str) -> None:
    assume(old)
    with session_in_tempdir() as (session, root):
        path = root / "f.txt"
        path.write_bytes(before)
        session.mark_viewed(str(path))
        result = outcome(lambda: str_replace("f.txt", old, new, True, session=session))
        refused = refusal(before, old, new)
        if refused is not None:
            assert result.startswith(refused), result
            assert path.read_bytes() == before
            return
        old_b, new_b = as_written(before, old.encode(), new.encode())
        if old_b in before:
            assert result == f"Replaced {before.count(old_b)} occurrences in {path}"
            assert path.read_bytes() == before.replace(old_b, new_b)
        else:
            assert result.startswith("[STR_REPLACE_NOT_FOUND] ")
            assert path.read_bytes() == before


# --- (2) view_range gives exactly the requested lines, or the right error -------------------


@given(text_files, st.integers(-1, 12), st.integers(-2, 14))
def test_view_range_exact(data: bytes, start: int, end: int) -> None:
    with session_in_tempdir() as (session, root):
        path = root / "f.txt"
        path.write_bytes(data)
        result = outcome(lambda: view("f.txt", [start, end], session=session))
        assert result == oracle_view(data, start, end, path)
        # Only a successful view marks the file.
        assert session.has_viewed(str(path)) == (not result.startswith("[INVALID_INPUT]"))


@given(text_files)
def test_view_without_range_is_the_whole_small_file(data: bytes) -> None:
    with session_in_tempdir() as (session, root):
        (root / "f.txt").write_bytes(data)
        result = view("f.txt", None, session=session)
        assert result == oracle_view(data, 1, 10_000, root / "f.txt") if data else result == ""


@given(edgy_files, st.integers(1, 12), st.integers(0, 6), st.integers(1, 7), st.booleans())
def test_read_lines_across_chunk_boundaries(
    data: bytes, start: int, extra: int, chunk_size: int, count_all: bool
) -> None:
    # view has already refused start > end when it calls read_lines.
    end = start + extra
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    window = read_lines(io.BytesIO(data), start, end, count_all=count_all, chunk_size=chunk_size)
    assert window.lines == lines[start - 1 : end]
    # The total is known when asked for, or when the range ran past the end; a total
    # given is always right.
    if count_all or start > len(lines):
        assert window.total is not None
    assert window.total in (None, len(lines))


#: Pieces of a long line: characters of every UTF-8 length, bytes that are not UTF-8 (a
#: stray continuation, a character cut short, a surrogate's bytes), a CR, a byte order mark.
_PIECES = [b"a", "é".encode(), "€".encode(), "😀".encode(), b"\xff", b"\x80", b"\xe2\x82"]
_PIECES += [b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\r", UTF8_BOM, b"\t"]


@st.composite
def long_lines(draw: st.DrawFn) -> bytes:
    """A line around and beyond the length at which it is no longer kept whole."""
    unit = b"".join(draw(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6)))
    size = draw(st.integers(LONG_LINE_BYTES - 16, 3 * LONG_LINE_BYTES))
    line = (unit * (size // len(unit) + 1))[:size]
    return draw(st.sampled_from([b"", UTF8_BOM])) + line + draw(st.sampled_from([b"", b"\r"]))


@given(
    st.lists(st.one_of(long_lines(), st.sampled_from([b"", b"x", "é\r".encode()])), min_size=1),
    st.sampled_from([1, 3, 4096, LONG_LINE_BYTES + 1, 1 << 18]),
    st.booleans(),
)
def test_long_lines_are_shown_as_if_read_whole(
    lines: list[bytes], chunk_size: int, final_newline: bool
) -> None:
    """A line read without being kept (LongLine: its head and length) is shown byte for
    byte as the whole line is, whatever the chunks it is read in."""
    # (An empty last line is one only with its newline.)
    data = b"\n".join(lines) + (b"\n" if final_newline or not lines[-1] else b"")
    window = read_lines(io.BytesIO(data), 1, len(lines), chunk_size=chunk_size)
    event("a long line" if any(isinstance(line, LongLine) for line in window.lines) else "none")
    assert format_lines(window.lines, 1) == format_lines(lines, 1)
    assert format_lines(window.lines[1:], 2) == format_lines(lines[1:], 2)


@given(long_lines(), st.sampled_from(["", "\ud800", "\udfff\ud83d", "x\r"]))
def test_a_long_line_of_text_is_shown_as_its_bytes_are(line: bytes, extra: str) -> None:
    """A notebook's source line (text, which may hold a lone surrogate) is shown as its
    UTF-8 bytes (surrogates written as their own three bytes) would be."""
    text = line.decode("utf-8", "replace") + extra
    for shown in (text, text * 2):
        kept = text_line(shown, 0, len(shown))
        assert format_lines([kept], 1) == format_lines([shown.encode("utf-8", "surrogatepass")], 1)
        padded = "x\n" + shown + "\ny"
        assert text_line(padded, 2, 2 + len(shown)) == kept


# --- (3) the compat editor gives the split tools' results --------------------------------


@st.composite
def editor_calls(draw: st.DrawFn) -> tuple[dict[str, Any], Callable[[Session], Any]]:
    command = draw(st.sampled_from(["view", "str_replace", "create"]))
    if command == "view":
        view_range = draw(st.none() | st.lists(st.integers(-1, 12), min_size=2, max_size=2))
        return (
            {"command": "view", "view_range": view_range},
            lambda s: view("f.txt", view_range, session=s),
        )
    if command == "str_replace":
        old, new, replace_all = draw(texts), draw(texts), draw(st.booleans())
        return (
            {"command": "str_replace", "old_str": old, "new_str": new, "replace_all": replace_all},
            lambda s: str_replace("f.txt", old, new, replace_all, session=s),
        )
    content = draw(texts)
    return {"command": "create", "file_text": content}, lambda s: create_file(
        "f.txt", content, session=s
    )


def comparable(result: Any) -> Any:
    return result.model_dump() if isinstance(result, ImageContent) else result


@given(edgy_files, editor_calls(), st.booleans())
def test_editor_equals_split_tools(
    before: bytes, calls: tuple[dict[str, Any], Callable[[Session], Any]], viewed: bool
) -> None:
    editor_args, split_call = calls
    with session_in_tempdir() as (split_session, root):
        path = root / "f.txt"
        editor_session = Session(id="editor", runtime=split_session.runtime, cwd=str(root))
        results = []
        for session, call in (
            (split_session, lambda: split_call(split_session)),
            (
                editor_session,
                lambda: str_replace_editor(path="f.txt", session=editor_session, **editor_args),
            ),
        ):
            path.write_bytes(before)
            if viewed:
                session.mark_viewed(str(path))
            results.append((comparable(outcome(call)), path.read_bytes()))
        assert results[0] == results[1]


# --- (4) lone surrogates ----------------------------------------------------------------------


def test_lone_surrogates_are_invalid_input() -> None:
    """The transports refuse a lone surrogate before any tool runs (see
    test_str_replace.py); the tools refuse one too, naming the argument, and write
    nothing."""
    message = (
        "[INVALID_INPUT] {}: contains a lone UTF-16 surrogate, which is not valid Unicode text"
    )
    with session_in_tempdir() as (session, root):
        path = root / "f.txt"
        path.write_bytes(b"keep\n")
        session.mark_viewed(str(path))
        calls: dict[str, Callable[[], Any]] = {
            "old_str": lambda: str_replace("f.txt", "\ud800", "x", False, session=session),
            "new_str": lambda: str_replace("f.txt", "keep", "a\udfff", False, session=session),
            "content": lambda: create_file("f.txt", "\udc00", session=session),
            "insert_text": lambda: str_replace_editor(
                "insert", "f.txt", insert_line=1, insert_text="\ud800", session=session
            ),
        }
        for argument, call in calls.items():
            assert outcome(call) == message.format(argument)
        assert path.read_bytes() == b"keep\n"
        assert [p.name for p in root.iterdir()] == ["f.txt"]
