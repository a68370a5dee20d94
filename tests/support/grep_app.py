"""The app the grep tool's tests share, as module fixtures: ``--allow-dir`` its workdir,
``--deny-dir **/secrets``, ``--max-file-size 4KB``; each test searches its own
subdirectory. A test module imports the fixtures it uses by name (and lists them in its
``__all__``): each module gets its own app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.trees import write_tree


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("grep").resolve()


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory out of the allowed one, with a file that must never be found."""
    return write_tree(tmp_path_factory.mktemp("outside").resolve(), {"leak.txt": "needle\n"})


@pytest.fixture(scope="module")
async def client(workdir: Path) -> AsyncIterator[Client[Any]]:
    flags = ["--allow-dir", str(workdir), "--deny-dir", "**/secrets", "--max-file-size", "4KB"]
    async with app_client(*flags, workdir=workdir) as connected:
        yield connected


async def grep(client: Client[Any], **arguments: Any) -> str:
    return ok_text(await client.call_tool("grep", arguments, raise_on_error=False))


async def grep_error(client: Client[Any], **arguments: Any) -> str:
    return error_text(await client.call_tool("grep", arguments, raise_on_error=False))
