"""The TypeScript SDK's client (npm's ``@modelcontextprotocol/client``), a client nobody here
wrote, driven from a test: ``ts_client.mjs`` beside this module runs a plan of steps and
prints what each returned.

On first use npm installs the package, at the version pinned here, into
``build/ts-client`` of this checkout (never globally), within a time bound; without npm,
or when the install fails, the test is skipped saying why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import REPO

PACKAGE = "@modelcontextprotocol/client"
VERSION = "2.4.0"
PREFIX = REPO / "build" / "ts-client"
_SCRIPT = Path(__file__).with_name("ts_client.mjs")
_NPM_INSTALL = ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"]


def _installed_version() -> str | None:
    package = PREFIX / "node_modules" / PACKAGE / "package.json"
    try:
        version: str = json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version


def ts_client_script() -> Path:
    """The driver script inside the install directory (an ES module finds the package
    from where it lies), the package installed first if it is not there at this
    version; skips the calling test when that cannot be done."""
    if _installed_version() != VERSION:
        if shutil.which("npm") is None or shutil.which("node") is None:
            pytest.skip(f"npm and node are needed to install {PACKAGE} (the TypeScript client)")
        PREFIX.mkdir(parents=True, exist_ok=True)
        try:
            installed = subprocess.run(
                [*_NPM_INSTALL, str(PREFIX), f"{PACKAGE}@{VERSION}"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=300,
            )
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm could not install {PACKAGE}@{VERSION} within 300 s")
        if installed.returncode != 0:
            pytest.skip(f"npm could not install {PACKAGE}@{VERSION}: {installed.stderr[-500:]}")
    script = PREFIX / _SCRIPT.name
    script.write_bytes(_SCRIPT.read_bytes())
    return script


def run_ts_client(plan: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
    """Run ``plan`` (see ts_client.mjs) with the TypeScript client: its connection (era,
    version, server, instructions) and each step's result."""
    script = ts_client_script()
    done = subprocess.run(
        ["node", str(script)],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result
