"""Glob syntax and matching (boris/search/globs.py), called directly: what each pattern
matches, on both of its engines, the exact message for each malformed pattern, and the
helpers that split env lists and take patterns apart.

The rules are those the module's docstring states; expected values are written out.
tests/search/test_search_properties.py checks matching against wcmatch at random.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from boris.patterns.glob_match import Matcher, compile_glob
from boris.patterns.glob_match import _re2_glob as re2_glob  # the engine of the unusual patterns
from boris.patterns.glob_syntax import (
    escape,
    literal_prefix,
    parse,
    pattern_problem,
    split_outside_braces,
    strip_trailing_slashes,
)


def on_re2(pattern: str) -> Matcher:
    return re2_glob(parse(pattern))


ENGINES: list[Callable[[str], Matcher]] = [compile_glob, on_re2]

#: (pattern, paths it matches, paths it does not)
CASES: list[tuple[str, list[str], list[str]]] = [
    ("*.py", ["a.py", ".py", "x.y.py"], ["d/a.py", "a.pyc", "apy"]),
    ("*", ["a", ".hidden"], ["", "a/b"]),
    ("**", ["", "a", "a/b/c"], []),
    ("src/**", ["src/a", "src/a/b"], ["src", "srcx/a", "x/src/a"]),
    ("**/x", ["x", "a/x", "a/b/x"], ["ax", "x/a"]),
    ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["ab", "a/xb", "a/b/c"]),
    ("**/**/x", ["x", "a/b/x"], ["a/bx"]),
    ("a/*/b", ["a/x/b"], ["a/b", "a/x/y/b"]),
    ("a\\*", ["a*"], ["ab", "a"]),
    ("a\\/b", ["a/b"], ["a\\/b"]),
    ("a?c", ["abc", "a.c"], ["a/c", "ac", "abbc"]),
    ("[abc]x", ["bx"], ["dx", "x"]),
    ("[!abc]x", ["dx"], ["ax", "/x"]),
    ("[^abc]x", ["dx"], ["bx"]),
    ("[a-c]", ["a", "b", "c"], ["d", "-"]),
    ("[c-a]", [], ["a", "b", "c"]),
    ("[a-]", ["a", "-"], ["b"]),
    ("[]a]", ["]", "a"], ["b"]),
    ("[\\]]", ["]"], ["\\"]),
    ("[[:digit:]x]", ["5", "x"], ["a"]),
    ("[[:upper:][:space:]]", ["Q", " "], ["q"]),
    ("[[:bogus]", ["[", ":", "b"], ["x"]),
    ("[a/b]", ["[a/b]"], ["a", "b"]),
    ("{a,b}.txt", ["a.txt", "b.txt"], ["c.txt", "{a,b}.txt"]),
    ("{a,{b,c}}", ["a", "b", "c"], ["d", "{b,c}"]),
    ("{a,{b,{c,d}}}e", ["ae", "de"], ["e", "ee"]),
    ("{c}", ["{c}"], ["c"]),
    ("{}", ["{}"], [""]),
    ("a}b,c", ["a}b,c"], ["a"]),
    ("x{,y}", ["x", "xy"], ["y", "x{,y}"]),
    ("{a/b,c}", ["a/b", "c"], ["a", "b"]),
    ("{*,x}/y", ["a/y", "x/y"], ["y", "a/b/y"]),
    ("{**,x}/y", ["y", "a/b/y", "x/y"], []),
    ("a//b", ["a/b"], ["a//b", "ab"]),
    ("/abs/*", ["/abs/x"], ["abs/x", "/abs"]),
    ("*a*a*b", ["aab", "xaxaxb", "aaab"], ["ab", "aaa"]),
    ("a*b*c", ["abc", "aXbYc", "abbc"], ["acb", "ab"]),
    ("*x*/y", ["axa/y", "x/y"], ["a/y", "ax/b/y"]),
    ("é*", ["é", "éa"], ["e", "ea"]),
    ("a.b+c(d)|$^", ["a.b+c(d)|$^"], ["axb+c(d)|$^", "a.bbc(d)|$^"]),
    ("*/", ["dir/"], ["dir"]),
]


@pytest.mark.parametrize("engine", ENGINES, ids=["re", "re2"])
@pytest.mark.parametrize(("pattern", "matching", "other"), CASES, ids=[c[0] for c in CASES])
def test_what_a_pattern_matches(
    engine: Callable[[str], Matcher], pattern: str, matching: list[str], other: list[str]
) -> None:
    match = engine(pattern)
    assert [path for path in matching if not match(path)] == []
    assert [path for path in other if match(path)] == []


def test_file_names_that_are_not_utf8_match_on_re2() -> None:
    """An undecodable byte of a name (a lone surrogate) is a character like any other."""
    assert on_re2("a?b")("a\udcffb")
    assert on_re2("{a,x}*")("a\udcff")
    assert not on_re2("a?b")("a\udcff\udcffb")


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
