"""A file's text as grep reads it (boris/search/file_text.py), called directly: binary by a
NUL anywhere, the size limit, empty files, files longer than the first read, and a FIFO
that is never waited on. tests/tools/test_grep.py checks the same rules through a client.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boris.search.file_text import read_text_file
from tests.support.trees import write_tree

FILES: dict[str, str | bytes] = {
    "bin": b"a\x00b",
    "late_bin": b"a" * 70_000 + b"\x00",
    "empty": "",
    "big": "x" * 100,
    "text": "hello\n",
    "long": "y" * 70_000 + "\n",  # longer than the first read
}

#: (file, max_size, its text or None for a file grep skips)
READS: list[tuple[str, int, bytes | None]] = [
    ("bin", 1000, None),
    ("late_bin", 1 << 20, None),  # a NUL past the first read
    ("empty", 1000, None),
    ("big", 99, None),  # over the size limit
    ("text", 1000, b"hello\n"),
    ("long", 1 << 20, b"y" * 70_000 + b"\n"),
    ("long", 70_000, None),
]


@pytest.mark.parametrize(("name", "max_size", "text"), READS)
def test_what_is_read(tmp_path: Path, name: str, max_size: int, text: bytes | None) -> None:
    write_tree(tmp_path, FILES)
    assert read_text_file(str(tmp_path / name), max_size) == text


def test_a_fifo_is_never_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    assert read_text_file(str(tmp_path / "fifo"), 1000) is None  # never blocks
