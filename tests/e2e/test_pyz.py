"""boris.pyz behaves like a static binary under every CPython 3.10+ on this machine:
self-contained, no .env, no network, STDIO and HTTP; older interpreters get one line.

The zipapp for this machine is built once per test run with build_zipapp.sh (uv installs
the pinned wheels for each Python 3.10-3.14, so it needs the package index or uv's cache;
the ``built`` fixture, tests/support/builds.py).
It runs under each CPython 3.10+ found in ~/.pyenv/versions/*/bin/python and as python3,
isolated (-I) and unpacking into an empty SHIV_ROOT. The archives for the other targets
are built by hand with ``./build_zipapp.sh all``; what the suite checks of them is the
architecture check that build runs on each (scripts/check_pyz_arch.py), here on small
synthetic binaries of every target and layer.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import struct
import subprocess
import sys
import threading
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from boris.search.pool import CHUNK_FILES
from tests.support import (
    DEFAULT_TOOLS,
    REPO,
    VERSION,
    http_client,
    http_server,
    ok_text,
    raw_stdio,
    server_env,
    stdio_client,
)
from tests.support.builds import NATIVE, Built
from tests.support.early import asked_twice
from tests.support.pids import children

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


# --- the interpreters of this machine ---------------------------------------------------

_PROBE = (
    "import platform, sys; sys.stdout.write('%s %s %s' % (platform.python_implementation(), "
    "platform.python_version(), sys.executable))"
)


@dataclass(frozen=True)
class Interpreter:
    path: str
    implementation: str
    version: str  # 3.12.1

    @property
    def minor(self) -> tuple[int, int]:
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)

    def command(self, pyz: Path) -> list[str]:
        """Isolated from the environment and the user's site-packages (2.7 has no -I)."""
        return [self.path, "-I" if self.minor >= (3, 4) else "-Es", str(pyz)]


def _interpreters() -> list[Interpreter]:
    candidates = sorted(str(p) for p in Path.home().glob(".pyenv/versions/*/bin/python"))
    candidates += [p for p in [shutil.which("python3")] if p]
    found: dict[str, Interpreter] = {}
    for path in candidates:
        try:
            probe = subprocess.run(
                [path, "-c", _PROBE], capture_output=True, text=True, timeout=30, check=True
            )
        except (OSError, subprocess.SubprocessError):
            continue
        implementation, version, executable = probe.stdout.split(" ", 2)
        if implementation == "CPython":
            found.setdefault(
                os.path.realpath(executable), Interpreter(path, implementation, version)
            )
    return sorted(found.values(), key=lambda i: (i.minor, i.path))


INTERPRETERS = _interpreters()
SUPPORTED = [i for i in INTERPRETERS if i.minor >= (3, 10)]
TOO_OLD = [i for i in INTERPRETERS if i.minor < (3, 10)]

#: Runs a test once per CPython 3.10+; skipped, with the reason, only where fewer than two
#: exist (then running the pyz under "every" interpreter proves little).
each_supported = pytest.mark.parametrize(
    "interpreter",
    SUPPORTED
    if len(SUPPORTED) >= 2
    else [
        pytest.param(
            None,
            marks=pytest.mark.skip(
                reason=f"fewer than two CPython 3.10+ found ({[i.path for i in SUPPORTED]})"
            ),
        )
    ],
    ids=lambda i: i.version if isinstance(i, Interpreter) else "none",
)


# --- the archive ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pyz(built: Built) -> Path:
    return built.pyz


def manifest(pyz: Path) -> dict[str, dict[str, list[str]]]:
    with zipfile.ZipFile(pyz) as archive:
        carried: dict[str, dict[str, list[str]]] = json.loads(archive.read("boris-pyz.json"))
    return carried


