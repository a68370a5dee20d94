"""Flags and env vars as the settings read them (README "Configuration").

Start-up validation errors, --version and --help are checked here in process, and again on
the real command line in tests/e2e/test_settings.py (one line on stderr, exit code 2, no
traceback).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from boris.settings import Settings, load_settings
from tests.support import VERSION

# --- parsing rules, checked on the settings object --------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in list(os.environ):
        if key.startswith("BORIS_"):
            monkeypatch.delenv(key)
    return monkeypatch


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


@pytest.mark.parametrize(
    ("flags", "disabled"),
    [
        (["--disable-tools", "task_stop"], ["task_stop"]),
        (["--disable-tools", "multi_edit"], ["multi_edit"]),
        (["--anthropic-compat", "--disable-tools", "task_stop"], ["task_stop"]),
        (["--anthropic-compat", "--disable-tools", "multi_edit"], ["multi_edit"]),
    ],
)
def test_disable_tools_knows_the_task_and_multi_edit_tools(
    clean_env: pytest.MonkeyPatch, flags: list[str], disabled: list[str]
) -> None:
    """task_stop and multi_edit are valid --disable-tools names in both modes (multi_edit is
    not served with --anthropic-compat, where naming it changes nothing)."""
    assert load_settings(flags).disable_tools == disabled


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
        # The smallest size there is.
        ("1", 1),
        (" 2 kB ", 2048),
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


@pytest.mark.parametrize(
    "argv",
    [
        ["--host", "0.0.0.0", "--token", "t"],
        ["--host", "0.0.0.0", "--generate-token"],
        ["--host", "0.0.0.0", "--allow-unauthenticated"],
        ["--host", "::", "--transport", "stdio"],  # STDIO binds nothing
        ["--host", "127.8.9.10"],
        ["--host", "[::1]"],
        ["--host", "LOCALHOST"],
    ],
)
def test_a_host_beyond_loopback_needs_a_token_or_a_decision(
    clean_env: pytest.MonkeyPatch, argv: list[str]
) -> None:
    assert load_settings(argv).host == argv[1]
    clean_env.setenv("BORIS_ALLOW_UNAUTHENTICATED", "1")
    assert load_settings(["--host", "203.0.113.1"]).allow_unauthenticated is True


def test_timeout_converts_to_ms(clean_env: pytest.MonkeyPatch) -> None:
    assert load_settings(["--timeout=60"]).timeout_ms == 60_000


# --- every setting: its flag, its env var, its default ------------------------------------


@dataclass(frozen=True)
class Setting:
    """One setting as a user meets it. ``{tmp}`` in a value stands for the test's directory,
    which is also the current directory (the default workdir)."""

    field: str
    flag: str
    env: str
    default: object  # the value with neither the flag nor the env var given
    shown: str  # the default as --help shows it
    flag_value: str
    flag_parsed: object
    env_value: str
    env_parsed: object


SETTINGS = [
    Setting("port", "--port", "BORIS_PORT", 8080, "8080", "9001", 9001, "9002", 9002),
    # Loopback by default; other addresses need a token (see the start-up errors).
    Setting(
        "host", "--host", "BORIS_HOST", "127.0.0.1", "127.0.0.1", "::1", "::1",
        "localhost", "localhost",
    ),
    Setting(
        "transport", "--transport", "BORIS_TRANSPORT", "http", "http", "HTTP", "http",
        " Stdio ", "stdio",
    ),
    # A symlinked directory is resolved.
    Setting(
        "workdir", "--workdir", "BORIS_WORKDIR", "{tmp}", ".", "{tmp}/a", "{tmp}/a",
        "link-to-b", "{tmp}/b",
    ),
    Setting("timeout", "--timeout", "BORIS_TIMEOUT", 120, "120", "60", 60, "30", 30),
    # A flag's value is one directory, commas and all; an env list splits on commas.
    Setting(
        "allow_dirs", "--allow-dir", "BORIS_ALLOW_DIRS", [], "none", "a,b", ["{tmp}/a,b"],
        "{tmp}/a,b", ["{tmp}/a", "{tmp}/b"],
    ),
    # Commas inside braces do not split; a trailing "/" is dropped.
    Setting(
        "deny_dirs", "--deny-dir", "BORIS_DENY_DIRS", [], "none", "**/*.{pem,key}",
        ["**/*.{pem,key}"], "**/.env/,**/*.{a,b}", ["**/.env", "**/*.{a,b}"],
    ),
    Setting(
        "token", "--token", "BORIS_TOKEN", None, "none", "flag-secret", "flag-secret",
        "env-secret", "env-secret",
    ),
    Setting(
        "allow_origins", "--allow-origin", "BORIS_ALLOW_ORIGINS", [], "none",
        "http://a.example:3000", ["http://a.example:3000"],
        "http://b.example,https://c.example", ["http://b.example", "https://c.example"],
    ),
    Setting(
        "session_idle_timeout", "--session-idle-timeout", "BORIS_SESSION_IDLE_TIMEOUT", 600.0,
        "600", "1.5", 1.5, "30", 30.0,
    ),
    Setting(
        "generate_token", "--generate-token", "BORIS_GENERATE_TOKEN", False, "false", "false",
        False, "true", True,
    ),
    Setting(
        "allow_unauthenticated", "--allow-unauthenticated", "BORIS_ALLOW_UNAUTHENTICATED",
        False, "false", "false", False, "true", True,
    ),
    Setting(
        "disable_tools", "--disable-tools", "BORIS_DISABLE_TOOLS", [], "none", "grep", ["grep"],
        "bash,glob", ["bash", "glob"],
    ),
    Setting(
        "background_task_timeout", "--background-task-timeout",
        "BORIS_BACKGROUND_TASK_TIMEOUT", 0, "0", "30", 30, "5", 5,
    ),
    Setting(
        "max_file_size", "--max-file-size", "BORIS_MAX_FILE_SIZE", 10 * 1024 * 1024, "10MB",
        "1.5KB", 1536, "2mb", 2 * 1024 * 1024,
    ),
    # auto means true.
    Setting(
        "require_view_before_edit", "--require-view-before-edit",
        "BORIS_REQUIRE_VIEW_BEFORE_EDIT", True, "auto", "auto", True, "false", False,
    ),
    Setting(
        "anthropic_compat", "--anthropic-compat", "BORIS_ANTHROPIC_COMPAT", False, "false",
        "false", False, "1", True,
    ),
    Setting(
        "log_level", "--log-level", "BORIS_LOG_LEVEL", "info", "info", "debug", "debug",
        "WARN", "warn",
    ),
    Setting(
        "log_format", "--log-format", "BORIS_LOG_FORMAT", "text", "text", "text", "text",
        "JSON", "json",
    ),
]  # fmt: skip


def filled(value: object, tmp: Path) -> object:
    if isinstance(value, str):
        return value.replace("{tmp}", str(tmp))
    if isinstance(value, list):
        return [filled(item, tmp) for item in value]
    return value


def typed(value: object) -> tuple[type, object]:
    """A value with its type, so that 1 is not taken for True, nor 600 for 600.0."""
    return type(value), value


def test_the_table_has_a_row_for_every_setting() -> None:
    assert sorted(row.field for row in SETTINGS) == sorted(Settings.model_fields)
    assert len({row.flag for row in SETTINGS}) == len({row.env for row in SETTINGS}) == 19
    for row in SETTINGS:
        # Otherwise the rows below could not tell where a value came from.
        assert row.env_parsed != row.default, row.field
        assert row.flag_parsed != row.env_parsed, row.field


@pytest.mark.parametrize("row", SETTINGS, ids=[row.field for row in SETTINGS])
def test_every_setting_by_flag_and_env_var(
    row: Setting, clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each setting has its default, is read from its flag and from its env var, and the
    flag beats the env var."""
    tmp = tmp_path.resolve()
    for name in ("a", "b", "a,b"):
        (tmp / name).mkdir()
    (tmp / "link-to-b").symlink_to(tmp / "b")
    clean_env.chdir(tmp)

    def parsed(argv: list[str]) -> tuple[type, object]:
        return typed(getattr(load_settings(argv), row.field))

    flag = [row.flag, str(filled(row.flag_value, tmp))]
    assert parsed([]) == typed(filled(row.default, tmp))
    assert parsed(flag) == typed(filled(row.flag_parsed, tmp))
    clean_env.setenv(row.env, str(filled(row.env_value, tmp)))
    assert parsed([]) == typed(filled(row.env_parsed, tmp))
    assert parsed(flag) == typed(filled(row.flag_parsed, tmp))


