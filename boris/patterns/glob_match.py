"""Glob patterns matched against paths in time linear in the path's length times the
pattern's, whatever the pattern and the file names (the syntax is
boris.patterns.glob_syntax's).

Patterns come from clients (glob, grep's ``include``) and deny patterns are tested
against every name a walk meets, names anyone may choose: a backtracking matcher fed
``*a*a*a*a*a*a*a*b`` and a long name of ``a``s would hold the interpreter (and with it
every session) for minutes. Two ways keep every match linear:

- The usual patterns (braces, if any, make at most ``_MAX_EXPANSIONS`` combinations)
  become one Python regular expression per combination, built so that ``re`` cannot
  backtrack more than linearly: runs of ``*`` are one ``*``; inside a path component
  every ``*`` but the last takes the earliest place its following fixed-length piece
  fits (an atomic group: ``*`` never crosses ``/``, so a component is matched alone,
  and the earliest place leaves the most room to what follows); every ``**`` but the
  last likewise takes the earliest directory where the components after it fit.
  Python's ``re`` costs about a fifth of a microsecond per name here.
- Anything else runs on RE2, which never backtracks: braces become alternation
  (``(?:a|b)``), nested or not. Only a brace group whose alternatives could change
  how the pattern splits into components (one holding a ``/``, an empty one, or one
  made of ``*`` only) is expanded into separate patterns, up to a bound.

A pattern's meaning is the union of its brace expansions, each read with these rules:
``*`` any characters but ``/``; ``?`` one character but ``/``; a class never matches
``/``; a component that is exactly ``**`` matches any number of whole directories
(``a/**`` needs at least one below ``a``; ``**`` alone matches everything); ``//`` is
``/``; a pattern starting with ``/`` matches absolute paths.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence

from boris.patterns.glob_syntax import (
    ANY,
    SLASH,
    STAR,
    CharClass,
    Group,
    Literal,
    PatternError,
    Token,
    parse,
)

#: A predicate on a relative (or, for an absolute pattern, absolute) path:
#: truthy when the path matches.
Matcher = Callable[[str], object]

#: Brace combinations beyond this many leave Python's re for RE2.
_MAX_EXPANSIONS = 64
#: So do patterns whose combinations hold more tokens than this in all (re compiles
#: in Python, holding the interpreter; RE2 compiles in C++).
_MAX_EXPANDED_TOKENS = 4096
#: On the RE2 path, the brace groups that must be expanded may make this many
#: patterns, with this many tokens in all; beyond, the pattern is refused.
_MAX_RE2_EXPANSIONS = 1000
_MAX_RE2_TOKENS = 65536

#: Python's re has atomic groups from 3.11 on; before, every pattern runs on RE2.
_ATOMIC_GROUPS = sys.version_info >= (3, 11)

#: A whole path component ``**``, after normalisation.
_GLOBSTAR = "**"

#: A class with no members: matches nothing (valid in re and RE2 alike).
_NOTHING = r"[^\s\S]"


class GlobError(PatternError):
    """A well-formed pattern too large to match (braces expanding too far)."""


def compile_glob(pattern: str) -> Matcher:
    """A matcher for ``pattern`` (tested with ``fullmatch`` semantics).

    Paths are ``/``-separated with no ``.``/``..`` or empty components, as walks and
    resolved paths give them. Raises :class:`PatternError` for a malformed pattern and
    :class:`GlobError` for one whose braces expand too far.
    """
    tokens = parse(pattern)
    expanded = _expand(tokens, _every_group, _MAX_EXPANSIONS, _MAX_EXPANDED_TOKENS)
    if expanded is not None and _ATOMIC_GROUPS:
        return re.compile("|".join(_regex(e, atomic=True) for e in expanded)).fullmatch
    return _re2_glob(tokens)


def compile_walk_glob(pattern: str) -> tuple[Matcher, bool]:
    """A matcher for a glob tested on the entries of a walk (grep's ``include``, glob's
    pattern) and whether it must see the relative path: a pattern without ``/`` (or
    ``**/`` then no ``/``) can only match the name, since ``*`` never crosses a ``/``.

    Raises ``ValueError`` (``PatternError``, ``GlobError``) for a pattern it cannot match.
    """
    if pattern.startswith("./"):
        pattern = pattern[2:]
    name_pattern = pattern
    while name_pattern.startswith("**/"):
        name_pattern = name_pattern[3:]
    if name_pattern and "/" not in name_pattern:
        return compile_glob(name_pattern), False
    return compile_glob(pattern), True


def _re2_glob(tokens: Sequence[Token]) -> Matcher:
    """The matcher for ``tokens`` on RE2, braces as alternation where possible."""
    expanded = _expand(tokens, _changes_components, _MAX_RE2_EXPANSIONS, _MAX_RE2_TOKENS)
    if expanded is None:
        raise GlobError(
            f"braces make over {_MAX_RE2_EXPANSIONS} patterns: alternatives that hold "
            "a '/', are empty or are only '*' are combined one by one"
        )
    return _re2_matcher("|".join(_regex(e, atomic=False) for e in expanded))


# --- braces ----------------------------------------------------------------------------


class _TooLarge(Exception):
    pass


def _every_group(group: Group) -> bool:
    return True


def _changes_components(group: Group) -> bool:
    """Whether alternation could read ``group`` differently from its expansion: an
    alternative that holds a ``/``, is empty or is only ``*`` can, with what surrounds
    it, make a component ``**``, an empty one (``//``) or a new one."""
    for alternative in group.alternatives:
        if all(token == STAR for token in alternative):  # empty too
            return True
        for token in alternative:
            if token == SLASH or (isinstance(token, Group) and _changes_components(token)):
                return True
    return False


def _expand(
    tokens: Sequence[Token], expands: Callable[[Group], bool], max_count: int, max_tokens: int
) -> list[list[Token]] | None:
    """The token sequences ``tokens`` stands for once the groups ``expands`` selects
    are expanded (the others stay), or None beyond ``max_count`` sequences or
    ``max_tokens`` tokens in all."""
    try:
        return _expand_sequence(tokens, expands, max_count, max_tokens)
    except _TooLarge:
        return None


def _expand_sequence(
    tokens: Sequence[Token], expands: Callable[[Group], bool], max_count: int, max_tokens: int
) -> list[list[Token]]:
    results: list[list[Token]] = [[]]
    size = 0
    for token in tokens:
        if isinstance(token, Group) and expands(token):
            choices: list[list[Token]] = []
            for alternative in token.alternatives:
                choices += _expand_sequence(alternative, expands, max_count, max_tokens)
            if len(results) * len(choices) > max_count:
                raise _TooLarge
            size = len(choices) * size + len(results) * sum(map(len, choices))
            if size > max_tokens:
                raise _TooLarge
            results = [done + choice for done in results for choice in choices]
        else:
            size += len(results)
            if size > max_tokens:
                raise _TooLarge
            for done in results:
                done.append(token)
    return results


# --- translation -----------------------------------------------------------------------


def _regex(tokens: Sequence[Token], *, atomic: bool) -> str:
    """The regex for one token sequence whose remaining groups hold no ``/``.

    ``atomic`` (Python's re; the sequence has no groups) makes every ``*`` but the
    last of a component, and every ``**`` but the last, take its earliest fit.
    """
    components = _components(tokens)
    prefix = ""
    if len(components) > 1 and not components[0]:
        prefix = "/"  # absolute
        components = components[1:]
    # "a//b" is "a/b"; a trailing "/" stays (only "dir/"-style paths match it).
    kept = [c for i, c in enumerate(components) if c or i == len(components) - 1]
    normalised: list[list[Token] | str] = []
    for component in kept:
        item = _normalise(component)
        if not (item == _GLOBSTAR and normalised and normalised[-1] == _GLOBSTAR):
            normalised.append(item)  # "**/**" is one "**"
    count = len(normalised)
    last_globstar = max((i for i, c in enumerate(normalised) if c == _GLOBSTAR), default=-1)
    parts = [prefix]
    # Every "**" but the last, and the components up to the next "**" with the "/"
    # after them, form an atomic group: they are fitted at the earliest place, once.
    in_atomic = slash_taken = False
    for index, item in enumerate(normalised):
        if isinstance(item, str):  # the globstar
            lazy = atomic and index != last_globstar
            repeat = "*?" if lazy else "*"
            lead = "" if slash_taken else "/"
            if count == 1:
                piece = "(?s:.*)"
            elif index == 0:
                piece = f"(?:[^/]+/){repeat}"
            elif index == count - 1:
                piece = f"{lead}[^/]+(?:/[^/]+)*"
            else:
                piece = f"{lead}(?:[^/]+/){repeat}"
            parts.append(f"(?>{piece}" if lazy else piece)
            in_atomic, slash_taken = lazy, False
            continue
        if index and normalised[index - 1] != _GLOBSTAR:
            parts.append("/")
        parts.append(_component_regex(item, atomic))
        if in_atomic and index + 1 < count and normalised[index + 1] == _GLOBSTAR:
            parts.append("/)")
            in_atomic, slash_taken = False, True
    return "".join(parts)


def _components(tokens: Sequence[Token]) -> list[list[Token]]:
    components: list[list[Token]] = [[]]
    for token in tokens:
        if token == SLASH:
            components.append([])
        else:
            components[-1].append(token)
    return components


def _normalise(component: list[Token]) -> list[Token] | str:
    """``_GLOBSTAR`` for a component that is exactly ``**``; else the component with
    each run of ``*`` made one ``*``."""
    if component == [STAR, STAR]:
        return _GLOBSTAR
    out: list[Token] = []
    for token in component:
        if not (token == STAR and out and out[-1] == STAR):
            out.append(token)
    return out


def _component_regex(component: list[Token], atomic: bool) -> str:
    if component == [STAR]:
        return "[^/]+"  # a name is never empty (this keeps "**/*" from matching "/")
    if not atomic:
        return _tokens_regex(component)
    pieces: list[list[Token]] = [[]]
    for token in component:
        if token == STAR:
            pieces.append([])
        else:
            pieces[-1].append(token)
    if len(pieces) == 1:
        return _tokens_regex(pieces[0])
    # Each middle piece has a fixed length: its earliest fit is as good as any.
    middle = "".join(f"(?>[^/]*?{_tokens_regex(piece)})" for piece in pieces[1:-1])
    return f"{_tokens_regex(pieces[0])}{middle}[^/]*{_tokens_regex(pieces[-1])}"


def _tokens_regex(tokens: Iterable[Token]) -> str:
    return "".join(map(_token_regex, tokens))


def _token_regex(token: Token) -> str:
    if isinstance(token, Literal):
        return _escape(token.char)
    if isinstance(token, CharClass):
        return _class_regex(token)
    if isinstance(token, Group):
        return "(?:" + "|".join(_tokens_regex(a) for a in token.alternatives) + ")"
    if token == STAR:
        return "[^/]*"
    if token == ANY:
        return "[^/]"
    raise AssertionError(f"unexpected token {token!r}")  # "/" and "**" never get here


def _escape(char: str) -> str:
    """``char`` as a regex literal valid in both re and RE2, in a class or not."""
    if not char.isascii():
        return char
    if char.isalnum() or char == "_":
        return char
    return f"\\x{ord(char):02x}"


def _class_regex(char_class: CharClass) -> str:
    body = "".join(
        _escape(low) if low == high else f"{_escape(low)}-{_escape(high)}"
        for low, high in char_class.ranges
    )
    if char_class.negated:
        return f"[^/{body}]"
    return f"[{body}]" if body else _NOTHING


# --- RE2 -------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (an undecodable byte of a file name) as U+FFFD,
    one character for one, since RE2 reads valid UTF-8 only."""
    return _SURROGATE.sub("\ufffd", text)


def _re2_matcher(regex: str) -> Matcher:
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        compiled = re2.compile(_without_surrogates(regex), options)
    except re2.error as exc:
        raise GlobError(f"pattern too large to match ({exc})") from None
    fullmatch = compiled.fullmatch

    def matches(path: str) -> object:
        return fullmatch(path if path.isascii() else _without_surrogates(path))

    return matches
