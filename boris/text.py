"""Text that can go into a reply: every string a client receives must be valid Unicode."""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` safe to put in a JSON reply: bytes of a file name that were not UTF-8
    (kept by Python as lone surrogates, so that the name still opens the file)
    become U+FFFD. A reply holding a lone surrogate cannot be serialised at all."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text