def unpacked(root: Path) -> Path:
    """The one directory a pyz unpacked itself into under ``root`` (beside shiv's lock)."""
    (directory,) = (path for path in root.iterdir() if path.is_dir())
    return directory


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
    """A working directory with a hostile .env, an empty SHIV_ROOT, and a proxy trap."""
    workdir = tmp_path / "project"
    workdir.mkdir()
    (workdir / ".env").write_text(DOTENV)
    root = tmp_path / "shiv"
    root.mkdir()
    trap = ConnectionTrap()
    env = {
        "SHIV_ROOT": str(root),
        "HTTP_PROXY": trap.url,
        "HTTPS_PROXY": trap.url,
        "ALL_PROXY": trap.url,
    }
    yield workdir, env
    trap.close()
    assert trap.connections == 0, "the pyz made a network call"


# --- under every interpreter --------------------------------------------------------------


@pytest.mark.slow  # builds the pyz (once per session), a first start per interpreter
@each_supported
async def test_stdio_round_trip(
    interpreter: Interpreter, pyz: Path, run_dir: tuple[Path, dict[str, str]]
) -> None:
    """From an empty SHIV_ROOT: initialize, tools/list, bash, view, str_replace, grep,
    symbols; and the first start unpacked only the layers of this interpreter."""
    workdir, env = run_dir
    notes = workdir / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    command = interpreter.command(pyz)
    # legacy: the initialize handshake (the default first tries the stateless protocol)
    async with stdio_client(command=command, cwd=workdir, env=env, mode="legacy") as client:
        result = client.initialize_result
        assert result is not None
        assert result.instructions == f"Working directory: {os.path.realpath(workdir)}"
        # The .env asked to disable bash; nothing reads it.
        assert [t.name for t in await client.list_tools()] == DEFAULT_TOOLS
        bash = await client.call_tool("bash", {"command": "echo $((6 * 7)); pwd"})
        assert ok_text(bash) == f"exit_code: 0\n\nstdout:\n42\n{os.path.realpath(workdir)}\n"
        view = await client.call_tool("view", {"path": "notes.txt"})
        assert ok_text(view) == "1\talpha\n2\tbeta\n"
        edit = {"path": "notes.txt", "old_str": "beta", "new_str": "gamma"}
        replaced = await client.call_tool("str_replace", edit)
        assert ok_text(replaced) == f"Replaced in {notes}\n\n1\talpha\n2\tgamma\n"
        grep = await client.call_tool("grep", {"pattern": "gam+a", "output_mode": "content"})
        assert ok_text(grep) == "notes.txt:2:gamma"
        # tree-sitter's bindings of this Python and the grammars work from inside the zipapp.
        (workdir / "shapes.go").write_text("package shapes\n\nfunc (c *Circle) Area() int {\n}\n")
        (workdir / "shapes.rs").write_text("impl Circle {\n    fn area(&self) {}\n}\n")
        symbols = await client.call_tool("symbols", {"name": "Circle.*", "regex": True})
        assert ok_text(symbols) == (
            "shapes.go:3-4  method Circle.Area  func (c *Circle) Area() int {\n"
            "shapes.rs:2-2  method Circle.area  fn area(&self) {}"
        )
        # nbformat, its schemas and validators work from inside the zipapp.
        cell: dict[str, Any] = {"cell_type": "code", "execution_count": None, "id": "a"}
        cell |= {"metadata": {}, "outputs": [], "source": ["x = 1"]}
        notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (workdir / "n.ipynb").write_text(json.dumps(notebook))
        notebook_view = await client.call_tool("view", {"path": "n.ipynb"})
        assert ok_text(notebook_view) == (
            "[notebook] 1 cell, nbformat 4.5\n[cell 1] code id=a execution_count=none\n1\tx = 1\n"
        )
    assert notes.read_text() == "alpha\ngamma\n"
    combo = f"{NATIVE}-cp{interpreter.minor[0]}{interpreter.minor[1]}"
    natives = unpacked(Path(env["SHIV_ROOT"])) / "natives"
    assert sorted(os.listdir(natives)) == sorted(manifest(pyz)["layers"][combo])


