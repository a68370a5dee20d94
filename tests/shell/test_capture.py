"""The pieces of a bash result decided in the server, called directly: the cwd report
the wrapper writes after a command (boris/shell/wrapper.py), the cd steps into a cwd
longer than one chdir() takes, exit statuses and the result's sections
(boris/shell/capture.py). Expected values are written out.
"""

from __future__ import annotations

import pytest

from boris.shell.capture import Capture, exit_status, sections
from boris.shell.wrapper import MAX_CWD, CwdReport, cd_steps


def reports(*chunks: bytes) -> list[str | None]:
    """What the report reader makes of ``chunks``: the first whole report (its path, or
    None for one that cannot be a report), or nothing."""
    received = CwdReport()
    return [report for chunk in chunks for report in received.feed(chunk)]


@pytest.mark.parametrize(
    ("chunks", "found"),
    [
        ((b"/work/x\n\0",), ["/work/x"]),
        ((b"/wo", b"rk\n", b"\0"), ["/work"]),
        ((b"/\n\0",), ["/"]),
        ((b"/caf\xc3\xa9\n\0",), ["/café"]),
        # A name that is not UTF-8 keeps its bytes (as surrogate escapes).
        ((b"/a\xff\n\0",), ["/a\udcff"]),
        # No NUL: no report (yet).
        ((), []),
        ((b"/work\n",), []),
        ((b"/work",), []),
        # A report that cannot be one: a report all the same, which leaves the cwd alone.
        ((b"/work\0",), [None]),
        ((b"\n\0",), [None]),
        ((b"work\n\0",), [None]),
        ((b"/a\0b\n\0",), [None]),
        # Only the first report counts.
        ((b"/a\n\0/b\n\0",), ["/a"]),
        ((b"/a\n\0", b"/b\n\0"), ["/a"]),
        ((b"/a\n\0\0",), ["/a"]),
    ],
)
def test_cwd_report(chunks: tuple[bytes, ...], found: list[str | None]) -> None:
    assert reports(*chunks) == found


def test_cwd_report_is_the_path_accepted() -> None:
    received = CwdReport()
    assert received.feed(b"/work\n\0") == ["/work"]
    assert received.cwd() is None  # not yet found true
    received.accept("/work")
    assert received.cwd() == "/work"


def test_cwd_report_of_the_longest_cwd() -> None:
    """A cwd of up to MAX_CWD (65,536) bytes is reported; a longer one is no report,
    however it arrives, and is not kept whole in memory."""
    longest = b"/" + b"d" * (MAX_CWD - 1)
    assert reports(longest + b"\n\0") == [longest.decode()]
    assert reports(longest[:100], longest[100:] + b"\n\0") == [longest.decode()]
    assert reports(longest + b"d\n\0") == [None]
    assert reports(longest + b"d", b"\n\0") == [None]
    assert reports(longest + b"d" * 10 * MAX_CWD, b"\n\0") == [None]
    assert reports(b"/" + b"d" * (MAX_CWD - 2) + b"\n\0") == ["/" + "d" * (MAX_CWD - 2)]


def test_cd_steps_of_a_short_cwd_is_the_cwd() -> None:
    assert cd_steps("/work/x") == ["/work/x"]
    near = "/" + "d" * 4094  # 4,095 bytes: one chdir() takes it
    assert cd_steps(near) == [near]


def test_cd_steps_into_a_cwd_longer_than_path_max() -> None:
    """Each step is under 4,096 bytes: the first absolute, the others relative."""
    name = "d" * 200
    cwd = "/" + "/".join([name] * 30)  # 6,030 bytes
    assert cd_steps(cwd) == ["/" + "/".join([name] * 20), "./" + "/".join([name] * 10)]
    wide = "é" * 150  # 300 bytes, 150 characters
    cwd = "/" + "/".join([wide] * 20)
    assert cd_steps(cwd) == ["/" + "/".join([wide] * 13), "./" + "/".join([wide] * 7)]
    # Exactly at the limit a step moves on: 4,096 bytes never go to one chdir().
    name = "e" * 4094
    assert cd_steps(f"/{name}/x") == [f"/{name}", "./x"]


@pytest.mark.parametrize(("returncode", "status"), [(0, 0), (3, 3), (255, 255), (-9, 137)])
def test_exit_status(returncode: int, status: int) -> None:
    """A process killed by signal N reports 128 + N, as the shell's $? does."""
    assert exit_status(returncode) == status


def test_sections_each_only_when_not_empty() -> None:
    assert sections("", "out") == "\nstdout:\nout"
    assert sections("err", "") == "\nstderr:\nerr"
    assert sections("err", "out") == "\nstderr:\nerr\nstdout:\nout"


def test_capture_decodes_across_chunks_and_keeps_its_head() -> None:
    capture = Capture(keep=3)
    assert capture.feed(b"a\xc3") == "a"
    assert capture.feed(b"\xa9bcd") == "\u00e9bcd"
    assert capture.feed(b"\xe2\x82") == ""
    assert capture.finish() == "\ufffd"
    assert (capture.head, capture.total) == ("a\u00e9b", 6)
    assert (
        capture.text(limit=3) == "a\u00e9b\n\n[Truncated: output was 6 characters, showing first 3]"
    )


def test_capture_of_nothing() -> None:
    capture = Capture(keep=5)
    assert capture.finish() == ""
    assert (capture.head, capture.total, capture.text()) == ("", 0, "")
