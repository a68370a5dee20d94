"""boris.pyz behaves like a static binary: self-contained, no .env, no network, STDIO and HTTP.

These build a real zipapp for this machine with build_zipapp.sh (pip installs the pinned
wheels, so they need the package index or pip's cache), once per session. The zipapps
for the other targets are built by hand with ``./build_zipapp.sh all``; what the suite
checks of them is the architecture check that build runs on each (scripts/check_pyz_arch.py),
here on small synthetic binaries of every target.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import struct
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    REPO,
    VERSION,
    error_text,
    http_client,
    http_server,
    ok_text,
    server_env,
    stdio_client,
)

pytestmark = pytest.mark.anyio

# The interpreter outside any virtualenv, so nothing but the pyz can provide Boris.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)

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


@pytest.fixture(scope="session")
def pyz() -> Path:
    # Built once: the suite runs each file on one worker (--dist loadfile in pyproject.toml),
    # and build_zipapp.sh writes fixed paths that two builds at once would share.
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


@pytest.fixture(scope="session")
def shiv_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the pyz unpacks itself: empty at first, so the first test run is a first start."""
    return tmp_path_factory.mktemp("shiv")


@pytest.fixture
def run_dir(tmp_path: Path, shiv_root: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A working directory with a hostile .env, the session's SHIV_ROOT, and a proxy trap."""
    workdir = tmp_path / "project"
    workdir.mkdir()
    (workdir / ".env").write_text(DOTENV)
    trap = ConnectionTrap()
    env = {
        "SHIV_ROOT": str(shiv_root),
        "HTTP_PROXY": trap.url,
        "HTTPS_PROXY": trap.url,
        "ALL_PROXY": trap.url,
    }
    yield workdir, env
    trap.close()
    assert trap.connections == 0, "the pyz made a network call"


def pyz_command(pyz: Path) -> list[str]:
    return [BASE_PYTHON, "-I", str(pyz)]


@pytest.mark.slow  # builds the pyz (once per session)
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


@pytest.mark.slow  # builds the pyz (once per session)
async def test_stdio(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    workdir, env = run_dir
    async with stdio_client(command=pyz_command(pyz), cwd=workdir, env=env) as client:
        names = [t.name for t in await client.list_tools()]
        # The .env asked to disable bash; nothing reads it.
        assert names == [
            "bash",
            "task_output",
            "task_stop",
            "view",
            "str_replace",
            "multi_edit",
            "apply_patch",
            "create_file",
            "notebook_edit",
            "grep",
            "glob",
        ]
        result = await client.call_tool("view", {"path": "missing.txt"}, raise_on_error=False)
        assert error_text(result).startswith("[PATH_NOT_FOUND]")
        # nbformat, its schemas and validators work from inside the zipapp.
        cell: dict[str, Any] = {"cell_type": "code", "execution_count": None, "id": "a"}
        cell |= {"metadata": {}, "outputs": [], "source": ["x = 1"]}
        notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (workdir / "n.ipynb").write_text(json.dumps(notebook))
        result = await client.call_tool("view", {"path": "n.ipynb"})
        assert ok_text(result) == (
            "[notebook] 1 cell, nbformat 4.5\n[cell 1] code id=a execution_count=none\n1\tx = 1\n"
        )


@pytest.mark.slow  # builds the pyz (once per session)
async def test_http(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    workdir, env = run_dir
    with http_server(command=pyz_command(pyz), cwd=workdir, env=env) as server:
        async with http_client(server.url) as client:
            result = client.initialize_result
            assert result is not None
            assert result.instructions == f"Working directory: {os.path.realpath(workdir)}"
            assert len(await client.list_tools()) == 11
        assert "FastMCP" not in server.stderr()  # no banner


# --- the architecture of the native binaries inside ------------------------------------------

CHECKER = REPO / "scripts" / "check_pyz_arch.py"


def check_arch(pyz: Path, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECKER), str(pyz), target], capture_output=True, text=True
    )


#: This machine's target, named as build_zipapp.sh names them (linux-x86_64, darwin-arm64).
NATIVE = f"{sys.platform}-{platform.machine()}"


@pytest.mark.slow  # builds the pyz (once per session)
def test_the_native_pyz_holds_binaries_of_this_machine_only(pyz: Path) -> None:
    minor = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert pyz.read_bytes().startswith(f"#!/usr/bin/env python{minor}\n".encode())
    check = check_arch(pyz, NATIVE)
    assert check.returncode == 0, check.stderr
    binaries = check.stdout.splitlines()
    assert any("pydantic_core" in line for line in binaries)
    assert any("re2/_re2" in line for line in binaries)
    assert all(line.startswith("ok ") for line in binaries)


@pytest.mark.slow  # builds the pyz (once per session)
def test_arch_check_rejects_a_wrong_target(pyz: Path) -> None:
    other = "linux-aarch64" if NATIVE == "linux-x86_64" else "linux-x86_64"
    check = check_arch(pyz, other)
    assert check.returncode == 1
    assert f"expected {other}" in check.stderr


def elf(machine: int) -> bytes:
    """The head of a 64-bit little-endian ELF file for e_machine ``machine``, padded."""
    return b"\x7fELF\x02\x01\x01" + bytes(11) + struct.pack("<H", machine) + bytes(100)


def macho(cpu: int) -> bytes:
    """The head of a 64-bit little-endian Mach-O file for ``cpu``, padded."""
    return b"\xcf\xfa\xed\xfe" + struct.pack("<I", cpu) + bytes(100)


def fat(*cpus: int) -> bytes:
    """The head of a universal (fat) Mach-O file holding ``cpus``, padded."""
    archs = b"".join(struct.pack(">5I", cpu, 0, 0, 0, 0) for cpu in cpus)
    return b"\xca\xfe\xba\xbe" + struct.pack(">I", len(cpus)) + archs + bytes(100)


X86_64_ELF, AARCH64_ELF = elf(62), elf(183)
X86_64_MACHO, ARM64_MACHO = macho(0x01000007), macho(0x0100000C)
#: A Java class file starts with the fat magic too; its next bytes are versions, not a count.
JAVA_CLASS = b"\xca\xfe\xba\xbe\x00\x00\x00\x41" + bytes(100)


def archive(directory: Path, members: dict[str, bytes]) -> Path:
    path = directory / "test.pyz"
    with zipfile.ZipFile(path, "w") as pyz:
        for name, data in members.items():
            pyz.writestr(name, data)
    return path


@pytest.mark.parametrize(
    ("members", "target", "lines", "problems"),
    [
        (
            {"site/a/_a.so": X86_64_ELF, "site/b/_b.abi3.so": X86_64_ELF},
            "linux-x86_64",
            ["ok  elf   x86_64         site/a/_a.so", "ok  elf   x86_64         site/b/_b.abi3.so"],
            [],
        ),
        (
            {"site/a/_a.so": AARCH64_ELF},
            "linux-aarch64",
            ["ok  elf   aarch64        site/a/_a.so"],
            [],
        ),
        (
            # One binary of another architecture is enough to fail.
            {"site/a/_a.so": X86_64_ELF, "site/b/_b.so": AARCH64_ELF},
            "linux-x86_64",
            ["ok  elf   x86_64         site/a/_a.so", "BAD elf   aarch64        site/b/_b.so"],
            ["site/b/_b.so: elf ['aarch64'], expected linux-x86_64"],
        ),
        (
            # The right architecture in the wrong format.
            {"site/a/_a.so": X86_64_ELF},
            "darwin-x86_64",
            ["BAD elf   x86_64         site/a/_a.so"],
            ["site/a/_a.so: elf ['x86_64'], expected darwin-x86_64"],
        ),
        (
            {"site/a/_a.so": ARM64_MACHO, "site/b/_b.dylib": ARM64_MACHO},
            "darwin-arm64",
            ["ok  macho arm64          site/a/_a.so", "ok  macho arm64          site/b/_b.dylib"],
            [],
        ),
        (
            {"site/a/_a.so": X86_64_MACHO},
            "darwin-arm64",
            ["BAD macho x86_64         site/a/_a.so"],
            ["site/a/_a.so: macho ['x86_64'], expected darwin-arm64"],
        ),
        (
            # A universal binary fits each architecture it holds.
            {"site/a/_a.so": fat(0x01000007, 0x0100000C)},
            "darwin-x86_64",
            ["ok  macho arm64,x86_64   site/a/_a.so"],
            [],
        ),
        (
            # Binaries are found by their content, whatever their names; an unknown
            # machine is named by its number.
            {"site/a/no_suffix": elf(3), "README.txt": b"x" * 200},
            "linux-x86_64",
            ["BAD elf   e_machine=3    site/a/no_suffix"],
            ["site/a/no_suffix: elf ['e_machine=3'], expected linux-x86_64"],
        ),
        (
            # Text, a Java class and members too short to be binaries: nothing native.
            {"a.py": b"print()\n" * 20, "A.class": JAVA_CLASS, "tiny.so": X86_64_ELF[:40]},
            "linux-x86_64",
            [],
            ["no native binaries found; is this a boris pyz?"],
        ),
    ],
)
def test_arch_check_on_synthetic_binaries(
    tmp_path: Path, members: dict[str, bytes], target: str, lines: list[str], problems: list[str]
) -> None:
    """check_pyz_arch.py reads the ELF e_machine or the Mach-O cputype of every member,
    prints one line per binary, and exits 1 on any binary that does not fit the target
    (or when there is none)."""
    check = check_arch(archive(tmp_path, members), target)
    assert check.stdout.splitlines() == lines
    assert check.stderr.splitlines() == [f"error: {problem}" for problem in problems]
    assert check.returncode == (1 if problems else 0)
