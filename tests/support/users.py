"""A spawned server run as a user other than root.

What the kernel keeps from a process's own commands (another process of the same user
cannot open a non-dumpable process's ``/proc/<pid>/fd`` or read its memory) does not
hold for root, who may do anything. CI runs the tests as root, so the tests of those
properties start the server as a real other user: as ``nobody`` when the tests run as
root (the interpreter drops to it, then runs the server), as the tests' own user
otherwise. Where this interpreter is closed to other users (pyenv's, in root's home),
the system's interpreter of the same version runs the server, on this one's libraries.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.support import REPO

#: The user and group a server started by root runs as (``nobody`` on Debian).
OTHER_ID = 65534

# Run as root: drops every group and the ids, sets PYTHONPATH (when the first argument
# is not empty), then runs the rest of the command line.
_DROP = f"""
import os, sys
os.setgroups([])
os.setgid({OTHER_ID})
os.setuid({OTHER_ID})
if sys.argv[1]:
    os.environ["PYTHONPATH"] = sys.argv[1]
os.execv(sys.argv[2], sys.argv[2:])
"""


def _reachable(path: str) -> bool:
    """Whether any user may run (a file) or enter (a directory) ``path`` and each
    directory above it."""
    real = Path(os.path.realpath(path))
    return all(os.stat(part).st_mode & stat.S_IXOTH for part in (real, *real.parents))


def _interpreter() -> tuple[str, str] | None:
    """An interpreter the other user can run, with the PYTHONPATH it needs to find Boris
    and its libraries: this one; or, where it sits in root's home (pyenv), the system's
    interpreter of the same version, given this one's site-packages and the checkout."""
    if _reachable(sys.executable):
        return sys.executable, ""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for directory in ("/usr/bin", "/usr/local/bin"):
        candidate = os.path.join(directory, version)
        if os.path.exists(candidate) and _reachable(candidate):
            paths = [str(REPO), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
            return candidate, os.pathsep.join(dict.fromkeys(paths))
    return None


def as_other_user(argv: Sequence[str]) -> list[str]:
    """``argv`` (a command line starting with this interpreter) run as a user other than
    root."""
    if os.geteuid() != 0:
        return list(argv)
    found = _interpreter()
    interpreter, path = found if found is not None else (sys.executable, "")
    rest = list(argv[1:]) if argv[0] == sys.executable else list(argv)
    return [sys.executable, "-c", _DROP, path, interpreter, *rest]


def require_other_user() -> None:
    """Skip, saying why, where no server can be started as another user (the checkout,
    the libraries or every interpreter of this version closed to other users)."""
    probe = as_other_user([sys.executable, "-c", "import boris, fastmcp"])
    done = subprocess.run(probe, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:]
        pytest.skip(f"cannot run the server as uid {OTHER_ID}: {last}")


@contextlib.contextmanager
def directory_of_other_user() -> Iterator[Path]:
    """A new directory the server's user owns (pytest's own are root's and closed to
    others); removed at the end."""
    path = Path(tempfile.mkdtemp(prefix="boris-other-user-")).resolve()
    try:
        if os.geteuid() == 0:
            os.chown(path, OTHER_ID, OTHER_ID)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