# --- start-up errors, --version, --help ----------------------------------------------------

#: (command line, environment, the message after "boris: error: ") of each start-up error.
STARTUP_ERRORS: list[tuple[list[str], dict[str, str] | None, str]] = [
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
        ["--host", "0.0.0.0"],
        None,
        "--host 0.0.0.0 is reachable from other machines and no token is set: anyone who can "
        "reach it could run commands; set --token or --generate-token, or pass "
        "--allow-unauthenticated to accept that",
    ),
    (
        ["--allow-unauthenticated=false"],
        {"BORIS_HOST": "192.0.2.7"},
        "--host 192.0.2.7 is reachable from other machines and no token is set: anyone who can "
        "reach it could run commands; set --token or --generate-token, or pass "
        "--allow-unauthenticated to accept that",
    ),
    (
        ["--host", "boris.example", "--transport", "http"],
        None,
        "--host boris.example is reachable from other machines and no token is set: anyone "
        "who can reach it could run commands; set --token or --generate-token, or pass "
        "--allow-unauthenticated to accept that",
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
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern '**/[abc': unclosed '[' at position 3",
    ),
    (
        ["--deny-dir", "secret/../.."],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern 'secret/../..': its '..' climbs "
        "above its start; write the pattern from the working directory (./ or ../) or as an "
        "absolute path instead",
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
]


