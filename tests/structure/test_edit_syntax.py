"""The syntax check of an edit (boris.structure.edit_syntax): per language, the error an
edit brings in at the line and column a reader looks at; errors a file already had are
not news; columns count characters whatever the bytes around; Python's own parser as
the oracle of when a warning is due."""

from __future__ import annotations

import ast
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boris.structure.edit_syntax import MAX_STRETCH, check_syntax_off_loop, syntax_check
from boris.structure.languages import LANGUAGES

#: For each language: a valid source, the text an edit replaces, its broken
#: replacement, and where the error is (line, column) and what it says.
BREAKS: dict[str, tuple[bytes, bytes, bytes, tuple[int, int, str]]] = {
    "python": (
        b"def area(w, h):\n    return w * h\n\nprint(area(2, 3))\n",
        b"return w * h",
        b"return (w * h",
        (2, 12, "unexpected (w * h"),
    ),
    "javascript": (
        b"function area(w, h) {\n  return w * h;\n}\nconsole.log(area(2, 3));\n",
        b"return w * h;",
        b"return w * ;",
        (2, 13, "missing identifier"),
    ),
    "typescript": (
        b"function area(w: number, h: number): number {\n  return w * h;\n}\n",
        b"return w * h;",
        b"return w * ;",
        (2, 13, "missing identifier"),
    ),
    "tsx": (
        b"const App = () => {\n  return <div>{area(w, h)}</div>;\n};\n",
        b"{area(w, h)}",
        b"{area(w, h}",
        (2, 25, "missing )"),
    ),
    "go": (
        b"package main\n\nfunc area(w, h int) int {\n\treturn w * h\n}\n",
        b"return w * h",
        b"return w * (h",
        (4, 15, "missing )"),
    ),
    "rust": (
        b"fn area(w: u32, h: u32) -> u32 {\n    let a = w * h;\n    a\n}\n",
        b"let a = w * h;",
        b"let a = w * h",
        (3, 5, "unexpected a"),
    ),
    "java": (
        b"class Shape {\n    int area(int w, int h) {\n        return w * h;\n    }\n}\n",
        b"return w * h;",
        b"return w * h",
        (3, 21, "missing ;"),
    ),
    "c": (
        b"int area(int w, int h) {\n    int a = w * h;\n    return a;\n}\n",
        b"int a = w * h;",
        b"int a = w * h",
        (2, 18, "missing ;"),
    ),
    "cpp": (
        b"class Shape {\n public:\n  int area(int w, int h) { return w * h; }\n};\n",
        b"return w * h;",
        b"return w * h",
        (3, 40, "missing ;"),
    ),
    "c_sharp": (
        b"class Shape {\n    int Area(int w, int h) {\n        return w * h;\n    }\n}\n",
        b"return w * h;",
        b"return w * h",
        (3, 9, "unexpected return w * h"),
    ),
    "ruby": (
        b"def area(w, h)\n  w * h\nend\n\nputs area(2, 3)\n",
        b"puts area(2, 3)",
        b"puts area(2, 3",
        (5, 15, "missing )"),
    ),
    "php": (
        b"<?php\nfunction area($w, $h) {\n    return $w * $h;\n}\n",
        b"return $w * $h;",
        b"return $w * $h",
        (3, 5, "unexpected return $w * $h"),
    ),
    "kotlin": (
        b"fun area(w: Int, h: Int): Int {\n    return w * h\n}\n",
        b"return w * h",
        b"return w * (h",
        (2, 18, "missing )"),
    ),
    "swift": (
        b"func area(w: Int, h: Int) -> Int {\n    return w * h\n}\n",
        b"return w * h",
        b"return w * (h",
        (2, 18, "missing )"),
    ),
    "bash": (
        b"area() {\n  echo $(( $1 * $2 ))\n}\narea 2 3\n",
        b"area 2 3",
        b"if area 2 3; then",
        (4, 18, "missing fi"),
    ),
}


def test_every_language_has_a_case() -> None:
    assert sorted(BREAKS) == sorted(language.key for language in LANGUAGES)


@pytest.mark.parametrize("key", sorted(BREAKS))
def test_an_edit_that_breaks_the_syntax_is_placed(key: str) -> None:
    source, old, new, (line, column, what) = BREAKS[key]
    assert check_syntax_off_loop(key, None, source)["count"] == 0  # valid to start with
    broken = source.replace(old, new)
    result = check_syntax_off_loop(key, source, broken)
    shown_line = broken.split(b"\n")[line - 1].decode()
    assert result == {"brought": [[line, column, what, shown_line]], "count": 1, "already": 0}


