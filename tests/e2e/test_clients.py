"""Each client configuration in the README's "Connect a client", as that client reads it:
parsed in its own format (JSON, TOML, a shell command line), holding only the keys the
client documents, its placeholders filled in as the client or the shell fills them, and
its command run and spoken to through the official MCP SDK client over STDIO, with the
pyz and the wheel build_zipapp.sh built for this run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import DEFAULT_TOOLS, ok_text, sdk_client_of
from tests.support.builds import Built
from tests.support.readme import Snippet, snippets

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # the build, once per run

SECTION = "Connect a client"


@dataclass(frozen=True)
class Server:
    command: list[str]
    env: dict[str, str]


def _entry(entry: dict[str, Any], keys: set[str]) -> Server:
    assert set(entry) <= keys, f"keys the client does not document: {set(entry) - keys}"
    return Server([entry["command"], *entry.get("args", [])], dict(entry.get("env", {})))


def mcp_servers_json(text: str) -> Server:
    """Claude Desktop's claude_desktop_config.json and Cursor's mcp.json: ``mcpServers``."""
    document = json.loads(text)
    assert set(document) == {"mcpServers"}
    return _entry(document["mcpServers"]["boris"], {"command", "args", "env"})


def vscode_json(text: str) -> Server:
    """VS Code's mcp.json: ``servers`` (and ``inputs``), each server with its ``type``."""
    document = json.loads(text)
    assert set(document) <= {"servers", "inputs"}
    entry = document["servers"]["boris"]
    assert entry["type"] == "stdio"
    return _entry(entry, {"type", "command", "args", "env", "envFile"})


def claude_mcp_add(text: str) -> Server:
    """``claude mcp add [options] <name> -- <command> [args...]``, as the shell splits it."""
    (line,) = text.strip().splitlines()
    argv = shlex.split(line)
    assert argv[:3] == ["claude", "mcp", "add"]
    separator = argv.index("--")
    assert argv[separator - 1] == "boris"
    return Server(argv[separator + 1 :], {})


def codex_toml(text: str) -> Server:
    """Codex's config.toml: a ``[mcp_servers.<name>]`` table."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")
    document = tomllib.loads(text)
    assert set(document) == {"mcp_servers"}
    entry = document["mcp_servers"]["boris"]
    assert entry["startup_timeout_sec"] > 10
    return _entry(entry, {"command", "args", "env", "cwd", "startup_timeout_sec"})


#: How each client reads the README's snippets for it.
READERS: dict[str, Callable[[str], Server]] = {
    "Claude Desktop": mcp_servers_json,
    "Claude Code": claude_mcp_add,
    "Cursor": mcp_servers_json,
    "VS Code": vscode_json,
    "Codex CLI": codex_toml,
}
LANGUAGES = {"Claude Desktop": "json", "Claude Code": "sh", "Cursor": "json",
             "VS Code": "json", "Codex CLI": "toml"}  # fmt: skip

SNIPPETS = snippets(SECTION)


def test_every_client_has_its_snippet() -> None:
    assert {s.label for s in SNIPPETS} == set(READERS)
    assert all(s.language == LANGUAGES[s.label] for s in SNIPPETS)


def fill_in(argument: str, built: Built, project: Path) -> str:
    """A placeholder as the user, the client (``${workspaceFolder}``) or the shell
    (``"$PWD"``) fills it in."""
    wheel = re.fullmatch(r"/path/to/(boris-.*\.whl)", argument)
    if wheel:
        assert wheel.group(1) == built.wheel.name, "the README names another wheel"
        return str(built.wheel)
    places = {
        "/path/to/boris.pyz": str(built.pyz),
        "/path/to/project": str(project),
        "${workspaceFolder}": str(project),
        "$PWD": str(project),
    }
    filled = places.get(argument, argument)
    assert "/path/to" not in filled
    return filled


@pytest.fixture(scope="module")
def shiv_root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("shiv"))


@pytest.mark.parametrize(
    "snippet", SNIPPETS, ids=[f"{s.label}-{i}" for i, s in enumerate(SNIPPETS)]
)
async def test_the_snippet_runs_boris(
    snippet: Snippet, built: Built, shiv_root: str, tmp_path: Path
) -> None:
    server = READERS[snippet.label](snippet.text)
    project = tmp_path / "project"
    project.mkdir()
    elsewhere = tmp_path / "client"
    elsewhere.mkdir()
    command = [fill_in(argument, built, project) for argument in server.command]
    # uvx where uv is installed: beside this interpreter when nowhere else
    path = os.environ.get("PATH", "") + os.pathsep + str(Path(sys.executable).parent)
    env = {**server.env, "SHIV_ROOT": shiv_root, "PATH": path}
    async with sdk_client_of(command, env=env, cwd=elsewhere) as client:
        assert [t.name for t in (await client.list_tools()).tools] == DEFAULT_TOOLS
        pwd = await client.call_tool("bash", {"command": "pwd"})
        assert ok_text(pwd) == f"exit_code: 0\n\nstdout:\n{project}\n"
