"""Which paths the file tools may touch: allow dirs, deny patterns, symlink-safe resolution.

Every file tool (view, str_replace, create_file, grep, glob) resolves its path here.
Bash is deliberately not scoped: isolation of shell commands comes from the container.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Sequence

from boris.errors import BorisError, Code
from boris.patterns.glob_match import Matcher, compile_glob
from boris.patterns.glob_syntax import (
    PatternError,
    escape,
    literal_prefix,
    strip_trailing_slashes,
)

log = logging.getLogger("boris")

#: Entries no directory listing or walk shows or enters, whatever the ignore files say
#: (git's own data, installed packages). A path through them is still in scope.
SKIPPED_NAMES = frozenset({".git", "node_modules"})

#: The system's limit on a path's length in bytes, its final NUL included.
PATH_MAX = os.pathconf("/", "PC_PATH_MAX") if hasattr(os, "pathconf") else 4096


def is_within(path: str, directory: str) -> bool:
    """True when ``path`` is ``directory`` or lies under it, by whole path components."""
    if path == directory:
        return True
    prefix = directory if directory.endswith(os.sep) else directory + os.sep
    return path.startswith(prefix)


def _fully_resolved(path: str) -> str:
    """``path`` with every symlink resolved, even past a symlink loop.

    At a symlink loop realpath gives up and returns the rest of the path unresolved
    and normalised: ``loop/../link`` comes back as ``.../link``, which may itself be a
    link leading out of the allowed directories. Resolving again follows it. An
    existing path without loops resolves in the first, strict, pass.
    """
    try:
        return os.path.realpath(path, strict=True)
    except OSError:
        pass  # missing components or a loop
    for _ in range(3):
        try:
            resolved = os.path.realpath(path)
            for _ in range(40):  # the kernel's own limit on links in one lookup
                again = os.path.realpath(resolved)
                if again == resolved:
                    break
                resolved = again
            return resolved
        except OSError as exc:
            # A symlink seen on the way was gone when it was read (EINVAL from readlink):
            # the path is changing under us; look again.
            failure = exc
    raise BorisError(
        Code.IO_ERROR, f"could not resolve {path}: {failure.strerror or failure}; try again"
    )


def _ancestors_and_self(path: str) -> list[str]:
    chain = [path]
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return chain
        chain.append(parent)
        path = parent


class PathScope:
    """Resolves tool paths and decides whether they are in scope.

    ``allow_dirs`` must already be absolute and symlink-resolved, and ``deny_patterns``
    normalised (settings does both). A deny pattern that does not start with ``/`` or
    a ``**`` component matches at any depth, as if written ``**/<pattern>``.
    """

    def __init__(self, allow_dirs: Sequence[str], deny_patterns: Sequence[str]) -> None:
        self.allow_dirs = tuple(allow_dirs)
        self.deny_patterns = tuple(deny_patterns)
        # Walks ask about every entry. Most patterns are "**/<name glob>", which match
        # a path exactly when its last component matches the name glob: those are
        # tested on the name. Absolute patterns see the whole path; the others
        # ("**/..." and "**") the path without its leading "/".
        self._by_name: list[tuple[str, Matcher]] = []
        self._by_path: list[tuple[str, Matcher]] = []
        self._by_relative_path: list[tuple[str, Matcher]] = []
        for pattern in self.deny_patterns:
            anchored = pattern if _is_anchored(pattern) else f"**/{pattern}"
            name = anchored[3:]
            if anchored.startswith("**/") and _is_component_glob(name):
                self._by_name.append((pattern, compile_glob(name)))
            elif anchored.startswith("/"):
                self._by_path.append((pattern, compile_glob(anchored)))
            else:
                self._by_relative_path.append((pattern, compile_glob(anchored)))
        self._name_checks = [match for _, match in self._by_name]
        self._warn_about_unreachable_patterns()

    def _warn_about_unreachable_patterns(self) -> None:
        if not self.allow_dirs:
            return
        for pattern in self.deny_patterns:
            if not pattern.startswith("/"):
                continue
            fixed = literal_prefix(pattern) or "/"
            if not any(is_within(fixed, d) or is_within(d, fixed) for d in self.allow_dirs):
                allowed = ", ".join(self.allow_dirs)
                log.warning(
                    "deny pattern %s can never match: it lies outside every allowed directory (%s)",
                    pattern,
                    allowed,
                )

    def resolve(self, path: str, cwd: str) -> str:
        """Absolute, symlink-resolved form of ``path`` (relative to ``cwd``), if in scope.

        For a path that does not exist yet the deepest existing ancestor is resolved
        and the rest appended, so a new file cannot escape through a symlinked parent.
        """
        if not path:
            raise BorisError(Code.INVALID_INPUT, "path: must not be empty")
        if "\0" in path:
            raise BorisError(Code.INVALID_INPUT, "path: must not contain a NUL character")
        absolute = os.path.join(cwd, path)
        if len(os.fsencode(absolute)) >= PATH_MAX:
            # No system call takes it; resolving it a component at a time would cost
            # time growing with the square of its length.
            raise BorisError(
                Code.INVALID_INPUT,
                f"path: longer than the system's limit of {PATH_MAX - 1} bytes "
                "(as an absolute path)",
            )
        resolved = _fully_resolved(absolute)
        self.check(resolved)
        return resolved

    def check(self, resolved: str) -> None:
        """Raise ``ACCESS_DENIED`` unless the resolved path is in scope."""
        if self.allow_dirs and not any(is_within(resolved, d) for d in self.allow_dirs):
            raise BorisError(
                Code.ACCESS_DENIED,
                f"{resolved} is outside the allowed directories ({', '.join(self.allow_dirs)})",
            )
        for candidate in _ancestors_and_self(resolved):
            pattern = self._denying_pattern(candidate)
            if pattern is not None:
                raise BorisError(
                    Code.ACCESS_DENIED, f"{resolved} is denied by the pattern {pattern}"
                )

    def permits(self, resolved: str) -> bool:
        """Whether a resolved path is in scope, without raising."""
        try:
            self.check(resolved)
        except BorisError:
            return False
        return True

    def denies(self, path: str) -> bool:
        """Whether ``path`` itself (not its ancestors) matches a deny pattern.

        Directory walks call this per entry: the ancestors were checked on the way down.
        """
        name = path.rpartition("/")[2]
        for check in self._name_checks:
            if check(name):
                return True
        if self._by_path or self._by_relative_path:
            return self._denying_path_pattern(path) is not None
        return False

    def _denying_pattern(self, path: str) -> str | None:
        name = path.rpartition("/")[2]
        for pattern, check in self._by_name:
            if check(name):
                return pattern
        return self._denying_path_pattern(path)

    def _denying_path_pattern(self, path: str) -> str | None:
        for pattern, check in self._by_path:
            if check(path):
                return pattern
        relative = path[1:]
        for pattern, check in self._by_relative_path:
            if check(relative):
                return pattern
        return None


def _is_anchored(pattern: str) -> bool:
    return pattern.startswith(("/", "**/")) or pattern == "**"


def _is_component_glob(pattern: str) -> bool:
    """A glob of exactly one path component (no ``/``, not starting with ``**``)."""
    return bool(pattern) and "/" not in pattern and not pattern.startswith("**")


def normalise_deny_pattern(pattern: str, workdir: str) -> str:
    """``pattern`` as PathScope matches it: without trailing ``/`` (a directory's
    pattern covers what is below it anyway), ``./x`` and ``../x`` made absolute from
    ``workdir``, the literal leading directories of an absolute pattern resolved like
    the paths it is matched against (symlinks followed), and without ``.`` components,
    each ``..`` taking away the component before it (the paths matched hold neither).

    Raises PatternError for a pattern whose ``..`` climbs above its own start (``a/../..``).
    """
    pattern = strip_trailing_slashes(pattern)
    relative = pattern in (".", "..") or pattern.startswith(("./", "../"))
    if not (relative or pattern.startswith("/")):
        parts = _without_dots(_components(pattern))
        if not parts or parts[0] == "..":
            raise PatternError(
                "its '..' climbs above its start; write the pattern from the working "
                "directory (./ or ../) or as an absolute path instead"
            )
        return "/".join(parts)
    fixed = literal_prefix(pattern)
    rest = pattern[len(fixed) :].lstrip("/")
    parts = _without_dots(_components(rest), after=True) if rest else []
    # A ".." left at the front climbs into the literal directories: resolved with them.
    climbs = len(parts) - len(list(itertools.dropwhile(lambda part: part == "..", parts)))
    directory = os.path.join(workdir, fixed) if relative else fixed or "/"
    resolved = escape(_fully_resolved(os.path.join(directory, *[".."] * climbs)))
    if climbs == len(parts):
        return resolved
    return f"{resolved.rstrip('/')}/{'/'.join(parts[climbs:])}"


def _components(pattern: str) -> list[str]:
    """``pattern`` cut at each ``/`` that separates components: not an escaped one, nor
    one inside braces (``{a/b,c}`` is one component's alternatives)."""
    parts = []
    depth = start = index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 1
        elif char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "/" and not depth:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    parts.append(pattern[start:])
    return parts


def _without_dots(parts: list[str], *, after: bool = False) -> list[str]:
    """``parts`` without ``.``, each ``..`` taking away the part before it (a ``..``
    with nothing before it is kept). A final ``**/.`` stands for the directory before
    the ``**`` and every one below it, so it is left out whole (``dir/**/.`` is
    ``dir``; ``dir/**`` alone would leave ``dir`` itself out), unless nothing would be
    left: ``after`` tells that the parts follow a directory already."""
    kept: list[str] = []
    for part in parts:
        if part == ".":
            continue
        if part == ".." and kept and kept[-1] != "..":
            kept.pop()
        else:
            kept.append(part)
    if parts and parts[-1] == "." and kept and kept[-1] == "**" and (after or len(kept) > 1):
        kept.pop()
    return kept


def resolve_allow_dir(path: str, workdir: str) -> str:
    """``path`` (relative ones to ``workdir``) made absolute and symlink-resolved."""
    return _fully_resolved(os.path.join(workdir, path))
