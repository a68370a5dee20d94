"""Path scoping (README "Paths", "Configuration", "Security"): resolution, allow dirs by
whole components, denied ancestors, and how --deny-dir and --allow-dir values are
normalised at start-up. The start-up warning of the real command line is checked in
tests/e2e/test_pathscope.py."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st

from boris.errors import BorisError, Code
from boris.files.scope import PathScope, is_within
from boris.patterns.glob_syntax import pattern_problem, split_outside_braces
from tests.inprocess import app_client
from tests.support import error_text, ok_text
from tests.support.trees import write_tree


def denied(scope: PathScope, path: str, cwd: str) -> Code | None:
    try:
        scope.resolve(path, cwd)
    except BorisError as failure:
        return failure.code
    return None


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path.resolve()
    (root / "work" / "src").mkdir(parents=True)
    (root / "work2").mkdir()
    (root / "outside").mkdir()
    (root / "work" / ".git").mkdir()
    (root / "work" / ".git" / "config").write_text("x")
    (root / "work" / ".env").write_text("SECRET=1")
    (root / "work" / "escape").symlink_to(root / "outside")
    return root


def test_relative_paths_join_the_cwd(tree: Path) -> None:
    scope = PathScope([], [])
    assert scope.resolve("src/a.py", str(tree / "work")) == str(tree / "work" / "src" / "a.py")
    assert scope.resolve("../work2", str(tree / "work")) == str(tree / "work2")


def test_sibling_prefix_is_not_inside(tree: Path) -> None:
    # /work2 shares a string prefix with /work but is not under it.
    scope = PathScope([str(tree / "work")], [])
    assert denied(scope, str(tree / "work2"), "/") is Code.ACCESS_DENIED
    assert denied(scope, str(tree / "work"), "/") is None
    assert denied(scope, str(tree / "work" / "src" / "new.py"), "/") is None


def test_symlink_out_of_allowed_dir_is_denied(tree: Path) -> None:
    scope = PathScope([str(tree / "work")], [])
    assert denied(scope, "escape/file", str(tree / "work")) is Code.ACCESS_DENIED
    # A new file under the symlinked dir resolves through its deepest existing ancestor.
    assert denied(scope, "escape/new/deeper.txt", str(tree / "work")) is Code.ACCESS_DENIED


def test_deny_pattern_matches_ancestors(tree: Path) -> None:
    scope = PathScope([], ["**/.git"])
    assert denied(scope, str(tree / "work" / ".git" / "config"), "/") is Code.ACCESS_DENIED
    assert denied(scope, str(tree / "work" / ".git"), "/") is Code.ACCESS_DENIED
    assert denied(scope, str(tree / "work" / ".gitignore"), "/") is None


def test_deny_beats_allow(tree: Path) -> None:
    scope = PathScope([str(tree / "work")], ["**/.env"])
    assert denied(scope, ".env", str(tree / "work")) is Code.ACCESS_DENIED
    assert denied(scope, "src", str(tree / "work")) is None


def test_deny_with_braces_and_relative_pattern(tree: Path) -> None:
    scope = PathScope([], ["**/*.{pem,key}", "secrets"])
    assert denied(scope, "a.pem", str(tree)) is Code.ACCESS_DENIED
    assert denied(scope, "b.key", str(tree)) is Code.ACCESS_DENIED
    assert denied(scope, "c.txt", str(tree)) is None
    # A pattern without a leading / or ** matches at any depth.
    assert denied(scope, "work/secrets/x", str(tree)) is Code.ACCESS_DENIED


def test_messages_name_the_path_and_pattern(tree: Path) -> None:
    scope = PathScope([str(tree / "work")], ["**/.env"])
    with pytest.raises(BorisError) as outside:
        scope.resolve(str(tree / "outside"), "/")
    assert str(outside.value) == (
        f"[ACCESS_DENIED] {tree / 'outside'} is outside the allowed directories ({tree / 'work'})"
    )
    with pytest.raises(BorisError) as env:
        scope.resolve(str(tree / "work" / ".env"), "/")
    assert (
        str(env.value)
        == f"[ACCESS_DENIED] {tree / 'work' / '.env'} is denied by the pattern **/.env"
    )


def test_empty_and_nul_paths_are_invalid_input() -> None:
    scope = PathScope([], [])
    with pytest.raises(BorisError) as empty:
        scope.resolve("", "/")
    assert str(empty.value) == "[INVALID_INPUT] path: must not be empty"
    with pytest.raises(BorisError) as nul:
        scope.resolve("a\0b", "/")
    assert nul.value.code is Code.INVALID_INPUT


def test_is_within_whole_components() -> None:
    assert is_within("/work", "/work")
    assert is_within("/work/a", "/work")
    assert not is_within("/work2", "/work")
    assert is_within("/anything", "/")


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("**/.env", None),
        ("**/*.{pem,key}", None),
        ("[!abc]*", None),
        ("[]]", None),
        ("", "pattern is empty"),
        ("[invalid", "unclosed '[' at position 0"),
        ("a{b,c", "unclosed '{'"),
        ("{a,{b,c}", "unclosed '{'"),
        ("{a,{b,c}}", None),
        ("a}b", None),
        ("x,y", None),
        ("\\{c}*", None),
        ("[{]c}*", None),
        ("a[/]b", None),
        ("[[:digit:]]", None),
        ("[[:digits:]]", None),
        ("[[:nope:]]", "unknown character class '[:nope:]' at position 1; known: alnum, "
         "alpha, ascii, blank, cntrl, digit, graph, lower, print, punct, space, upper, "
         "word, xdigit"),
        ("{" * 32 + "a,b" + "}" * 32, None),
        ("{" * 33 + "a,b" + "}" * 33, "braces nested deeper than 32 levels"),
        ("a" * 4096, None),
        ("a" * 4097, "pattern is longer than 4096 characters"),
        ("abc\\", "pattern ends with an unfinished escape '\\'"),
        ("[a\\", "unclosed '[' at position 0"),
    ],
)  # fmt: skip
def test_pattern_problem(pattern: str, problem: str | None) -> None:
    assert pattern_problem(pattern) == problem


def test_split_outside_braces() -> None:
    assert split_outside_braces("a,{b,c},d{e,{f,g}}, ,h") == ["a", "{b,c}", "d{e,{f,g}}", "h"]
    # Escaped braces and commas, and commas in a class, do not count; a lone "}" is text.
    assert split_outside_braces("\\{a,b\\,c,[,]d,e},f") == ["\\{a", "b\\,c", "[,]d", "e}", "f"]


# --- properties ------------------------------------------------------------------------

NAMES = st.sampled_from(["work", "work2", "w", "src", "..", ".", "link", "loop", ".git", "x.pem"])


def _make_world(base: Path) -> tuple[Path, Path]:
    """A small tree with the traps: a sibling with a shared prefix, links out and in, a loop."""
    allowed = base / "work"
    (allowed / "src").mkdir(parents=True)
    (base / "work2" / "src").mkdir(parents=True)
    (allowed / ".git").mkdir()
    (allowed / "link").symlink_to(base / "work2")
    (base / "work2" / "link").symlink_to(allowed / "src")
    (allowed / "loop").symlink_to(allowed / "loop")
    return allowed, base


def fully_resolved(path: str) -> str:
    """``path`` with every symlink resolved, even one that realpath leaves unresolved
    after a symlink loop (``loop/../link``): realpath again until nothing changes."""
    resolved = os.path.realpath(path)
    while (again := os.path.realpath(resolved)) != resolved:
        resolved = again
    return resolved


def expected_denial(resolved: str, allowed: Path) -> str | None:
    """The rule for the world below: outside the allowed directory (by whole components)
    is refused as such; inside, the path or its nearest ancestor named ``.git`` or
    ``*.pem`` is refused by that pattern."""
    if resolved != str(allowed) and not resolved.startswith(f"{allowed}/"):
        return f"[ACCESS_DENIED] {resolved} is outside the allowed directories ({allowed})"
    for candidate in [Path(resolved), *Path(resolved).parents]:
        if candidate.name == ".git":
            return f"[ACCESS_DENIED] {resolved} is denied by the pattern **/.git"
        if candidate.name.endswith(".pem"):
            return f"[ACCESS_DENIED] {resolved} is denied by the pattern **/*.pem"
    return None


@given(
    parts=st.lists(NAMES, min_size=1, max_size=6),
    absolute=st.booleans(),
    cwd_inside=st.booleans(),
)
def test_property_nothing_resolves_outside_or_into_denied(
    parts: list[str], absolute: bool, cwd_inside: bool
) -> None:
    """Whatever is accepted really is inside the allowed directory, by whole components,
    with every symlink resolved, and neither it nor an ancestor is denied; whatever is
    refused is refused for that reason, in those words."""
    with tempfile.TemporaryDirectory() as raw:
        base = Path(raw).resolve()
        allowed, _ = _make_world(base)
        scope = PathScope([str(allowed)], ["**/.git", "**/*.pem"])
        path = os.path.join(*parts)
        if absolute:
            path = str(base / path)
        cwd = str(allowed if cwd_inside else base)
        resolved = fully_resolved(os.path.join(cwd, path))
        try:
            outcome = scope.resolve(path, cwd)
        except BorisError as failure:
            outcome = str(failure)
        assert outcome == (expected_denial(resolved, allowed) or resolved)


# --- deny and allow values as a real server reads them ---------------------------------


async def call_ok(client: Client[Any], tool: str, **arguments: Any) -> str:
    return ok_text(await client.call_tool(tool, arguments, raise_on_error=False))


async def call_error(client: Client[Any], tool: str, **arguments: Any) -> str:
    return error_text(await client.call_tool(tool, arguments, raise_on_error=False))


PRIVATE_TREE = {
    ".env/key.txt": "hit\n",
    "secrets/key.txt": "hit\n",
    "private/key.txt": "hit\n",
    "{c}.txt": "hit\n",
    "open/ok.txt": "hit\n",
}


@pytest.mark.anyio
async def test_deny_patterns_are_normalised_at_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deny pattern's trailing ``/`` means that directory and everything below it;
    ``./x`` is relative to the workdir; the literal leading directories of an absolute
    pattern are resolved like the paths it is matched against (symlinks followed).
    The instructions list the patterns as normalised (README, "Deny and allow")."""
    real = write_tree(tmp_path.resolve() / "real", PRIVATE_TREE)
    link = tmp_path / "link"
    link.symlink_to(real)
    flags = ["--deny-dir", "**/.env/", "--deny-dir", "./secrets", "--deny-dir"]
    flags += [f"{link}/private", "--deny-dir", "\\{c}*"]
    monkeypatch.chdir("/")
    async with app_client(*flags, workdir=link) as client:
        assert client.initialize_result is not None
        assert client.initialize_result.instructions == (
            f"Working directory: {real}\n"
            f"Denied patterns: **/.env, {real}/secrets, {real}/private, \\{{c}}*"
        )
        for rel, pattern in [
            (".env/new.txt", "**/.env"),
            ("secrets/new.txt", f"{real}/secrets"),
            ("private/new.txt", f"{real}/private"),
            ("{c}.md", "\\{c}*"),
        ]:
            refused = await call_error(client, "create_file", path=rel, content="x")
            assert refused == f"[ACCESS_DENIED] {real}/{rel} is denied by the pattern {pattern}"
            assert not (real / rel).exists()
        assert await call_ok(client, "grep", pattern="hit") == "open/ok.txt"
        assert await call_ok(client, "glob", pattern="**/*.txt") == "open/ok.txt"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("pattern", "normalised"),
    [
        ("secret/.", "secret"),
        ("secret/./", "secret"),
        ("**/secret/.", "**/secret"),
        ("secret/**/.", "secret"),
        ("**/./secret", "**/secret"),
        ("sub/../secret", "secret"),
        ("./sub/../secret/.", "{root}/secret"),
        ("{root}/sub/*/../../secret/.", "{root}/secret"),
    ],
)
async def test_deny_patterns_with_dot_components_deny_what_they_name(
    tmp_path: Path, pattern: str, normalised: str
) -> None:
    """The paths a pattern is matched against hold no ``.`` or ``..`` component: a
    pattern's own are applied at start-up, so that it denies what it names."""
    root = write_tree(
        tmp_path.resolve(),
        {"secret/key.txt": "hit\n", "sub/d/ok.txt": "hit\n", "open/ok.txt": "hit\n"},
    )
    denied = normalised.format(root=root)
    async with app_client("--deny-dir", pattern.format(root=root), workdir=root) as client:
        assert client.initialize_result is not None
        assert client.initialize_result.instructions == (
            f"Working directory: {root}\nDenied patterns: {denied}"
        )
        refused = await call_error(client, "view", path="secret/key.txt")
        assert refused == (
            f"[ACCESS_DENIED] {root}/secret/key.txt is denied by the pattern {denied}"
        )
        assert await call_ok(client, "grep", pattern="hit") == "open/ok.txt\nsub/d/ok.txt"
        assert await call_ok(client, "glob", pattern="**/*.txt") == "open/ok.txt\nsub/d/ok.txt"


