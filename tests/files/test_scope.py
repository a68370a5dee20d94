"""Path scoping (boris/files/scope.py; README "Paths", "Configuration", "Security"):
resolution, allow dirs by whole components, denied ancestors, which kind of deny pattern
matches what (a name, a path relative to any depth, an absolute path), how --deny-dir and
--allow-dir values are normalised at start-up, and the exact denial. Called directly,
through a client for the start-up normalisation, and against wcmatch at random. The
start-up warning of the real command line is checked in tests/e2e/test_scope.py.

The rule (README "Path scoping"): a deny pattern not starting with ``/`` or a ``**``
component matches at any depth, as if written ``**/<pattern>``; an absolute pattern
matches absolute paths; a path is denied when it or any of its ancestors matches.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st

from boris.errors import BorisError, Code
from boris.files.scope import PathScope, is_within, normalise_deny_pattern
from boris.patterns.glob_syntax import PatternError, pattern_problem
from tests.support import error_text, ok_text
from tests.support.glob_oracle import glob_tokens, needs_the_oracle, oracle, segments
from tests.support.inprocess import app_client
from tests.support.trees import write_tree


def denial(scope: PathScope, path: str) -> str | None:
    """The denial of a resolved path, or None when it is in scope."""
    try:
        scope.check(path)
    except BorisError as exc:
        assert scope.permits(path) is False
        return str(exc)
    assert scope.permits(path) is True
    return None


@pytest.mark.parametrize(
    ("pattern", "denied", "allowed"),
    [
        # One component: a name at any depth.
        ("*.pem", ["/a.pem", "/w/x/a.pem", "/w/a.pem/inner"], ["/w/a.pem.txt", "/w/pem"]),
        ("**/.env", ["/.env", "/w/.env", "/w/.env/x"], ["/w/.envrc"]),
        # Several components, not anchored: a path ending anywhere.
        (
            "src/secret",
            ["/src/secret", "/w/src/secret", "/w/src/secret/f"],
            ["/w/src", "/w/secret", "/w/src/secrets", "/w/xsrc/secret"],
        ),
        ("**/a/*.key", ["/a/k.key", "/w/a/k.key"], ["/w/b/k.key", "/w/a/b/k.key"]),
        # Absolute: from the root only.
        ("/abs/x", ["/abs/x", "/abs/x/y"], ["/w/abs/x", "/abs", "/abs/xy"]),
        ("/abs/*.key", ["/abs/k.key"], ["/w/abs/k.key", "/abs/d/k.key"]),
        # Everything.
        ("**", ["/", "/w", "/w/x"], []),
    ],
)
def test_what_a_deny_pattern_denies(pattern: str, denied: list[str], allowed: list[str]) -> None:
    scope = PathScope([], [pattern])
    for path in denied:
        assert denial(scope, path) == (
            f"[ACCESS_DENIED] {path} is denied by the pattern {pattern}"
        ), path
    for path in allowed:
        assert denial(scope, path) is None, path


@pytest.mark.parametrize(
    ("pattern", "entry", "denied"),
    [
        ("*.pem", "/w/a.pem", True),
        ("src/secret", "/w/src/secret", True),
        ("src/secret", "/w/src", False),
        ("/abs/x", "/abs/x", True),
        ("/abs/x", "/w/abs/x", False),
    ],
)
def test_denies_looks_at_the_entry_itself(pattern: str, entry: str, denied: bool) -> None:
    """A walk asks about each entry once (its ancestors were checked on the way down)."""
    assert PathScope([], [pattern]).denies(entry) is denied
    assert PathScope([], [pattern]).denies("/abs/x/y/z") is False


def test_the_first_matching_pattern_is_named() -> None:
    scope = PathScope([], ["/w/*", "**/k.key", "w/k.key"])
    assert denial(scope, "/w/k.key") == "[ACCESS_DENIED] /w/k.key is denied by the pattern **/k.key"
    scope = PathScope([], ["w/k.key", "/w/*"])
    assert denial(scope, "/w/k.key") == "[ACCESS_DENIED] /w/k.key is denied by the pattern /w/*"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A workdir reached through a symlink, whose real name holds glob syntax."""
    real = tmp_path / "real[1]"
    (real / "work").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    return tmp_path / "link" / "work"


