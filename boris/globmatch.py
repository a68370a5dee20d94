"""Fast matching of relative paths against glob patterns, with wcmatch's semantics.

glob and grep's ``include`` test every entry of a walk (tens of thousands) against
one pattern. wcmatch's regular expressions are general (they guard every character
against ``.``/``..`` segments) and cost several microseconds per path; for the
patterns people write (``*``, ``**``, ``?``, ``[...]``, ``{a,b}``) an equivalent plain
regular expression is an order of magnitude faster. This module builds one and falls
back to wcmatch itself, with ``boris.patterns.GLOB_FLAGS``, for anything else (POSIX
classes, absolute patterns, ``.``/``..`` segments, a trailing ``/``, huge brace
expansions). tests/test_search_properties.py checks the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Brace expansions beyond this many alternatives are left to wcmatch.
_MAX_ALTERNATIVES = 64

_ANY_SEGMENTS = "(?:[^/]+/)*"  # "**/": zero or more whole directories


class _Unsupported(Exception):
    pass


class GlobError(ValueError):
    """A pattern wcmatch refuses (e.g. braces expanding to over 1000 patterns)."""


def compile_glob(pattern: str) -> Callable[[str], object]:
    """A predicate (a truthy result means a match) telling whether a relative path
    from a walk (``/``-separated, no ``.``/``..`` segments) matches ``pattern``, which
    ``pattern_problem`` accepted.

    Raises :class:`GlobError` for a pattern wcmatch cannot compile."""
    try:
        compiled = re.compile(_translate(pattern), re.DOTALL)
    except (_Unsupported, re.error):
        return _wcmatch_predicate(pattern)
    return compiled.fullmatch


def _wcmatch_predicate(pattern: str) -> Callable[[str], object]:
    from wcmatch import glob

    from boris.patterns import GLOB_FLAGS

    try:
        matcher = glob.compile(pattern, flags=GLOB_FLAGS)
    except Exception as exc:  # wcmatch's own exception types are not public
        raise GlobError(str(exc)) from None
    return matcher.match


def _translate(pattern: str) -> str:
    import bracex

    try:
        alternatives = bracex.expand(pattern, keep_escapes=True, limit=_MAX_ALTERNATIVES)
    except Exception as exc:  # bracex signals an expansion over the limit this way
        raise _Unsupported from exc
    return "|".join(f"(?:{_translate_one(alternative)})" for alternative in alternatives)


def _translate_one(pattern: str) -> str:
    """The regex for a brace-free pattern."""
    segments: list[str] = []
    for segment in _segments(pattern):
        if not (segment == "**" and segments and segments[-1] == "**"):
            segments.append(segment)  # "**/**" is one "**"
    if "" in segments:
        raise _Unsupported  # absolute, "//", or a trailing "/" (directories only)
    parts: list[str] = []
    count = len(segments)
    after_globstar = False
    for index, segment in enumerate(segments):
        if segment == "**":
            if count == 1:
                parts.append(".*")
            elif index == 0:
                parts.append(_ANY_SEGMENTS)
            elif index == count - 1:
                parts.append("(?:/[^/]+)+")  # "a/**" needs something below "a"
            else:
                parts.append("/" + _ANY_SEGMENTS)
            after_globstar = True
            continue
        if segment in (".", ".."):
            raise _Unsupported
        if index and not after_globstar:
            parts.append("/")
        parts.append(_segment_regex(segment))
        after_globstar = False
    return "".join(parts)


def _segments(pattern: str) -> list[str]:
    """``pattern`` split at the ``/`` outside escapes (a ``/`` in a class is refused)."""
    segments: list[str] = []
    current: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            current.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "/":
            segments.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    segments.append("".join(current))
    return segments


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        ch = segment[i]
        if ch == "\\":
            if i + 1 >= n:
                raise _Unsupported
            out.append(re.escape(segment[i + 1]))
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            regex, i = _class_regex(segment, i)
            out.append(regex)
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _class_regex(segment: str, start: int) -> tuple[str, int]:
    """The regex for the ``[...]`` at ``start`` and the index after it."""
    i = start + 1
    n = len(segment)
    negate = i < n and segment[i] in "!^"
    if negate:
        i += 1
    members: list[str] = []
    first = True
    while i < n and (segment[i] != "]" or first):
        ch = segment[i]
        if ch == "[" and i + 1 < n and segment[i + 1] in ":.=":
            raise _Unsupported  # POSIX classes and friends
        escaped = ch == "\\"
        if escaped:
            if i + 1 >= n:
                raise _Unsupported
            ch = segment[i + 1]
            i += 1
        if ch == "/":
            raise _Unsupported
        is_range = not escaped and ch == "-" and members and members[-1] != "-"
        if is_range and i + 1 < n and segment[i + 1] != "]":
            members.append("-")
        else:
            members.append("\\-" if ch == "-" else re.escape(ch))
        first = False
        i += 1
    if i >= n:
        raise _Unsupported  # unclosed: pattern_problem refuses these anyway
    body = "".join(members)
    return (f"[^/{body}]" if negate else f"[{body}]"), i + 1
