from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from hypothesis import HealthCheck, settings

from boris import logs
from tests.support.builds import Built, build_once, run_directory
from tests.support.files import case_dir
from tests.support.inprocess import app_client

# CI: derandomized, bounded, no deadline (2-core machines under load must not flake).
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    print_blob=True,
)
settings.register_profile(
    "dev",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# By hand: many more examples, e.g. tests/test_rg_agreement.py's thousands of questions.
settings.register_profile(
    "deep",
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


# The apps the tests run in this process log as a served Boris does: through Boris's own
# handler on stderr (captured by pytest), fastmcp's rich handlers removed, a client's bad
# arguments a debug detail rather than a warning.
logs.configure("info", "text")


# --- one app per test module ----------------------------------------------------------------
# A module shares one in-process app (default flags, tests/support/inprocess.py) rooted in its own
# directory, and each test works in a subdirectory of its own. A module that needs other
# flags defines its own `client` fixture.


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    return tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])


@pytest.fixture(scope="module")
async def client(root: Path) -> AsyncIterator[Client[Any]]:
    async with app_client(workdir=root) as connected:
        yield connected


@pytest.fixture
def case(root: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh directory under the module's server root, named after the test."""
    return case_dir(root, request)


# --- what build_zipapp.sh writes --------------------------------------------------------------


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """dist/'s pyz, bundle and wheel for this machine, built once per run (the run's
    workers share the build: tests/support/builds.py)."""
    return build_once(run_directory(tmp_path_factory.getbasetemp()))


#: A test that needs the build may wait for it (several minutes with a cold package cache),
#: on its own worker or another's.
BUILD_TIMEOUT = 900


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "built" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(BUILD_TIMEOUT))