@pytest.mark.parametrize(
    ("pattern", "normalised"),
    [
        # Neither relative nor absolute: as written, without a trailing "/".
        ("*.pem", "*.pem"),
        ("secrets/", "secrets"),
        ("src/**/x", "src/**/x"),
        # ./ and ../ from the workdir, resolved, escaped.
        ("./secret", "{real}/work/secret"),
        ("./secret/", "{real}/work/secret"),
        ("./a/*.key", "{real}/work/a/*.key"),
        ("./X*", "{real}/work/X*"),
        ("./X/*.key", "{real}/work/X/*.key"),
        (".", "{real}/work"),
        ("..", "{real}"),
        ("../x/**", "{real}/x/**"),
        # Absolute: its literal leading directories resolved.
        ("{link}/work/*.key", "{real}/work/*.key"),
        ("{link}/work/", "{real}/work"),
        ("/**/x", "/**/x"),
        ("/*.key", "/*.key"),
        # No "." components; each ".." takes away the component before it.
        ("secret/.", "secret"),
        ("**/./secret", "**/secret"),
        ("sub/../secret", "secret"),
        ("*/../secret", "secret"),
        ("**/../secret", "secret"),
        ("a/b/../../c/./d", "c/d"),
        ("./a/./*/../b", "{real}/work/a/b"),
        ("{link}/work/*/../../x/*.key", "{real}/x/*.key"),
        # A final **/. is the directory before it and everything below.
        ("secret/**/.", "secret"),
        ("secret/**/./", "secret"),
        ("**/.", "**"),
        ("./**/.", "{real}/work"),
        ("a/**/./b", "a/**/b"),
        # Braces keep the components inside them; escapes are not separators.
        ("{{a/..,b}}/c", "{{a/..,b}}/c"),
        ("..x/.y", "..x/.y"),
        ("{{x,y/z}}/../c", "c"),
        ("{{x}}/../c", "c"),
        ("{{{{x}}}}/../c", "c"),
        ("{{x,{{a,b}}/./c}}/d", "{{x,{{a,b}}/./c}}/d"),
        ("a\\/../c", "a\\/../c"),
        ("\\x/../c", "c"),
        # A ".." after a ".." it cannot take away is kept, and climbs.
        ("{link}/work/sub/*/../../../x", "{real}/x"),
    ],
)
def test_normalised_deny_patterns(workdir: Path, pattern: str, normalised: str) -> None:
    real = str(workdir.parent.resolve()).replace("[", "\\[")
    link = str(workdir.parent)
    assert normalise_deny_pattern(pattern.format(link=link), str(workdir)) == normalised.format(
        real=real
    )


@pytest.mark.parametrize("pattern", ["a/..", "a/../..", "..x/../..", "**/..", "x/**/../.."])
def test_a_deny_pattern_climbing_above_its_start_is_refused(pattern: str) -> None:
    # Unanchored, it would match at any depth: above its start is nowhere in particular.
    message = (
        "its '..' climbs above its start; write the pattern from the working directory "
        "(./ or ../) or as an absolute path instead"
    )
    with pytest.raises(PatternError, match=f"^{re.escape(message)}$"):
        normalise_deny_pattern(pattern, "/w")


