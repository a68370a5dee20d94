"""A gitignore line as a regular expression (boris/search/gitignore_regex.py): the forms of
pathspec's translation that the module rewrites, pinned, and the rewritten rules checked
against git itself (``git check-ignore``), the independent oracle.

When pathspec changes a form, test_pathspec_still_writes_each_form fails on the line of
that form: read the module's docstring and docs/DEVELOPING.md "Upgrading google-re2 and pathspec".
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from boris.search.gitignore_regex import rule_regex
from boris.search.ignores import compile_ignore_lines
from tests.support.trees import write_tree

#: (line, pathspec's regex for it, include): one line of each ending the module knows,
#: and of the syntax before it that RE2 then reads (classes, escapes, ``**``).
PATHSPEC_FORMS: list[tuple[str, str | None, bool | None]] = [
    # a name, of a file or a directory
    ("x", "^(?:.+/)?x(?:(?P<ps_d>/)|$)", True),
    ("/x", "^x(?:(?P<ps_d>/)|$)", True),
    ("a/*.log", "^a/[^/]*\\.log(?:(?P<ps_d>/)|$)", True),
    ("a/**/c.log", "^a(?:/.+)?/c\\.log(?:(?P<ps_d>/)|$)", True),
    ("[a-c].lo?", "^(?:.+/)?[a-c]\\.lo[^/](?:(?P<ps_d>/)|$)", True),
    ("[!a]x", "^(?:.+/)?[^a]x(?:(?P<ps_d>/)|$)", True),
    ("sp\\ ace", "^(?:.+/)?sp\\ ace(?:(?P<ps_d>/)|$)", True),
    ("trail   ", "^(?:.+/)?trail(?:(?P<ps_d>/)|$)", True),
    ("!x", "^(?:.+/)?x(?:(?P<ps_d>/)|$)", False),
    # a directory's name
    ("build/", "^(?:.+/)?build(?P<ps_d>/)", True),
    ("x/**/", "^x(?P<ps_d>/)", True),
    ("*/", "(?P<ps_d>/)", True),
    ("**/", "(?P<ps_d>/)", True),
    # everything below
    ("build/**", "^build/", True),
    ("**/a/**", "^(?:.+/)?a/", True),
    ("**/*/**", "/", True),
    # everything
    ("*", ".", True),
    ("**", ".", True),
    # no rule
    ("# comment", None, None),
    ("", None, None),
    ("/", None, None),
]


@pytest.mark.parametrize(("line", "regex", "include"), PATHSPEC_FORMS)
def test_pathspec_still_writes_each_form(line: str, regex: str | None, include: bool) -> None:
    assert GitIgnoreSpecPattern.pattern_to_regex(line) == (regex, include)


#: (line, the rewritten regex, whether it ignores): each form's rewriting.
REWRITTEN: list[tuple[str, tuple[str, bool] | None]] = [
    ("x", ("^(?:.+/)?x/?$", True)),
    ("!x", ("^(?:.+/)?x/?$", False)),
    ("build/", ("^(?:.+/)?build/$", True)),
    ("x/**/", ("^x/.+/$", True)),
    ("*/", ("/$", True)),
    ("build/**", ("^build/.+$", True)),
    ("**/*/**", ("/.+$", True)),
    ("*", (".", True)),
    ("# comment", None),
    ("x[", None),  # pathspec refuses it, as git skips it
]


@pytest.mark.parametrize(("line", "expected"), REWRITTEN)
def test_each_form_is_rewritten_to_match_the_path_itself(
    line: str, expected: tuple[str, bool] | None
) -> None:
    assert rule_regex(line) == expected


# --- against git ----------------------------------------------------------------------

#: The tree the rules are checked on: files, and directories (ending in "/").
TREE = [
    "x", "a/x", "a/b/x/", "a/b/x/f", "xy", "a/c.log", "a/d/c.log", "a/d/e/c.log",
    "c.log", "b.log", "d.log", "c.lop", "build/", "build/out.o", "build/sub/",
    "build/sub/y", "src/build", "src/build2/", "docs/x/y/z/", "docs/z", "sp ace",
    "trail", "#hash", "!bang", "bx", "ax", "a/", "a/b/", "a/d/", "a/d/e/", "src/",
    "docs/", "docs/x/", "docs/x/y/", "n\u00e9.txt", "nx.txt",
]  # fmt: skip

#: Lines checked against git: every form, and the syntax inside them.
GIT_LINES = [
    "x", "/x", "x/", "a/x", "*.log", "a/*.log", "a/**/c.log", "**/c.log", "build/",
    "build/**", "build/**/", "**/sub", "*/", "**/", "*", "**", "**/*/**", "x/**/",
    "docs/**/z", "[a-c].log", "c.lo?", "\\#hash", "\\!bang", "sp\\ ace", "trail   ",
    "[!a]x", "a/**", "**/a/**", "src/build", "n?.txt", "*.txt",
]  # fmt: skip

#: git with no configuration but the repository's own (no global excludes file).
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "LC_ALL": "C",
}


def git_ignored(repo: Path, gitignore: str, paths: list[str]) -> set[str]:
    """The ``paths`` that ``git check-ignore`` reports ignored under ``gitignore``."""
    (repo / ".gitignore").write_text(gitignore)
    done = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", "--stdin", "-z"],
        input=b"".join(os.fsencode(path) + b"\0" for path in paths),
        capture_output=True,
        env=GIT_ENV,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: none is ignored
    return {os.fsdecode(path) for path in done.stdout.split(b"\0") if path}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(root)], env=GIT_ENV, check=True, timeout=60)
    write_tree(root, dict.fromkeys(TREE, ""))
    return root


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git, the oracle")
@pytest.mark.parametrize("line", GIT_LINES)
def test_a_rule_ignores_what_git_ignores(repo: Path, line: str) -> None:
    """A rule matches exactly the paths git's rule matches itself.

    git reports a path inside an ignored directory as ignored too, whichever rule did
    it. Files are therefore asked with ``!*/`` after the line (no directory is then
    ignored, so the line alone decides a file), and directories with the line alone,
    skipping those below a directory it ignores (the walk never gets there).
    """
    rules = compile_ignore_lines([line])
    assert rules is not None

    def ours(path: str) -> bool:
        return rules.verdict(os.fsencode(path)) is True

    files = [path for path in TREE if not path.endswith("/")]
    directories = [path.rstrip("/") for path in TREE if path.endswith("/")]
    assert {f for f in files if ours(f)} == git_ignored(repo, f"{line}\n!*/\n", files)
    ignored = git_ignored(repo, f"{line}\n", directories)
    reached = [d for d in directories if not any(d.startswith(i + "/") for i in ignored)]
    assert {d for d in reached if ours(d + "/")} == ignored & set(reached)
