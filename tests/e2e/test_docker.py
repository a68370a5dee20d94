"""The Docker image, built from the Dockerfile and run, and the zipapp alone in a plain
Debian image with nothing but python3.

Needs a Docker daemon, the Dockerfile's base image (python:3.11-slim) and, for the plain
image, boris-test/debian-python3. No image registry is reachable on the CI machines:
.ci/run installs Debian's docker.io, starts dockerd and makes both images from Debian's
packages (scripts/docker_ci.sh). Where no daemon is reachable the tests are skipped and
say why. Containers publish their port on 127.0.0.1 only and are removed by their id.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import DEFAULT_TOOLS, REPO, http_client, ok_text, stdio_client

DOCKER = os.environ.get("DOCKER") or shutil.which("docker")
IMAGE = "boris-test/boris"
PLAIN = "boris-test/debian-python3"  # minbase Debian with python3 only (no pip, no venv)
TOKEN = "a-token-for-the-container-tests"
USER_ID = "10001"  # the Dockerfile's unprivileged user


def _no_daemon() -> str | None:
    """Why no Docker daemon can be used, or None."""
    if DOCKER is None:
        return "no docker command (Debian's docker.io; .ci/run installs it)"
    try:
        subprocess.run([DOCKER, "info"], capture_output=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no Docker daemon reachable ({exc}); .ci/run starts one"
    return None


REASON = _no_daemon()
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.slow,
    pytest.mark.skipif(REASON is not None, reason=REASON or ""),
    # The image is built once for the module: a minute or two on two cores.
    pytest.mark.timeout(900),
]


def docker(*args: str, timeout: float = 120, check: bool = True) -> str:
    assert DOCKER is not None
    done = subprocess.run(
        [DOCKER, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, DOCKER_BUILDKIT="0"),  # Debian's docker.io has no buildx
    )
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


@pytest.fixture(scope="module")
def image() -> str:
    docker("build", "--quiet", "--tag", IMAGE, str(REPO), timeout=900)
    return IMAGE


@dataclass
class Container:
    id: str
    port: int
    workspace: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def start(image: str, workspace: Path, *args: str) -> Container:
    """The image run detached, its port published on 127.0.0.1, the workspace mounted, and
    the HEALTHCHECK run every second (its command as the image has it)."""
    container = docker(
        "run", "--detach", "--publish", "127.0.0.1::8080", "--volume", f"{workspace}:/workspace",
        "--health-interval", "1s", image, *args,
    ).strip()  # fmt: skip
    published = docker("port", container, "8080").splitlines()[0]  # 127.0.0.1:49153
    return Container(container, int(published.rsplit(":", 1)[1]), workspace)


def health(container: Container) -> str:
    return docker("inspect", "--format", "{{.State.Health.Status}}", container.id).strip()


def wait_until(condition: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def a_workspace(directory: Path) -> Path:
    workspace = directory / "workspace"
    workspace.mkdir()
    os.chown(workspace, int(USER_ID), int(USER_ID))  # the tests run as root
    return workspace


@pytest.fixture(scope="module")
def container(image: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    """The image as the README runs it, with a token; removed by its id afterwards."""
    running = start(image, a_workspace(tmp_path_factory.mktemp("docker")), "--token", TOKEN)
    try:
        wait_until(lambda: health(running) == "healthy", "the HEALTHCHECK to pass")
        yield running
    finally:
        docker("rm", "--force", running.id, check=False)


def processes(container: Container) -> list[tuple[str, str, str, str]]:
    """(uid, pid, state, command) of each process in the container, read by the host."""
    lines = docker("top", container.id, "-eo", "uid,pid,stat,comm").splitlines()[1:]
    return [tuple(line.split(None, 3)) for line in lines]  # type: ignore[misc]


def test_health_and_the_healthcheck(container: Container) -> None:
    with urllib.request.urlopen(f"{container.base}/health", timeout=10) as response:
        assert (response.status, response.read()) == (200, b'{"status":"ok"}')
    assert health(container) == "healthy"


async def test_initialize_and_bash_with_the_token(container: Container) -> None:
    async with http_client(f"{container.base}/mcp", token=TOKEN) as client:
        result = client.initialize_result
        assert result is not None
        assert result.instructions == "Working directory: /workspace"
        bash = await client.call_tool("bash", {"command": "id -un; pwd"})
        assert ok_text(bash) == "exit_code: 0\n\nstdout:\nboris\n/workspace\n"


def test_without_the_token_mcp_is_refused(container: Container) -> None:
    request = urllib.request.Request(f"{container.base}/mcp", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401


async def test_a_file_made_in_the_workspace_appears_on_the_host(container: Container) -> None:
    async with http_client(f"{container.base}/mcp", token=TOKEN) as client:
        made = await client.call_tool("create_file", {"path": "made.txt", "content": "hi\n"})
        ok_text(made)
        bash = await client.call_tool("bash", {"command": "echo more >> made.txt"})
        ok_text(bash)
    made_on_host = container.workspace / "made.txt"
    assert made_on_host.read_text() == "hi\nmore\n"
    assert str(made_on_host.stat().st_uid) == USER_ID


async def test_the_image_parses_code_with_the_grammars_it_carries(container: Container) -> None:
    async with http_client(f"{container.base}/mcp", token=TOKEN) as client:
        source = "impl Circle {\n    fn area(&self) {}\n}\n"
        ok_text(await client.call_tool("create_file", {"path": "shapes.rs", "content": source}))
        found = await client.call_tool("symbols", {"name": "Circle.area"})
        assert ok_text(found) == "shapes.rs:2-2  method Circle.area  fn area(&self) {}"


def test_every_process_runs_as_the_unprivileged_user(container: Container) -> None:
    running = processes(container)
    assert {uid for uid, _, _, _ in running} == {USER_ID}
    # tini is PID 1 and the server its child
    assert [command for _, _, _, command in running[:2]] == ["tini", "python3"]


async def test_an_orphan_is_reaped_when_it_ends(container: Container) -> None:
    """A command that leaves a process behind (``sleep 30 &``): once that process ends
    (here: is killed), it is reaped (by the server, its subreaper, or else by PID 1),
    and no zombie is left in the container."""
    async with http_client(f"{container.base}/mcp", token=TOKEN) as client:
        left = await client.call_tool("bash", {"command": "sleep 30 & echo $!"})
        orphan = ok_text(left).rsplit("\n", 2)[-2]
        assert re.fullmatch(r"\d+", orphan)
        assert "sleep" in docker("exec", container.id, "cat", f"/proc/{orphan}/comm")
        await client.call_tool("bash", {"command": f"kill {orphan}"})

    def gone() -> bool:  # a zombie keeps its /proc entry until its parent reaps it
        return docker("exec", container.id, "sh", "-c", f"test -e /proc/{orphan}; echo $?") == "1\n"

    wait_until(gone, "the killed orphan to be reaped", timeout=10)
    # No zombie anywhere below PID 1 (processes docker exec starts have parent 0).
    stats = docker("exec", container.id, "sh", "-c", "cat /proc/[0-9]*/stat", check=False)
    zombies = [
        line
        for line in stats.splitlines()
        if line.rsplit(") ", 1)[1].split()[0] == "Z" and line.rsplit(") ", 1)[1].split()[1] != "0"
    ]
    assert zombies == []


def test_without_a_token_the_container_stops_saying_why(image: str) -> None:
    """It serves beyond the container, so it refuses to start without a token."""
    assert DOCKER is not None
    done = subprocess.run(
        [DOCKER, "run", "--rm", image], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "no token is set" in done.stderr
    assert done.stderr.count("\n") == 1


async def test_docker_stop_ends_it_within_the_grace_period(image: str, tmp_path: Path) -> None:
    running = start(image, a_workspace(tmp_path), "--token", TOKEN)
    try:
        wait_until(lambda: health(running) == "healthy", "the HEALTHCHECK to pass")
        began = time.monotonic()
        docker("stop", "--time", "10", running.id, timeout=60)
        took = time.monotonic() - began
        code = docker("inspect", "--format", "{{.State.ExitCode}}", running.id).strip()
    finally:
        docker("rm", "--force", running.id, check=False)
    assert took < 10  # ended by SIGTERM, not killed when the grace period ran out
    assert code != "137"  # 128 + SIGKILL


async def test_the_zipapp_alone_serves_stdio_in_a_plain_debian_python(
    image: str, tmp_path: Path
) -> None:
    """boris.pyz copied into an image that has only Debian's python3 (no pip, no venv,
    nothing installed): "drop it into a container image and run it"."""
    if not docker("images", "--quiet", PLAIN):
        pytest.skip(f"no {PLAIN} image (scripts/docker_ci.sh makes it)")
    nothing_else = (
        "python3 -m pip -V >/dev/null 2>&1; echo $?; python3 -m venv /v >/dev/null; echo $?"
    )
    assert docker("run", "--rm", PLAIN, "sh", "-c", nothing_else) == "1\n1\n"
    context = tmp_path / "context"
    context.mkdir()
    copied = docker("create", image)
    try:
        docker("cp", f"{copied.strip()}:/usr/local/bin/boris.pyz", str(context / "boris.pyz"))
    finally:
        docker("rm", copied.strip(), check=False)
    (context / "Dockerfile").write_text(
        f"FROM {PLAIN}\n"
        "COPY boris.pyz /usr/local/bin/boris.pyz\n"
        'ENTRYPOINT ["python3", "/usr/local/bin/boris.pyz"]\n'
    )
    plain_image = f"{PLAIN}-boris"
    docker("build", "--quiet", "--tag", plain_image, str(context), timeout=300)
    name = f"boris-test-{uuid.uuid4().hex[:12]}"
    command = [DOCKER or "docker", "run", "--rm", "--interactive", "--name", name, plain_image]
    try:
        async with stdio_client(command=command, mode="legacy") as client:
            result = client.initialize_result
            assert result is not None
            assert len(await client.list_tools()) == len(DEFAULT_TOOLS)
            bash = await client.call_tool("bash", {"command": "python3 --version; id -u"})
            assert ok_text(bash).startswith("exit_code: 0\n\nstdout:\nPython 3.")
    finally:
        docker("rm", "--force", name, check=False)
