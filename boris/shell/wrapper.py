"""The script around a user's command, and the channel that reports its cwd.

A small wrapper script runs each command. The command is not part of the script: it
is the script's last argument, run with ``eval``, so no command text (a heredoc or a
quote left open, a trailing comment or backslash) can reach the wrapper's own code.
After a foreground command the wrapper writes ``pwd`` and a NUL on a report socket of
its own, so a ``cd`` carries over to the next call while stdout is exactly what the
command wrote. The exit code is the command's own.

The command runs in the same shell as the wrapper, so it could write a report of its
own (the shell keeps a copy of the socket while the command runs). So only the
first report counts, and only if it names the directory the shell is in when it
arrives: the wrapper waits until Boris has looked (Boris then shuts its side of the
socket, and the wrapper's read ends) before it exits, and Boris compares the named
directory with the shell's own (``/proc/<pid>/cwd``). A report written by the command
is either untrue (and the cwd stays) or names where its shell really is.
"""

from __future__ import annotations

import errno
import os
import stat

#: Bytes one chdir() accepts in a path, its terminating NUL included (Linux PATH_MAX).
PATH_MAX = 4096

#: The longest cwd a report may name, in bytes; after a longer one the cwd stays as it was.
MAX_CWD = 65_536

# Both wrappers take the steps to the session cwd (see cd_steps), then the command; a
# step that fails ends the shell with cd's status and message (the command never runs
# elsewhere). The steps after the first are physical (`cd -P`): a logical cd past
# PATH_MAX fails in some shells. The command runs on line 1 with no positional
# parameters, as `<shell> -c <command>` would: its error messages give the user's own
# line numbers and lines. (Nothing may precede it in the eval: a syntax error quotes
# its whole first line.)
_ENTER = 'cd -- "$1" || exit; shift; while [ $# -gt 1 ]; do cd -P -- "$1" || exit; shift; done; '
_RUN = '__boris_command=$1; shift; eval "$__boris_command"'

# After the command, nothing the wrapper does may show. Its steps run in a group whose
# stdout and stderr are /dev/null, and whose redirections, which are made before any
# step and never traced, keep the command's status (`$?`) and send bash's trace
# (`set -x`, wherever BASH_XTRACEFD pointed it) to that /dev/null: the arithmetic in
# them assigns both and yields 1, so they only copy /dev/null onto spare descriptors.
# The report is the cwd as `pwd` prints it (a newline ends it), then a NUL; then the
# wrapper waits until Boris has checked it (the read ends when Boris shuts its side of
# the socket), and exits outside the group, so that an EXIT trap of the command still
# writes where the command did.
_QUIET = (
    '>/dev/null 2>&1 7>&"$(( (__boris_status=$?) * 0 + 1 ))" 8>&"$(( (BASH_XTRACEFD=2) * 0 + 1 ))"'
)
_REPORT = (
    "{ set +x; command pwd >&9 && printf '\\0' >&9 && read -r __boris_ack <&9 || :; } " + _QUIET
)

#: The foreground wrapper. The report socket arrives as stdin: it moves to descriptor 9
#: and the command gets /dev/null; 9 is closed while the command runs, so nothing the
#: command leaves running inherits it. A command that exits (or is killed) ends the
#: shell before the report: the cwd stays.
FOREGROUND_SCRIPT = (
    "exec 9>&0 </dev/null; " + _ENTER + f'{{ {_RUN}; }} 9>&-; {_REPORT}; exit "$__boris_status"'
)

#: The background wrapper: no report, a background command never moves the session.
BACKGROUND_SCRIPT = _ENTER + _RUN


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
    """What the foreground wrapper writes on its report socket: a path, a newline and a
    NUL. The first whole report decides; it counts once found true (:meth:`accept`).

    At most ``MAX_CWD`` bytes of a report are kept; a longer one is no report.
    """

    def __init__(self) -> None:
        self._pending = bytearray()
        self._decided = False
        self._cwd: str | None = None

    def feed(self, data: bytes) -> list[str | None]:
        """The report ``data`` completes, if it is the first: its path, or None for one
        that cannot be a report (not absolute, too long, no newline before its NUL).
        Anything after the first report is ignored."""
        if self._decided:
            return []
        nul = data.find(b"\0")
        piece = data if nul < 0 else data[:nul]
        room = MAX_CWD + 2 - len(self._pending)  # one byte more than a report may have
        if room > 0:
            self._pending += piece[:room]
        if nul < 0:
            return []
        self._decided = True
        report = bytes(self._pending)
        self._pending = bytearray()
        path = report.removesuffix(b"\n")
        whole = path != report and len(path) <= MAX_CWD and path.startswith(b"/")
        return [os.fsdecode(path) if whole else None]

    def accept(self, cwd: str) -> None:
        """``cwd`` was found to be where the shell is: it is the cwd after the command."""
        self._cwd = cwd

    def cwd(self) -> str | None:
        """The cwd after the command, or None when the report was missing or untrue."""
        return self._cwd


#: Opening a directory only to know what it is (any directory, readable or not).
_LOOK = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def directory_stat(path: str) -> os.stat_result:
    """The stat of the directory ``path``, however long (entered as :func:`cd_steps`
    leads the shell). Raises OSError (``ENOTDIR`` for what is not a directory)."""
    steps = cd_steps(path)
    if len(steps) == 1:
        info = os.stat(path)
    else:
        fd = os.open(steps[0], _LOOK)
        try:
            for step in steps[1:]:
                inner = os.open(step, _LOOK, dir_fd=fd)
                os.close(fd)
                fd = inner
            info = os.fstat(fd)
        finally:
            os.close(fd)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
    return info


def is_gone(path: str) -> bool:
    """Whether the directory ``path`` no longer exists (or is no directory any more).
    A directory that merely cannot be looked at (no permission) is not gone: the
    shell's own cd tells what is wrong with it."""
    try:
        directory_stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def names_cwd_of(pid: int, path: str) -> bool:
    """Whether ``path`` is the working directory of process ``pid`` (alive). Where the
    system does not tell (no /proc), a report is taken as it is."""
    try:
        real = os.stat(f"/proc/{pid}/cwd")
    except FileNotFoundError:
        return not os.path.isdir("/proc/self")  # no /proc, or the process is gone
    except OSError:
        return True  # not ours to look at: as without /proc
    try:
        named = directory_stat(path)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (real.st_dev, real.st_ino)