@pytest.mark.parametrize("key", sorted(BREAKS))
def test_an_already_broken_file_kept_broken_brings_nothing(key: str) -> None:
    source, old, new, _ = BREAKS[key]
    broken = source.replace(old, new)
    # An edit elsewhere: a line added at the top (Python, Bash, Ruby: a comment) shifts
    # the old error down by one line; it is still the same error.
    comment = {"python": b"# top\n", "bash": b"# top\n", "ruby": b"# top\n"}.get(key, b"// top\n")
    at = broken.index(b"\n") + 1 if key == "php" else 0  # after <?php
    edited = broken[:at] + comment + broken[at:]
    result = check_syntax_off_loop(key, broken, edited)
    assert (result["brought"], result["count"]) == ([], 0)
    # An edit on the broken line itself that leaves it broken the same way.
    again = check_syntax_off_loop(key, broken, broken.replace(b"w * h", b"h * w", 1))
    if b"w * h" in broken:
        assert again["count"] == 0


def test_errors_already_there_are_counted_not_listed() -> None:
    before = b"int a = 1\n\nint f() {\n  return 1;\n}\n"
    after = b"int a = 1\n\nint f() {\n  return (1;\n}\n"
    result = check_syntax_off_loop("c", before, after)
    assert result["count"] == 1
    assert result["already"] == 1


def test_a_new_file_reports_every_error() -> None:
    result = check_syntax_off_loop("c", None, b"int x = 1\nint y = 2;\nint z = (3;\n")
    assert result == {
        "brought": [[1, 10, "missing ;", "int x = 1"], [3, 11, "missing )", "int z = (3;"]],
        "count": 2,
        "already": 0,
    }


def test_python_tells_its_first_error_where_python_does() -> None:
    source = b"if x\n    y = 1\nz = (1 2\n"
    assert check_syntax_off_loop("python", None, source) == {
        "brought": [[1, 5, "unexpected end of line", "if x"]],
        "count": 1,
        "already": 0,
    }


def test_at_most_ten_are_listed() -> None:
    source = b"".join(b"int f%d() { return 1 }\n" % n for n in range(15))
    result = check_syntax_off_loop("c", None, source)
    assert result["count"] == 15
    assert isinstance(result["brought"], list)
    assert len(result["brought"]) == 10


@pytest.mark.parametrize(
    ("before", "after", "where"),
    [
        # CRLF line ends: the \r is no column and not shown.
        (b"a = 1\r\nb = 2\r\n", b"a = 1\r\nb = (2\r\n", (2, 5, "b = (2")),
        # A UTF-8 byte order mark is not a character of the first line.
        (b"\xef\xbb\xbfb = 2\n", b"\xef\xbb\xbfb = (2\n", (1, 5, "b = (2")),
        # A byte that is not UTF-8 is one character, as é spelled in UTF-8 is.
        (b"s = '\xe9'\nb = 2\n", b"s = '\xe9'; b = (2\n", (1, 14, "s = '\ufffd'; b = (2")),
        (b"s = '\xc3\xa9'\nb = 2\n", b"s = '\xc3\xa9'; b = (2\n", (1, 14, "s = '\xe9'; b = (2")),
        # A tab is one character.
        (b"if x:\n\tb = 2\n", b"if x:\n\tb = (2\n", (2, 6, "\tb = (2")),
    ],
)
def test_columns_count_characters(before: bytes, after: bytes, where: tuple[int, int, str]) -> None:
    line, column, text = where
    result = check_syntax_off_loop("python", before, after)
    assert result["brought"] == [[line, column, "unexpected (2", text]]


def test_a_utf16_file_is_read_as_its_text() -> None:
    before = "a = 1\nb = 2\n".encode("utf-16")
    after = "a = 1\nb = (2\n".encode("utf-16")
    assert check_syntax_off_loop("python", before, after)["brought"] == [
        [2, 5, "unexpected (2", "b = (2"]
    ]


def test_an_edit_in_a_large_file_is_placed_in_the_whole_file() -> None:
    """Only the stretch around the edit is parsed; its lines are the file's."""
    body = b"".join(b"def f%d(x):\n    return x + %d\n\n" % (n, n) for n in range(3000))
    broken = body.replace(b"return x + 1500\n", b"return (x + 1500\n")
    line = body[: body.index(b"return x + 1500")].count(b"\n") + 1
    result = check_syntax_off_loop("python", body, broken)
    assert result["brought"] == [[line, 12, "unexpected (x + 1500", "    return (x + 1500"]]


# --- Python's own parser as the oracle -----------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "value", "total", "f"])
_ATOMS = st.one_of(_NAMES, st.integers(0, 99).map(str), st.just("'s'"))


