"""Ignore files: which entries the walk leaves out, decided as ripgrep decides it.

Four sources of rules, all in git's pattern syntax:

- git's own: the ``.gitignore`` files of a repository's directories and the
  repository's ``info/exclude``. They end at a repository's edge: a directory holding
  ``.git`` is a repository of its own, out of reach of the rules above it. Above the
  searched directory they apply only inside its repository, up to the root; inside
  the searched tree they apply with or without one.
- ``.ignore`` and ``.rgignore`` files, read by ripgrep (and fd, ag) so that a tree can
  be hidden from search tools without touching git's rules. They apply in every
  directory, inside a repository or not, across a nested repository's edge, and
  those of every ancestor of the searched directory apply too.

A path's verdict comes from the highest source with a rule matching the path itself:
``.rgignore`` over ``.ignore`` over ``.gitignore`` over ``info/exclude``, whatever
directories the files are in (a ``!a.txt`` in a top-level ``.ignore`` re-includes an
``a.txt`` that a deeper ``.gitignore`` ignores). Among the files of one source the
deepest with a matching rule decides; inside one file the last matching rule (a ``!``
rule re-includes).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from boris.files.scope import PathScope
from boris.search.file_text import OPEN_FLAGS
from boris.search.gitignore_regex import rule_regex

#: The largest ignore file read; a bigger one is not a real ignore file.
_MAX_IGNORE_FILE = 1 << 20

#: The sources of rules, lowest precedence first.
EXCLUDE, GITIGNORE, DOT_IGNORE, RGIGNORE = range(4)

#: The ignore files a directory may hold, by name.
IGNORE_FILES = {".gitignore": GITIGNORE, ".ignore": DOT_IGNORE, ".rgignore": RGIGNORE}

#: The names a directory's listing is scanned for; in name order nothing after the
#: last of them can be one.
_LAST_NAME = max([*IGNORE_FILES, ".git"])

#: A ``.git`` file (a linked worktree, a submodule) is one short line.
_MAX_GIT_FILE = 1 << 12

#: A compiled RE2 set and, per rule in it: True ignores, False re-includes ("!").
_RuleSet = tuple[Any, tuple[bool, ...]]


class IgnoreRules:
    """The rules of one ignore file, each matching a path exactly.

    git and ripgrep test every path against the rules on its own: a rule that
    matches a directory says nothing about the paths inside it (the walk simply
    does not enter an ignored directory). Each line becomes a regular expression
    that matches the path itself rather than the path or anything below it
    (boris.search.gitignore_regex), so that, say, a ``!build/`` in a deeper file
    does not re-include every file inside a ``build`` directory that a parent's
    ``*.log`` ignores.

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
            hits: list[int] | None = matcher.Match(path)
            if hits:
                return ignores[max(hits)]
        return None


#: Rules per RE2 set at most (see IgnoreRules); a set too big to compile is halved.
_RULES_PER_SET = 1000


@dataclass(frozen=True, slots=True)
class _IgnoreLevel:
    """The rules of one ignore file, its source, and how to phrase a path relative
    to the directory the rules are relative to.

    A path ``rel`` (relative to the walk root, as bytes) is checked as
    ``lead + rel[cut:]``: for an ignore file inside the walk ``cut`` strips the
    directory's own prefix; for an ancestor of the root ``lead`` prepends the
    root's path below that ancestor.
    """

    rules: IgnoreRules
    lead: bytes
    cut: int
    source: int  # EXCLUDE, GITIGNORE, DOT_IGNORE or RGIGNORE


#: The levels in force in a directory, in increasing precedence: by source, then
#: from the shallowest directory to the deepest.
Levels = tuple[_IgnoreLevel, ...]

_SOURCE = attrgetter("source")


def is_ignored(levels: Levels, rel: str, is_dir: bool) -> bool:
    """The verdict for ``rel`` (see the module doc): the level of highest precedence
    with a rule matching the path itself decides."""
    path = os.fsencode(rel + "/" if is_dir else rel)  # the name's own bytes
    for level in reversed(levels):
        verdict = level.rules.verdict(level.lead + path[level.cut :])
        if verdict is not None:
            return verdict
    return False


def _with_levels(levels: Levels, added: list[_IgnoreLevel]) -> Levels:
    """``levels`` and the ``added`` ones of a deeper directory, in precedence order
    (the sort is stable: within a source, deeper comes later)."""
    if not added:
        return levels
    return tuple(sorted((*levels, *added), key=_SOURCE))


