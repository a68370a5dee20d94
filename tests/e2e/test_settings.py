"""Every start-up validation error, --version and --help, on the real command line
(README "Configuration": invalid settings stop Boris at start-up with one line on stderr
and exit code 2).

Each is checked on the real process: one line on stderr, exit code 2, nothing on stdout,
no traceback. How flags and env vars are read is tested in process: tests/test_settings.py.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.support import BORIS, VERSION, server_env
from tests.test_settings import SETTINGS


def run_boris(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BORIS, *args],
        capture_output=True,
        text=True,
        env=server_env(env),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (
            ["--transport=websocket"],
            None,
            "--transport (BORIS_TRANSPORT): Input should be 'http' or 'stdio'",
        ),
        (
            [],
            {"BORIS_TRANSPORT": "websocket"},
            "--transport (BORIS_TRANSPORT): Input should be 'http' or 'stdio'",
        ),
        (
            ["--token", "abc", "--generate-token"],
            None,
            "--token and --generate-token are mutually exclusive; use one",
        ),
        (
            ["--transport", "stdio", "--token", "abc", "--generate-token"],
            None,
            "--token and --generate-token are mutually exclusive; use one",
        ),
        (
            ["--disable-tools", "nonexistent"],
            None,
            "unknown tool name 'nonexistent' in --disable-tools; valid names in the default "
            "mode: bash, task_output, task_stop, view, str_replace, multi_edit, create_file, grep, "
            "glob",
        ),
        (
            ["--disable-tools", "str_replace_editor"],
            None,
            "unknown tool name 'str_replace_editor' in --disable-tools; valid names in the "
            "default mode: bash, task_output, task_stop, view, str_replace, multi_edit, "
            "create_file, grep, glob",
        ),
        (
            ["--anthropic-compat", "--disable-tools", "nope"],
            None,
            "unknown tool name 'nope' in --disable-tools; valid names with --anthropic-compat: "
            "bash, task_output, task_stop, str_replace_editor, grep, glob, view, str_replace, "
            "create_file, multi_edit",
        ),
        (
            ["--max-file-size", "10XB"],
            None,
            "--max-file-size (BORIS_MAX_FILE_SIZE): cannot parse size '10XB'; "
            "use a number with B, KB, MB or GB",
        ),
        (
            ["--max-file-size", "0"],
            None,
            "--max-file-size (BORIS_MAX_FILE_SIZE): size '0' must be greater than zero",
        ),
        (
            ["--require-view-before-edit", "maybe"],
            None,
            "--require-view-before-edit (BORIS_REQUIRE_VIEW_BEFORE_EDIT): "
            "Input should be 'auto', 'true' or 'false', not 'maybe'",
        ),
        (
            ["--workdir", "/nonexistent/boris"],
            None,
            "--workdir (BORIS_WORKDIR): directory /nonexistent/boris does not exist",
        ),
        (
            ["--allow-dir", "/nonexistent/boris"],
            None,
            "--allow-dir (BORIS_ALLOW_DIRS): directory /nonexistent/boris does not exist",
        ),
        (
            ["--deny-dir", "**/[abc"],
            None,
            "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern '**/[abc': "
            "unclosed '[' at position 3",
        ),
        (
            [],
            {"BORIS_DENY_DIRS": "**/*.{pem,key"},
            "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern '**/*.{pem,key': unclosed '{'",
        ),
        (
            ["--max-file-size", "9" * 400],
            None,
            f"--max-file-size (BORIS_MAX_FILE_SIZE): size '{'9' * 400}' is too large",
        ),
        (
            ["--timeout", "soon"],
            None,
            "--timeout (BORIS_TIMEOUT): Input should be a valid integer, "
            "unable to parse string as an integer",
        ),
        (
            ["--log-level", "loud"],
            None,
            "--log-level (BORIS_LOG_LEVEL): Input should be 'debug', 'info', 'warn' or 'error'",
        ),
        (
            ["--log-format", "xml"],
            None,
            "--log-format (BORIS_LOG_FORMAT): Input should be 'text' or 'json'",
        ),
        # Flags of older releases are gone on purpose.
        (["--sessions"], None, "unrecognized arguments: --sessions"),
        (["--no-bash"], None, "unrecognized arguments: --no-bash"),
        (["--bg-timeout", "30"], None, "unrecognized arguments: --bg-timeout 30"),
    ],
)
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
