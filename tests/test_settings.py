"""Flags, env vars and every start-up validation error (SPEC §1).

Validation errors are checked on the real process: one line on stderr, exit code 2,
nothing on stdout, no traceback.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from boris import __version__
from boris.settings import Settings, load_settings
from tests.support import BORIS, server_env


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
            "mode: bash, task_output, view, str_replace, create_file, grep, glob",
        ),
        (
            ["--disable-tools", "str_replace_editor"],
            None,
            "unknown tool name 'str_replace_editor' in --disable-tools; valid names in the "
            "default mode: bash, task_output, view, str_replace, create_file, grep, glob",
        ),
        (
            ["--anthropic-compat", "--disable-tools", "nope"],
            None,
            "unknown tool name 'nope' in --disable-tools; valid names with --anthropic-compat: "
            "bash, task_output, str_replace_editor, grep, glob, view, str_replace, create_file",
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
    assert result.stdout == f"boris {__version__}\n"


def test_help_lists_every_flag_and_env_var() -> None:
    result = run_boris("--help")
    assert result.returncode == 0
    for flag in (
        "--port",
        "--host",
        "--allow-dir",
        "--deny-dir",
        "--allow-origin",
        "--disable-tools",
    ):
        assert flag in result.stdout
    assert "BORIS_ALLOW_DIRS" in result.stdout


# --- parsing rules, checked on the settings object --------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in list(os.environ):
        if key.startswith("BORIS_"):
            monkeypatch.delenv(key)
    return monkeypatch


def test_defaults(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.chdir(tmp_path)
    settings = load_settings([])
    assert settings.port == 8080
    assert settings.host == "0.0.0.0"
    assert settings.transport == "http"
    assert settings.workdir == str(tmp_path.resolve())
    assert settings.timeout_ms == 120_000
    assert settings.max_file_size == 10 * 1024 * 1024
    assert settings.require_view_before_edit is True  # auto resolves to true
    assert settings.session_idle_timeout == 600
    assert settings.background_task_timeout == 0
    assert (settings.log_level, settings.log_format) == ("info", "text")


def test_flag_beats_env(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setenv("BORIS_PORT", "9000")
    clean_env.setenv("BORIS_ALLOW_DIRS", "/")
    settings = load_settings(["--port", "9001", "--allow-dir", str(tmp_path)])
    assert settings.port == 9001
    assert settings.allow_dirs == [str(tmp_path.resolve())]


def test_repeatable_flags_are_never_split(clean_env: pytest.MonkeyPatch) -> None:
    settings = load_settings(
        ["--deny-dir", "**/*.{pem,key}", "--deny-dir", "a,b", "--allow-origin", "http://x"]
    )
    assert settings.deny_dirs == ["**/*.{pem,key}", "a,b"]
    assert settings.allow_origins == ["http://x"]


def test_env_lists_split_on_commas_outside_braces(clean_env: pytest.MonkeyPatch) -> None:
    # ★ a comma inside {…} does not split an env list
    clean_env.setenv("BORIS_DENY_DIRS", "**/*.{pem,key},**/.env, **/secrets/** ")
    clean_env.setenv("BORIS_DISABLE_TOOLS", "bash,grep")
    settings = load_settings([])
    assert settings.deny_dirs == ["**/*.{pem,key}", "**/.env", "**/secrets/**"]
    assert settings.disable_tools == ["bash", "grep"]


def test_allow_dirs_from_env(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    clean_env.setenv("BORIS_ALLOW_DIRS", f"{tmp_path}/src,{tmp_path}/tests")
    settings = load_settings([])
    assert settings.allow_dirs == [
        str(tmp_path.resolve() / "src"),
        str(tmp_path.resolve() / "tests"),
    ]


def test_workdir_is_absolute_and_symlink_resolved(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    clean_env.chdir(tmp_path)
    assert load_settings(["--workdir", "link"]).workdir == str(real.resolve())


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("10MB", 10 * 1024**2),
        ("512kb", 512 * 1024),
        ("1GB", 1024**3),
        ("100B", 100),
        ("4096", 4096),
        ("1.5KB", 1536),
    ],
)
def test_max_file_size_units(clean_env: pytest.MonkeyPatch, text: str, size: int) -> None:
    assert load_settings(["--max-file-size", text]).max_file_size == size


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


@pytest.mark.parametrize(("value", "expected"), [("auto", True), ("true", True), ("false", False)])
def test_require_view_before_edit(
    clean_env: pytest.MonkeyPatch, value: str, expected: bool
) -> None:
    assert load_settings(["--require-view-before-edit", value]).require_view_before_edit is expected
    clean_env.setenv("BORIS_REQUIRE_VIEW_BEFORE_EDIT", value)
    assert load_settings([]).require_view_before_edit is expected


def test_bool_flags(clean_env: pytest.MonkeyPatch) -> None:
    assert load_settings(["--anthropic-compat"]).anthropic_compat is True
    assert load_settings(["--anthropic-compat=false"]).anthropic_compat is False
    clean_env.setenv("BORIS_ANTHROPIC_COMPAT", "1")
    assert load_settings([]).anthropic_compat is True


def test_generate_token_makes_64_hex(clean_env: pytest.MonkeyPatch) -> None:
    settings = load_settings(["--generate-token"])
    assert settings.token is not None
    assert len(settings.token) == 64
    int(settings.token, 16)


def test_timeout_converts_to_ms(clean_env: pytest.MonkeyPatch) -> None:
    assert load_settings(["--timeout=60"]).timeout_ms == 60_000


def test_settings_model_covers_every_env_var() -> None:
    # One BaseSettings for every BORIS_* variable of SPEC §1.
    expected = {
        "port", "host", "transport", "workdir", "timeout", "allow_dirs", "deny_dirs", "token",
        "allow_origins", "session_idle_timeout", "generate_token", "disable_tools",
        "background_task_timeout", "max_file_size", "require_view_before_edit",
        "anthropic_compat", "log_level", "log_format",
    }  # fmt: skip
    assert set(Settings.model_fields) == expected