@pytest.mark.parametrize(("args", "env", "message"), STARTUP_ERRORS)
def test_startup_error(
    args: list[str],
    env: dict[str, str] | None,
    message: str,
    clean_env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An invalid setting is one line on stderr and exit code 2, nothing on stdout."""
    for name, value in (env or {}).items():
        clean_env.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        load_settings(args)
    assert exited.value.code == 2
    assert capsys.readouterr() == ("", f"boris: error: {message}\n")


def test_workdir_that_is_a_file(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(SystemExit) as exited:
        load_settings(["--workdir", str(file)])
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        f"boris: error: --workdir (BORIS_WORKDIR): directory {file} is not a directory\n"
    )


def test_several_errors_are_joined_on_one_line(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every invalid setting is named, in field order, separated by "; "."""
    with pytest.raises(SystemExit):
        load_settings(["--port", "x", "--log-format", "xml"])
    assert capsys.readouterr().err == (
        "boris: error: --port (BORIS_PORT): Input should be a valid integer, unable to parse "
        "string as an integer; --log-format (BORIS_LOG_FORMAT): Input should be 'text' or "
        "'json'\n"
    )


@pytest.mark.parametrize("flag", ["--version", "-v"])
def test_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        load_settings([flag])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"boris {VERSION}\n"


def test_flags_are_not_abbreviated(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        load_settings(["--work", "."])
    assert capsys.readouterr().err == "boris: error: unrecognized arguments: --work .\n"


#: --help, whitespace collapsed (argparse wraps lines to the terminal's width).
HELP = (
    "usage: boris [-h] [--version] [--transport {stdio,http}] [--workdir DIR] [--host HOST] "
    "[--port PORT] [--token TOKEN] [--generate-token [{true,false}]] "
    "[--allow-unauthenticated [{true,false}]] [--allow-origin ORIGIN] "
    "[--session-idle-timeout SECONDS] [--timeout SECONDS] [--background-task-timeout SECONDS] "
    "[--allow-dir DIR] [--deny-dir PATTERN] [--max-file-size SIZE] "
    "[--require-view-before-edit {auto,true,false}] [--disable-tools TOOL] "
    "[--anthropic-compat [{true,false}]] [--log-level {debug,info,warn,error}] "
    "[--log-format {text,json}] "
    "An MCP server that gives any AI agent the tools of a coding agent. "
    "options: -h, --help show this help message and exit "
    "--version, -v show program's version number and exit "
    "server: --transport {stdio,http} stdio: one client on stdin/stdout; http: streamable HTTP "
    "at /mcp [env BORIS_TRANSPORT; default http] "
    "--workdir DIR initial working directory [env BORIS_WORKDIR; default .] "
    "HTTP: --host HOST HTTP bind address; beyond loopback it needs a token "
    "[env BORIS_HOST; default 127.0.0.1] "
    "--port PORT HTTP listen port [env BORIS_PORT; default 8080] "
    "--token TOKEN bearer token required on /mcp [env BORIS_TOKEN; default none] "
    "--generate-token [{true,false}] generate a random token and print it to stderr "
    "[env BORIS_GENERATE_TOKEN; default false] "
    "--allow-unauthenticated [{true,false}] serve a non-loopback --host without a token, "
    "knowingly [env BORIS_ALLOW_UNAUTHENTICATED; default false] "
    "--allow-origin ORIGIN extra browser origins allowed without a token (repeatable) "
    "[env BORIS_ALLOW_ORIGINS; default none] "
    "--session-idle-timeout SECONDS seconds an idle HTTP session is kept "
    "[env BORIS_SESSION_IDLE_TIMEOUT; default 600] "
    "tools: --timeout SECONDS default bash timeout in seconds (the tool takes ms) "
    "[env BORIS_TIMEOUT; default 120] "
    "--background-task-timeout SECONDS seconds before a background task is killed; 0 = never "
    "[env BORIS_BACKGROUND_TASK_TIMEOUT; default 0] "
    "--allow-dir DIR directories the file tools may touch (repeatable) "
    "[env BORIS_ALLOW_DIRS; default none] "
    "--deny-dir PATTERN glob patterns the file tools may not touch (repeatable) "
    "[env BORIS_DENY_DIRS; default none] "
    "--max-file-size SIZE largest file the file tools read or write (B, KB, MB, GB) "
    "[env BORIS_MAX_FILE_SIZE; default 10MB] "
    "--require-view-before-edit {auto,true,false} refuse edits of files not viewed first "
    "(auto: true) [env BORIS_REQUIRE_VIEW_BEFORE_EDIT; default auto] "
    "--disable-tools TOOL tool names not to serve (repeatable) "
    "[env BORIS_DISABLE_TOOLS; default none] "
    "--anthropic-compat [{true,false}] serve one str_replace_editor instead of the file tools "
    "[env BORIS_ANTHROPIC_COMPAT; default false] "
    "logging: --log-level {debug,info,warn,error} the least severe messages logged "
    "[env BORIS_LOG_LEVEL; default info] "
    "--log-format {text,json} json: one object per line; always on stderr "
    "[env BORIS_LOG_FORMAT; default text] "
    "A flag beats its env var. A repeatable flag takes one value per occurrence; its env var "
    "is a comma-separated list (commas inside {...} do not split)."
)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    """--help groups the flags by concern, each with its value's name, its env var and
    its default as one types it."""
    with pytest.raises(SystemExit) as exited:
        load_settings(["--help"])
    assert exited.value.code == 0
    assert " ".join(capsys.readouterr().out.split()) == HELP