def test_a_link_reached_past_a_symlink_loop_is_followed(tmp_path: Path) -> None:
    """realpath stops at a loop and leaves ``loop/../link`` as ``.../link``; resolving
    again follows that link, out of the allowed directory here."""
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (allowed / "loop").symlink_to("loop")
    (allowed / "link").symlink_to(outside)
    scope = PathScope([str(allowed)], [])
    with pytest.raises(BorisError) as raised:
        scope.resolve("loop/../link/secret", str(allowed))
    assert str(raised.value) == (
        f"[ACCESS_DENIED] {outside / 'secret'} is outside the allowed directories ({allowed})"
    )
    assert scope.resolve("loop/x", str(allowed)) == str(allowed / "loop" / "x")


def test_path_length_limit() -> None:
    """An absolute path of 4,095 bytes is resolved; from 4,096 on it is refused."""
    scope = PathScope([], [])
    longest = "/" + "a" * 4094
    assert scope.resolve(longest, "/") == longest
    with pytest.raises(BorisError) as raised:
        scope.resolve(longest + "a", "/")
    assert str(raised.value) == (
        "[INVALID_INPUT] path: longer than the system's limit of 4095 bytes (as an absolute path)"
    )
    with pytest.raises(BorisError) as nul:
        scope.resolve("a\0b", "/")
    assert str(nul.value) == "[INVALID_INPUT] path: must not contain a NUL character"


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname} {record.getMessage()}")


@pytest.mark.parametrize(
    ("allow", "deny", "warned"),
    [
        (
            ["/w"],
            ["*.pem", "/other/*.key", "/w/x", "/*.key", "/", "/w/**"],
            ["/other/*.key"],
        ),
        (["/w", "/v"], ["/u/x", "/srv"], ["/u/x", "/srv"]),
        # A pattern above an allowed directory can match below it.
        (["/srv/app"], ["/srv", "/srv/a*"], []),
        # Without allowed directories everything is reachable.
        ([], ["/other/x"], []),
    ],
)
def test_warning_for_a_deny_pattern_outside_every_allowed_directory(
    allow: list[str], deny: list[str], warned: list[str]
) -> None:
    handler = Warnings()
    logger = logging.getLogger("boris")
    logger.addHandler(handler)
    try:
        PathScope(allow, deny)
    finally:
        logger.removeHandler(handler)
    assert handler.messages == [
        f"WARNING deny pattern {pattern} can never match: it lies outside every allowed "
        f"directory ({', '.join(allow)})"
        for pattern in warned
    ]


def test_outside_every_allowed_directory() -> None:
    scope = PathScope(["/w", "/v"], [])
    assert denial(scope, "/u") == "[ACCESS_DENIED] /u is outside the allowed directories (/w, /v)"
    assert denial(scope, "/v/x") is None


_deny_patterns = st.one_of(
    st.lists(glob_tokens, min_size=1, max_size=4).map("".join),
    st.lists(glob_tokens, min_size=1, max_size=3).map(lambda t: "**/" + "".join(t)),
)


@needs_the_oracle
@given(
    patterns=st.lists(_deny_patterns, min_size=1, max_size=3),
    path=st.lists(segments, min_size=0, max_size=4).map(lambda s: "/" + "/".join(s)),
)
def test_deny_agrees_with_wcmatch(patterns: list[str], path: str) -> None:
    """A deny pattern not starting with ``/`` or a ``**`` component matches at any
    depth, as if written ``**/<pattern>``."""
    if any(pattern_problem(p) for p in patterns):
        return
    anchored = [p if p.startswith(("/", "**/")) or p == "**" else f"**/{p}" for p in patterns]
    expected = oracle(anchored, path)
    if expected is None:
        return
    scope = PathScope([], patterns)
    assert scope.denies(path) == expected
    if expected:
        # A file tool is refused naming a pattern that matches the path itself.
        reasons = {
            f"[ACCESS_DENIED] {path} is denied by the pattern {pattern}"
            for pattern, whole in zip(patterns, anchored, strict=True)
            if oracle([whole], path)
        }
        with pytest.raises(BorisError) as refused:
            scope.check(path)
        assert str(refused.value) in reasons


# --- resolution, allow dirs and start-up normalisation ------------------------------


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
