"""Text that can go into a reply: every string a client receives must be valid Unicode."""

from __future__ import annotations

import re

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
