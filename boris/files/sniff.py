"""What a file's first bytes say it is: an image (and its MIME type), other binary, or text.

Only the head of the file is looked at (``SNIFF_BYTES``), so deciding costs one small read
whatever the file's size.
"""

from __future__ import annotations

import re

#: How many leading bytes decide whether a file is text.
SNIFF_BYTES = 512

#: Byte order marks: UTF-8's (not part of the text), and UTF-16's little- and
#: big-endian ones (the file is UTF-16 text).
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_LE_BOM = b"\xff\xfe"
UTF16_BE_BOM = b"\xfe\xff"

# Control bytes that do not occur in text. Tab, LF, FF, CR and ESC are absent from this
# set: they do occur in text (ESC in logs with ANSI colours).
_BINARY_BYTE = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")

# Formats whose head can look like text but whose content is not.
_BINARY_SIGNATURES = (b"%PDF-",)

# Sizes of the BMP info header versions; "BM" alone is too weak a signature
# (a text file may well start with those two letters).
_BMP_INFO_HEADER_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def image_type(head: bytes) -> str | None:
    """The MIME type of an image recognised by its magic bytes, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if (
        head.startswith(b"BM")
        and len(head) >= 18
        and int.from_bytes(head[14:18], "little") in _BMP_INFO_HEADER_SIZES
    ):
        return "image/bmp"
    if head.startswith(b"\x00\x00\x01\x00") and len(head) >= 6 and head[4:6] != b"\x00\x00":
        return "image/x-icon"  # reserved 0, type 1 (icon), then a non-zero image count
    return None


def is_svg(name: str) -> bool:
    """SVG is text, so it is recognised by its extension rather than its bytes."""
    return name.lower().endswith(".svg")


def looks_binary(head: bytes) -> bool:
    """Whether a file starting with ``head`` is binary rather than text.

    A NUL or another control byte that text never contains makes it binary, as do
    formats known to be binary whose first bytes happen to look like text.
    """
    return bool(_BINARY_BYTE.search(head)) or head.startswith(_BINARY_SIGNATURES)
