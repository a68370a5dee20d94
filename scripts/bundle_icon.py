"""Draw the bundle's icon: a shell prompt (``>_``) on a rounded square, 512 x 512 RGBA.

Usage: python3 scripts/bundle_icon.py [OUTPUT]   (default: scripts/bundle_icon.png)

Drawn from distance functions, each pixel's coverage taken from its distance to a shape's
edge (one pixel of soft edge), and written as a PNG by hand (zlib), so that the same
bytes come out wherever it runs. tests/test_bundle.py checks the committed icon against
this drawing.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

SIZE = 512
ICON = Path(__file__).resolve().parent / "bundle_icon.png"

#: Colours, RGB.
BACKGROUND = (30, 42, 68)
PROMPT = (245, 182, 66)

#: The rounded square: its margin to the picture's edge and its corner radius.
MARGIN, RADIUS = 16, 96
#: The chevron's two strokes (round-capped segments) and the cursor bar, in pixels.
STROKE = 22.0  # half the stroke width
CHEVRON = ((150.0, 168.0), (266.0, 256.0), (150.0, 344.0))
CURSOR = ((296.0, 344.0), (380.0, 344.0))


def _rounded_square(x: float, y: float) -> float:
    """Signed distance to the rounded square (negative inside)."""
    half = SIZE / 2 - MARGIN
    qx = abs(x - SIZE / 2) - (half - RADIUS)
    qy = abs(y - SIZE / 2) - (half - RADIUS)
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
    return outside + min(max(qx, qy), 0.0) - RADIUS


def _segment(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance to the segment a-b."""
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)
    t = min(max(t, 0.0), 1.0)
    return math.hypot(x - (ax + t * dx), y - (ay + t * dy))


def _prompt(x: float, y: float) -> float:
    """Signed distance to the prompt's strokes."""
    nearest = min(
        _segment(x, y, CHEVRON[0], CHEVRON[1]),
        _segment(x, y, CHEVRON[1], CHEVRON[2]),
        _segment(x, y, *CURSOR),
    )
    return nearest - STROKE


def _coverage(distance: float) -> float:
    return min(max(0.5 - distance, 0.0), 1.0)


def pixels() -> bytes:
    """The picture's rows, each with PNG's filter byte (0: none) in front, RGBA."""
    rows = bytearray()
    for row in range(SIZE):
        rows.append(0)
        y = row + 0.5
        for column in range(SIZE):
            x = column + 0.5
            square = _coverage(_rounded_square(x, y))
            if square == 0.0:
                rows += b"\0\0\0\0"
                continue
            ink = _coverage(_prompt(x, y))
            colour = (round(b + (p - b) * ink) for b, p in zip(BACKGROUND, PROMPT, strict=True))
            rows += bytes((*colour, round(255 * square)))
    return bytes(rows)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def render() -> bytes:
    """The icon as PNG bytes: 8-bit RGBA, not interlaced."""
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(pixels(), 9)),
            _chunk(b"IEND", b""),
        )
    )


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else ICON
    output.write_bytes(render())
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