@pytest.mark.slow  # builds the pyz (once per session)
@pytest.mark.parametrize("interpreter", SUPPORTED, ids=lambda i: i.version)
def test_the_first_answers_are_the_apps_first_start_and_later(
    interpreter: Interpreter, pyz: Path, run_dir: tuple[Path, dict[str, str]]
) -> None:
    """The first start answers from the archive itself while it unpacks, a later one from
    the unpacked files while the app loads; either way with the app's answers, under
    each Python (whose pydantic writes the tools' schemas)."""
    workdir, env = run_dir
    command = interpreter.command(pyz)
    for era, version in [("handshake", "2025-11-25"), ("2026-07-28", "2026-07-28")]:
        with raw_stdio(
            "--log-level", "debug", workdir=workdir, env=env, command=command, cwd=workdir
        ) as server:
            pairs = asked_twice(server, era, version)
            server.stdin.close()
            assert server.proc.wait(timeout=60) == 0
            log = server.stderr()
        assert all(first == again for first, again in pairs)
        assert "answered before the app was ready" in log
        assert "ERROR" not in log


@pytest.mark.slow  # builds the pyz (once per session)
@pytest.mark.parametrize(
    "interpreter",
    TOO_OLD or [pytest.param(None, marks=pytest.mark.skip(reason="no CPython < 3.10 found"))],
    ids=lambda i: i.version if isinstance(i, Interpreter) else "none",
)
def test_an_older_python_gets_one_line_and_nothing_is_unpacked(
    interpreter: Interpreter, pyz: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [*interpreter.command(pyz), "--version"],
        env=server_env({"SHIV_ROOT": str(tmp_path)}),
        capture_output=True,
        text=True,
    )
    machine = platform.machine()
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"{pyz.name} needs CPython 3.10-3.14 on {NATIVE.replace('-', ' ')}; "
        f"this is CPython {interpreter.version} on {sys.platform} {machine}\n",
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.slow  # builds the pyz (once per session)
def test_missing_natives_get_one_line_and_nothing_is_unpacked(pyz: Path, tmp_path: Path) -> None:
    """An archive that lacks this interpreter's natives (as if a wheel had been missing
    for it) refuses before unpacking anything."""
    combo = f"{NATIVE}-cp{sys.version_info.major}{sys.version_info.minor}"
    lacking = tmp_path / pyz.name
    shutil.copy(pyz, lacking)
    carried = manifest(pyz)
    del carried["layers"][combo]
    with warnings.catch_warnings(), zipfile.ZipFile(lacking, "a") as archive:
        warnings.simplefilter("ignore")  # a second boris-pyz.json: the last one counts
        archive.writestr("boris-pyz.json", json.dumps(carried))
    root = tmp_path / "shiv"
    root.mkdir()
    done = subprocess.run(
        [BASE_PYTHON, "-I", str(lacking), "--version"],
        env=server_env({"SHIV_ROOT": str(root)}),
        capture_output=True,
        text=True,
    )
    version = platform.python_version()
    others = sorted(f"3.{c.rsplit('-cp3', 1)[1]}" for c in carried["layers"])
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"{pyz.name} needs CPython {', '.join(others)} on {NATIVE.replace('-', ' ')}; "
        f"this is CPython {version} on {sys.platform} {platform.machine()}\n",
    )
    assert os.listdir(root) == []


