"""Which paths the file tools may touch: allow dirs, deny patterns, symlink-safe resolution.

Every file tool (view, str_replace, create_file, grep, glob) resolves its path here.
Bash is deliberately not scoped: isolation of shell commands comes from the container.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from wcmatch import glob

from boris.errors import Code, ToolFailure
from boris.globmatch import compile_glob
from boris.patterns import GLOB_FLAGS

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
    raise ToolFailure(
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

    ``allow_dirs`` must already be absolute and symlink-resolved (settings does it).
    A deny pattern that does not start with ``/`` or ``**`` matches at any depth,
    as if written ``**/<pattern>``.
    """

    def __init__(self, allow_dirs: Sequence[str], deny_patterns: Sequence[str]) -> None:
        self.allow_dirs = tuple(allow_dirs)
        self.deny_patterns = tuple(deny_patterns)
        anchored = [p if p.startswith(("/", "**")) else f"**/{p}" for p in self.deny_patterns]
        self._deny = glob.compile(anchored, flags=GLOB_FLAGS) if anchored else None
        self._each = [glob.compile(p, flags=GLOB_FLAGS) for p in anchored]
        # Walks ask about every entry. Most patterns are "**/<name glob>", which match a
        # path exactly when its last component matches the name glob: test those on
        # the name with plain regular expressions, the rest with wcmatch.
        by_name = [p[3:] for p in anchored if _is_name_pattern(p)]
        by_path = [p for p in anchored if not _is_name_pattern(p)]
        self._name_checks = [compile_glob(p) for p in by_name]
        self._path_deny = glob.compile(by_path, flags=GLOB_FLAGS) if by_path else None

    def resolve(self, path: str, cwd: str) -> str:
        """Absolute, symlink-resolved form of ``path`` (relative to ``cwd``), if in scope.

        For a path that does not exist yet the deepest existing ancestor is resolved
        and the rest appended, so a new file cannot escape through a symlinked parent.
        """
        if not path:
            raise ToolFailure(Code.INVALID_INPUT, "path: must not be empty")
        if "\0" in path:
            raise ToolFailure(Code.INVALID_INPUT, "path: must not contain a NUL character")
        absolute = os.path.join(cwd, path)
        if len(os.fsencode(absolute)) >= PATH_MAX:
            # No system call takes it; resolving it a component at a time would cost
            # time growing with the square of its length.
            raise ToolFailure(
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
            raise ToolFailure(
                Code.ACCESS_DENIED,
                f"{resolved} is outside the allowed directories ({', '.join(self.allow_dirs)})",
            )
        for candidate in _ancestors_and_self(resolved):
            if self.denies(candidate):
                pattern = next(
                    p
                    for p, m in zip(self.deny_patterns, self._each, strict=True)
                    if m.match(candidate)
                )
                raise ToolFailure(
                    Code.ACCESS_DENIED, f"{resolved} is denied by the pattern {pattern}"
                )

    def permits(self, resolved: str) -> bool:
        """Whether a resolved path is in scope, without raising."""
        try:
            self.check(resolved)
        except ToolFailure:
            return False
        return True

    def denies(self, path: str) -> bool:
        """Whether ``path`` itself (not its ancestors) matches a deny pattern.

        Directory walks call this per entry: the ancestors were checked on the way down.
        """
        if self._deny is None:
            return False
        name = path.rpartition("/")[2]
        if not name:  # "/" or a trailing slash: leave it to wcmatch
            return bool(self._deny.match(path))
        if any(check(name) for check in self._name_checks):
            return True
        return self._path_deny is not None and bool(self._path_deny.match(path))


def _is_name_pattern(pattern: str) -> bool:
    """``**/`` followed by a glob of one path component."""
    if not pattern.startswith("**/"):
        return False
    rest = pattern[3:]
    return bool(rest) and "/" not in rest and not rest.startswith("**")
