"""Glob pattern syntax shared by deny patterns, glob and grep's include filter."""

from __future__ import annotations

from wcmatch import glob

#: ``**`` crosses directories, ``{a,b}`` expands, and ``*`` matches dotfiles too.
GLOB_FLAGS = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a well-formed glob pattern, or None when it is.

    wcmatch quietly treats a malformed pattern as literal text; a typo like
    ``[invalid`` would then match nothing and hide the mistake, so Boris refuses it.
    """
    if not pattern:
        return "pattern is empty"
    braces = 0
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 == n:
                return "pattern ends with an unfinished escape '\\'"
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":  # a leading ']' is a literal member
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            if j >= n:
                return f"unclosed '[' at position {i}"
            i = j + 1
            continue
        if ch == "{":
            braces += 1
        elif ch == "}":
            if braces == 0:
                return f"unmatched '}}' at position {i}"
            braces -= 1
        i += 1
    if braces:
        return "unclosed '{'"
    return None


def split_outside_braces(text: str) -> list[str]:
    """Split a comma-separated env list, keeping ``{a,b}`` groups whole; drop empty items."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        current.append(ch)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]
