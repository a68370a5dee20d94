"""The script around a user's command, and the channel that reports its cwd.

A small wrapper script runs each command. The command is not part of the script: it
is the script's last argument, run with ``eval``, so no command text (a heredoc or a
quote left open, a trailing comment or backslash) can reach the wrapper's own code.
After a foreground command the wrapper writes ``pwd`` and a NUL on a report pipe that
the command never holds, so a ``cd`` carries over to the next call while stdout is
exactly what the command wrote. The exit code is the command's own.
"""

from __future__ import annotations

import os

#: Bytes one chdir() accepts in a path, its terminating NUL included (Linux PATH_MAX).
PATH_MAX = 4096

#: The longest cwd a report may name, in bytes; after a longer one the cwd stays as it was.
MAX_CWD = 65_536

# Both wrappers take the steps to the session cwd (see cd_steps), then the command.
# The steps after the first are physical (`cd -P`): a logical cd past PATH_MAX fails
# in some shells. The command runs on line 1 with no positional parameters, as
# `<shell> -c <command>` would: its error messages give the user's own line numbers and
# lines. (Nothing may precede it in the eval: a syntax error quotes its whole first line.)
_ENTER = (
    'cd -- "$1" || {fail}; shift; while [ $# -gt 1 ]; do cd -P -- "$1" || {fail}; shift; done; '
)
_RUN = '__boris_command=$1; shift; eval "$__boris_command"'
# The cwd as `pwd` prints it (a newline ends it), then a NUL: a report cut short is no report.
_REPORT = "{ command pwd && printf '\\0'; } >&9 2>/dev/null"

#: The foreground wrapper. The report pipe arrives as stdin: it moves to descriptor 9
#: and the command gets /dev/null; 9 is closed while the command runs, so neither the
#: command nor anything it leaves running can write to it. A command that exits (or
#: is killed) ends the shell before the report: the cwd stays. After the command,
#: tracing (`set -x`) is turned off unseen, so the wrapper's own steps never show.
FOREGROUND_SCRIPT = (
    "exec 9>&0 </dev/null; "
    + _ENTER.format(fail=f"{{ __boris_status=$?; {_REPORT}; exit $__boris_status; }}")
    + f"{{ {_RUN}; }} 9>&-; {{ __boris_status=$?; set +x; }} 2>/dev/null; "
    + f"{_REPORT}; exit $__boris_status"
)

#: The background wrapper: no report, a background command never moves the session.
BACKGROUND_SCRIPT = _ENTER.format(fail="exit") + _RUN


def cd_steps(cwd: str) -> list[str]:
    """``cd`` arguments that lead to ``cwd``, each short enough for one chdir().

    Nearly always just ``[cwd]``. A deeper cwd is entered a part at a time: the parts
    after the first are relative (``./a/b``, so CDPATH plays no part) and entered with
    ``cd -P``, so the cwd reported afterwards is the physical path.
    """
    if len(os.fsencode(cwd)) < PATH_MAX:
        return [cwd]
    steps = ["/"]
    for name in cwd.split("/"):
        if not name:
            continue
        step = steps[-1]
        joined = step + name if step.endswith("/") else f"{step}/{name}"
        if len(os.fsencode(joined)) < PATH_MAX:
            steps[-1] = joined
        else:
            steps.append(f"./{name}")
    return steps


class CwdReport:
    """What the foreground wrapper writes on its report pipe, kept up to ``MAX_CWD`` bytes."""

    def __init__(self) -> None:
        self._data = bytearray()

    def feed(self, data: bytes) -> None:
        room = MAX_CWD + 3 - len(self._data)  # one byte more than a whole report may have
        if room > 0:
            self._data += data[:room]

    def cwd(self) -> str | None:
        """The cwd after the command, or None when there is no single whole report."""
        data = bytes(self._data)
        path = data.removesuffix(b"\n\0")
        if path == data or b"\0" in path or len(path) > MAX_CWD or not path.startswith(b"/"):
            return None
        return os.fsdecode(path)
