"""What a command can reach of the server's worker processes (boris.search.worker): not
their environment, not their sockets, nothing that runs in the server.

A worker is a process of the server's user, as every command is. The command here does
what an attacker with a shell would: it finds the workers among the server's children,
reads
their environment, and writes a frame that the server, were it to unpickle what a
worker sends, would run (it creates a file). Every step must be refused, and the
searches after it give the same answers. The server runs as a user other than root
(tests/support/users.py): root may open any process's files whatever the server does.
"""

from __future__ import annotations

import pickle
import struct
from pathlib import Path

import pytest

from tests.support import BORIS, ok_text, stdio_client, text_of
from tests.support.users import as_other_user

pytestmark = pytest.mark.anyio

TOKEN = "0123456789abcdef" * 4


class _Touch:
    """Unpickled, creates a file (through os.system)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch {self.path}",)


def forged_frame(marker: Path) -> str:
    """A length-prefixed pickle, as printf's format (every byte escaped)."""
    body = pickle.dumps(_Touch(marker), protocol=0)
    frame = struct.pack("<I", len(body)) + body
    return "".join(f"\\x{byte:02x}" for byte in frame)


def attack(marker: Path) -> str:
    return (
        # The server's children that are Python interpreters (the workers; the shell that
        # runs this is a child too).
        "for w in $(awk -v server=$PPID '$4 == server {print $1}' /proc/[0-9]*/stat); do\n"
        "  case \"$(tr '\\0' '\\n' < /proc/$w/cmdline | head -1)\" in\n"
        "    *python*) ;;\n"
        "    *) continue ;;\n"
        "  esac\n"
        '  echo "worker"\n'
        '  cat /proc/$w/environ >/dev/null 2>&1 && echo "environ: read"'
        ' || echo "environ: refused"\n'
        "  for fd in 0 1; do\n"
        f"    printf '{forged_frame(marker)}' 2>/dev/null > /proc/$w/fd/$fd"
        ' && echo "fd $fd: written" || echo "fd $fd: refused"\n'
        "  done\n"
        "done\n"
    )


async def test_a_command_cannot_reach_into_the_server_through_its_workers(
    other_dir: Path,
) -> None:
    (other_dir / "a.py").write_text("def target():\n    return 1\n")
    (other_dir / "b.py").write_text("target()\n")
    marker = other_dir / "ran-in-the-server"
    command = as_other_user(BORIS)
    async with stdio_client(workdir=other_dir, command=command, env={"BORIS_TOKEN": TOKEN}) as c:
        uid = ok_text(await c.call_tool("bash", {"command": "id -u"}))
        assert uid != "exit_code: 0\n\nstdout:\n0\n", "the server runs as root"
        request = {"name": "target", "references": True}
        before = text_of(await c.call_tool("symbols", request))
        assert before == "b.py:1:1  in (top level)  target()"
        report = ok_text(await c.call_tool("bash", {"command": attack(marker)}))
        lines = report.split("stdout:\n", 1)[1].splitlines()
        assert lines.count("worker") >= 1, report
        assert set(lines) == {"worker", "environ: refused", "fd 0: refused", "fd 1: refused"}
        # The workers answer as before, and nothing ran in the server.
        assert text_of(await c.call_tool("symbols", request)) == before
        assert text_of(await c.call_tool("grep", {"pattern": "target", "path": "b.py"})) == "b.py"
    assert not marker.exists()
