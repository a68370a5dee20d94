"""Error codes and the one way Boris reports an operational failure.

Every failure a client can cause comes back as a tool result with ``isError: true``
and a single text block ``[CODE] message``. Code anywhere below the app raises
:class:`BorisError`, a plain exception that knows nothing of MCP; the edge
(boris.edge) turns it into that result.
"""

from __future__ import annotations

from enum import Enum

from boris.text import printable


class Code(str, Enum):
    # enum.StrEnum (3.11+) in effect: str() and f-strings give the bare value on every Python.
    def __str__(self) -> str:
        return self.value

    INVALID_INPUT = "INVALID_INPUT"
    PATH_NOT_FOUND = "PATH_NOT_FOUND"
    ACCESS_DENIED = "ACCESS_DENIED"
    FILE_TOO_LARGE = "FILE_TOO_LARGE"
    IO_ERROR = "IO_ERROR"
    FILE_NOT_VIEWED = "FILE_NOT_VIEWED"
    BASH_EMPTY_COMMAND = "BASH_EMPTY_COMMAND"
    BASH_START_FAILED = "BASH_START_FAILED"
    BASH_TASK_LIMIT = "BASH_TASK_LIMIT"
    BASH_TASK_NOT_FOUND = "BASH_TASK_NOT_FOUND"
    STR_REPLACE_NOT_FOUND = "STR_REPLACE_NOT_FOUND"
    STR_REPLACE_AMBIGUOUS = "STR_REPLACE_AMBIGUOUS"
    GREP_INVALID_PATTERN = "GREP_INVALID_PATTERN"
    GREP_INVALID_OUTPUT_MODE = "GREP_INVALID_OUTPUT_MODE"
    GLOB_INVALID_PATTERN = "GLOB_INVALID_PATTERN"
    GLOB_INVALID_TYPE = "GLOB_INVALID_TYPE"
    PATCH_INVALID = "PATCH_INVALID"
    NOTEBOOK_INVALID = "NOTEBOOK_INVALID"
    SYMBOL_NOT_FOUND = "SYMBOL_NOT_FOUND"
    FILE_CHANGED = "FILE_CHANGED"
    SYNTAX_ERROR = "SYNTAX_ERROR"


class BorisError(Exception):
    """An operational failure of a tool call; ``str()`` of it is the ``[CODE] message``
    text the client receives."""

    def __init__(self, code: Code, message: str) -> None:
        message = printable(message)  # it may name a path that is not UTF-8
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message


def io_error(action: str, path: object, exc: OSError) -> BorisError:
    """``IO_ERROR`` for a failed read/write/stat: ``could not read /x: Permission denied``."""
    reason = exc.strerror or str(exc)
    return BorisError(Code.IO_ERROR, f"could not {action} {path}: {reason}")
