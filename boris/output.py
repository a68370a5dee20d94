"""Bounded capture of a command's output, the cwd sentinel parser, and the result text.

A command may print gigabytes; the server keeps only what it can return (the first
``LIMIT`` characters of each stream, plus what finding the sentinel needs) and counts
the rest. Output is decoded as UTF-8 with invalid bytes replaced; sizes are characters.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass

#: Characters of each stream a result shows; the rest is counted and dropped.
LIMIT = 30_000

#: The longest ``pwd`` line accepted after a sentinel (PATH_MAX on Linux).
MAX_PWD = 4096


def truncated(head: str, total: int, limit: int = LIMIT) -> str:
    """The text a result shows for a stream of ``total`` characters starting with ``head``."""
    if total <= limit:
        return head
    return f"{head[:limit]}\n\n[Truncated: output was {total} characters, showing first {limit}]"


def lines_within(lines: Sequence[str], limit: int = LIMIT) -> int:
    """How many of ``lines``, from the first, fit in ``limit`` characters joined by
    newlines: where a listing is cut so that no line is shown in part."""
    size = -1  # no newline before the first line
    for count, line in enumerate(lines):
        size += len(line) + 1
        if size > limit:
            return count
    return len(lines)


def sections(stderr: str, stdout: str) -> str:
    """The ``stderr:`` and ``stdout:`` sections of a result, each present only when non-empty."""
    text = ""
    if stderr:
        text += f"\nstderr:\n{stderr}"
    if stdout:
        text += f"\nstdout:\n{stdout}"
    return text


def exit_status(returncode: int) -> int:
    """A shell-style status: a process killed by signal N reports 128 + N, as ``$?`` does."""
    return 128 - returncode if returncode < 0 else returncode


class Capture:
    """One stream's text: its first ``keep`` characters and its total length.

    ``feed`` takes raw bytes and returns them decoded, so other consumers (the
    sentinel scanner, progress) see the same characters without decoding twice.
    """

    __slots__ = ("_decoder", "_head", "_kept", "keep", "total")

    def __init__(self, keep: int = LIMIT) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._head: list[str] = []
        self._kept = 0
        self.keep = keep
        self.total = 0

    def feed(self, data: bytes, final: bool = False) -> str:
        text: str = self._decoder.decode(data, final)
        if text:
            self._store(text)
        return text

    def finish(self) -> str:
        """Flush a trailing incomplete UTF-8 sequence (as U+FFFD)."""
        return self.feed(b"", final=True)

    def _store(self, text: str) -> None:
        self.total += len(text)
        room = self.keep - self._kept
        if room > 0:
            piece = text if len(text) <= room else text[:room]
            self._head.append(piece)
            self._kept += len(piece)

    @property
    def head(self) -> str:
        if len(self._head) > 1:
            self._head = ["".join(self._head)]
        return self._head[0] if self._head else ""

    def cut(self, start: int, end: int) -> None:
        """Remove characters ``[start, end)`` of the stream (the sentinel block)."""
        head = self.head
        if start < len(head):
            head = head[:start] + head[end:]
            self._head = [head]
            self._kept = len(head)
        self.total -= end - start

    def text(self, limit: int = LIMIT) -> str:
        return truncated(self.head, self.total, limit)


@dataclass(frozen=True)
class SentinelBlock:
    """Where the wrapper's ``⏎sentinel⏎pwd⏎`` lines sit in stdout, and the cwd they name.

    ``pwd`` is None when the stream ended inside the block (the shell was killed
    while printing it): the block is still removed, the cwd is not changed.
    """

    start: int
    end: int
    pwd: str | None


class SentinelScanner:
    """Finds the last ``⏎<sentinel>⏎<pwd>⏎`` in a stream fed in arbitrary pieces.

    The result is the same as searching the whole text at once for the last marker
    and the line after it (the tests hold it to that rule), but only a few characters
    are kept between pieces. The blank line before the sentinel line is its leading
    newline, so the marker is ``⏎sentinel⏎``.
    """

    def __init__(self, sentinel: str, max_pwd: int = MAX_PWD) -> None:
        if "\n" in sentinel or not sentinel:
            raise ValueError("a sentinel is one non-empty line")
        self.sentinel = sentinel
        self.marker = f"\n{sentinel}\n"
        # A pwd line may not be shorter than the sentinel, or a too-long pwd line
        # could be the sentinel itself.
        self.max_pwd = max(max_pwd, len(sentinel))
        self._carry = ""
        self._end = 0  # stream offset just past everything fed
        self._block: SentinelBlock | None = None
        # The newest marker whose pwd line is still incomplete: its start, the pwd so far.
        self._pending: int | None = None
        self._pwd: list[str] = []
        self._pwd_len = 0

    def feed(self, text: str) -> None:
        if not text:
            return
        buf = self._carry + text
        base = self._end - len(self._carry)
        self._end += len(text)
        marker, m = self.marker, len(self.marker)
        i = 0
        while True:
            if self._pending is not None:
                nl = buf.find("\n", i)
                if nl < 0:
                    self._grow_pwd(buf[i:])
                    self._carry = ""
                    return
                line = "".join(self._pwd) + buf[i:nl]
                start = self._pending
                if line == self.sentinel:
                    # The "pwd" line is itself a sentinel line: a newer marker starts
                    # at the newline before it.
                    self._start_pending(start + m - 1)
                    i = nl + 1
                    continue
                self._pending = None
                self._block = (
                    SentinelBlock(start, base + nl + 1, line) if len(line) <= self.max_pwd else None
                )
                i = nl  # a newer marker may begin at this newline
            p = buf.find(marker, i)
            if p < 0:
                self._carry = buf[max(i, len(buf) - (m - 1)) :]
                return
            self._start_pending(base + p)
            i = p + m

    def _start_pending(self, start: int) -> None:
        self._pending = start
        self._pwd = []
        self._pwd_len = 0
        self._block = None

    def _grow_pwd(self, piece: str) -> None:
        self._pwd_len += len(piece)
        if self._pwd_len > self.max_pwd:
            # Too long for a pwd line: the marker was not the wrapper's.
            self._pending = None
            self._pwd = []
        else:
            self._pwd.append(piece)

    def result(self) -> SentinelBlock | None:
        """The last block, once the whole stream has been fed."""
        if self._pending is not None:
            return SentinelBlock(self._pending, self._end, None)
        return self._block

    @property
    def keep(self) -> int:
        """Characters beyond ``LIMIT`` a capture must keep so the block can be cut from it."""
        return len(self.marker) + self.max_pwd + 1
