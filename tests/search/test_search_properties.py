"""Properties of the search engine against straightforward references.

The engine searches whole buffers and maps offsets to lines; the references here do
what a line-by-line grep does. These call the functions the server runs directly
(boris.search.engine, boris.search.globs), for speed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
import re2
from hypothesis import given
from hypothesis import strategies as st
from wcmatch import glob as wcglob

# Defined there only (wcmatch does not re-export it), and raised for too many braces.
from wcmatch._wcparse import PatternLimitException

from boris.errors import BorisError
from boris.files.scope import PathScope
from boris.patterns import line_regex, regex_text
from boris.patterns.glob_match import _re2_glob, compile_glob
from boris.patterns.glob_syntax import parse, pattern_problem
from boris.search import file_search
from boris.search import grep as engine

MAX_SIZE = 300

# --- grep against a reference over random trees -----------------------------------

_text = st.lists(
    st.sampled_from([b"ab", b"a", b"b", b"A", b"B", b" ", b"\n", b"\r\n", b"\r", b"\xff", b"x"]),
    max_size=40,
).map(b"".join)
_binary_or_text = st.one_of(_text, _text.map(lambda t: t + b"\x00"))
_names = st.sampled_from(["a.txt", "b.py", "c", ".hidden", "d.md"])
_dirs = st.sampled_from(["", "sub/", "sub/deep/", "other/", ".git/", "node_modules/"])
_trees = st.dictionaries(st.tuples(_dirs, _names).map("".join), _binary_or_text, max_size=8)
_literals = st.text(alphabet="abAB x.*(\xff", min_size=1, max_size=3)


def reference_lines(data: bytes) -> list[bytes]:
    """Lines as Go's bufio.ScanLines gives them: split at "\\n", a final "\\r" dropped."""
    if not data:
        return []
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    return [piece[:-1] if piece.endswith(b"\r") else piece for piece in pieces]


def reference_counts(root: Path, needle: bytes, fold: bool) -> dict[str, int]:
    counts: dict[str, int] = {}
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        for name in filenames:
            path = Path(directory) / name
            data = path.read_bytes()
            if b"\x00" in data or len(data) > MAX_SIZE:
                continue
            lines = reference_lines(data)
            if fold:
                lines, wanted = [line.lower() for line in lines], needle.lower()
            else:
                wanted = needle
            hits = sum(1 for line in lines if wanted in line)
            if hits:
                counts[path.relative_to(root).as_posix()] = hits
    return counts


def run(root: Path, pattern: str, mode: str, fold: bool, parallel: bool = False) -> str:
    task = file_search.FileTask(
        pattern, case_insensitive=fold, multiline=False, output_mode=mode, max_size=MAX_SIZE
    )
    query = engine.Query(
        task=task,
        matcher=task.matcher(),
        include=None,
        include_has_slash=False,
        file_type=None,
        head_limit=0,
        offset=0,
    )
    files = engine._tree(str(root), query, PathScope([], []))
    return "\n".join(engine.search_files(files, query, parallel=parallel).lines)


@given(tree=_trees, literal=_literals, fold=st.booleans())
def test_grep_agrees_with_a_line_by_line_reference(
    tree: dict[str, bytes], literal: str, fold: bool
) -> None:
    needle = literal.encode("utf-8")
    if fold and not needle.isascii():
        return  # the reference folds ASCII only
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, content in tree.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(content)
        expected = reference_counts(root, needle, fold)
        pattern = re2.escape(literal)
        files = run(root, pattern, "files_with_matches", fold)
        assert sorted(files.splitlines()) == sorted(expected)
        counts = run(root, pattern, "count", fold)
        parsed = dict(line.rsplit(":", 1) for line in counts.splitlines())
        assert {rel: int(n) for rel, n in parsed.items()} == expected


# --- whole-buffer matching against per-line matching --------------------------------

_fragments = st.sampled_from(
    ["a", "b", "^", "$", ".", r"\s", "[^a]", "a*", r"\b", "(a|b)", r"\A", r"\z", "x?", " ", "b+"]
)
_patterns = st.lists(_fragments, min_size=1, max_size=4).map("".join)


def per_line_matches(pattern: str, data: bytes) -> list[int]:
    options = re2.Options()
    options.log_errors = False
    compiled = re2.compile(pattern, options)
    return [n for n, line in enumerate(reference_lines(data)) if compiled.search(line)]


@given(pattern=_patterns, data=_text)
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


@given(pattern=st.lists(_cr_fragments, min_size=1, max_size=4).map("".join), data=_text)
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


@given(pattern=_patterns, data=_text)
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


# --- the glob matcher against wcmatch ------------------------------------------------

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
_glob_tokens = st.sampled_from(GLOB_PIECES.split())
_segments = st.sampled_from(
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


@needs_the_oracle
@given(
    pattern=st.lists(_glob_tokens, min_size=1, max_size=6).map("".join),
    path=st.lists(_segments, min_size=1, max_size=4).map("/".join),
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
    assert bool(_re2_glob(parse(pattern))(path)) == expected


# --- deny patterns: PathScope.denies against wcmatch ---------------------------------

_deny_patterns = st.one_of(
    st.lists(_glob_tokens, min_size=1, max_size=4).map("".join),
    st.lists(_glob_tokens, min_size=1, max_size=3).map(lambda t: "**/" + "".join(t)),
)


@needs_the_oracle
@given(
    patterns=st.lists(_deny_patterns, min_size=1, max_size=3),
    path=st.lists(_segments, min_size=0, max_size=4).map(lambda s: "/" + "/".join(s)),
)
def test_deny_agrees_with_wcmatch(patterns: list[str], path: str) -> None:
    """A deny pattern not starting with ``/`` or a ``**`` component matches at any
    depth, as if written ``**/<pattern>``."""
    if any(pattern_problem(p) for p in patterns):
        return
    anchored = [p if p.startswith(("/", "**/")) or p == "**" else f"**/{p}" for p in patterns]
    expected = oracle(anchored, path)
    if expected is None:
        return
    scope = PathScope([], patterns)
    assert scope.denies(path) == expected
    if expected:
        # A file tool is refused naming a pattern that matches the path itself.
        reasons = {
            f"[ACCESS_DENIED] {path} is denied by the pattern {pattern}"
            for pattern, whole in zip(patterns, anchored, strict=True)
            if oracle([whole], path)
        }
        with pytest.raises(BorisError) as refused:
            scope.check(path)
        assert str(refused.value) in reasons
