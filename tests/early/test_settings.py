"""The settings read before pydantic has loaded (boris.early.settings) are the full
settings' (boris.settings): on generated command lines and environments, whenever the
early reading gives values, the full settings load without error and hold the same
ones. It gives none for whatever it does not read (HTTP, other settings, the forms of a
value whose meaning pydantic decides: ``+5``, ``yes``, ``DEBUG``, a token file that
holds no token)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from boris.early import answers
from boris.early.settings import EarlySettings, read_settings
from boris.settings import load_settings
from tests.support.inprocess import environment

DECLARED = answers.load().settings
FLAGS = {name: field["flags"][0] for name, field in DECLARED["fields"].items()}

#: Texts for each setting: first the plain ones, then forms only pydantic knows the
#: meaning of, and mistakes.
COUNTS = (["5", "012", "0", "120"], ["+5", " 5", "5.0", "1_000", "-1", "x", "", "٣"])
VALUES: dict[str, tuple[list[str], list[str]]] = {
    "transport": (["stdio"], ["STDIO", " stdio", "http"]),
    "workdir": (
        ["{root}", "{root}/sub", ".", "sub", "{root}/sub/.."],
        ["{root}/missing", "{root}/file"],
    ),
    "timeout": COUNTS,
    "background_task_timeout": COUNTS,
    "max_file_size": (["1KB", "10 mb", "1.5MB", "100", "5GB"], ["0", "x", "1e3"]),
    "require_view_before_edit": (["auto", "true", "false", "TRUE", " false"], ["maybe"]),
    "anthropic_compat": (["true", "false"], ["True", "1", "yes", "off", "x"]),
    "disable_tools": (
        ["bash", "view", "task_stop", "multi_edit", "grep", "symbols"],
        ["str_replace_editor", "nope"],
    ),
    "log_level": (["debug", "info", "warn", "error"], ["DEBUG", "warning"]),
    "log_format": (["text", "json"], ["JSON", "xml"]),
    "allow_dirs": (["{root}/sub", ".", "sub"], ["missing", "{root}/file"]),
    "deny_dirs": (
        ["**/.env", "**/*.{pem,key}", "./x/", "../x", "/abs/**", "a\\,b"],
        ["a/../..", "[", "", "**/.env,**/*.pem", " **/.env", "x ", " "],
    ),
    "port": ([], ["8080", "x"]),
    "host": ([], ["127.0.0.1", "0.0.0.0"]),
    "token": ([], ["secret", ""]),
    "allow_origins": ([], ["http://a"]),
    "session_idle_timeout": ([], ["5"]),
    "generate_token": ([], ["true"]),
    "allow_unauthenticated": ([], ["false"]),
    "token_file": (["{root}/token"], ["{root}/file", "{root}/missing", "{root}"]),
    "allow_hosts": ([], ["boris.example", "a b"]),
    "max_sessions": ([], ["5", "0"]),
}


@st.composite
def texts(draw: st.DrawFn, name: str) -> str:
    """A text for setting ``name``, plain four times in five where it has plain ones."""
    plain, other = VALUES[name]
    if plain and (not other or draw(st.integers(0, 4)) > 0):
        return draw(st.sampled_from(plain))
    return draw(st.sampled_from(other))


LISTS = {"disable_tools", "allow_dirs", "deny_dirs", "allow_origins", "allow_hosts"}


#: A setting this file names no text for (one added since) is tried as given, and unread.
for _name in DECLARED["fields"]:
    VALUES.setdefault(_name, ([], ["1"]))


@st.composite
def configurations(draw: st.DrawFn) -> tuple[list[str], dict[str, str]]:
    """A command line and a BORIS_* environment, mostly over STDIO."""
    argv: list[str] = []
    env: dict[str, str] = {}
    read = [name for name in sorted(VALUES) if VALUES[name][0]]
    unread = [name for name in sorted(VALUES) if not VALUES[name][0]]
    names = draw(st.lists(st.sampled_from(read * 4 + unread), max_size=4))
    if draw(st.integers(0, 9)) > 0:
        names.insert(0, "transport")
    for name in names:
        if name in LISTS:
            values = draw(st.lists(texts(name), min_size=1, max_size=3))
        else:
            values = [draw(texts(name))]
        how = draw(st.sampled_from(["flag", "flag=", "env", "env lower", "both"]))
        if how in ("env", "env lower", "both"):
            variable = "BORIS_" + name.upper() if how != "env lower" else "boris_" + name
            env[variable] = ",".join(values)
        if how in ("flag", "flag=", "both"):
            if name in LISTS and how != "flag=" and draw(st.booleans()):
                # Several values in one occurrence, or none (which adds nothing).
                argv += [FLAGS[name], *draw(st.sampled_from([values, []]))]
                continue
            for value in values:
                argv += [f"{FLAGS[name]}={value}"] if how == "flag=" else [FLAGS[name], value]
    if draw(st.integers(0, 19)) == 0:
        argv.append(
            draw(st.sampled_from(["--help", "-v", "--bogus", "stray", "--anthropic-compat"]))
        )
    return argv, env


def full_settings(argv: list[str], env: dict[str, str]) -> object | None:
    with environment(env):
        try:
            return load_settings(argv)
        except SystemExit:
            return None


def rooted(texts: list[str], root: Path) -> list[str]:
    return [text.replace("{root}", str(root)) for text in texts]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("early-settings")
    (path / "sub").mkdir()
    (path / "file").write_text("")
    (path / "token").write_text("  a-token\nnot it\n")
    return path


@given(configuration=configurations())
def test_what_is_read_early_is_what_the_settings_hold(
    root: Path, configuration: tuple[list[str], dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)
    argv = rooted(configuration[0], root)
    env = dict(zip(configuration[1], rooted(list(configuration[1].values()), root), strict=True))
    early = read_settings(argv, env, DECLARED)
    event("read early" if early is not None else "left to the full settings")
    if early is None:
        return
    full = full_settings(argv, env)
    assert full is not None, (argv, env)
    for name in (*EarlySettings._fields, "timeout_ms"):
        assert getattr(early, name) == getattr(full, name), name


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--workdir", "{root}"],
        ["--anthropic-compat", "--disable-tools", "view", "--disable-tools", "task_stop"],
        ["--timeout=7", "--max-file-size", "2MB", "--require-view-before-edit", "false"],
        ["--allow-dir", "sub", "--deny-dir", "**/*.{pem,key}", "--log-level", "debug"],
        ["--log-format", "json", "--background-task-timeout", "60"],
        ["--disable-tools", "symbols", "grep", "--allow-dir", "sub", "{root}", "--deny-dir"],
        ["--anthropic-compat", "--disable-tools", "--disable-tools", "symbols", "view"],
        ["--token-file", "{root}/token"],
    ],
)
def test_what_stdio_configurations_say_is_read(
    root: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)
    argv = ["--transport", "stdio", *rooted(argv, root)]
    early = read_settings(argv, {}, DECLARED)
    assert early is not None
    full = full_settings(argv, {})
    assert full is not None
    assert early._asdict() == {name: getattr(full, name) for name in EarlySettings._fields}


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        ([], {}),  # HTTP, the default
        (["--transport", "http"], {}),
        (["--transport", "stdio", "--port", "9"], {}),
        (["--transport", "stdio"], {"BORIS_TOKEN": "x"}),
        (["--transport", "stdio"], {"BORIS_BOGUS": "x"}),
        (["--transport", "stdio"], {"BORIS_TIMEOUT": "5", "boris_timeout": "6"}),
        (["--transport", "stdio", "--help"], {}),
        (["--transport", "stdio", "--version"], {}),
        (["--transport", "stdio", "--timeout", "+5"], {}),
        (["--transport", "stdio", "--anthropic-compat", "yes"], {}),
        (["--transport", "stdio", "--log-level", "DEBUG"], {}),
        (["--transport", "stdio", "--workdir", "/nonexistent/x"], {}),
        (["--transport", "stdio", "--disable-tools", "str_replace_editor"], {}),
        (["--transport", "stdio", "--deny-dir", "a/../.."], {}),
        (["--transport", "stdio", "--deny-dir", "**/.env,**/*.pem"], {}),
        (["--transport", "stdio", "--deny-dir", " **/.env"], {}),
        (["--transport", "stdio", "stray"], {}),
        (["--transport", "stdio", "--token-file", "/nonexistent/token"], {}),
        (["--transport", "stdio", "--token-file", "/dev/null"], {}),
        (["--transport", "stdio", "--token-file", "/etc/hostname", "--token", "x"], {}),
        (["--transport", "stdio"], {"BORIS_TOKEN_FILE": "/nonexistent/token"}),
        (["--transport", "stdio", "--max-sessions", "4"], {}),
        (["--transport", "stdio", "--allow-host", "a.example", "b.example"], {}),
        (["--transport", "stdio", "--timeout"], {}),
    ],
)
def test_what_is_not_read_early(argv: list[str], env: dict[str, str]) -> None:
    assert read_settings(argv, env, DECLARED) is None


def test_an_empty_variable_is_unset_and_a_flag_beats_its_variable() -> None:
    env = {"BORIS_TIMEOUT": "9", "BORIS_WORKDIR": "", "BORIS_TRANSPORT": "stdio"}
    early = read_settings(["--timeout", "3"], env, DECLARED)
    assert early is not None
    assert early.timeout == 3
