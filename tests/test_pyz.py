"""boris.pyz behaves like a static binary: self-contained, no .env, no network, STDIO and HTTP.

These build real zipapps with build_zipapp.sh (which downloads wheels), so they are slow;
CI runs them all the same.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import (
    REPO,
    VERSION,
    error_text,
    http_client,
    http_server,
    server_env,
    stdio_client,
)

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

# The interpreter outside any virtualenv, so nothing but the pyz can provide Boris.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)
TARGETS = ["linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-arm64"]

# A .env that would change fastmcp's behaviour (and Boris's) if anything read it.
DOTENV = """\
FASTMCP_STATELESS_HTTP=true
FASTMCP_SHOW_SERVER_BANNER=true
FASTMCP_CHECK_FOR_UPDATES=stable
FASTMCP_LOG_LEVEL=DEBUG
FASTMCP_MASK_ERROR_DETAILS=true
BORIS_DISABLE_TOOLS=bash
"""


def build(*args: str) -> None:
    subprocess.run(
        ["./build_zipapp.sh", *args],
        cwd=REPO,
        check=True,
        env=dict(os.environ, PYTHON=sys.executable),
        stdout=subprocess.DEVNULL,
        timeout=1200,
    )


@pytest.fixture(scope="module")
def pyz() -> Path:
    build()
    return REPO / "dist" / "boris.pyz"


class ConnectionTrap:
    """A listening socket posing as an HTTP proxy: any outbound request would land here."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def run_dir(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A working directory with a hostile .env, a fresh SHIV_ROOT, and a proxy trap."""
    workdir = tmp_path / "project"
    workdir.mkdir()
    (workdir / ".env").write_text(DOTENV)
    trap = ConnectionTrap()
    env = {
        "SHIV_ROOT": str(tmp_path / "shiv"),
        "HTTP_PROXY": trap.url,
        "HTTPS_PROXY": trap.url,
        "ALL_PROXY": trap.url,
    }
    yield workdir, env
    trap.close()
    assert trap.connections == 0, "the pyz made a network call"


def pyz_command(pyz: Path) -> list[str]:
    return [BASE_PYTHON, "-I", str(pyz)]


def test_version_and_help(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    workdir, env = run_dir
    for flag in ("--version", "-v"):
        done = subprocess.run(
            [*pyz_command(pyz), flag], cwd=workdir, env=server_env(env), capture_output=True
        )
        assert (done.returncode, done.stdout) == (0, f"boris {VERSION}\n".encode())
    done = subprocess.run(
        [*pyz_command(pyz), "--help"], cwd=workdir, env=server_env(env), capture_output=True
    )
    assert done.returncode == 0
    assert b"--transport" in done.stdout


async def test_stdio(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    workdir, env = run_dir
    async with stdio_client(command=pyz_command(pyz), cwd=workdir, env=env) as client:
        names = [t.name for t in await client.list_tools()]
        # The .env asked to disable bash; nothing reads it.
        assert names == [
            "bash",
            "task_output",
            "view",
            "str_replace",
            "create_file",
            "grep",
            "glob",
        ]
        result = await client.call_tool("view", {"path": "missing.txt"}, raise_on_error=False)
        assert error_text(result).startswith("[PATH_NOT_FOUND]")


async def test_http(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    workdir, env = run_dir
    with http_server(command=pyz_command(pyz), cwd=workdir, env=env) as server:
        async with http_client(server.url) as client:
            result = client.initialize_result
            assert result is not None
            assert result.instructions == f"Working directory: {os.path.realpath(workdir)}"
            assert len(await client.list_tools()) == 7
        assert "FastMCP" not in server.stderr()  # no banner


def test_all_targets() -> None:
    build("all")
    dist = REPO / "dist"
    sums = {}
    for line in (dist / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        sums[name] = digest
    assert sorted(sums) == sorted(f"boris-{t}-py3.11.pyz" for t in TARGETS)
    for target in TARGETS:
        path = dist / f"boris-{target}-py3.11.pyz"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sums[path.name]
        assert path.read_bytes().startswith(b"#!/usr/bin/env python3.11\n")
        check = subprocess.run(
            [sys.executable, "scripts/check_pyz_arch.py", str(path), target],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stderr
        binaries = check.stdout.splitlines()
        assert any("pydantic_core" in line for line in binaries)
        assert any("re2/_re2" in line for line in binaries)
        assert all(line.startswith("ok ") for line in binaries)


def test_arch_check_rejects_a_wrong_target() -> None:
    path = REPO / "dist" / "boris-linux-aarch64-py3.11.pyz"
    if not path.exists():
        build("linux-aarch64")
    check = subprocess.run(
        [sys.executable, "scripts/check_pyz_arch.py", str(path), "linux-x86_64"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 1
    assert "expected linux-x86_64" in check.stderr
