"""The Dockerfile has what the image needs, read from its text; tests/e2e/test_docker.py
builds the image and runs it."""

from __future__ import annotations

import json
import re

from tests.support import REPO


def instructions() -> list[tuple[str, str]]:
    text = (REPO / "Dockerfile").read_text()
    text = re.sub(r"\\\n", " ", text)  # join continuation lines
    result = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            result.append((keyword.upper(), rest.strip()))
    return result


def stages() -> list[list[tuple[str, str]]]:
    found: list[list[tuple[str, str]]] = []
    for keyword, rest in instructions():
        if keyword == "FROM":
            found.append([])
        found[-1].append((keyword, rest))
    return found


def test_multi_stage_build_uses_the_release_script() -> None:
    build = stages()[0]
    assert len(stages()) >= 2
    assert build[0][1].startswith("python:3.11")
    assert build[0][1].endswith(" AS build")
    runs = [rest for keyword, rest in build if keyword == "RUN"]
    assert runs == ["./build_zipapp.sh && mv dist/boris-linux-*.pyz dist/boris.pyz"]


def test_final_stage_is_slim_python_with_only_the_pyz() -> None:
    final = stages()[-1]
    assert final[0] == ("FROM", "python:3.11-slim")
    copies = [rest for keyword, rest in final if keyword in ("COPY", "ADD")]
    assert copies == ["--from=build /src/dist/boris.pyz /usr/local/bin/boris.pyz"]
    assert ("WORKDIR", "/workspace") in final
    assert ("EXPOSE", "8080") in final


def test_runs_as_a_non_root_user() -> None:
    users = [rest for keyword, rest in stages()[-1] if keyword == "USER"]
    assert users
    assert users[-1] not in ("root", "0")


def test_healthcheck_probes_health() -> None:
    checks = [rest for keyword, rest in stages()[-1] if keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    assert "/health" in checks[0]


def test_entrypoint_runs_the_pyz_under_an_init() -> None:
    # An init as PID 1 reaps the orphans commands leave behind.
    entrypoints = [rest for keyword, rest in stages()[-1] if keyword == "ENTRYPOINT"]
    assert len(entrypoints) == 1
    argv = json.loads(entrypoints[0])
    assert argv[:4] == ["/usr/bin/tini", "--", "python3", "/usr/local/bin/boris.pyz"]


def test_entrypoint_serves_beyond_the_container_only_with_a_token() -> None:
    # Reachable through the published port, so Boris starts only with --token or
    # --generate-token given after the image name (or --allow-unauthenticated).
    (entrypoint,) = [rest for keyword, rest in stages()[-1] if keyword == "ENTRYPOINT"]
    argv = json.loads(entrypoint)
    assert argv[argv.index("--host") + 1] == "0.0.0.0"
    assert not {"--token", "--generate-token", "--allow-unauthenticated"} & set(argv)
