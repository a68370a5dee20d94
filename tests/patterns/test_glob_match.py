"""Glob matching (boris/patterns/glob_match.py), called directly: what each pattern
matches, on both of its engines, with expected values written out from the rules of the
module's docstring; and both engines against wcmatch, the independent oracle, at random.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boris.patterns.glob_match import Matcher, compile_glob
from boris.patterns.glob_match import _re2_glob as re2_glob  # the engine of the unusual patterns
from boris.patterns.glob_syntax import parse, pattern_problem
from tests.support.glob_oracle import glob_tokens, needs_the_oracle, oracle, segments


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


@needs_the_oracle
@given(
    pattern=st.lists(glob_tokens, min_size=1, max_size=6).map("".join),
    path=st.lists(segments, min_size=1, max_size=4).map("/".join),
)
def test_glob_agrees_with_wcmatch(pattern: str, path: str) -> None:
    """Both ways of matching (Python's re on expanded braces, RE2 with braces as
    alternation) give wcmatch's answer."""
    if pattern_problem(pattern):
        return
    expected = oracle([pattern], path)
    if expected is None:
        return
    assert bool(compile_glob(pattern)(path)) == expected
    assert bool(on_re2(pattern)(path)) == expected