@pytest.mark.slow  # builds the pyz (once per session)
async def test_http(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    """Over HTTP once, under the oldest Python carried (3.10 gets older releases of
    starlette and pydantic-settings than the others); a symbols search large enough for
    the search workers, which parse with tree-sitter from inside the zipapp."""
    oldest = SUPPORTED[0] if SUPPORTED else None
    if oldest is None:
        pytest.skip("no CPython 3.10+ found")
    workdir, env = run_dir
    expected = write_targets(workdir / "tree")
    with http_server(command=oldest.command(pyz), cwd=workdir, env=env) as server:
        async with http_client(server.url) as client:
            result = client.initialize_result
            assert result is not None
            assert result.instructions == f"Working directory: {os.path.realpath(workdir)}"
            assert [t.name for t in await client.list_tools()] == DEFAULT_TOOLS
            bash = await client.call_tool("bash", {"command": "echo over http"})
            assert ok_text(bash) == "exit_code: 0\n\nstdout:\nover http\n"
            symbols = await client.call_tool("symbols", {"path": "tree", "name": "Target.target"})
            assert ok_text(symbols) == expected
            workers = sorted(children(server.proc.pid))
            # Where there are workers, those that parsed (one may have taken every file
            # that names Target) did so with the bindings and the Python grammar of the
            # unpacked archive (a worker that failed would have been dropped, and its
            # files parsed by the server).
            assert bool(workers) == (len(os.sched_getaffinity(0)) > 1)
            root = os.path.realpath(env["SHIV_ROOT"])
            parsed = 0
            for worker in workers:
                mapped = Path(f"/proc/{worker}/maps").read_text().split()
                bindings = {
                    package: {path for path in mapped if f"/{package}/_binding" in path}
                    for package in ("tree_sitter", "tree_sitter_python")
                }
                if not bindings["tree_sitter"]:
                    continue
                parsed += 1
                for package, found in bindings.items():
                    assert found, package
                    assert all(path.startswith(f"{root}/") for path in found), found
            assert parsed >= bool(workers)
        stderr = server.stderr()
        assert "FastMCP" not in stderr  # no banner
        assert "Traceback" not in stderr  # nor a worker's failure


def write_targets(root: Path) -> str:
    """Python files below ``root`` for the workers to parse, in more than one chunk,
    a few of them defining ``Target.target``; the search's expected output."""
    expected = []
    for n in range(3 * CHUNK_FILES):
        body = f"def helper_{n}():\n    return {n}\n"
        if n % 50 == 0:
            body += "\n\nclass Target:\n    def target(self):\n        return 1\n"
            expected.append(f"m{n:05d}.py:6-7  method Target.target  def target(self):")
        (root / f"m{n:05d}.py").parent.mkdir(exist_ok=True)
        (root / f"m{n:05d}.py").write_text(body)
    return "\n".join(expected)


@pytest.mark.slow  # builds the pyz (once per session)
async def test_bytecode_is_cached_once_under_dont_write_bytecode(
    pyz: Path, run_dir: tuple[Path, dict[str, str]]
) -> None:
    """With -B (PYTHONDONTWRITEBYTECODE), the first start still leaves the bytecode of
    what it imported in the unpacked archive, and a later start compiles nothing."""
    workdir, env = run_dir
    command = [BASE_PYTHON, "-I", "-B", str(pyz)]

    async def session() -> None:
        async with stdio_client(command=command, cwd=workdir, env=env) as client:
            await client.list_tools()
            await client.call_tool("view", {"path": ".env"})

    await session()
    directory = unpacked(Path(env["SHIV_ROOT"]))
    first = {p: p.stat().st_mtime_ns for p in directory.rglob("*.pyc")}
    assert any("fastmcp" in p.parts for p in first)
    assert any("pydantic_core" in p.parts for p in first)  # from this Python's layer
    # unchecked-hash pycs: the 4-byte flags after the magic number are 0b01
    assert all(p.read_bytes()[4:8] == b"\x01\x00\x00\x00" for p in first)
    await session()
    assert {p: p.stat().st_mtime_ns for p in directory.rglob("*.pyc")} == first


@pytest.mark.slow  # builds the pyz (once per session)
def test_version_help_and_the_shebang(pyz: Path, run_dir: tuple[Path, dict[str, str]]) -> None:
    workdir, env = run_dir
    assert pyz.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    for command in ([BASE_PYTHON, "-I", str(pyz), "--version"], [str(pyz), "-v"]):
        done = subprocess.run(command, cwd=workdir, env=server_env(env), capture_output=True)
        assert (done.returncode, done.stdout) == (0, f"boris {VERSION}\n".encode())
    done = subprocess.run(
        [BASE_PYTHON, "-I", str(pyz), "--help"],
        cwd=workdir,
        env=server_env(env),
        capture_output=True,
    )
    assert done.returncode == 0
    assert b"--transport" in done.stdout


# --- the architecture of the native binaries inside ------------------------------------------

CHECKER = REPO / "scripts" / "check_pyz_arch.py"


def check_arch(pyz: Path, target: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECKER), str(pyz), *([target] if target else [])],
        capture_output=True,
        text=True,
    )


