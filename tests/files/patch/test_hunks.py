"""apply_hunks where the tool cannot reach it: a patch called off between hunks."""

from __future__ import annotations

import threading

import pytest

from boris.files.patch.format import parse
from boris.files.patch.hunks import apply_hunks
from boris.stop import Stopped


def test_a_called_off_patch_stops_before_its_next_hunk() -> None:
    (change,) = parse("*** Begin Patch\n*** Update File: f\n-a\n+b\n*** End Patch\n")
    stop = threading.Event()
    assert apply_hunks(b"a\n", change.hunks, "f", stop) == b"b\n"
    stop.set()
    with pytest.raises(Stopped):
        apply_hunks(b"a\n", change.hunks, "f", stop)
