"""A source's syntax errors found in a worker process (boris.search.pool), where a parser
that crashes or swallows the memory on a hostile text takes the worker with it, never
the server (:class:`SyntaxTask`: plain data, the source carried in it).

:func:`errors_elsewhere` is what an edit's check calls for each source it parses; where
no worker can run at all, the source is parsed in this process (as a structure search
is).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from boris.search.frames import Malformed
from boris.stop import Stop
from boris.structure.languages import by_key
from boris.structure.syntax import Problem, errors
from boris.structure.task import memory_budget

#: The longest a worker may take over one source of an edit (at most 2 MB, most often
#: a stretch of a few KB): far beyond a parse, short of a hang.
SECONDS = 10.0


class ParseFailed(Exception):
    """A worker could not finish parsing a source (why, in words)."""


@dataclass(frozen=True)
class SyntaxTask:
    """The syntax errors of one source, as plain data: the language's key, the source's
    bytes as Latin-1 text (what JSON carries), the number of its first line."""

    ISOLATED: ClassVar[bool] = True

    language: str
    text: str
    first_line: int = 1

    @classmethod
    def of(cls, language: str, source: bytes, first_line: int = 1) -> SyntaxTask:
        return cls(language, source.decode("latin-1"), first_line)

    @property
    def file_seconds(self) -> float | None:
        return SECONDS

    def memory_budget(self, path: str) -> int | None:
        return memory_budget(len(self.text))

    def wire(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_wire(cls, fields: dict[str, Any]) -> SyntaxTask:
        return cls(**fields)

    def result_to_wire(self, result: list[Problem]) -> Any:
        return [list(problem) for problem in result]

    def result_from_wire(self, value: Any) -> list[Problem]:
        if type(value) is not list:
            raise Malformed("not a list of errors")
        found = []
        for item in value:
            if type(item) is not list or len(item) != 5:
                raise Malformed("not an error")
            line, column, kind, what, text = item
            if not (type(line) is type(column) is int and type(kind) is type(what) is str):
                raise Malformed("not an error")
            if type(text) is not str:
                raise Malformed("not an error")
            found.append(Problem(line, column, kind, what, text))
        return found

    def run_chunk(
        self, chunk: list[tuple[str, str]], skip: int, stop: Stop | None = None
    ) -> list[tuple[int, list[Problem]]]:
        """The errors, as the result of the chunk's one (unused) entry."""
        source = self.text.encode("latin-1")
        return [(0, errors(by_key(self.language), source, self.first_line))]


def errors_elsewhere(language: str, source: bytes, first_line: int = 1) -> list[Problem]:
    """:func:`~boris.structure.syntax.errors` of ``source``, found by a worker;
    :class:`ParseFailed` if the worker could not finish."""
    from boris.search import pool as searchpool

    task = SyntaxTask.of(language, source, first_line)
    pool = searchpool.shared_pool(parsing=True)
    if pool is None:  # none for parsing either (where a test keeps the work here)
        return task.run_chunk([("", "")], 0)[0][1]
    found: list[Problem] = []
    for _, _, result in pool.results(task, iter([("", "")]), lambda: 0):
        if isinstance(result, searchpool.Skipped):
            raise ParseFailed(result.reason)
        found = result
    return found
