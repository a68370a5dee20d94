"""Properties of the file tools over generated files, checked against simple oracles.

These call the tool functions (``str_replace``, ``view``, ``create_file``, the
editor's) in-process, with a real Session and real files, for speed; the tests in
tests/tools/ go through a real client.
"""

from __future__ import annotations

import asyncio
import functools
import io
import tempfile
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from hypothesis import assume, event, given
from hypothesis import strategies as st
from mcp_types import ImageContent

from boris.errors import BorisError
from boris.files.lines import read_lines
from boris.files.scope import PathScope
from boris.session import Runtime, Session
from boris.settings import Settings
from boris.tools import create_file as create_file_tool
from boris.tools import str_replace as str_replace_tool
from boris.tools import str_replace_editor as editor_tool
from boris.tools import view as view_tool

P = ParamSpec("P")
T = TypeVar("T")


def in_loop(tool: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """An (async) tool function called as a plain one, each call on an event loop of its own."""

    @functools.wraps(tool)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(tool(*args, **kwargs))

    return call


create_file = in_loop(create_file_tool.create_file)
str_replace = in_loop(str_replace_tool.str_replace)
str_replace_editor = in_loop(editor_tool.str_replace_editor)
view = in_loop(view_tool.view)

BOM = b"\xef\xbb\xbf"

# Pieces that make files awkward: CR, CRLF, a BOM, invalid UTF-8, multi-byte characters.
EDGY_PIECES = [
    b"a",
    b"b",
    b"x",
    b"foo",
    b" ",
    b"\t",
    b"\n",
    b"\n",
    b"\r",
    b"\r\n",
    b"\r\n",
    BOM,
    b"\xff",
    b"\xc3",
    b"\x80",
    b"\xc3\xa9",
    b"\xe2\x82\xac",
    b"\xf0\x9f\x98\x80",
    b"\x1b[0m",
]
# Distinct words make a slice of a file likely to occur once in it.
WORDS = [w.encode() for w in ("alpha", "beta", "gamma", "delta", "omega", "0", "1", "2", "3")]
files = st.lists(st.sampled_from(EDGY_PIECES + WORDS), max_size=40).map(b"".join)
# Files that stay text for view (no control bytes a sniffer calls binary), with lines
# that sometimes pass the 2000-character cut.
text_files = st.lists(
    st.sampled_from([*EDGY_PIECES, b"y" * 1999, "é".encode() * 1500]), max_size=30
).map(b"".join)
texts = st.text(alphabet=st.sampled_from(["a", "b", "x", "é", "€", " ", "\t", "\n", "\r"]))


@contextmanager
def session_in_tempdir(**settings: Any) -> Iterator[tuple[Session, Path]]:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory).resolve()
        runtime = Runtime(Settings(workdir=str(root), **settings), PathScope([], []), "/bin/sh")
        yield Session(id="test", runtime=runtime, cwd=str(root)), root


def outcome(call: Callable[[], Any]) -> Any:
    """A tool function's result, or its failure text."""
    try:
        return call()
    except BorisError as failure:
        return str(failure)


# --- (1) str_replace changes exactly the matched bytes ----------------------------------------


def uses_crlf(data: bytes) -> bool:
    return b"\r\n" in data and data.count(b"\r\n") == data.count(b"\n")


def as_written(before: bytes, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """The rule: exact bytes, except LF strings in a CRLF file mean CRLF (unless either has a
    CRLF of its own)."""
    if (
        uses_crlf(before)
        and b"\r\n" not in old
        and b"\r\n" not in new
        and (b"\n" in old or b"\n" in new)
    ):
        return old.replace(b"\n", b"\r\n"), new.replace(b"\n", b"\r\n")
    return old, new


def occurrences(before: bytes, old: bytes) -> int:
    """Places where ``old`` starts in ``before``, overlapping ones included."""
    return sum(before.startswith(old, i) for i in range(len(before)))


def oracle_replace(before: bytes, old: bytes, new: bytes) -> bytes | None:
    old, new = as_written(before, old, new)
    return before.replace(old, new, 1) if occurrences(before, old) == 1 else None


@st.composite
def replacement_cases(draw: st.DrawFn) -> tuple[bytes, str, str]:
    before = draw(files)
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


@given(files, texts, texts)
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


def oracle_view(data: bytes, start: int, end: int, path: Path) -> str:
    if end == -1:  # -1 means the last line
        end = 10**9
    if start < 1:
        return f"[INVALID_INPUT] view_range start must be 1 or more, got {start}"
    if start > end:
        return (
            f"[INVALID_INPUT] view_range start {start} is greater than end {end}; "
            "give [start, end] with start <= end"
        )
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    if start > len(lines):
        return f"[INVALID_INPUT] start {start} exceeds total lines {len(lines)} in {path}"
    shown = lines[start - 1 : end]
    width = len(str(start + len(shown) - 1))
    out = []
    for number, raw in enumerate(shown, start):
        if number == 1:
            raw = raw.removeprefix(BOM)
        text = raw.removesuffix(b"\r").decode("utf-8", "replace")
        if len(text) > 2000:
            text = f"{text[:2000]}... [truncated, {len(text)} chars total]"
        out.append(f"{number:>{width}}\t{text}\n")
    return "".join(out)


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


@given(files, st.integers(1, 12), st.integers(0, 6), st.integers(1, 7), st.booleans())
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


@given(files, editor_calls(), st.booleans())
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
