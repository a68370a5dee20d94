"""grep's line matcher (boris/patterns/line_regex.py) against per-line references: the
whole-buffer search finds the lines a line-by-line grep finds, the CRLF shortcut changes
nothing, and in multiline mode every line a match touches is a match line. Called
directly, for speed; the references use RE2's public API one line at a time.
"""

from __future__ import annotations

import re2
from hypothesis import given
from hypothesis import strategies as st

from boris.patterns import line_regex, regex_text
from tests.support.models import reference_lines
from tests.support.strategies import grep_texts

_fragments = st.sampled_from(
    ["a", "b", "^", "$", ".", r"\s", "[^a]", "a*", r"\b", "(a|b)", r"\A", r"\z", "x?", " ", "b+"]
)


_patterns = st.lists(_fragments, min_size=1, max_size=4).map("".join)


def per_line_matches(pattern: str, data: bytes) -> list[int]:
    options = re2.Options()
    options.log_errors = False
    compiled = re2.compile(pattern, options)
    return [n for n, line in enumerate(reference_lines(data)) if compiled.search(line)]


@given(pattern=_patterns, data=grep_texts)
def test_whole_buffer_lines_equal_per_line_matching(pattern: str, data: bytes) -> None:
    matcher = line_regex.Matcher(pattern, case_insensitive=False, multiline=False)
    prepared = matcher.prepare(data)
    found = [prepared.count(b"\n", 0, start) for start, _ in matcher.lines(prepared)]
    expected = per_line_matches(pattern, data)
    assert found == expected
    assert matcher.count(prepared) == len(expected)
    assert matcher.matches(prepared) == bool(expected)


_cr_fragments = st.sampled_from(
    ["a", "b", "^", "$", ".", r"\s", "[^a]", "[a-b]", r"\w", r"\b", r"\r", "\r", r"\x0d",
     "[[:space:]]", r"\S", r"\W", "(a|b)", r"\.", r"[\]b]", r"\pC", r"\Q$\E", "[ -~]"]
)  # fmt: skip


@given(pattern=st.lists(_cr_fragments, min_size=1, max_size=4).map("".join), data=grep_texts)
def test_patterns_blind_to_carriage_returns_match_crlf_files_as_they_are(
    pattern: str, data: bytes
) -> None:
    # The shortcut taken for such patterns must not change which lines match.
    try:
        matcher = line_regex.Matcher(pattern, case_insensitive=False, multiline=False)
    except line_regex.PatternError:
        return
    if not regex_text.cannot_see_carriage_return(pattern):
        return
    stripped = data.replace(b"\r\n", b"\n")
    as_is = [data.count(b"\n", 0, start) for start, _ in matcher.lines(data)]
    assert as_is == [stripped.count(b"\n", 0, start) for start, _ in matcher.lines(stripped)]
    assert matcher.count(data) == matcher.count(stripped)


@given(pattern=_patterns, data=grep_texts)
def test_multiline_match_lines_cover_each_match(pattern: str, data: bytes) -> None:
    matcher = line_regex.Matcher(pattern, case_insensitive=False, multiline=True)
    spans = list(matcher.lines(data))
    assert spans == sorted(set(spans))  # in order, each line once
    options = re2.Options()
    options.log_errors = False
    options.dot_nl = True
    regex = re2.compile("(?m)" + pattern, options)  # ^ and $ at every line, as ripgrep -U
    lines: set[int] = set()
    for match in regex.finditer(data):
        start, end = match.span()
        if start == len(data) and (not data or data.endswith(b"\n")):
            break
        first = data.count(b"\n", 0, start)
        last = data.count(b"\n", 0, max(start, end - 1))
        lines.update(range(first, last + 1))
    assert [data.count(b"\n", 0, start) for start, _ in spans] == sorted(lines)
