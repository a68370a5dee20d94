"""Fixtures of the tests that spawn servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.users import directory_of_other_user, require_other_user


@pytest.fixture
def other_dir() -> Iterator[Path]:
    """A directory of the user a server runs as when it must not be root (skipped,
    saying why, where no server can run as another user)."""
    require_other_user()
    with directory_of_other_user() as path:
        yield path