def _read_small_file(path: str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of the regular file at ``path``; None if it cannot be
    read or is not a regular file (a FIFO named .gitignore must not hold up a walk)."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_ignore_file(path: str) -> IgnoreRules | None:
    """The rules of the ignore file at ``path``; None if it has none or cannot be read."""
    raw = _read_small_file(path, _MAX_IGNORE_FILE)
    if raw is None:
        return None
    return compile_ignore_lines(raw.decode("utf-8", "replace").splitlines())


def compile_ignore_lines(lines: list[str]) -> IgnoreRules | None:
    """Rules from ignore file lines; lines that are not valid patterns are skipped,
    as git skips them."""
    rules: list[tuple[bytes, bool]] = []
    for line in lines:
        rule = rule_regex(line)
        if rule is not None:
            regex, ignores = rule
            rules.append((regex.encode(), ignores))
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
    matcher = re2.Set.SearchSet(options)
    ignores = []
    for regex, include in rules:
        try:
            matcher.Add(regex)
        except re2.error:
            continue  # one RE2 refuses is dropped, as an invalid line
        ignores.append(include)
    if not ignores:
        return None
    try:
        matcher.Compile()
    except re2.error:  # over RE2's memory budget
        return None
    return matcher, tuple(ignores)


# --- repositories ----------------------------------------------------------------------


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


def _exclude_rules(git: str, scope: PathScope) -> IgnoreRules | None:
    """The rules of the ``info/exclude`` file of the repository whose ``.git`` is at
    ``git``, if that file is in scope.

    ``.git`` is the repository's directory, or, in a linked worktree, a file naming
    the worktree's own directory (``gitdir: <path>``), whose ``commondir`` names the
    repository's, where the exclude file is. As with ripgrep, a ``.git`` file without
    a ``commondir`` behind it (a submodule's) brings no exclude file.
    """
    if os.path.isdir(git):
        exclude = os.path.join(git, "info", "exclude")
    else:
        raw = _read_small_file(git, _MAX_GIT_FILE)
        first = os.fsdecode(raw.partition(b"\n")[0]) if raw else ""
        if not first.startswith("gitdir:"):
            return None
        git_dir = os.path.join(os.path.dirname(git), first[len("gitdir:") :].strip())
        common = _read_small_file(os.path.join(git_dir, "commondir"), _MAX_GIT_FILE)
        if not common or not common.strip():
            return None
        exclude = os.path.join(git_dir, os.fsdecode(common.strip()), "info", "exclude")
    if not os.path.lexists(exclude) or not scope.permits(os.path.realpath(exclude)):
        return None
    return read_ignore_file(exclude)


# --- the levels in force -----------------------------------------------------------------


def ancestor_levels(root: str, scope: PathScope) -> Levels:
    """The ignore rules that reach ``root`` from above: the ``.ignore`` and
    ``.rgignore`` files of all its ancestors; inside a repository also the
    ``.gitignore`` files of the ancestors up to the repository's root, and its
    ``info/exclude``. A file out of scope is not read.

    The root itself is never tested against them: someone who searches inside an
    ignored ``build/`` on purpose gets it searched, as with ripgrep, and every other
    rule still applies below it (a ``*.log`` of the repository still hides
    ``build/x.log``).
    """
    repo = _repository_root(root)
    chain = []  # the ancestors, the nearest first
    directory = root
    while (parent := os.path.dirname(directory)) != directory:
        chain.append(parent)
        directory = parent
    levels: list[_IgnoreLevel] = []
    in_repository = False
    for directory in reversed(chain):  # from "/" down
        lead = os.fsencode(os.path.relpath(root, directory) + "/")
        if directory == repo:
            in_repository = True
            rules = _exclude_rules(os.path.join(directory, ".git"), scope)
            if rules is not None:
                levels.append(_IgnoreLevel(rules, lead, 0, EXCLUDE))
        for name, source in IGNORE_FILES.items():
            if source == GITIGNORE and not in_repository:
                continue
            ignore_file = os.path.join(directory, name)
            if not os.path.lexists(ignore_file):
                continue
            if not scope.permits(os.path.realpath(ignore_file)):
                continue
            rules = read_ignore_file(ignore_file)
            if rules is not None:
                levels.append(_IgnoreLevel(rules, lead, 0, source))
    return _with_levels((), levels)


def levels_inside(
    levels: Levels,
    directory: str,
    prefix: str,
    entries: list[os.DirEntry[str]],
    scope: PathScope,
) -> Levels:
    """The levels in force inside ``directory``: its parent's ``levels`` plus its own
    ignore files. ``entries`` is its listing, in name order; ``prefix`` its path
    below the walk root (``""`` or ending in ``/``).

    A directory holding ``.git`` is a repository of its own: git's rules from the
    directories above it do not reach into it, whichever directory the walk started
    from (as with git and ripgrep), and its ``info/exclude`` applies. An ignore file
    that is a symlink to a file out of scope is not read.
    """
    found: list[tuple[int, os.DirEntry[str]]] = []
    git = None
    for entry in entries:
        name = entry.name
        if name > _LAST_NAME:
            break  # the listing is in name order: no ignore file follows
        source = IGNORE_FILES.get(name)
        if source is not None:
            found.append((source, entry))
        elif name == ".git" and _exists(entry):
            git = entry
    if git is None and not found:
        return levels
    cut = len(os.fsencode(prefix))
    added: list[_IgnoreLevel] = []
    if git is not None:
        levels = tuple(level for level in levels if level.source > GITIGNORE)
        rules = _exclude_rules(git.path, scope)
        if rules is not None:
            added.append(_IgnoreLevel(rules, b"", cut, EXCLUDE))
    for source, entry in found:
        if not entry.is_file():
            continue
        if entry.is_symlink() and not scope.permits(os.path.realpath(entry.path)):
            continue  # an ignore file linked from out of scope is not read
        rules = read_ignore_file(entry.path)
        if rules is not None:
            added.append(_IgnoreLevel(rules, b"", cut, source))
    return _with_levels(levels, added)


def _exists(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir() or entry.is_file()  # through a symlink, as os.path.exists
    except OSError:
        return False