@st.composite
def _expressions(draw: st.DrawFn) -> str:
    left = draw(_ATOMS)
    if draw(st.booleans()):
        return left
    op = draw(st.sampled_from(["+", "-", "*", "==", "and"]))
    right = draw(_ATOMS)
    return draw(
        st.sampled_from(
            [
                f"{left} {op} {right}",
                f"({left} {op} {right})",
                f"f({left}, {right})",
                f"[{left}, {right}]",
            ]
        )
    )


@st.composite
def _statements(draw: st.DrawFn, indent: str = "") -> str:
    kind = draw(st.sampled_from(["assign", "expr", "if", "def", "return"]))
    if kind == "assign":
        return f"{indent}{draw(_NAMES)} = {draw(_expressions())}\n"
    if kind == "expr":
        return f"{indent}{draw(_expressions())}\n"
    if kind == "return" and indent:
        return f"{indent}return {draw(_expressions())}\n"
    if kind == "def" and not indent:
        body = "".join(draw(st.lists(_statements(indent + "    "), min_size=1, max_size=3)))
        return f"def {draw(_NAMES)}(a, b):\n{body}"
    inner = indent + "    "
    return f"{indent}if {draw(_expressions())}:\n{inner}{draw(_NAMES)} = {draw(_expressions())}\n"


_PIECES = st.sampled_from(
    ["(", ")", "[", "]", ":", ",", "=", " ", "+", "\n", "    ", "x", "1", "'", "def", "if"]
)


@given(
    st.lists(_statements(), min_size=1, max_size=8).map("".join),
    st.data(),
)
def test_python_warns_exactly_when_ast_breaks(source: str, data: st.DataObject) -> None:
    ast.parse(source)  # the generated file is valid
    start = data.draw(st.integers(0, len(source)))
    end = data.draw(st.integers(start, min(len(source), start + 6)))
    new = "".join(data.draw(st.lists(_PIECES, max_size=3)))
    edited = source[:start] + new + source[end:]
    try:
        with warnings.catch_warnings():  # "1if": a warning of Python's, no error
            warnings.simplefilter("ignore")
            ast.parse(edited)
        broken = False
    except SyntaxError:
        broken = True
    result = check_syntax_off_loop("python", source.encode(), edited.encode())
    assert (result["count"] != 0) == broken, (source, edited, result)


def test_a_minified_bundle_is_checked_up_to_a_bound() -> None:
    """A bundle is one line: the stretch around an edit is the whole line. Up to
    MAX_STRETCH it is checked; beyond, an edit is not (its parse would cost more than
    the edit)."""
    small = b"var a=1;" + b"function f(x){return x+1};" * 1000 + b"\n"
    broken = small.replace(b"return x+1}", b"return (x+1}", 1)
    assert check_syntax_off_loop("javascript", small, broken)["count"] == 1
    large = small[:-1] * (MAX_STRETCH // len(small) + 1) + b"\n"
    broken = large.replace(b"return x+1}", b"return (x+1}", 1)
    assert check_syntax_off_loop("javascript", large, broken)["count"] == 0


def test_a_parser_that_fails_leaves_the_edit_and_says_so() -> None:
    """The parse may run in a worker that dies (memory, a crash): its result says so."""
    check = syntax_check("warn", run=lambda language, before, after: {"failed": "MemoryError"})
    assert check is not None
    note = check("/src/a.py", lambda: b"x = 1\n", b"x = (\n", "file")
    assert note == "\n\nSyntax check (Python): skipped, the parser failed on this file"
    refuse = syntax_check("refuse", run=lambda language, before, after: {"failed": "crash"})
    assert refuse is not None
    assert refuse("/src/a.py", lambda: None, b"x = (\n", "file").endswith("failed on this file")


@pytest.mark.parametrize(
    ("before", "where"),
    [
        # A BOM, a byte that is not UTF-8, CRLF line ends and a tab (tree-sitter's path).
        (b'\xef\xbb\xbflet s = "\xe9";\r\n\tlet x = 1;\r\n', (2, 8, "\tlet x = ;")),
        (b'let s = "\xc3\xa9"; let x = 1;\n', (1, 20, 'let s = "\xe9"; let x = ;')),
    ],
)
def test_columns_count_characters_in_other_languages(
    before: bytes, where: tuple[int, int, str]
) -> None:
    line, column, text = where
    after = before.replace(b"= 1;", b"= ;")
    result = check_syntax_off_loop("javascript", before, after)
    assert result["brought"] == [[line, column, "unexpected =", text]]
