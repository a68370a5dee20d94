"""Glob patterns as deny patterns, glob and grep's include filter write them: their
syntax, read and checked in one pass into tokens, and the helpers that take patterns
apart (env lists, literal prefixes, trailing slashes). Matching them is
boris.patterns.glob_match's.

``*`` any characters but ``/``; ``**`` as a whole path component, any number of
directories; ``?`` one character but ``/``; ``[abc]``, ``[a-z]``, ``[!abc]`` (or
``[^abc]``) and POSIX classes such as ``[[:digit:]]``, never matching ``/``;
``{a,b}`` alternatives, nested at will. ``\\`` makes the next character ordinary.
A ``}`` or ``,`` outside braces is an ordinary character, and so is a brace group
without a comma (``{c}`` is the text ``{c}``). A ``[`` whose class would hold a
``/`` is an ordinary character. Malformed patterns (an unclosed ``[`` or ``{``, a
trailing lone ``\\``) are refused rather than read as text: a typo like
``[invalid`` would otherwise match nothing and hide the mistake.
"""

from __future__ import annotations

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
