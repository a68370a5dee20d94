"""Where a file nearly contains an ``old_str`` that was not found, told so the caller
can correct itself: the first lines match and a later one differs, or a line resembles
the first line of ``old_str`` up to whitespace or a few characters.

A miss must answer in about the time reading the file takes, whatever the file and
old_str are, so every search here is bounded: lines are found with bytes.find or one
RE2 scan, only lines of a plausible length are decoded, and difflib (whose cost grows
with the product of the two lengths) compares short lines only, within a fixed budget.
When a budget runs out the best candidate seen so far is named.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from heapq import merge
from itertools import islice

from boris.files.lines import CHUNK

# The longest first line of old_str (whitespace collapsed) compared for resemblance.
_MAX_COMPARED_CHARS = 1000
_SIMILARITY = 0.8
_QUOTED_CHARS = 300
# Whitespace collapsed when lines are compared: ASCII whitespace other than the newline.
_BLANK = b" \t\r\x0b\x0c"
# Places where the first line of old_str ends a line that are tried for a partial match.
_MAX_PARTIAL_CANDIDATES = 1000
# Work on the lines after those places, in all: each line compared costs its length
# plus _LINE_COST, so both many short lines and a few long ones are bounded.
_PARTIAL_BUDGET = 1 << 24
_LINE_COST = 64
# Identical lines skipped while looking for a line that differs only in whitespace.
_MAX_SAME_LINES = 1000
# Work on lines of a plausible length: decoding them and difflib's linear bounds cost
# each line's length in bytes plus _LINE_COST; a full comparison costs the product of
# the two lengths plus _RATIO_COST (about 0.1 µs each).
_QUICK_BUDGET = 4_000_000
_RATIO_BUDGET = 4_000_000
_RATIO_COST = 200
# Leading and inner whitespace a resembling line may have beyond the first line of
# old_str, in bytes; longer lines are not decoded.
_BLANK_ALLOWANCE = 200


def line_of(data: bytes, offset: int) -> int:
    """The number of the line ``offset`` lies on."""
    return data.count(b"\n", 0, offset) + 1


def near_miss(data: bytes, old: bytes, name: str = "old_str") -> str | None:
    """Where the file nearly contains ``old``, told so the caller can correct itself.

    Either the first lines of ``old`` match somewhere and a later line differs, or a
    line of the file resembles the first (non-blank) line of ``old`` up to whitespace or
    a few characters. Lines are compared without their CR. ``name`` is what the
    caller calls ``old`` (``old_str``, ``hunk 2``).
    """
    old_lines = [line.removesuffix(b"\r") for line in old.split(b"\n")]
    return _partial_match(data, old_lines, name) or similar_line(data, old_lines, name)


def quote(line: bytes) -> str:
    """A line with tabs, CRs and trailing spaces visible: as a JSON string.

    Only the bytes that can make the first _QUOTED_CHARS characters are decoded.
    """
    window = line[: _QUOTED_CHARS * 4]
    text = window.decode("utf-8", "replace")
    if len(text) > _QUOTED_CHARS or len(window) < len(line):
        return json.dumps(text[:_QUOTED_CHARS], ensure_ascii=False) + " (cut)"
    return json.dumps(text, ensure_ascii=False)


def _line_at(data: bytes, start: int) -> bytes:
    """The line starting at ``start`` without its line ending, cut where quote cuts."""
    limit = start + _QUOTED_CHARS * 4 + 1
    end = data.find(b"\n", start, limit)
    if end < 0:
        end = min(limit, len(data))
        line = data[start:end]
        return line.removesuffix(b"\r") if end == len(data) else line
    return data[start:end].removesuffix(b"\r")


# --- the first lines match, a later one differs


def _partial_match(data: bytes, old_lines: list[bytes], name: str) -> str | None:
    """Where the most leading lines of a multi-line ``old`` match, and what differs next."""
    first = old_lines[0]
    if len(old_lines) < 2 or not first.strip(_BLANK):
        return None
    best_end, best_matched, best_next = -1, 0, 0
    budget = _PARTIAL_BUDGET
    for end in islice(_ends_of_lines_ending_with(data, first), _MAX_PARTIAL_CANDIDATES):
        matched, following, budget = _matching_lines(data, end, old_lines, budget)
        if budget < 0:
            break  # this candidate was cut short: its count may be too low
        if matched > best_matched:
            best_end, best_matched, best_next = end, matched, following
    if best_end < 0:
        return None
    start = line_of(data, best_end)
    if best_matched == len(old_lines):
        # An empty last line is old_str's final newline, not a line of the file.
        last = start + len(old_lines) - 1 - (old_lines[-1] == b"")
        lines = f"Line {start} matches" if last == start else f"Lines {start}-{last} match"
        return (
            f"{lines} {name} apart from line endings: the file mixes LF and CRLF there; "
            "copy the line endings exactly."
        )
    if best_matched == 1:
        matched_text = f"Line {start} matches the first line of {name}"
    else:
        matched_text = (
            f"Lines {start}-{start + best_matched - 1} match the first {best_matched} "
            f"lines of {name}"
        )
    if best_next >= len(data):
        return f"{matched_text}, but {name} continues past the end of the file."
    differing = start + best_matched
    return (
        f"{matched_text}, but line {differing} differs (both shown as JSON strings):\n"
        f"  line {differing}: {quote(_line_at(data, best_next))}\n"
        f"  {name}: {quote(old_lines[best_matched])}"
    )


def _ends_of_lines_ending_with(data: bytes, text: bytes) -> Iterator[int]:
    """In order, the offsets just past each ``text`` that ends a line (before its CR)."""
    with_lf = (found + len(text) for found in _occurrences(data, text + b"\n"))
    with_crlf = (found + len(text) for found in _occurrences(data, text + b"\r\n"))
    yield from merge(with_lf, with_crlf)
    if data.endswith(text):
        yield len(data)
    elif data.endswith(text + b"\r"):
        yield len(data) - 1


def _occurrences(data: bytes, needle: bytes) -> Iterator[int]:
    found = data.find(needle)
    while found >= 0:
        yield found
        found = data.find(needle, found + 1)


def _matching_lines(
    data: bytes, end: int, old_lines: list[bytes], budget: int
) -> tuple[int, int, int]:
    """How many lines of ``old`` match where its first line ends the line ending at
    ``end``, the offset of the first line that does not, and the budget left (below
    zero when it ran out before the answer was known).

    The lines of ``old`` between its first and last must equal whole lines (without
    their CR); its last line may be the start of one.
    """
    size = len(data)
    position = _next_line(data, end)
    matched = 1
    last = len(old_lines) - 1
    while matched <= last:
        line = old_lines[matched]
        if position >= size:
            # Past the end of the file only old_str's final newline still matches: an
            # empty last line, after the newline the file ends with.
            if matched == last and not line and data.endswith(b"\n"):
                matched += 1
            break
        budget -= len(line) + _LINE_COST
        if budget < 0:
            break
        if not data.startswith(line, position):
            break
        after = position + len(line)
        if matched == last:
            # A prefix of the line, unless the CR old_str ends with is the line's own.
            if line.endswith(b"\r") and data[after : after + 1] in (b"\n", b""):
                break
            matched += 1
            break
        ending = data[after : after + 2]
        if ending[:1] == b"\n" or ending in (b"\r\n", b"", b"\r"):
            matched += 1
            position = _next_line(data, after)
        else:
            break
    return matched, position, budget


def _next_line(data: bytes, end: int) -> int:
    """The start of the line after the one whose content ends at ``end`` (before its CR
    and newline); the size of the data when there is none."""
    if data.startswith(b"\r\n", end):
        return end + 2
    if data.startswith(b"\n", end):
        return end + 1
    return len(data)


# --- a line resembles the first line of old_str


def similar_line(
    data: bytes, old_lines: list[bytes], name: str, *, single: bool = False
) -> str | None:
    """The file line most like the first non-blank line of ``old``, if any is close;
    ``single``: ``old`` is one line, named ``name`` itself."""
    position = next((i for i, line in enumerate(old_lines) if line.strip(_BLANK)), None)
    if position is None:
        return None
    target = old_lines[position]
    words = target.split()
    wanted = b" ".join(words).decode("utf-8", "replace")
    if not 3 <= len(wanted) <= _MAX_COMPARED_CHARS:
        return None
    found = _blank_variant(data, target, words) or _resembling(data, target, wanted)
    if found is None:
        return None
    number, line = found
    which = "the first line" if position == 0 else "the first non-blank line"
    what = name if single else f"{which} of {name}"
    return (
        f"Line {number} resembles {what} (both shown as JSON strings):\n"
        f"  line {number}: {quote(line)}\n"
        f"  {name}: {quote(target)}"
    )


def _blank_variant(data: bytes, target: bytes, words: list[bytes]) -> tuple[int, bytes] | None:
    """The first line that differs from ``target`` only in whitespace, found by one
    linear RE2 scan of the file."""
    # only needed on this error path
    from boris.patterns.line_regex import Matcher, PatternError

    blank = "[ \\t\\r\\x0b\\x0c]"
    pattern = f"^{blank}*" + f"{blank}+".join(_literal(w) for w in words) + f"{blank}*$"
    try:
        matcher = Matcher(pattern, case_insensitive=False, multiline=False)
    except PatternError:  # over RE2's memory budget: no hint rather than a failure
        return None
    lines = matcher.prepare(data)  # line ends without their CR
    for start, end in islice(matcher.lines(lines), _MAX_SAME_LINES):
        if lines[start:end] != target:
            return line_of(lines, start), lines[start:end]
    return None


def _literal(word: bytes) -> str:
    """A word of valid UTF-8 as an RE2 pattern matching exactly it."""
    return "".join(
        char if char.isascii() and char.isalnum() else f"\\x{{{ord(char):x}}}"
        for char in word.decode("utf-8")
    )


def _resembling(data: bytes, target: bytes, wanted: str) -> tuple[int, bytes] | None:
    """The line closest to ``wanted`` (whitespace collapsed) by difflib's ratio, when at
    least _SIMILARITY; lines whose length is not within a fifth of it are skipped."""
    from difflib import SequenceMatcher  # only needed on this error path

    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    slack = max(3, len(wanted) // 5)
    # Bytes are at least as many as characters, and at most four times as many.
    shortest = len(wanted) - slack
    longest = 4 * (len(wanted) + slack) + _BLANK_ALLOWANCE
    quick_budget, ratio_budget = _QUICK_BUDGET, _RATIO_BUDGET
    best_ratio, best = _SIMILARITY, None
    seen: set[str] = set()  # a repeated line cannot beat its first occurrence
    for number, raw in _numbered_lines(data):
        if not shortest <= len(raw) <= longest:
            continue
        quick_budget -= len(raw) + _LINE_COST
        if quick_budget < 0:
            break
        line = raw.removesuffix(b"\r")
        if line == target:
            continue  # identical: the difference lies elsewhere
        normalized = b" ".join(line.split()).decode("utf-8", "replace")
        if abs(len(normalized) - len(wanted)) > slack or normalized in seen:
            continue
        seen.add(normalized)
        matcher.set_seq1(normalized)
        if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
            continue
        ratio_budget -= len(normalized) * len(wanted) + _RATIO_COST
        if ratio_budget < 0:
            break
        ratio = matcher.ratio()
        if ratio > best_ratio or (best is None and ratio == best_ratio):
            best_ratio, best = ratio, (number, line)
    return best


def _numbered_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Each line of ``data`` with its number and its CR, except lines longer than a block
    (far too long to resemble anything compared), which are only counted.

    Lines are split a block at a time: fast like one split, without a list of every
    line of the file.
    """
    size = len(data)
    number = 0
    start = 0
    while start < size:
        stop = min(start + CHUNK, size)
        if stop < size:
            newline = data.rfind(b"\n", start, stop)
            if newline < 0:  # the line at start is longer than a block
                number += 1
                start = data.find(b"\n", stop) + 1 or size
                continue
            stop = newline + 1
        lines = data[start:stop].split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # the remainder after the block's last newline
        for line in lines:
            number += 1
            yield number, line
        start = stop
