"""What ``./build_zipapp.sh`` writes into dist/ for this machine: the pyz, the bundle
around it and the wheel, built once per test run, whichever worker asks first.

The build writes fixed paths, so two at once would share them: the first test that needs
the files builds them under a lock shared by the run's workers (pytest-xdist's workers
share the parent of their base temporary directories), and leaves a mark there that the
others find once they get the lock.
"""

from __future__ import annotations

import fcntl
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support import REPO

#: This machine's target, named as build_zipapp.sh names them (linux-x86_64, darwin-arm64).
NATIVE = f"{sys.platform}-{platform.machine()}"
DIST = REPO / "dist"


@dataclass(frozen=True)
class Built:
    pyz: Path
    bundle: Path
    wheel: Path


def run_directory(base: Path) -> Path:
    """The directory one test run's workers share, from a worker's base temporary
    directory (its parent under pytest-xdist, the directory itself without it)."""
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(shared: Path) -> Built:
    """Run ``./build_zipapp.sh`` unless another worker of this run has; the paths it wrote."""
    shared.mkdir(parents=True, exist_ok=True)
    with (shared / "dist-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        mark = shared / "dist-build.done"
        if not mark.exists():
            subprocess.run(
                ["./build_zipapp.sh"],
                cwd=REPO,
                check=True,
                env=dict(os.environ, PYTHON=sys.executable),
                stdout=subprocess.DEVNULL,
                timeout=1200,
            )
            mark.write_text("")
    (wheel,) = DIST.glob("boris-*-py3-none-any.whl")
    return Built(DIST / f"boris-{NATIVE}.pyz", DIST / f"boris-{NATIVE}.mcpb", wheel)
