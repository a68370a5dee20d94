"""Every start-up validation error, --version and --help, on the real command line
(README "Configuration": invalid settings stop Boris at start-up with one line on stderr
and exit code 2).

Each is checked on the real process: one line on stderr, exit code 2, nothing on stdout,
no traceback. How flags and env vars are read is tested in process: tests/test_settings.py.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support import BORIS, INITIALIZE, VERSION, http_server, server_env
from tests.support.settings_table import SETTINGS, STARTUP_ERRORS


def run_boris(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BORIS, *args],
        capture_output=True,
        text=True,
        env=server_env(env),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


#: Every start-up error is checked in process (tests/test_settings.py); the real command
#: line is checked for one of each way an error arises: a value pydantic refuses from a
#: flag and from an env var, a rule between two flags, a pattern the glob checker
#: refuses, a flag's pattern that would fail open (over STDIO too, where the settings
#: are read early), and a flag argparse does not know.
def _row(args: list[str], env: dict[str, str] | None = None) -> tuple[Any, ...]:
    return next(row for row in STARTUP_ERRORS if (row[0], row[1]) == (args, env))


_ONE_OF_EACH_KIND = [
    _row(["--transport=websocket"]),
    _row([], {"BORIS_TRANSPORT": "websocket"}),
    _row(["--token", "abc", "--generate-token"]),
    _row(["--token-file", "/dev/null"]),
    _row(["--host", "0.0.0.0"]),
    _row(["--deny-dir", "**/[abc"]),
    _row(["--transport", "stdio", "--deny-dir", "**/.env, secrets/"]),
    _row(["--deny-dir", " **/.env"]),
    _row(["--sessions"]),
]


@pytest.mark.parametrize(("args", "env", "message"), _ONE_OF_EACH_KIND)
def test_startup_validation_error(
    args: list[str], env: dict[str, str] | None, message: str
) -> None:
    result = run_boris(*args, env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"boris: error: {message}\n"


def test_workdir_that_is_a_file(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    result = run_boris("--workdir", str(file))
    assert result.returncode == 2
    assert (
        result.stderr
        == f"boris: error: --workdir (BORIS_WORKDIR): directory {file} is not a directory\n"
    )


@pytest.mark.parametrize("flag", ["--version", "-v"])
def test_version(flag: str) -> None:
    result = run_boris(flag)
    assert result.returncode == 0
    assert result.stdout == f"boris {VERSION}\n"


def test_help_shows_every_flag_with_its_env_var_and_default() -> None:
    result = run_boris("--help")
    assert result.returncode == 0
    options = {
        line.split()[0].rstrip(",")
        for line in result.stdout.splitlines()
        if line.startswith("  --")
    }
    assert options == {"--version"} | {row.flag for row in SETTINGS}
    text = " ".join(result.stdout.split())  # argparse wraps lines where it likes
    for row in SETTINGS:
        assert f"[env {row.env}; default {row.shown}]" in text, row.field


def test_size_parsing_is_linear() -> None:
    """A size with a long run of blanks is refused at once (a bound catching a hang)."""
    value = "1" + " " * 100_000 + "x"
    start = time.monotonic()
    result = run_boris("--max-file-size", value)
    assert time.monotonic() - start < 10
    assert result.returncode == 2
    assert result.stderr == (
        f"boris: error: --max-file-size (BORIS_MAX_FILE_SIZE): cannot parse size {value!r}; "
        "use a number with B, KB, MB or GB\n"
    )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_token_file_whose_first_line_is_too_long_refuses_to_start(
    tmp_path: Path, transport: str
) -> None:
    """A 5,000-character token was cut to its first 4,096 characters: the token the
    file holds then got 401, its start 200."""
    path = tmp_path / "token"
    path.write_text("t" * 5000 + "\n")
    result = run_boris("--transport", transport, "--token-file", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"boris: error: --token-file {path} holds more than 1024 characters on its first "
        "line: a token is at most 1024\n"
    )


@pytest.mark.parametrize("mode", [0o644, 0o600])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_token_file_others_can_read_is_warned_of_at_start(
    tmp_path: Path, transport: str, mode: int
) -> None:
    path = tmp_path / "token"
    path.write_text("a-token\n")
    path.chmod(mode)
    warning = (
        f"--token-file {path} can be read by its group and others (mode 0644): make it "
        f"readable by its owner alone (chmod 600 {path})"
    )
    if transport == "http":
        with http_server("--token-file", str(path), workdir=tmp_path) as server:
            log = server.stderr()
    else:
        line = json.dumps(INITIALIZE).encode() + b"\n"
        done = subprocess.run(
            [*BORIS, "--transport", "stdio", "--workdir", str(tmp_path), "--token-file", str(path)],
            input=line,
            capture_output=True,
            env=server_env(),
            timeout=60,
        )
        assert done.returncode == 0
        assert json.loads(done.stdout)["id"] == 1
        log = done.stderr.decode()
    assert (f"WARNING boris: {warning}" in log) == (mode == 0o644), log
    assert "a-token" not in log
