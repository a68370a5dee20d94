"""The wheel build_zipapp.sh writes to dist/: it holds Boris and its console script, and
the README's ``uvx --from dist/boris-*.whl boris --transport stdio`` installs it into a
clean environment of uv's (with its dependencies from the package index, as a user's uvx
does) and serves STDIO, spoken to through the official MCP SDK client.
"""

from __future__ import annotations

import glob
import os
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import DEFAULT_TOOLS, REPO, VERSION, ok_text, sdk_client_of
from tests.support.builds import Built
from tests.support.readme import section, snippets

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # the build, once per run


def test_the_wheel_holds_boris_and_its_script(built: Built) -> None:
    """Every module of the package as git tracks it, its metadata, the console script;
    nothing else (no tests, no scripts)."""
    assert built.wheel.name == f"boris-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(built.wheel) as wheel:
        names = wheel.namelist()
        info = f"boris-{VERSION}.dist-info"
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
    tracked = subprocess.run(
        ["git", "ls-files", "boris"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(n for n in names if not n.startswith(f"{info}/")) == sorted(tracked)
    assert "[console_scripts]\nboris = boris.__main__:main" in entry_points


def readme_uvx() -> list[str]:
    """The uvx command line of the README's install section, as the shell splits it."""
    (line,) = (
        line
        for snippet in snippets("Install")
        for line in snippet.text.splitlines()
        if line.startswith("uvx ")
    )
    assert "uvx --from dist/boris-*.whl boris --transport stdio" in section("Install")
    return shlex.split(line)


async def test_uvx_from_the_readme(built: Built, tmp_path: Path) -> None:
    """The README's command, its glob expanded in the checkout as the shell expands it,
    run from a project directory (the default working directory)."""
    argv = []
    for argument in readme_uvx():
        matches = glob.glob(argument, root_dir=REPO) if "*" in argument else [argument]
        assert len(matches) == 1, matches
        argv.append(str(REPO / matches[0]) if "*" in argument else argument)
    assert argv[2] == str(built.wheel)
    project = tmp_path / "project"
    project.mkdir()
    # uvx where uv is installed: beside this interpreter when nowhere else
    path = os.environ.get("PATH", "") + os.pathsep + str(Path(sys.executable).parent)
    async with sdk_client_of(argv, env={"PATH": path}, cwd=project) as client:
        assert client.server_info is not None
        assert client.server_info.version == VERSION
        assert [t.name for t in (await client.list_tools()).tools] == DEFAULT_TOOLS
        bash = await client.call_tool("bash", {"command": "echo $((6 * 7)); pwd"})
        assert ok_text(bash) == f"exit_code: 0\n\nstdout:\n42\n{project}\n"
