"""One file searched: what a grep does with each file (:class:`FileTask`, plain data that
travels to the worker processes, which compile the pattern themselves), and
:func:`search_file`, which reads the file, matches it and gives its result.

Grep's worker processes load this module (boris.search.pool): it imports nothing of
the server.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import stat
from dataclasses import dataclass
from typing import Any, ClassVar

from boris.patterns.line_regex import Matcher
from boris.search.content_lines import Rendered, render_file
from boris.search.file_text import OPEN_FLAGS, is_binary, read_text
from boris.search.frames import Malformed, integer, string_list
from boris.stop import Stop, check

#: The output modes; the first is the default.
OUTPUT_MODES = ("files_with_matches", "content", "count")


@dataclass(frozen=True)
class FileTask:
    """What to do with each file of a search, as plain data: it travels to worker
    processes, which compile the pattern themselves."""

    #: RE2 runs in linear time and bounded memory: a chunk may be searched anywhere.
    ISOLATED: ClassVar[bool] = False

    pattern: str
    case_insensitive: bool
    multiline: bool
    output_mode: str
    max_size: int
    line_numbers: bool = True
    before: int = 0
    after: int = 0
    #: content mode: the most output lines a file needs to give (None: all).
    budget: int | None = None
    #: content mode: a file stops giving lines once those it keeps (see
    #: :class:`Rendered`) hold more than this many characters, more than any page
    #: shows (None: no limit).
    max_chars: int | None = None

    def matcher(self) -> Matcher:
        return compiled(self.pattern, self.case_insensitive, self.multiline)

    @property
    def file_seconds(self) -> float | None:
        return None

    def memory_budget(self, path: str) -> int | None:
        return None

    def wire(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_wire(cls, fields: dict[str, Any]) -> FileTask:
        return cls(**fields)

    def result_to_wire(self, result: Result) -> Any:
        if isinstance(result, Rendered):
            return [result.left_out, result.lines, result.cut]
        return result

    def result_from_wire(self, value: Any) -> Result:
        """A file's result: its mtime or count (an integer), or its content lines."""
        if self.output_mode != "content":
            return integer(value)
        if type(value) is not list or len(value) != 3 or type(value[2]) is not bool:
            raise Malformed("not a file's content lines")
        return Rendered(integer(value[0]), string_list(value[1]), value[2])

    def run_chunk(
        self, chunk: list[tuple[str, str]], skip: int, stop: Stop | None = None
    ) -> list[tuple[int, Result]]:
        """``(index, result)`` for the files of ``chunk`` with a result.

        In content mode the chunk's first file leaves out its first ``skip`` output
        lines, and each file after it as many fewer as the files before it in the chunk
        gave (with the ``--`` before each): lines that fall before the page, as far as
        the sender knew. The sender checks each file against what it really needs.
        """
        matcher = self.matcher()
        separator = 1 if self.before > 0 or self.after > 0 else 0
        found: list[tuple[int, Result]] = []
        for index, (label, path) in enumerate(chunk):
            check(stop)
            result = search_file(self, matcher, label, path, skip, stop)
            if result is not None:
                found.append((index, result))
                if isinstance(result, Rendered):
                    given = result.left_out + len(result.lines) + separator
                    skip = max(skip - given, 0)
        return found


@functools.lru_cache(maxsize=32)
def compiled(pattern: str, case_insensitive: bool, multiline: bool) -> Matcher:
    """The Matcher of a pattern, compiled once per process."""
    return Matcher(pattern, case_insensitive=case_insensitive, multiline=multiline)


#: A file's result: its mtime (files_with_matches), its count of match lines (count)
#: or its output lines (content); None when the file has no match or is skipped.
Result = int | Rendered | None


def search_file(
    task: FileTask,
    matcher: Matcher,
    label: str,
    path: str,
    skip: int = 0,
    stop: Stop | None = None,
) -> Result:
    """Read and search one file; ``label`` is how content lines name it, and content
    leaves out (counts) the file's first ``skip`` output lines. Raises
    :class:`~boris.stop.Stopped` soon after ``stop`` is set, however large the file."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = read_text(fd, task.max_size)
        if data is None:
            return None
        data = matcher.prepare(data)
        mode = task.output_mode
        # A binary file is told only once it matches: most files do not, and are then
        # spared a scan for a NUL; the same goes for the descriptor's type and mtime.
        result: Result
        if mode == "count":
            result = matcher.count(data, stop) or None
        elif mode == "content":
            rendered = render_file(label, data, matcher, task, skip, stop)
            result = rendered if rendered.left_out or rendered.lines else None
        else:
            result = 0 if matcher.matches(data) else None
        if result is None or is_binary(data):
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        return info.st_mtime_ns if mode == "files_with_matches" else result
    except OSError:
        return None
    finally:
        os.close(fd)
