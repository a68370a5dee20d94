"""A Place holds directory descriptors while a file tool works, and closes every one of them
(boris/files/place.py)."""

from __future__ import annotations

import os
from pathlib import Path

from boris.files.place import locate
from boris.files.writing import write_new


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_making_parents_leaks_no_descriptor(tmp_path: Path) -> None:
    """The descriptor of the deepest existing directory, held before the missing ones are
    made, is closed too (it leaked one per file created with new parents)."""
    before = open_descriptors()
    for n in range(5):
        with locate(lambda path: str(tmp_path / path), f"new{n}/deeper/f.txt") as place:
            write_new(place, b"x", 0o644)
            place.remove_made()  # still possible: the descriptors are open until the end
    assert open_descriptors() == before
    assert (tmp_path / "new4/deeper/f.txt").read_bytes() == b"x"
