"""Glob patterns, as deny patterns, glob and grep's include filter read them: their
syntax, checked in one pass, and their matching, linear-time whatever the pattern.

``*`` any characters but ``/``; ``**`` as a whole path component, any number of
directories; ``?`` one character but ``/``; ``[abc]``, ``[a-z]``, ``[!abc]`` (or
``[^abc]``) and POSIX classes such as ``[[:digit:]]``, never matching ``/``;
``{a,b}`` alternatives, nested at will. ``\\`` makes the next character ordinary.
A ``}`` or ``,`` outside braces is an ordinary character, and so is a brace group
without a comma (``{c}`` is the text ``{c}``). A ``[`` whose class would hold a
``/`` is an ordinary character. Malformed patterns (an unclosed ``[`` or ``{``, a
trailing lone ``\\``) are refused rather than read as text: a typo like
``[invalid`` would otherwise match nothing and hide the mistake.

Matching takes time linear in the path's length times the pattern's, whatever the
pattern and the file names. Patterns come from clients (glob, grep's ``include``) and
deny patterns are tested against every name a walk meets, names anyone may choose: a
backtracking matcher fed ``*a*a*a*a*a*a*a*b`` and a long name of ``a``s would hold the
interpreter (and with it every session) for minutes. Two ways keep every match linear:

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
from dataclasses import dataclass
from typing import Final

#: Longer patterns are refused (the longest path Linux accepts is as long): matching
#: costs up to the path's length times the pattern's.
MAX_PATTERN_LENGTH = 4096

#: Braces nested deeper than this are refused (the translation recurses per level).
MAX_BRACE_DEPTH = 32

STAR: Final = "*"
ANY: Final = "?"
SLASH: Final = "/"


@dataclass(frozen=True, slots=True)
class Literal:
    char: str


@dataclass(frozen=True, slots=True)
class CharClass:
    """``[...]``: ``ranges`` of (first, last) characters, or None for nothing at all."""

    ranges: tuple[tuple[str, str], ...]
    negated: bool


@dataclass(frozen=True, slots=True)
class Group:
    """``{a,b}``: two or more alternatives, each a token sequence."""

    alternatives: tuple[tuple[Token, ...], ...]


Token = str | Literal | CharClass | Group

#: POSIX classes inside ``[...]``, ASCII only.
POSIX_CLASSES: dict[str, tuple[tuple[str, str], ...]] = {
    "alnum": (("0", "9"), ("A", "Z"), ("a", "z")),
    "alpha": (("A", "Z"), ("a", "z")),
    "ascii": (("\x00", "\x7f"),),
    "blank": (("\t", "\t"), (" ", " ")),
    "cntrl": (("\x00", "\x1f"), ("\x7f", "\x7f")),
    "digit": (("0", "9"),),
    "graph": (("!", "~"),),
    "lower": (("a", "z"),),
    "print": ((" ", "~"),),
    "punct": (("!", "/"), (":", "@"), ("[", "`"), ("{", "~")),
    "space": (("\t", "\r"), (" ", " ")),
    "upper": (("A", "Z"),),
    "word": (("0", "9"), ("A", "Z"), ("_", "_"), ("a", "z")),
    "xdigit": (("0", "9"), ("A", "F"), ("a", "f")),
}


class PatternError(ValueError):
    """A malformed glob pattern; the message says what and where."""


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a well-formed glob pattern, or None when it is."""
    try:
        parse(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def parse(pattern: str) -> list[Token]:
    """The tokens of ``pattern``, in one pass; raises :class:`PatternError`."""
    if not pattern:
        raise PatternError("pattern is empty")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(f"pattern is longer than {MAX_PATTERN_LENGTH} characters")
    # One frame per open brace: the tokens before it and its alternatives so far.
    open_braces: list[tuple[list[Token], list[list[Token]]]] = []
    current: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        i += 1
        if ch == "\\":
            if i == n:
                raise PatternError("pattern ends with an unfinished escape '\\'")
            escaped = pattern[i]
            current.append(SLASH if escaped == "/" else Literal(escaped))
            i += 1
        elif ch == "[":
            char_class, end = _parse_class(pattern, i - 1)
            if char_class is None:
                current.append(Literal("["))
            else:
                current.append(char_class)
                i = end
        elif ch == "{":
            if len(open_braces) == MAX_BRACE_DEPTH:
                raise PatternError(f"braces nested deeper than {MAX_BRACE_DEPTH} levels")
            open_braces.append((current, []))
            current = []
        elif ch == "," and open_braces:
            open_braces[-1][1].append(current)
            current = []
        elif ch == "}" and open_braces:
            outer, alternatives = open_braces.pop()
            if alternatives:
                alternatives.append(current)
                outer.append(Group(tuple(tuple(a) for a in alternatives)))
            else:  # no comma: the braces are ordinary characters
                outer.append(Literal("{"))
                outer.extend(current)
                outer.append(Literal("}"))
            current = outer
        elif ch in (STAR, ANY, SLASH):
            current.append(ch)
        else:
            current.append(Literal(ch))
    if open_braces:
        raise PatternError("unclosed '{'")
    return current


def _parse_class(pattern: str, start: int) -> tuple[CharClass | None, int]:
    """The class opening at ``start`` and the index after its ``]``; None when the
    ``[`` is an ordinary character (the class would hold a ``/``)."""
    n = len(pattern)
    i = start + 1
    negated = i < n and pattern[i] in "!^"
    if negated:
        i += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while True:
        if i >= n:
            raise PatternError(f"unclosed '[' at position {start}")
        ch = pattern[i]
        if ch == "]" and not first:
            return CharClass(tuple(ranges), negated), i + 1
        first = False
        if ch == "[" and pattern.startswith("[:", i):
            named = _posix_class(pattern, i)
            if named is not None:
                name, i = named
                ranges.extend(POSIX_CLASSES[name])
                continue
        low, i = _class_char(pattern, i, start)
        if low is None:
            return None, start + 1
        if i + 1 < n and pattern[i] == "-" and pattern[i + 1] != "]":
            high, i = _class_char(pattern, i + 1, start)
            if high is None:
                return None, start + 1
            if low <= high:  # a reversed range holds nothing
                ranges.append((low, high))
        else:
            ranges.append((low, low))


def _class_char(pattern: str, i: int, start: int) -> tuple[str | None, int]:
    """The (possibly escaped) member character at ``i`` and the index after it;
    None for a ``/``, which no class can hold."""
    ch = pattern[i]
    if ch == "\\":
        i += 1
        if i >= len(pattern):
            raise PatternError(f"unclosed '[' at position {start}")
        ch = pattern[i]
    return (None if ch == "/" else ch), i + 1


def _posix_class(pattern: str, i: int) -> tuple[str, int] | None:
    """``[:name:]`` at ``i``: its name and the index after it. None when what follows
    ``[:`` is not a name closed by ``:]`` (then ``[`` is an ordinary member)."""
    close = pattern.find(":]", i + 2, i + 2 + max(map(len, POSIX_CLASSES)) + 1)
    if close < 0:
        return None
    name = pattern[i + 2 : close]
    if not name.isalpha():
        return None
    if name not in POSIX_CLASSES:
        raise PatternError(
            f"unknown character class '[:{name}:]' at position {i}; "
            f"known: {', '.join(POSIX_CLASSES)}"
        )
    return name, close + 2


def split_outside_braces(text: str) -> list[str]:
    """Split a comma-separated env list at the commas that are not inside ``{…}`` or
    ``[…]`` nor escaped, keeping groups whole; drop empty items."""
    items: list[str] = []
    depth = 0
    start = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            try:
                char_class, end = _parse_class(text, i)
            except PatternError:
                char_class = None
            if char_class is not None:
                i = end
                continue
        elif ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


#: Characters that are glob syntax wherever they stand (``}``, ``,`` and ``]`` are
#: ordinary outside braces and classes).
_SYNTAX = frozenset("*?[{\\")


def escape(text: str) -> str:
    """A pattern matching exactly ``text``."""
    return "".join(f"\\{ch}" if ch in _SYNTAX else ch for ch in text)


def literal_prefix(pattern: str) -> str:
    """The leading whole path components of ``pattern`` that hold no glob syntax
    (``/srv/data`` of ``/srv/data/**/*.key``), without a trailing ``/``."""
    components = pattern.split("/")
    count = 0
    for component in components:
        if _SYNTAX.intersection(component):
            break
        count += 1
    return "/".join(components[:count])


def strip_trailing_slashes(pattern: str) -> str:
    """``pattern`` without the ``/`` (or escaped ``\\/``) at its end, unless nothing
    would be left."""
    end = len(pattern)
    while end > 1 and pattern[end - 1] == "/":
        start = end - 1
        while start and pattern[start - 1] == "\\":
            start -= 1
        shorter = end - 1 - (end - 1 - start) % 2  # an escaping backslash goes too
        if not shorter:
            break
        end = shorter
    return pattern[:end]


# --- matching ------------------------------------------------------------------------

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
