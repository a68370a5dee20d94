"""Flags and env vars as the settings read them (README "Configuration").

Start-up validation errors, --version and --help are checked on the real command line in
tests/e2e/test_settings.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boris.settings import Settings, load_settings

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
    # One BaseSettings for every BORIS_* variable of README "Configuration".
    expected = {
        "port", "host", "transport", "workdir", "timeout", "allow_dirs", "deny_dirs", "token",
        "allow_origins", "session_idle_timeout", "generate_token", "disable_tools",
        "background_task_timeout", "max_file_size", "require_view_before_edit",
        "anthropic_compat", "log_level", "log_format",
    }  # fmt: skip
    assert set(Settings.model_fields) == expected