@pytest.mark.anyio
async def test_allow_dirs_are_normalised_at_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--allow-dir ./x/`` is the directory x of the workdir, whatever the process's
    current directory; trailing slashes are dropped."""
    root = write_tree(tmp_path.resolve(), {"sub/in.txt": "hit\n", "out.txt": "hit\n"})
    monkeypatch.chdir("/")
    async with app_client("--allow-dir", "./sub/", workdir=root) as client:
        assert client.initialize_result is not None
        assert client.initialize_result.instructions == (
            f"Working directory: {root}\nAllowed directories: {root}/sub"
        )
        assert await call_ok(client, "grep", pattern="hit", path="sub") == "in.txt"
        refused = await call_error(client, "view", path="out.txt")
        assert refused == (
            f"[ACCESS_DENIED] {root}/out.txt is outside the allowed directories ({root}/sub)"
        )


@pytest.mark.anyio
async def test_env_deny_list_keeps_nested_braces_whole(tmp_path: Path) -> None:
    """BORIS_DENY_DIRS splits on commas outside braces, nested braces included."""
    root = write_tree(tmp_path.resolve(), {"a.txt": "hit\n", "c.txt": "hit\n", "e.txt": "hit\n"})
    env = {"BORIS_DENY_DIRS": "**/{a,{b,c}}.txt,**/d.txt"}
    async with app_client(workdir=root, env=env) as client:
        assert client.initialize_result is not None
        assert client.initialize_result.instructions == (
            f"Working directory: {root}\nDenied patterns: **/{{a,{{b,c}}}}.txt, **/d.txt"
        )
        assert await call_ok(client, "grep", pattern="hit") == "e.txt"
