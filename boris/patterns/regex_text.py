"""What the text of a grep pattern (RE2 syntax) says, read without running it: whether it
writes a literal newline (refused without ``multiline``), and whether it can see the
``\\r`` of a CRLF line end (if not, CRLF files are searched as they are).
"""

from __future__ import annotations

import functools

#: Escapes that match neither a carriage return nor an end of line, in and outside
#: a character class.
_BLIND_ESCAPES = frozenset("wdbBA")
_BLIND_CLASS_ESCAPES = frozenset("wd")


def cannot_see_carriage_return(pattern: str) -> bool:
    """Whether ``pattern`` surely matches a line the same with or without a ``\\r``
    at its end: it has no ``$`` and nothing that can match a ``\\r`` (``.``, ``\\s``,
    negated classes, control characters, most escapes). Such patterns are run on
    CRLF files as they are, sparing a scan and a copy of every file.

    Conservative: anything it does not recognise counts as seeing the ``\\r``.
    """
    if "\\Q" in pattern:
        return False  # quoted text would need its own parsing
    in_class = False
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch < " ":
            return False  # a literal control character, maybe "\r" itself
        if ch == "\\":
            escaped = pattern[i + 1] if i + 1 < n else ""
            allowed = _BLIND_CLASS_ESCAPES if in_class else _BLIND_ESCAPES
            punctuation = " " < escaped < "\x7f" and not escaped.isalnum()
            if not (escaped in allowed or punctuation):
                return False
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif pattern.startswith("[:", i):
                return False  # a POSIX class such as [:space:]
        elif ch in "$.":
            return False
        elif ch == "[":
            if pattern.startswith(("[^", "[]"), i):
                return False
            in_class = True
        i += 1
    return True


def has_literal_newline(pattern: str) -> bool:
    """Whether ``pattern`` (valid RE2) writes a newline as a literal character: typed
    as is (also inside ``\\Q...\\E``), as an escape (``\\n``, ``\\x0A``,
    ``\\x{A}``, ``\\012``), or as a character class that holds nothing else
    (``[\\n]``).

    Line-by-line matching can never match such a newline, and ripgrep refuses
    these patterns the same way. What merely *may* match a newline (``\\s``,
    ``[^a]``, ``(?s).``) is fine: it just never does, as in ripgrep.
    """
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\n":
            return True
        if ch == "\\":
            if pattern.startswith("Q", i + 1):
                end = pattern.find("\\E", i + 2)
                quoted = pattern[i + 2 : n if end < 0 else end]
                if "\n" in quoted:
                    return True
                i = n if end < 0 else end + 2
                continue
            value, i = _escape(pattern, i)
            if value == 10:
                return True
            continue
        if ch == "[":
            end = _class_end(pattern, i)
            if _is_newline_class(pattern[i:end]):
                return True
            i = end
            continue
        i += 1
    return False


def _escape(pattern: str, i: int) -> tuple[int | None, int]:
    """The character an escape at ``i`` stands for (None for one that stands for a
    class or an assertion) and the index after it."""
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    if letter == "n":
        return 10, i + 2
    if letter == "x":
        if pattern.startswith("{", i + 2):
            end = pattern.find("}", i + 3)
            return int(pattern[i + 3 : end], 16), end + 1
        return int(pattern[i + 2 : i + 4], 16), i + 4
    if "0" <= letter <= "7":  # octal: \0 with up to two more digits, \1-\7 with one or two
        end = i + 2
        while end < min(i + 4, len(pattern)) and "0" <= pattern[end] <= "7":
            end += 1
        return int(pattern[i + 1 : end], 8), end
    if letter in "pP":
        if pattern.startswith("{", i + 2):
            return None, pattern.find("}", i + 3) + 1
        return None, i + 3
    return None, i + 2


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class that opens at ``start``, with RE2's
    rules: a ``]`` right after ``[`` or ``[^`` is a member, ``[:name:]`` is one."""
    i, n = start + 1, len(pattern)
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):
        i += 1
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
        elif ch == "]":
            return i + 1
        elif pattern.startswith("[:", i) and (close := pattern.find(":]", i + 2)) >= 0:
            i = close + 2
        else:
            i += 1
    return n


def _is_newline_class(text: str) -> bool:
    """Whether the character class ``text`` holds the newline and nothing else."""
    if "\\" not in text and "\n" not in text and not text.startswith("[^"):
        return False  # plain members: it cannot be the newline alone
    return _matches_only_newline(text)


@functools.lru_cache(maxsize=256)
def _matches_only_newline(regex: str) -> bool:
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        # For one character, the least and greatest possible matches are equal only
        # when it can be just one character.
        least, greatest = re2.compile(regex.encode(), options).possiblematchrange(2)
    except re2.error:  # not a valid class, or no range to tell
        return False
    return bool(least == greatest == b"\n")
