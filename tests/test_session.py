"""A session object on its own: what the protocol cannot reach.

Sessions as clients see them (isolation, DELETE, idle expiry, shutdown) are tested on real
server processes in tests/e2e/test_sessions.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boris.errors import BorisError
from boris.files.scope import PathScope
from boris.session import Runtime, Session
from boris.settings import Settings
from boris.shell.environment import child_environment
from tests.support.pids import children, pids_in, wait_gone

pytestmark = pytest.mark.anyio


async def test_closed_session_refuses_background_tasks(tmp_path: Path) -> None:
    # Not reachable through the protocol (a deleted session's id gets 404), so the
    # session object itself: the refused command is started, then ended at once.
    settings = Settings(workdir=str(tmp_path), transport="stdio")
    runtime = Runtime(settings=settings, scope=PathScope([], []), shell="/bin/bash")
    session = Session(id="closed", runtime=runtime, cwd=str(tmp_path))
    session.close()
    marker = tmp_path / "pid"
    before = children(os.getpid())
    with pytest.raises(BorisError) as refused:
        session.tasks.start(
            "/bin/bash",
            f"echo $$ > {marker}; exec sleep 300",
            cwd=str(tmp_path),
            env=child_environment(os.environ),
            timeout=0,
        )
    assert str(refused.value) == "[BASH_START_FAILED] the session is closed; start a new session"
    assert len(session.tasks) == 0
    # The shell this test's process started (not reaped yet: that happens on the event
    # loop, which has not run since) is ended, whether or not it wrote its pid first.
    started = sorted(children(os.getpid()) - before)
    assert len(started) == 1
    assert await wait_gone(started) == []
    if marker.exists():  # perhaps empty: the shell may be ended while writing it
        assert set(pids_in(marker.read_text())) <= set(started)
