"""RE2's raw search (boris/patterns/re2_raw.py), the one use of google-re2's private
extension, checked against the library's public API: the same spans, the same refusals.

When google-re2 changes what the module relies on, these fail: read the module's
docstring and docs/DEVELOPING.md "Upgrading google-re2 and pathspec".
"""

from __future__ import annotations

import pytest
import re2

from boris.patterns.re2_raw import Re2Error, span_search


def options(**values: object) -> re2.Options:
    chosen = re2.Options()
    chosen.log_errors = False
    chosen.never_capture = True
    for name, value in values.items():
        setattr(chosen, name, value)
    return chosen


#: (pattern, options, text, pos, endpos)
SEARCHES: list[tuple[bytes, dict[str, object], bytes, int, int]] = [
    (b"b+", {}, b"abbbc", 0, 5),
    (b"b+", {}, b"abbbc", 2, 5),
    (b"b+", {}, b"abbbc", 0, 1),  # no match before endpos
    (b"x", {}, b"abc", 0, 3),  # no match at all
    (b"", {}, b"abc", 3, 3),  # the empty match at the end
    (b"(?m)^c$", {"never_nl": True}, b"a\nc\nd", 0, 5),
    (b"(?m)^d", {"never_nl": True}, b"a\nc\nd", 2, 5),
    (b"(a)(b)", {}, b"xxab", 0, 4),  # groups are not captured: one span
    (b"A.C", {"case_sensitive": False, "dot_nl": True}, b"xa\ncx", 0, 5),
    ("é".encode(), {}, "café".encode(), 0, 5),
]


@pytest.mark.parametrize(("pattern", "chosen", "text", "pos", "endpos"), SEARCHES)
def test_spans_are_those_of_the_public_search(
    pattern: bytes, chosen: dict[str, object], text: bytes, pos: int, endpos: int
) -> None:
    found = re2.compile(pattern, options(**chosen)).search(text, pos, endpos)
    spans = span_search(pattern, options(**chosen))(text, pos, endpos)
    assert list(spans) == [found.span() if found else (-1, -1)]


def test_a_memoryview_is_searched_like_its_bytes() -> None:
    search = span_search(b"c", options())
    assert list(search(memoryview(b"abcabc")[3:], 0, 3)) == [(2, 3)]


@pytest.mark.parametrize("pattern", [b"(", b"a{2,1}", b"[z-a]", b"\\8"])
def test_refusals_are_those_of_the_public_compile_with_its_message(pattern: bytes) -> None:
    with pytest.raises(re2.error) as public:
        re2.compile(pattern, options())
    with pytest.raises(Re2Error) as raw:
        span_search(pattern, options())
    message = public.value.args[0]
    assert str(raw.value) == (message.decode() if isinstance(message, bytes) else message)
    assert str(raw.value)  # RE2's own words, e.g. "missing ): ("
