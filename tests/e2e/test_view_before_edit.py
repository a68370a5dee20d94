"""View-before-edit per session: what one HTTP session viewed does not let another edit.

Everything else about view-before-edit is tested in process:
tests/tools/test_view_before_edit.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import error_text, http_client, http_server, ok_text
from tests.support.calls import call, not_viewed

pytestmark = pytest.mark.anyio


async def test_viewed_set_is_per_session(root: Path) -> None:
    work = root / "sessions"
    work.mkdir()
    path = work / "shared.txt"
    path.write_text("x\n")
    with http_server(workdir=work) as server:
        async with http_client(server.url) as a, http_client(server.url) as b:
            ok_text(await call(a, "view", path=str(path)))
            result = await call(b, "str_replace", path=str(path), old_str="x", new_str="y")
            assert error_text(result) == not_viewed(path)
            ok_text(await call(a, "str_replace", path=str(path), old_str="x", new_str="y"))
    assert path.read_text() == "y\n"
