"""What the real command line says at start-up about deny patterns.

Everything else about path scoping is tested in process: tests/files/test_scope.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support import BORIS, INITIALIZE, server_env
from tests.support.trees import write_tree


def test_unreachable_absolute_deny_path_is_a_start_up_warning(tmp_path: Path) -> None:
    """An absolute deny path outside every allowed directory can never match: the server
    says so on stderr and starts all the same."""
    allowed = write_tree(tmp_path.resolve() / "allowed", {"a.txt": ""})
    elsewhere = tmp_path.resolve() / "elsewhere"
    argv = [*BORIS, "--transport", "stdio", "--workdir", str(allowed), "--log-format", "json"]
    argv += ["--allow-dir", str(allowed), "--deny-dir", f"{elsewhere}/**"]
    argv += ["--deny-dir", f"{allowed}/a.txt", "--deny-dir", "/*/x"]
    proc = subprocess.run(
        argv,
        input=json.dumps(INITIALIZE).encode() + b"\n",
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    assert proc.returncode == 0
    warnings = [
        entry["msg"]
        for entry in map(json.loads, proc.stderr.decode().splitlines())
        if entry["level"] == "warning"
    ]
    assert warnings == [
        f"deny pattern {elsewhere}/** can never match: it lies outside every allowed "
        f"directory ({allowed})"
    ]
    assert json.loads(proc.stdout.decode().splitlines()[0])["id"] == 1
