"""Glob syntax (boris/patterns/glob_syntax.py), called directly: the exact message for
each malformed pattern, the patterns that are well formed, and the helpers that split env
lists and take patterns apart. Expected values are written out.
"""

from __future__ import annotations

import pytest

from boris.patterns.glob_match import compile_glob
from boris.patterns.glob_syntax import (
    escape,
    literal_prefix,
    pattern_problem,
    split_outside_braces,
    strip_trailing_slashes,
)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "pattern is empty"),
        ("a" * 4097, "pattern is longer than 4096 characters"),
        ("a\\", "pattern ends with an unfinished escape '\\'"),
        ("[abc", "unclosed '[' at position 0"),
        ("x[!", "unclosed '[' at position 1"),
        ("x[a\\", "unclosed '[' at position 1"),
        ("ab[a-", "unclosed '[' at position 2"),
        ("{a,b", "unclosed '{'"),
        ("{a,{b,c}", "unclosed '{'"),
        ("{" * 33, "braces nested deeper than 32 levels"),
        (
            "x[[:foo:]]",
            "unknown character class '[:foo:]' at position 2; known: alnum, alpha, ascii, "
            "blank, cntrl, digit, graph, lower, print, punct, space, upper, word, xdigit",
        ),
        ("[invalid", "unclosed '[' at position 0"),
        ("a{b,c", "unclosed '{'"),
        (
            "[[:nope:]]",
            "unknown character class '[:nope:]' at position 1; known: alnum, alpha, ascii, "
            "blank, cntrl, digit, graph, lower, print, punct, space, upper, word, xdigit",
        ),
        ("{" * 33 + "a,b" + "}" * 33, "braces nested deeper than 32 levels"),
        ("abc\\", "pattern ends with an unfinished escape '\\'"),
        ("[a\\", "unclosed '[' at position 0"),
    ],
)
def test_malformed_patterns(pattern: str, problem: str) -> None:
    assert pattern_problem(pattern) == problem


@pytest.mark.parametrize(
    "pattern",
    [
        "a" * 4096,
        "{" * 32 + "}" * 32,
        "[[:alnum:]]",
        "}",
        ",",
        "a]",
        "[a/]",
        "[[:x]",
        # Longer than any class name (xdigit): "[" is then a member, not a class.
        "[[:abcdefg:]]",
        "**/.env",
        "**/*.{pem,key}",
        "[!abc]*",
        "[]]",
        "{a,{b,c}}",
        "a}b",
        "x,y",
        "\\{c}*",
        "[{]c}*",
        "a[/]b",
        "[[:digit:]]",
        "[[:digits:]]",
        "{" * 32 + "a,b" + "}" * 32,
    ],
)
def test_well_formed_patterns(pattern: str) -> None:
    assert pattern_problem(pattern) is None


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("a,b", ["a", "b"]),
        (" a , ,b ,", ["a", "b"]),
        ("**/*.{pem,key},c", ["**/*.{pem,key}", "c"]),
        ("{a,{b,c}},d", ["{a,{b,c}}", "d"]),
        ("{a,{b,c},e},d", ["{a,{b,c},e}", "d"]),
        ("}a,b", ["}a", "b"]),
        ("[,],x", ["[,]", "x"]),
        ("[!,]x,y", ["[!,]x", "y"]),
        ("[a,x", ["[a", "x"]),
        ("[a/,]b,c", ["[a/", "]b", "c"]),
        ("a\\,b,c", ["a\\,b", "c"]),
        ("a\\\\,b", ["a\\\\", "b"]),
    ],
)
def test_env_lists_split_outside_braces_and_classes(text: str, items: list[str]) -> None:
    assert split_outside_braces(text) == items


def test_escape_makes_every_syntax_character_ordinary() -> None:
    text = "a*b?c[d]e{f,g}h\\i/j"
    assert escape(text) == "a\\*b\\?c\\[d]e\\{f,g}h\\\\i/j"
    assert compile_glob(escape(text))(text)


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [
        ("/srv/data/**/*.key", "/srv/data"),
        ("/srv/da*/x", "/srv"),
        ("a/b", "a/b"),
        ("*.py", ""),
        ("a/{b,c}/d", "a"),
        ("a/b\\c/d", "a"),
        ("a/[b]/c", "a"),
        ("a/b?/c", "a"),
    ],
)
def test_literal_prefix(pattern: str, prefix: str) -> None:
    assert literal_prefix(pattern) == prefix


@pytest.mark.parametrize(
    ("pattern", "stripped"),
    [
        ("a/", "a"),
        ("a//", "a"),
        ("a", "a"),
        ("/", "/"),
        ("//", "/"),
        ("a\\/", "a"),
        ("a\\\\/", "a\\\\"),
        ("a/\\/", "a"),
        ("\\/", "\\/"),
    ],
)
def test_strip_trailing_slashes(pattern: str, stripped: str) -> None:
    assert strip_trailing_slashes(pattern) == stripped


def test_split_outside_braces() -> None:
    assert split_outside_braces("a,{b,c},d{e,{f,g}}, ,h") == ["a", "{b,c}", "d{e,{f,g}}", "h"]
    # Escaped braces and commas, and commas in a class, do not count; a lone "}" is text.
    assert split_outside_braces("\\{a,b\\,c,[,]d,e},f") == ["\\{a", "b\\,c", "[,]d", "e}", "f"]