@pytest.mark.slow  # builds the pyz (once per session)
def test_the_native_pyz_holds_binaries_of_this_machine_only(pyz: Path) -> None:
    check = check_arch(pyz, NATIVE)
    assert check.returncode == 0, check.stderr
    binaries = check.stdout.splitlines()
    assert all(line.startswith("ok ") for line in binaries)
    # pydantic-core, google-re2 and tree-sitter once for each Python carried, in its layers
    for combo, layers in manifest(pyz)["layers"].items():
        abi = "cpython-" + combo.rsplit("-cp", 1)[1]  # cpython-312
        mine = [line for line in binaries if any(f" natives/{layer}/" in line for layer in layers)]
        for module in ("pydantic_core/_pydantic_core", "re2/_re2", "tree_sitter/_binding"):
            assert any(f"/{module}.{abi}-" in line for line in mine), (combo, module)
    # Each grammar once (abi3), checked like every other binary.
    grammars = {line.split()[-1].split("/")[-2] for line in binaries if "/_binding.abi3." in line}
    assert grammars >= {"tree_sitter_python", "tree_sitter_go", "tree_sitter_swift"}
    assert len(grammars) == 14


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
        (
            # An archive for several platforms: each binary fits the layer it lies in.
            {
                "natives/linux-x86_64-cp312/a/_a.so": X86_64_ELF,
                "natives/linux-aarch64/b/_b.abi3.so": AARCH64_ELF,
                "natives/darwin-arm64+darwin-x86_64-cp313/c/_c.so": fat(0x01000007, 0x0100000C),
            },
            None,
            [
                "ok  elf   x86_64         natives/linux-x86_64-cp312/a/_a.so",
                "ok  elf   aarch64        natives/linux-aarch64/b/_b.abi3.so",
                "ok  macho arm64,x86_64   natives/darwin-arm64+darwin-x86_64-cp313/c/_c.so",
            ],
            [],
        ),
        (
            # ... and a binary in the wrong platform's layer, in a layer shared by every
            # platform, or outside the layers, is a mismatch.
            {
                "natives/linux-aarch64-cp312/a/_a.so": X86_64_ELF,
                "natives/any-cp310/b/_b.so": X86_64_ELF,
                "site-packages/c/_c.so": X86_64_ELF,
            },
            None,
            [
                "BAD elf   x86_64         natives/linux-aarch64-cp312/a/_a.so",
                "BAD elf   x86_64         natives/any-cp310/b/_b.so",
                "BAD elf   x86_64         site-packages/c/_c.so",
            ],
            [
                "natives/linux-aarch64-cp312/a/_a.so: elf ['x86_64'], expected linux-aarch64",
                "natives/any-cp310/b/_b.so: elf ['x86_64'], expected linux-x86_64+"
                "linux-aarch64+darwin-x86_64+darwin-arm64",
                "site-packages/c/_c.so: elf ['x86_64'], expected a platform's layer "
                "(natives/<os>-<arch>...)",
            ],
        ),
    ],
)
def test_arch_check_on_synthetic_binaries(
    tmp_path: Path,
    members: dict[str, bytes],
    target: str | None,
    lines: list[str],
    problems: list[str],
) -> None:
    """check_pyz_arch.py reads the ELF e_machine or the Mach-O cputype of every member,
    prints one line per binary, and exits 1 on any binary that does not fit the target
    or its layer's platforms (or when there is none)."""
    check = check_arch(archive(tmp_path, members), target)
    assert check.stdout.splitlines() == lines
    assert check.stderr.splitlines() == [f"error: {problem}" for problem in problems]
    assert check.returncode == (1 if problems else 0)
