"""Bounded capture of a command's output, and the result text.

A command may print gigabytes; the server keeps only what it can return (the first
``LIMIT`` characters of each stream) and counts the rest. Output is decoded as UTF-8
with invalid bytes replaced; sizes are characters.
"""

from __future__ import annotations

import codecs

from boris.text import LIMIT


def truncated(head: str, total: int, limit: int = LIMIT) -> str:
    """The text a result shows for a stream of ``total`` characters starting with ``head``."""
    if total <= limit:
        return head
    return f"{head[:limit]}\n\n[Truncated: output was {total} characters, showing first {limit}]"


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

    ``feed`` takes raw bytes and returns them decoded, so another consumer (progress)
    sees the same characters without decoding twice.
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

    def text(self, limit: int = LIMIT) -> str:
        return truncated(self.head, self.total, limit)
