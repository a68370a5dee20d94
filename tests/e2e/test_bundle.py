"""The MCP Bundle as Claude Desktop installs and runs it: unpacked, its manifest checked by
Anthropic's own CLI (``mcpb validate``), its server command made from the manifest with
the user's settings substituted (tests/support/mcpb.py) and driven through the official
MCP SDK client over STDIO.

The bundle is build_zipapp.sh's for this machine (``dist/boris-<os>-<arch>.mcpb``, around
the pyz the other e2e tests run; built once per run); ``./build_zipapp.sh all`` writes
``dist/boris.mcpb`` around the universal pyz with the same manifest but for the
platforms it names.
"""

from __future__ import annotations

import json
import os
import subprocess
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp
import pytest

from boris import toolset
from scripts import build_bundle
from tests.support import DEFAULT_TOOLS, REPO, VERSION, error_text, ok_text, sdk_client_of
from tests.support.builds import NATIVE, Built
from tests.support.mcpb import server_command

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # the build, once per run


@dataclass(frozen=True)
class Unpacked:
    directory: Path
    manifest: dict[str, Any]


@pytest.fixture(scope="module")
def unpacked(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Unpacked:
    """The bundle unpacked as a client unpacks it: every member, with its mode."""
    directory = tmp_path_factory.mktemp("bundle")
    with zipfile.ZipFile(built.bundle) as bundle:
        for info in bundle.infolist():
            bundle.extract(info, directory)
            os.chmod(directory / info.filename, (info.external_attr >> 16) & 0o777)
    return Unpacked(directory, json.loads((directory / "manifest.json").read_text()))


@pytest.fixture(scope="module")
def shiv_root(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Where the module's servers unpack the pyz (once, for all of them)."""
    return str(tmp_path_factory.mktemp("shiv"))


@dataclass(frozen=True)
class Places:
    project: Path  # the working directory picked
    shared: Path  # another allowed directory
    outside: Path  # neither


@pytest.fixture
def places(tmp_path: Path) -> Places:
    found = Places(tmp_path / "project", tmp_path / "shared", tmp_path / "outside")
    for directory in (found.project, found.shared, found.outside):
        directory.mkdir()
        (directory / "note.txt").write_text(f"in {directory.name}\n")
    (found.project / "id.key").write_text("secret\n")
    return found


@asynccontextmanager
async def claude_desktop(
    unpacked: Unpacked, values: dict[str, Any], shiv_root: str, cwd: Path
) -> AsyncIterator[mcp.Client]:
    """The server as Claude Desktop starts it for these settings: the manifest's command
    with the values substituted, its env over the client's own, started elsewhere than the
    working directory."""
    command = server_command(unpacked.manifest, unpacked.directory, values)
    env = {**command.env, "SHIV_ROOT": shiv_root}
    async with sdk_client_of([command.command, *command.args], env=env, cwd=cwd) as client:
        yield client


def summaries(tools: list[Any]) -> list[dict[str, str]]:
    return [{"name": t.name, "description": build_bundle.summary(t.description)} for t in tools]


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """Where the client starts the server: not the working directory."""
    directory = tmp_path / "client"
    directory.mkdir()
    return directory


async def test_every_setting(
    unpacked: Unpacked, places: Places, shiv_root: str, elsewhere: Path
) -> None:
    """Working directory, two allowed directories, deny patterns: tools/list is the
    manifest's list, bash starts in the working directory, the file tools reach the
    allowed directories and nothing else, and the denied paths not at all."""
    values = {
        "workdir": str(places.project),
        "allowed_directories": [str(places.project), str(places.shared)],
        "deny_patterns": "**/*.key,**/*.{pem,p12}",
        "anthropic_compat": False,
    }
    async with claude_desktop(unpacked, values, shiv_root, elsewhere) as client:
        assert client.instructions is not None
        assert f"Working directory: {places.project}" in client.instructions
        served = (await client.list_tools()).tools
        assert summaries(served) == unpacked.manifest["tools"]
        assert [t.name for t in served] == DEFAULT_TOOLS
        pwd = await client.call_tool("bash", {"command": "pwd"})
        assert ok_text(pwd) == f"exit_code: 0\n\nstdout:\n{places.project}\n"
        view = await client.call_tool("view", {"path": "note.txt"})
        assert ok_text(view) == "1\tin project\n"
        shared = await client.call_tool("view", {"path": str(places.shared / "note.txt")})
        assert ok_text(shared) == "1\tin shared\n"
        outside = await client.call_tool("view", {"path": str(places.outside / "note.txt")})
        assert error_text(outside).startswith("[ACCESS_DENIED]")
        denied = await client.call_tool("view", {"path": "id.key"})
        assert error_text(denied).startswith("[ACCESS_DENIED]")


async def test_only_the_working_directory(
    unpacked: Unpacked, places: Places, shiv_root: str, elsewhere: Path
) -> None:
    """The optional settings at their defaults (an empty list, an empty text, false):
    Boris starts, serves the manifest's tools and confines nothing."""
    async with claude_desktop(
        unpacked, {"workdir": str(places.project)}, shiv_root, elsewhere
    ) as client:
        served = (await client.list_tools()).tools
        assert summaries(served) == unpacked.manifest["tools"]
        outside = await client.call_tool("view", {"path": str(places.outside / "note.txt")})
        assert ok_text(outside) == "1\tin outside\n"
        key = await client.call_tool("view", {"path": "id.key"})
        assert ok_text(key) == "1\tsecret\n"


async def test_the_claude_style_editor(
    unpacked: Unpacked, places: Places, shiv_root: str, elsewhere: Path
) -> None:
    values = {"workdir": str(places.project), "anthropic_compat": True}
    async with claude_desktop(unpacked, values, shiv_root, elsewhere) as client:
        served = [t.name for t in (await client.list_tools()).tools]
        assert served == list(toolset.served(compat=True))
        view = await client.call_tool(
            "str_replace_editor", {"command": "view", "path": str(places.project / "note.txt")}
        )
        assert ok_text(view) == "1\tin project\n"


def test_the_manifest(unpacked: Unpacked, built: Built) -> None:
    """What the manifest says of the pyz it carries, and the files it names."""
    manifest = unpacked.manifest
    assert manifest["version"] == VERSION
    assert manifest["compatibility"] == {
        "platforms": [NATIVE.split("-")[0]],
        "runtimes": {"python": ">=3.10 <3.15"},
    }
    entry = unpacked.directory / manifest["server"]["entry_point"]
    assert entry.read_bytes() == built.pyz.read_bytes()
    assert (unpacked.directory / manifest["icon"]).read_bytes() == build_bundle.ICON.read_bytes()
    assert sorted(p.name for p in unpacked.directory.rglob("*") if p.is_file()) == sorted(
        ["manifest.json", "icon.png", "boris.pyz"]
    )


def test_mcpb_validate(unpacked: Unpacked) -> None:
    """Anthropic's CLI, at the version scripts/mcpb.sh pins, accepts the manifest and its
    icon. Skipped, with the reason, where npm is missing or cannot install it."""
    done = subprocess.run(
        [str(REPO / "scripts" / "mcpb.sh"), "validate", str(unpacked.directory / "manifest.json")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode == 127:
        pytest.skip(done.stderr.strip().splitlines()[-1])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Manifest schema validation passes!" in done.stdout
    assert "ERROR" not in done.stdout
