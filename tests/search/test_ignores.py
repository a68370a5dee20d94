"""Ignore files as the walk reads them (boris/search/ignores.py, through
boris.search.walk): comments, negations and directory rules, precedence between files,
their reach above the root and across repositories, what is not read. The walk is called
directly; tests/tools/test_grep_files.py checks the same rules through a client and
tests/search/test_rg_agreement.py against ripgrep.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boris.files.scope import PathScope
from boris.search.ignores import compile_ignore_lines
from tests.support.trees import walk_entries as entries
from tests.support.trees import write_tree


def test_gitignore_comments_negation_and_directory_rules(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".gitignore": "# a comment line\n*.log\n!keep.log\nbuild/\n/root-only.txt\n",
            "a.log": "",
            "keep.log": "",
            "build/out.txt": "",
            "src/build": "a file named build: the trailing / rule does not apply",
            "root-only.txt": "",
            "src/root-only.txt": "",
            "# a comment line": "",
        },
    )
    assert entries(tmp_path) == [
        "# a comment line",
        ".gitignore",
        "keep.log",
        "src/",
        "src/build",
        "src/root-only.txt",
    ]


def test_nested_gitignore_overrides_its_parent(tmp_path: Path) -> None:
    # The deeper file wins: sub/ re-includes one log, and ignores its own *.txt.
    write_tree(
        tmp_path,
        {
            ".gitignore": "*.log\n",
            "top.log": "",
            "sub/.gitignore": "!important.log\n*.txt\n",
            "sub/important.log": "",
            "sub/other.log": "",
            "sub/notes.txt": "",
            "other/notes.txt": "",
        },
    )
    assert entries(tmp_path) == [
        ".gitignore",
        "other/",
        "other/notes.txt",
        "sub/",
        "sub/.gitignore",
        "sub/important.log",
    ]


def test_invalid_gitignore_lines_are_skipped(tmp_path: Path) -> None:
    # Lines pathspec (or git) cannot read are dropped; the valid rules still apply.
    write_tree(
        tmp_path,
        {
            # RE2 refuses "[z-a]": the rules on either side of it still apply.
            ".gitignore": "*.tmp\n\\\n!\n[z-a]\n[[:alpha:]]\n*.log\n",
            "a.log": "",
            "a.tmp": "",
            "b.txt": "",
        },
    )
    assert entries(tmp_path) == [".gitignore", "b.txt"]
    (tmp_path / ".gitignore").write_bytes(b"\xff\xfe*.txt\n")  # not UTF-8
    assert entries(tmp_path) == [".gitignore", "a.log", "a.tmp", "b.txt"]


def test_every_rule_of_a_long_gitignore_applies(tmp_path: Path) -> None:
    """A .gitignore of tens of thousands of rules (under the 1 MB read) is applied
    whole, the last matching rule deciding, however many rules RE2 can hold at once."""
    rules = [f"/never{n}/*.tmp" for n in range(30_000)]
    rules[10] = "*.log"
    rules[15_000] = "!keep.log"
    rules[-1] = "last.txt"
    write_tree(tmp_path, {"a.log": "", "keep.log": "", "last.txt": "", "other.txt": ""})
    (tmp_path / ".gitignore").write_text("\n".join(rules) + "\n")
    assert entries(tmp_path) == [".gitignore", "keep.log", "other.txt"]


def test_a_file_in_an_ignored_directory_cannot_be_re_included(tmp_path: Path) -> None:
    # git does not look inside an excluded directory, so "!" below it has no effect.
    write_tree(tmp_path, {".gitignore": "dist/\n!dist/keep.js\n", "dist/keep.js": ""})
    assert entries(tmp_path) == [".gitignore"]


def test_ancestor_gitignore_applies_up_to_the_repository_root(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            ".gitignore": "*.log\n",
            "pkg/.gitignore": "generated/\n",
            "pkg/mod/a.log": "",
            "pkg/mod/a.py": "",
            "pkg/mod/generated/x.py": "",
        },
    )
    assert entries(tmp_path / "pkg" / "mod") == ["a.py"]


def test_no_ancestor_gitignore_outside_a_repository(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": "*.log\n", "pkg/a.log": ""})
    assert entries(tmp_path / "pkg") == ["a.log"]


def test_explicit_root_inside_an_ignored_directory_is_searched(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {".git/HEAD": "", ".gitignore": "build/\n", "build/gen/x.c": "", "build/.gitignore": ""},
    )
    assert entries(tmp_path / "build") == [".gitignore", "gen/", "gen/x.c"]


def test_rules_still_apply_below_a_root_inside_an_ignored_directory(tmp_path: Path) -> None:
    """Searching inside an ignored directory drops only its own exclusion: every
    other rule of the repository still applies below it."""
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            ".gitignore": "build/\n*.log\n/build/gen/skip.c\n",
            "build/x.log": "",
            "build/y.txt": "",
            "build/gen/skip.c": "",
            "build/gen/keep.c": "",
        },
    )
    assert entries(tmp_path / "build") == ["gen/", "gen/keep.c", "y.txt"]
    assert entries(tmp_path / "build" / "gen") == ["keep.c"]


def test_a_rule_matches_a_path_itself_not_the_paths_below_it(tmp_path: Path) -> None:
    """A rule decides about the paths it matches; a "!dir/" that re-includes a
    directory does not re-include the files inside it that another rule ignores."""
    write_tree(
        tmp_path,
        {
            ".gitignore": "*.txt\nfoo/\n",
            "sub/.gitignore": "!foo/\n",
            "sub/foo/a.txt": "",
            "sub/foo/b.md": "",
        },
    )
    assert entries(tmp_path) == [".gitignore", "sub/", "sub/.gitignore", "sub/foo/", "sub/foo/b.md"]


def test_directory_rules_with_globstars(tmp_path: Path) -> None:
    """ "x/**" ignores everything below x but not x; "x/**/" only the directories
    below x; "*/**" everything at least two levels down."""
    write_tree(tmp_path, {"a/f": "", "a/d/g": "", "b/f": "", "b/d/g": "", "c/f": "", "c/d/": ""})
    (tmp_path / ".gitignore").write_text("a/**\nb/**/\n")
    assert entries(tmp_path) == [".gitignore", "a/", "b/", "b/f", "c/", "c/d/", "c/f"]
    (tmp_path / ".gitignore").write_text("*/**\n")
    assert entries(tmp_path) == [".gitignore", "a/", "b/", "c/"]


def test_a_nested_repository_is_not_reached_by_the_outer_rules(tmp_path: Path) -> None:
    """A directory holding .git is a repository of its own: the .gitignore files
    above it do not apply inside it, whichever directory the search starts from."""
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            ".gitignore": "*.log\n",
            "top.log": "",
            "sub/.git/HEAD": "",
            "sub/x.log": "",
            "sub/.gitignore": "*.tmp\n",
            "sub/deep/y.log": "",
            "sub/deep/z.tmp": "",
            "wt/.git": "gitdir: elsewhere",  # a worktree or submodule: .git is a file
            "wt/w.log": "",
        },
    )
    assert entries(tmp_path) == [
        ".gitignore",
        "sub/",
        "sub/.gitignore",
        "sub/deep/",
        "sub/deep/y.log",
        "sub/x.log",
        "wt/",
        "wt/w.log",
    ]
    assert entries(tmp_path / "sub") == [".gitignore", "deep/", "deep/y.log", "x.log"]
    assert entries(tmp_path / "sub" / "deep") == ["y.log"]


def test_an_ignore_file_that_is_a_fifo_is_not_read(tmp_path: Path) -> None:
    # Opening a FIFO for reading blocks until a writer comes: no walk may wait on
    # one, whether it sits in the tree or above the root.
    write_tree(tmp_path, {".git/HEAD": "", "sub/a.txt": ""})
    names = [".gitignore", ".ignore", ".rgignore"]
    for name in names:
        os.mkfifo(tmp_path / name)
        os.mkfifo(tmp_path / "sub" / name)
    os.mkfifo(tmp_path / ".git" / "info")  # where a directory holds the exclude file
    assert entries(tmp_path) == [*names, "sub/", *(f"sub/{n}" for n in names), "sub/a.txt"]
    assert entries(tmp_path / "sub") == [*names, "a.txt"]


def test_ignore_files_among_names_that_sort_around_them(tmp_path: Path) -> None:
    """A directory's ignore files are found whatever names sort before and after
    them, in ASCII or not."""
    names = ["!a", "+b", "-c", ".a", ".git~", ".gitignorex", ".h", ".rgignorex", "z", "\u00e9"]
    write_tree(
        tmp_path,
        {
            **dict.fromkeys(names, ""),
            ".gitignore": "-c\n",
            ".ignore": ".gitignorex\n",
            ".rgignore": ".rgignorex\n\u00e9\n",
        },
    )
    (tmp_path / os.fsdecode(b"\xff")).write_text("")
    assert entries(tmp_path) == ["!a", "+b", ".a", ".gitignore", ".git~", ".h", ".ignore",
                                 ".rgignore", "z", os.fsdecode(b"\xff")]  # fmt: skip


def test_ignore_files_out_of_scope_are_not_read(tmp_path: Path) -> None:
    """Ignore files above the allowed directories, an exclude file a worktree's .git
    leads out of them to, and an ignore file linked from out of them are not read."""
    write_tree(
        tmp_path,
        {
            ".ignore": "*.tmp\n",
            "outside/.git/info/exclude": "*.log\n",
            "outside/.git/worktrees/wt/commondir": "../..\n",
            "outside/rules": "*.txt\n",
            "allowed/wt/.git": "gitdir: ../../outside/.git/worktrees/wt\n",
            "allowed/wt/a.log": "",
            "allowed/wt/a.tmp": "",
            "allowed/wt/a.txt": "",
        },
    )
    wt = tmp_path / "allowed" / "wt"
    (wt / ".rgignore").symlink_to(tmp_path / "outside" / "rules")
    assert entries(wt) == [".rgignore"]
    allowed = PathScope([str(tmp_path / "allowed")], [])
    assert entries(wt, allowed) == ["a.log", "a.tmp", "a.txt"]  # the link is skipped too


def test_gitignore_rules_match_the_names_bytes(tmp_path: Path) -> None:
    """As in git, a .gitignore rule is matched against a name's bytes: "?" is one byte,
    so it does not stand for a character that takes several; a rule's own non-ASCII
    text matches the same text in a name; a name that is not UTF-8 can be ignored."""
    write_tree(
        tmp_path,
        {
            ".gitignore": "n?.txt\ncafé*\nold?.log\n",
            "n\U0001f600.txt": "",  # four bytes after "n": not ignored
            "na.txt": "",
            "café.md": "",
            "cafe.md": "",
        },
    )
    (tmp_path / os.fsdecode(b"old\xe9.log")).write_text("")  # one byte: ignored
    assert entries(tmp_path) == [".gitignore", "cafe.md", "n\U0001f600.txt"]


def test_anchored_rules_below_the_root_are_relative_to_their_directory(tmp_path: Path) -> None:
    """A nested repository's info/exclude and a subdirectory's .gitignore, met on the
    way down, are read relative to their own directory, as git check-ignore inside it
    and ripgrep from above read them."""
    write_tree(
        tmp_path,
        {
            "inner/.git/info/exclude": "/a.txt\n",
            "inner/a.txt": "",
            "inner/d/a.txt": "",
            "inner/d/.gitignore": "/b.txt\n",
            "inner/d/b.txt": "",
            "inner/d/e/b.txt": "",
        },
    )
    assert entries(tmp_path) == [
        "inner/",
        "inner/d/",
        "inner/d/.gitignore",
        "inner/d/a.txt",
        "inner/d/e/",
        "inner/d/e/b.txt",
    ]


def test_ignore_files_after_one_not_read_still_apply(tmp_path: Path) -> None:
    """A .gitignore that is a directory, or a link out of scope, is skipped: the
    .ignore and .rgignore beside it are still read, in the tree and above the root."""
    write_tree(
        tmp_path,
        {
            "outside/rules": "*.txt\n",
            "allowed/.git/HEAD": "",
            "allowed/.ignore": "*.log\n",
            "allowed/linked/.ignore": "*.tmp\n",
            "allowed/linked/sub/a.log": "",
            "allowed/linked/sub/a.tmp": "",
            "allowed/linked/sub/a.txt": "",
            "allowed/dir/.gitignore/x": "",
            "allowed/dir/.rgignore": "*.tmp\n",
            "allowed/dir/a.tmp": "",
            "allowed/dir/a.txt": "",
        },
    )
    allowed = tmp_path / "allowed"
    (allowed / ".gitignore").symlink_to(tmp_path / "outside" / "rules")
    (allowed / "linked" / ".gitignore").symlink_to(tmp_path / "outside" / "rules")
    scope = PathScope([str(allowed)], [])
    assert entries(allowed / "linked" / "sub", scope) == ["a.txt"]
    assert entries(allowed, scope) == [  # the links out of scope are not listed either
        ".ignore",
        "dir/",
        "dir/.gitignore/",
        "dir/.gitignore/x",
        "dir/.rgignore",
        "dir/a.txt",
        "linked/",
        "linked/.ignore",
        "linked/sub/",
        "linked/sub/a.txt",
    ]


def test_a_worktrees_git_file_is_read_by_its_first_line(tmp_path: Path) -> None:
    """A linked worktree's .git file leads to the repository's info/exclude by its
    first line, whether or not a newline ends it and whatever lines follow (as
    ripgrep reads it), from the worktree itself or from above it."""
    write_tree(
        tmp_path,
        {
            "repo/.git/info/exclude": "*.log\n",
            "repo/.git/worktrees/wt/commondir": "../..\n",
            "wt/a.log": "",
            "wt/a.txt": "",
        },
    )
    git_dir = f"gitdir: {tmp_path / 'repo' / '.git' / 'worktrees' / 'wt'}"
    for text in (git_dir, git_dir + "\nanother line\n"):
        (tmp_path / "wt" / ".git").write_text(text)
        assert entries(tmp_path / "wt") == ["a.txt"]
        assert entries(tmp_path) == ["repo/", "wt/", "wt/a.txt"]


def test_a_git_fifo_above_the_root_is_not_read(tmp_path: Path) -> None:
    # A .git that is neither a directory nor a file brings no exclude file; no walk
    # waits on it or fails.
    write_tree(tmp_path, {"repo/sub/a.txt": ""})
    os.mkfifo(tmp_path / "repo" / ".git")
    assert "a.txt" in entries(tmp_path / "repo" / "sub")


def test_a_git_symlink_loop_is_no_repository(tmp_path: Path) -> None:
    """A .git that is a symlink to itself cannot be followed: its directory is no
    repository of its own, and the outer rules reach into it, as with ripgrep."""
    write_tree(
        tmp_path, {".git/HEAD": "", ".gitignore": "*.log\n", "sub/a.log": "", "sub/a.txt": ""}
    )
    (tmp_path / "sub" / ".git").symlink_to(".git")
    assert entries(tmp_path) == [".gitignore", "sub/", "sub/a.txt"]


def test_a_line_re2_refuses_writes_nothing_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    # stderr is the server's log: a bad line in some .gitignore is not an event in it.
    rules = compile_ignore_lines(["[z-a]", "*.log"])
    assert rules is not None
    assert rules.verdict(b"a.log") is True
    assert capfd.readouterr().err == ""
