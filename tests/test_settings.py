"""Flags and env vars as the settings read them (README "Configuration").

Start-up validation errors, --version and --help are checked here in process, and again on
the real command line in tests/e2e/test_settings.py (one line on stderr, exit code 2, no
traceback).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boris.setting_values import token_file_warning
from boris.settings import Settings, host_and_port, load_settings
from tests.support import VERSION
from tests.support.settings_table import SETTINGS, STARTUP_ERRORS, Setting

# --- parsing rules, checked on the settings object --------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in list(os.environ):
        if key.startswith("BORIS_"):
            monkeypatch.delenv(key)
    return monkeypatch


def test_repeatable_flags_are_never_split(clean_env: pytest.MonkeyPatch) -> None:
    """A comma inside braces or a class, or escaped, is part of a flag's one pattern
    (outside them it is refused: tests/support/settings_table.py)."""
    flags = ["--deny-dir", "**/*.{pem,key}", "--deny-dir", "a\\,b", "[,]c", "--deny-dir", "d e"]
    settings = load_settings([*flags, "--allow-origin", "http://x"])
    assert settings.deny_dirs == ["**/*.{pem,key}", "a\\,b", "[,]c", "d e"]
    assert settings.allow_origins == ["http://x"]


def test_repeatable_flags_take_several_values_per_occurrence(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--allow-dir a b`` is ``--allow-dir a --allow-dir b``: a client that expands a list
    into arguments after one flag (an MCP bundle's ``multiple`` setting) gets them all."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    flags = ["--allow-dir", *dirs, "--deny-dir", "x", "--deny-dir", "y", "z"]
    flags += ["--disable-tools", "grep", "glob", "--transport", "stdio"]
    settings = load_settings(flags)
    assert settings.allow_dirs == dirs
    assert settings.deny_dirs == ["x", "y", "z"]
    assert settings.disable_tools == ["grep", "glob"]
    assert settings.transport == "stdio"


def test_a_repeatable_flag_without_values_adds_nothing(clean_env: pytest.MonkeyPatch) -> None:
    """An empty list expanded after the flag: nothing is added, and the env var (which the
    flag would otherwise beat) stays in force."""
    assert load_settings(["--allow-dir", "--deny-dir"]).allow_dirs == []
    clean_env.setenv("BORIS_DENY_DIRS", "**/.env")
    settings = load_settings(["--deny-dir", "--allow-dir", "--transport", "stdio"])
    assert (settings.deny_dirs, settings.allow_dirs) == (["**/.env"], [])
    assert settings.transport == "stdio"


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
        (["--disable-tools", "apply_patch"], ["apply_patch"]),
        (["--anthropic-compat", "--disable-tools", "apply_patch"], ["apply_patch"]),
        (["--disable-tools", "notebook_edit"], ["notebook_edit"]),
        (["--anthropic-compat", "--disable-tools", "notebook_edit"], ["notebook_edit"]),
        (["--disable-tools", "symbols"], ["symbols"]),
        (["--anthropic-compat", "--disable-tools", "symbols"], ["symbols"]),
    ],
)
def test_disable_tools_knows_the_task_and_multi_edit_tools(
    clean_env: pytest.MonkeyPatch, flags: list[str], disabled: list[str]
) -> None:
    """task_stop, multi_edit, apply_patch, notebook_edit and symbols are valid --disable-tools
    names in both modes (multi_edit is not served with --anthropic-compat, where naming it changes
    nothing)."""
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
    assert len({row.flag for row in SETTINGS}) == len({row.env for row in SETTINGS}) == 24
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
    for name in ("flag", "env"):
        (tmp / f"{name}.token").write_text(f"{name}-secret\n")
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
    "[--port PORT] [--token TOKEN] [--token-file FILE] [--generate-token [{true,false}]] "
    "[--allow-unauthenticated [{true,false}]] [--allow-origin [ORIGIN ...]] "
    "[--allow-host [HOST ...]] "
    "[--session-idle-timeout SECONDS] [--max-sessions COUNT] "
    "[--max-concurrent-calls COUNT] [--timeout SECONDS] "
    "[--background-task-timeout SECONDS] "
    "[--allow-dir [DIR ...]] [--deny-dir [PATTERN ...]] [--max-file-size SIZE] "
    "[--require-view-before-edit {auto,true,false}] [--disable-tools [TOOL ...]] "
    "[--anthropic-compat [{true,false}]] [--check-syntax {warn,refuse,off}] "
    "[--log-level {debug,info,warn,error}] "
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
    "--token-file FILE read the bearer token from this file's first line (not shown by ps) "
    "[env BORIS_TOKEN_FILE; default none] "
    "--generate-token [{true,false}] generate a random token and print it to stderr "
    "[env BORIS_GENERATE_TOKEN; default false] "
    "--allow-unauthenticated [{true,false}] serve a non-loopback --host without a token, "
    "knowingly [env BORIS_ALLOW_UNAUTHENTICATED; default false] "
    "--allow-origin [ORIGIN ...] extra browser origins allowed without a token (repeatable) "
    "[env BORIS_ALLOW_ORIGINS; default none] "
    "--allow-host [HOST ...] extra Host names /mcp answers without a token (repeatable) "
    "[env BORIS_ALLOW_HOSTS; default none] "
    "--session-idle-timeout SECONDS seconds an idle HTTP session is kept "
    "[env BORIS_SESSION_IDLE_TIMEOUT; default 600] "
    "--max-sessions COUNT open HTTP sessions at most; initialize beyond: 503 "
    "[env BORIS_MAX_SESSIONS; default 256] "
    "--max-concurrent-calls COUNT HTTP requests of the 2026-07-28 revision served at once; "
    "beyond: 503 [env BORIS_MAX_CONCURRENT_CALLS; default 64] "
    "tools: --timeout SECONDS default bash timeout in seconds (the tool takes ms) "
    "[env BORIS_TIMEOUT; default 120] "
    "--background-task-timeout SECONDS seconds before a background task is killed; 0 = never "
    "[env BORIS_BACKGROUND_TASK_TIMEOUT; default 0] "
    "--allow-dir [DIR ...] directories the file tools may touch (repeatable) "
    "[env BORIS_ALLOW_DIRS; default none] "
    "--deny-dir [PATTERN ...] glob patterns the file tools may not touch (repeatable) "
    "[env BORIS_DENY_DIRS; default none] "
    "--max-file-size SIZE largest file the file tools read or write (B, KB, MB, GB) "
    "[env BORIS_MAX_FILE_SIZE; default 10MB] "
    "--require-view-before-edit {auto,true,false} refuse edits of files not viewed first "
    "(auto: true) [env BORIS_REQUIRE_VIEW_BEFORE_EDIT; default auto] "
    "--disable-tools [TOOL ...] tool names not to serve (repeatable) "
    "[env BORIS_DISABLE_TOOLS; default none] "
    "--anthropic-compat [{true,false}] serve one str_replace_editor instead of the file tools "
    "[env BORIS_ANTHROPIC_COMPAT; default false] "
    "--check-syntax {warn,refuse,off} after each edit, report the syntax errors it brought "
    "in, or refuse it [env BORIS_CHECK_SYNTAX; default warn] "
    "logging: --log-level {debug,info,warn,error} the least severe messages logged "
    "[env BORIS_LOG_LEVEL; default info] "
    "--log-format {text,json} json: one object per line; always on stderr "
    "[env BORIS_LOG_FORMAT; default text] "
    "A flag beats its env var. A repeatable flag takes one or more values per occurrence; its "
    "env var is a comma-separated list (commas inside {...} do not split)."
)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    """--help groups the flags by concern, each with its value's name, its env var and
    its default as one types it."""
    with pytest.raises(SystemExit) as exited:
        load_settings(["--help"])
    assert exited.value.code == 0
    assert " ".join(capsys.readouterr().out.split()) == HELP


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Boris.Example:8080", ("boris.example", 8080)),
        ("boris.example.", ("boris.example", None)),  # the root's dot
        (" 127.0.0.1 ", ("127.0.0.1", None)),
        ("[fd00::1]:8080", ("fd00::1", 8080)),
        ("::1", ("::1", None)),  # an IPv6 address alone, as --host takes it
        ("fd00::1:8080", ("fd00::1:8080", None)),  # alone, its last group is no port
        ("boris.example/x", None),
        ("boris.example?x", None),
        ("boris.example#x", None),
        ("me@boris.example", None),
        ("boris.example:port", None),
        ("[fd00::1", None),
        ("fd00::zz", None),
        ("boris..example", None),
        ("", None),
    ],
)
def test_a_host_is_a_name_or_an_address_and_a_port(
    value: str, expected: tuple[str, int | None] | None
) -> None:
    """As a Host header, an --allow-host value or a --host carries it: a name (lower
    case, without the root's dot) or an address (IPv6 without its brackets), and the
    port if one is given; None for anything else."""
    assert host_and_port(value) == expected


def test_a_token_file_not_in_utf8(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "latin1.token"
    path.write_bytes(b"caf\xe9\n")
    with pytest.raises(SystemExit) as exited:
        load_settings(["--token-file", str(path)])
    assert exited.value.code == 2
    assert capsys.readouterr() == ("", f"boris: error: --token-file {path} is not UTF-8 text\n")


@pytest.mark.parametrize(
    ("content", "token"),
    [
        ("  " + "t" * 1024 + "\t\r\nnot the token\n", "t" * 1024),
        ("é" * 1024, "é" * 1024),  # characters, not bytes
        ("x" * 1024 + "\n" + "y" * 100_000, "x" * 1024),  # only the first line counts
        (" " * 30_000 + "token" + " " * 30_000, "token"),
    ],
    ids=["1024 characters", "1024 two-byte characters", "a long second line", "spaces"],
)
def test_a_token_file_holds_a_token_of_up_to_1024_characters(
    clean_env: pytest.MonkeyPatch, tmp_path: Path, content: str, token: str
) -> None:
    path = tmp_path / "token"
    path.write_text(content)
    assert load_settings(["--token-file", str(path)]).token == token


_LONG = "holds more than 1024 characters on its first line: a token is at most 1024"
_CONTROL = "holds a control character ({}) in its token: a token is printable text on one line"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("t" * 1025 + "\n", _LONG),
        ("t" * 5000, _LONG),  # once cut to its first 4,096 characters, and taken
        ("t" * 100_000 + "\n", _LONG),
        ("é" * 1025, _LONG),
        ("abc\x00def\n", _CONTROL.format("U+0000")),  # once taken whole
        ("abc\tdef\n", _CONTROL.format("U+0009")),
        ("\x1b[31mred\n", _CONTROL.format("U+001B")),
        ("abc\x7f", _CONTROL.format("U+007F")),
        ("abc\x85def", _CONTROL.format("U+0085")),
    ],
    ids=["1025", "5000", "100000", "1025 two-byte", "NUL", "tab", "escape", "DEL", "C1"],
)
def test_a_token_file_whose_token_is_too_long_or_not_printable_refuses_to_start(
    clean_env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: str,
    problem: str,
) -> None:
    """In one line, which never shows the token."""
    path = tmp_path / "token"
    path.write_text(content)
    with pytest.raises(SystemExit) as exited:
        load_settings(["--token-file", str(path)])
    assert exited.value.code == 2
    assert capsys.readouterr() == ("", f"boris: error: --token-file {path} {problem}\n")


@pytest.mark.parametrize(
    ("mode", "warning"),
    [
        (0o600, None),
        (0o400, None),
        (0o640, "its group"),
        (0o604, "others"),
        (0o644, "its group and others"),
        (0o444, "its group and others"),
    ],
)
def test_a_token_file_others_can_read_is_warned_of(
    tmp_path: Path, mode: int, warning: str | None
) -> None:
    path = tmp_path / "token"
    path.write_text("token\n")
    path.chmod(mode)
    expected = None
    if warning is not None:
        expected = (
            f"--token-file {path} can be read by {warning} (mode {mode:04o}): make it "
            f"readable by its owner alone (chmod 600 {path})"
        )
    assert token_file_warning(str(path)) == expected


def test_a_token_file_that_is_not_a_regular_file_is_not_warned_of(tmp_path: Path) -> None:
    """A pipe (``--token-file <(printf %s "$TOKEN")``, as the README suggests) keeps
    nothing to read once read, whatever its mode."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fifo.chmod(0o644)
    assert token_file_warning(str(fifo)) is None


def test_a_relative_deny_pattern_is_made_absolute_from_the_workdir(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    flags = ["--workdir", str(tmp_path), "--deny-dir", "./secrets/", "--deny-dir", "*.pem"]
    assert load_settings(flags).deny_dirs == [f"{tmp_path.resolve()}/secrets", "*.pem"]
