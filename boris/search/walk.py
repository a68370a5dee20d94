"""The directory walk grep and glob share: name order, depth first, .gitignore-aware.

What every walk skips, silently: ``.git`` and ``node_modules`` at any depth, entries a
``.gitignore`` excludes (git's rules, every level, plus the ignore files of the root's
ancestors up to the enclosing repository; a directory holding ``.git`` is a repository
of its own, out of reach of the rules above it), entries a deny pattern matches,
symlinks whose target is out of scope, and broken symlinks. Whether a symlinked directory is
entered is the caller's choice: grep follows them (each real directory once, so a
link cycle ends), glob lists them without entering.

The walk is the hot loop of both tools (tens of thousands of entries per call), so it
leans on what ``os.scandir`` already knows: entry types come from the directory
listing and a stat is only made for symlinks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, TypeVar

from boris.errors import BorisError
from boris.files.scope import SKIPPED_NAMES, PathScope
from boris.search.matching import OPEN_FLAGS, Stop, check

#: The largest .gitignore read; a bigger one is not a real ignore file.
_MAX_IGNORE_FILE = 1 << 20


#: A compiled RE2 set and, per rule in it: True ignores, False re-includes ("!").
_RuleSet = tuple[Any, tuple[bool, ...]]


class IgnoreRules:
    """The rules of one .gitignore file, each matching a path exactly.

    git and ripgrep test every path against the rules on its own: a rule that
    matches a directory says nothing about the paths inside it (the walk simply
    does not enter an ignored directory). Each line is translated by pathspec
    (git's pattern syntax); its regular expression is then anchored to match the
    path itself rather than the path or anything below it, so that, say, a
    ``!build/`` in a deeper file does not re-include every file inside a ``build``
    directory that a parent's ``*.log`` ignores.

    The rules are matched with RE2 sets, in order, each small enough for RE2's
    memory budget however long the file is.
    """

    __slots__ = ("_sets",)

    def __init__(self, sets: list[_RuleSet]) -> None:
        self._sets = sets

    def verdict(self, path: bytes) -> bool | None:
        """Whether the last rule matching ``path`` ignores it; None if none matches.

        ``path`` is relative to the file's directory, ``/``-separated, the names'
        own bytes, and ends with ``/`` for a directory.
        """
        for matcher, ignores in reversed(self._sets):
            hits: list[int] = matcher.Match(path)
            if hits:
                return ignores[max(hits)]
        return None


#: Rules per RE2 set at most (see IgnoreRules); a set too big to compile is halved.
_RULES_PER_SET = 1000


@dataclass(frozen=True, slots=True)
class _IgnoreLevel:
    """The rules of one .gitignore file and how to phrase a path relative to its directory.

    A path ``rel`` (relative to the walk root, as bytes) is checked as
    ``lead + rel[cut:]``: for an ignore file inside the walk ``cut`` strips the
    directory's own prefix; for an ancestor of the root ``lead`` prepends the
    root's path below that ancestor.
    """

    rules: IgnoreRules
    lead: bytes
    cut: int


Levels = tuple[_IgnoreLevel, ...]


def is_ignored(levels: Levels, rel: str, is_dir: bool) -> bool:
    """git's verdict for ``rel``: the deepest ignore file with a rule matching the
    path itself decides, and inside one file the last such rule (a ``!`` rule
    re-includes)."""
    path = os.fsencode(rel + "/" if is_dir else rel)  # the name's own bytes
    for level in reversed(levels):
        verdict = level.rules.verdict(level.lead + path[level.cut :])
        if verdict is not None:
            return verdict
    return False


def read_ignore_file(path: str) -> IgnoreRules | None:
    """The rules of the .gitignore file at ``path``; None if it has none or is not a
    regular file (a FIFO named .gitignore must not hold up a walk)."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, _MAX_IGNORE_FILE)
    except OSError:
        return None
    finally:
        os.close(fd)
    return compile_ignore_lines(raw.decode("utf-8", "replace").splitlines())


def compile_ignore_lines(lines: list[str]) -> IgnoreRules | None:
    """Rules from .gitignore lines; lines that are not valid patterns are skipped,
    as git skips them."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    rules: list[tuple[bytes, bool]] = []
    for line in lines:
        try:
            regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
        except Exception:  # pathspec raises several kinds for an invalid line
            continue
        if regex is None or include is None:
            continue  # a comment, a blank line, or a pattern git would never match
        exact = _exact_regex(regex, line)
        if exact is not None:
            rules.append((exact.encode(), include))
    sets: list[_RuleSet] = []
    for start in range(0, len(rules), _RULES_PER_SET):
        _compile_sets(rules[start : start + _RULES_PER_SET], sets)
    return IgnoreRules(sets) if sets else None


def _compile_sets(rules: list[tuple[bytes, bool]], sets: list[_RuleSet]) -> None:
    """Append ``rules`` to ``sets`` as one RE2 set, or, if RE2 finds them too big
    together, as several; a single rule too big for RE2 is dropped."""
    compiled = _compile_set(rules)
    if compiled is not None:
        sets.append(compiled)
    elif len(rules) > 1:
        half = len(rules) // 2
        _compile_sets(rules[:half], sets)
        _compile_sets(rules[half:], sets)


def _compile_set(rules: list[tuple[bytes, bool]]) -> _RuleSet | None:
    import re2

    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    options.dot_nl = True  # a file name may hold a newline; "*" matches it in git
    # git matches bytes: "?" is one byte, so "n?.txt" does not match a name whose
    # second character takes several bytes, and names that are not UTF-8 match too.
    # The rules' own UTF-8 text then reads as the same bytes.
    options.encoding = re2.Options.Encoding.LATIN1
    matcher = re2._re2.Set(re2._re2.RE2.Anchor.UNANCHORED, options)
    ignores = []
    for regex, include in rules:
        if matcher.Add(regex) >= 0:  # one RE2 refuses is dropped, as an invalid line
            ignores.append(include)
    if not ignores or not matcher.Compile():
        return None
    return matcher, tuple(ignores)


# How pathspec ends the regular expression of a rule (it matches the path or any
# path below it): the last component is the path's own name, file or directory;
# or only a directory's name; or, with nothing after it, anything below.
_NAME_END = "(?:(?P<ps_d>/)|$)"
_DIRECTORY_END = "(?P<ps_d>/)"


def _exact_regex(regex: str, line: str) -> str | None:
    """A regular expression matching exactly the paths ``line``'s rule names, given
    pathspec's ``regex`` for it; None for a form this does not know."""
    if regex.endswith(_NAME_END):
        return regex[: -len(_NAME_END)] + "/?$"
    if regex.endswith(_DIRECTORY_END):
        body = regex[: -len(_DIRECTORY_END)]
        text = line if line.endswith("\\ ") else line.rstrip()
        if body and text.endswith("/**/"):
            # "x/**/": the directories below x (pathspec writes it as "x/").
            return body + "/.+/$"
        return body + "/$"
    if regex.endswith("/"):  # "x/**": everything below x, not x itself
        return regex + ".+$"
    if regex == ".":  # "*", "**": everything
        return regex
    return None


def _repository_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` holding a ``.git`` entry."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ancestor_levels(root: str, scope: PathScope) -> Levels:
    """The ignore rules that reach ``root`` from above: the .gitignore files of its
    ancestors, from the enclosing repository's root down to its parent.

    Outside a repository no ancestor applies. The root itself is never tested
    against them: someone who searches inside an ignored ``build/`` on purpose gets
    it searched, as with ripgrep, and every other rule still applies below it (a
    ``*.log`` of the repository still hides ``build/x.log``).
    """
    repo = _repository_root(root)
    if repo is None or repo == root:
        return ()
    chain = []
    directory = os.path.dirname(root)
    while True:
        chain.append(directory)
        if directory == repo:
            break
        directory = os.path.dirname(directory)
    levels: list[_IgnoreLevel] = []
    for directory in reversed(chain):  # the repository root first
        ignore_file = os.path.join(directory, ".gitignore")
        if not scope.permits(os.path.realpath(ignore_file)):
            continue
        rules = read_ignore_file(ignore_file)
        if rules is not None:
            lead = os.fsencode(os.path.relpath(root, directory) + "/")
            levels.append(_IgnoreLevel(rules, lead, 0))
    return tuple(levels)


#: What the walk yields per entry: ``(rel, is_dir, entry)``. ``rel`` is the display
#: path below the root, ``/``-joined; ``is_dir`` the entry's type after following a
#: symlink; ``entry`` the ``os.DirEntry``: its ``path`` is the one to open (through
#: any followed symlinked directory), its ``stat()`` is cached. A plain tuple: a walk
#: makes tens of thousands of them.
Found = tuple[str, bool, os.DirEntry[str]]


def _sorted_entries(directory: str) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)
    except OSError:
        return None  # unreadable or vanished: skipped like git would
    entries.sort(key=_BY_NAME)
    # Name order is the order of the names' bytes, as git and ripgrep have it. For
    # ASCII names it is the order of the strings; not so once a name holds a byte
    # that is not UTF-8 (a lone surrogate, between U+D7FF and U+E000) or a
    # character past U+FFFF.
    if not "".join(map(_BY_NAME, entries)).isascii():
        entries.sort(key=_name_bytes)
    return entries


_BY_NAME = attrgetter("name")


def _name_bytes(entry: os.DirEntry[str]) -> bytes:
    return os.fsencode(entry.name)


@dataclass(slots=True)
class _Frame:
    entries: Iterator[os.DirEntry[str]]
    prefix: str  # display path of this directory plus "/", "" at the root
    real: str  # symlink-free path of this directory, with a trailing "/"
    levels: Levels


def walk(
    root: str,
    scope: PathScope,
    *,
    follow_symlinks: bool,
    names: Callable[[str], object] | None = None,
    stop: Stop | None = None,
) -> Iterator[Found]:
    """Every entry below the directory ``root`` (resolved, in scope), depth first,
    entries of each directory in name order, subject to the skips in the module doc.

    Directories are yielded before their contents. With ``follow_symlinks`` a
    symlinked directory is entered unless its real path was already entered (cycles,
    duplicates) or is out of scope; without it, it is yielded and not entered.
    ``names``, when given, is a cheap pre-filter on entry names: entries it rejects
    are not yielded (directories are still entered), which spares the caller most
    of the walk's work in a name search. The walk raises
    :class:`~boris.search.matching.Stopped` soon after ``stop`` is set.
    """
    entries = _sorted_entries(root)
    if entries is None:
        return
    visited = {root}
    levels = _with_ignore_file(ancestor_levels(root, scope), root, "", entries)
    stack = [_Frame(iter(entries), "", root.rstrip("/") + "/", levels)]
    denies = scope.denies if scope.deny_patterns else None
    skipped = SKIPPED_NAMES
    while stack:
        frame = stack[-1]
        prefix, parent, levels = frame.prefix, frame.real, frame.levels
        for entry in frame.entries:
            name = entry.name
            if name in skipped or (denies is not None and denies(parent + name)):
                continue
            if entry.is_symlink():
                target = _symlink_target(entry, scope)
                if target is None:
                    continue
                is_dir = entry.is_dir()
                enter = is_dir and follow_symlinks
                real_dir = target
            else:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    continue
                enter = is_dir
                real_dir = parent + name if is_dir else ""
            wanted = names is None or names(name)
            if not (wanted or enter):
                continue
            rel = prefix + name
            if levels and is_ignored(levels, rel, is_dir):
                continue
            if wanted:
                yield rel, is_dir, entry
            # Each real directory is entered once: a symlink cycle ends there.
            if not enter or real_dir in visited:
                continue
            visited.add(real_dir)
            check(stop)
            children = _sorted_entries(entry.path)
            if children is None:
                continue
            child_prefix = rel + "/"
            child_levels = _with_ignore_file(levels, entry.path, child_prefix, children)
            stack.append(_Frame(iter(children), child_prefix, real_dir + "/", child_levels))
            break
        else:
            stack.pop()


def _symlink_target(entry: os.DirEntry[str], scope: PathScope) -> str | None:
    """The real path behind a symlink if it exists, is a file or directory and is in
    scope; None to skip the entry."""
    try:
        mode = entry.stat().st_mode
    except OSError:
        return None  # broken link
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        return None
    try:
        return scope.resolve(entry.path, "/")  # resolved in full, then checked
    except BorisError:
        return None


def _with_ignore_file(
    levels: Levels, directory: str, prefix: str, entries: list[os.DirEntry[str]]
) -> Levels:
    """The levels that apply inside ``directory``: its parent's plus its own
    .gitignore. A directory holding ``.git`` is a repository of its own, and the
    rules of the directories above it do not reach into it (as with git and
    ripgrep), whichever directory the walk started from."""
    ignore_file = None
    for entry in entries:
        name = entry.name
        if name == ".git":
            if _exists(entry):
                levels = ()
        elif name == ".gitignore":
            ignore_file = entry
    if ignore_file is None or not ignore_file.is_file():
        return levels
    rules = read_ignore_file(ignore_file.path)
    if rules is None:
        return levels
    return (*levels, _IgnoreLevel(rules, b"", len(os.fsencode(prefix))))


def _exists(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir() or entry.is_file()  # through a symlink, as os.path.exists
    except OSError:
        return False


_Found = TypeVar("_Found")


def newest_first(found: Iterable[tuple[_Found, int]]) -> list[_Found]:
    """What a walk found, by modification time (``st_mtime_ns``), newest first; equal
    times keep walk order (the sort is stable)."""
    return [item for item, _ in sorted(found, key=lambda pair: -pair[1])]
