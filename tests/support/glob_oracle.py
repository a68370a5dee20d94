"""wcmatch, the independent oracle of the glob tests, and hypothesis strategies of glob
patterns and paths small enough for it."""

from __future__ import annotations

import sys

import pytest
from hypothesis import strategies as st
from wcmatch import glob as wcglob

# Defined there only (wcmatch does not re-export it), and raised for too many braces.
from wcmatch._wcparse import PatternLimitException

# wcmatch is the independent oracle: its own reading of the same syntax, with these
# flags (``**`` crosses directories, braces, ``*`` matches dotfiles), on inputs small
# enough for its expansion of braces.
ORACLE_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB


#: wcmatch 12 needs Python 3.11; the 11.x that 3.10 gets reads some patterns otherwise
#: (``**/`` matches ``a``, ``{a,}`` matches ``b``), so it is no oracle.
needs_the_oracle = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="the oracle, wcmatch 12, needs Python 3.11+"
)


# Space-separated pieces of glob patterns.
GLOB_PIECES = (
    r"a b . * ** ? / [ab] [!a] [a-c] {a,b} {a,} {,b/c} \* x - []a] [.] {a,{b,c}} **/ /** "
    r"[^a] [a-] [-a] [\]] \[ [a-c-e] **.x x** {a,b}/{c,**} ?* [!.] [*] [z-a] [\-] "
    r"[a\-c] [[:alpha:]] \{ , \, {a} {} {*,b} {a*,*b} {[ab],c} {a,b*c} *** "
    r"{{a,b},{c,x}} {**,a}"
)


glob_tokens = st.sampled_from(GLOB_PIECES.split())


segments = st.sampled_from(
    ["a", "b", ".a", "ab", "ba", "*", "x.y", "-", "]", "aa", "c", "{a}", "..a", "b.c", "[", "^",
     "a}b", "x,y", "{", "bac", "aab"]
)  # fmt: skip


def oracle(patterns: list[str], path: str) -> bool | None:
    """wcmatch's verdict, None where it gives up: it expands braces into every
    combination and refuses patterns of more than 1000 (its pattern limit)."""
    try:
        return bool(wcglob.compile(patterns, flags=ORACLE_FLAGS).match(path))
    except PatternLimitException:
        return None
