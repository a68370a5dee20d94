"""Every setting as a user meets it, and every start-up error: the tables both the
in-process settings tests (tests/test_settings.py) and the real command line
(tests/e2e/test_settings.py) run."""

from __future__ import annotations

from dataclasses import dataclass


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
    # The token is the file's first line; the setting is where the file is.
    Setting(
        "token_file", "--token-file", "BORIS_TOKEN_FILE", None, "none", "{tmp}/flag.token",
        "{tmp}/flag.token", "{tmp}/env.token", "{tmp}/env.token",
    ),
    Setting(
        "allow_hosts", "--allow-host", "BORIS_ALLOW_HOSTS", [], "none", "a.example",
        ["a.example"], "boris.example:8080,c.example", ["boris.example:8080", "c.example"],
    ),
    Setting(
        "max_sessions", "--max-sessions", "BORIS_MAX_SESSIONS", 256, "256", "8", 8, "1", 1,
    ),
    Setting(
        "max_concurrent_calls", "--max-concurrent-calls", "BORIS_MAX_CONCURRENT_CALLS", 64,
        "64", "8", 8, "1", 1,
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
        "check_syntax", "--check-syntax", "BORIS_CHECK_SYNTAX", "warn", "warn", "refuse",
        "refuse", "OFF", "off",
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


#: (command line, environment, the message after "boris: error: ") of each start-up error.
STARTUP_ERRORS: list[tuple[list[str], dict[str, str] | None, str]] = [
    (
        ["--check-syntax=strict"],
        None,
        "--check-syntax (BORIS_CHECK_SYNTAX): Input should be 'warn', 'refuse' or 'off'",
    ),
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
        ["--token-file", "/dev/null", "--token", "abc"],
        None,
        "--token-file and --token are mutually exclusive; use one",
    ),
    (
        ["--generate-token"],
        {"BORIS_TOKEN_FILE": "/dev/null"},
        "--token-file and --generate-token are mutually exclusive; use one",
    ),
    (
        ["--token-file", "/dev/null"],
        None,
        "--token-file /dev/null is empty: its first line must hold the token",
    ),
    (
        ["--transport", "stdio", "--token-file", "/nonexistent/boris.token"],
        None,
        "cannot read --token-file /nonexistent/boris.token: No such file or directory",
    ),
    (
        ["--allow-host", "boris.example/mcp"],
        None,
        "--allow-host (BORIS_ALLOW_HOSTS): invalid host 'boris.example/mcp': give a name or an "
        "address, with or without a port (boris.example, boris.example:8080, [fd00::1]:8080)",
    ),
    (
        ["--max-sessions", "0"],
        None,
        "--max-sessions (BORIS_MAX_SESSIONS): Input should be greater than or equal to 1",
    ),
    (
        ["--max-concurrent-calls", "0"],
        None,
        "--max-concurrent-calls (BORIS_MAX_CONCURRENT_CALLS): Input should be greater than or "
        "equal to 1",
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
        "mode: bash, task_output, task_stop, view, str_replace, multi_edit, apply_patch, "
        "create_file, notebook_edit, grep, glob, symbols",
    ),
    (
        ["--disable-tools", "str_replace_editor"],
        None,
        "unknown tool name 'str_replace_editor' in --disable-tools; valid names in the "
        "default mode: bash, task_output, task_stop, view, str_replace, multi_edit, "
        "apply_patch, create_file, notebook_edit, grep, glob, symbols",
    ),
    (
        ["--anthropic-compat", "--disable-tools", "nope"],
        None,
        "unknown tool name 'nope' in --disable-tools; valid names with --anthropic-compat: "
        "bash, task_output, task_stop, str_replace_editor, apply_patch, notebook_edit, grep, "
        "glob, symbols, view, str_replace, create_file, multi_edit",
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
        # The position is in the pattern as given, not as made absolute.
        ["--deny-dir", "./keys/[abc"],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern './keys/[abc': unclosed '[' at "
        "position 7",
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
    # A flag's value is one pattern: a comma outside braces, or whitespace at either
    # end, would be part of it, and the pattern would name nothing (failing open).
    (
        ["--deny-dir", "**/.env,**/*.pem"],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern '**/.env,**/*.pem': a flag's "
        "value is one pattern, and a comma outside braces is part of it; give each pattern "
        "its own flag (--deny-dir '**/.env' --deny-dir '**/*.pem'), or alternatives in "
        "braces (**/*.{pem,key}); a comma in a name is written \\,",
    ),
    (
        ["--transport", "stdio", "--deny-dir", "**/.env, secrets/"],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern '**/.env, secrets/': a flag's "
        "value is one pattern, and a comma outside braces is part of it; give each pattern "
        "its own flag (--deny-dir '**/.env' --deny-dir secrets/), or alternatives in braces "
        "(**/*.{pem,key}); a comma in a name is written \\,",
    ),
    (
        ["--deny-dir", " **/.env"],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern ' **/.env': it begins with "
        "whitespace, which would be part of the pattern; write it without: '**/.env'",
    ),
    (
        ["--transport", "stdio", "--deny-dir=*.pem\t"],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern '*.pem\\t': it ends with "
        "whitespace, which would be part of the pattern; write it without: '*.pem'",
    ),
    (
        ["--deny-dir", " "],
        None,
        "--deny-dir (BORIS_DENY_DIRS): invalid deny pattern ' ': it is only whitespace",
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
