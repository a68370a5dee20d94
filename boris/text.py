"""Text that goes into a reply: valid Unicode, and no listing or stream longer than the cap.

Every string a client receives must be valid Unicode (:func:`printable`). Every tool
whose output could be of any size (bash's streams, grep, glob, a directory listing)
shows at most :data:`LIMIT` characters of it, and says how much more there was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: The most characters a tool shows of one stream, listing or search output.
LIMIT = 30_000

#: What is wrong with a string holding a lone UTF-16 surrogate: JSON can carry one
#: (``"\\ud800"``), but it is not Unicode text and cannot be written into a reply or a file.
LONE_SURROGATE = "contains a lone UTF-16 surrogate, which is not valid Unicode text"

_SURROGATES = re.compile("[\ud800-\udfff]")

# Lone surrogates that surrogateescape cannot turn back into bytes (a character class
# on one character at a time: linear).
_OTHER_SURROGATES = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def printable(text: str) -> str:
    """``text`` safe to put in a JSON reply: bytes of a file name that were not UTF-8
    (kept by Python as lone surrogates U+DC80..U+DCFF, so that the name still opens the
    file) become U+FFFD, and so does any other lone surrogate. A reply holding a lone
    surrogate cannot be serialised at all."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _OTHER_SURROGATES.sub("\ufffd", text)
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (a Python string holds no pairs: JSON's
    escaped pairs are decoded into the character they stand for). Linear, no copy."""
    return not text.isascii() and _SURROGATES.search(text) is not None


def lines_within(lines: Sequence[str], limit: int = LIMIT) -> int:
    """How many of ``lines``, from the first, fit in ``limit`` characters joined by
    newlines: where a listing is cut so that no line is shown in part."""
    size = -1  # no newline before the first line
    for count, line in enumerate(lines):
        size += len(line) + 1
        if size > limit:
            return count
    return len(lines)


def paged(lines: Sequence[str], total: int | None, head_limit: int, offset: int, unit: str) -> str:
    """A page of a listing whose entries from ``offset`` on are ``lines`` (more than
    the page may be given; ``total`` is how many entries there are in all, None when
    unknown): the first ``head_limit`` of them (all for 0), cut at ``LIMIT`` characters
    if need be, at an entry, with a last line that says what was left out and the
    offset to go on from. ``unit`` names an entry: "line", "file". An entry may span
    lines."""
    lines = lines[:head_limit] if head_limit else lines
    fit = lines_within(lines)
    if fit == len(lines):
        return "\n".join(lines)
    first = offset + 1
    of = f" of {total}" if total is not None else ""
    if fit == 0:  # a single entry longer than the limit: show its beginning
        text = lines[0][:LIMIT]
        shown = f"{unit} {first}{of}, cut to its first {LIMIT} of {len(lines[0])} characters"
        fit = 1
    else:
        text = "\n".join(lines[:fit])
        shown = f"{unit}s {first}-{offset + fit}{of}"
    more = "" if of else "; more follow"
    return (
        f"{text}\n\n[Truncated at {LIMIT} characters: showing {shown}{more}. "
        f"To see more, call again with offset: {offset + fit}.]"
    )
