"""Deny patterns as PathScope reads them (boris/files/scope.py), called directly: which
kind of pattern matches what (a name, a path relative to any depth, an absolute path),
how the start-up normalises them, and the exact denial.

The rule (README "Path scoping"): a deny pattern not starting with ``/`` or a ``**``
component matches at any depth, as if written ``**/<pattern>``; an absolute pattern
matches absolute paths; a path is denied when it or any of its ancestors matches.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from boris.errors import BorisError
from boris.files.scope import PathScope, normalise_deny_pattern
from boris.patterns.glob_syntax import PatternError


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
    with pytest.raises(PatternError, match=re.escape("its '..' climbs above its start")):
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
