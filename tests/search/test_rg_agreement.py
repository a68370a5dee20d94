"""grep and glob against ripgrep 14.1 on random trees, through a real client.

Hypothesis builds a tree (nested directories, .gitignore, .ignore and .rgignore files
with negations at several levels, repositories with an info/exclude, nested ones inside
a repository or not, hidden files, node_modules, symlinks, binary and non-UTF-8 files,
CRLF, byte order marks, ...) in a fresh directory, then asks one Boris server (the module's,
default flags) a few grep and glob questions about it and the ``rg`` of the pinned
``ripgrep`` wheel the same questions. The answers must be equal, but for the
documented differences in ``DIFFERENCES``, each normalised in one place.

How a question maps to rg (run with the search root as its working directory)::

    every call       rg --no-config --hidden --no-ignore-global --no-messages
                        -g '!.git' -g '!node_modules'
    the tree         in a repository, the tree itself; else a copy with a .git at its
                     top and without the .gitignore files above the search root (but
                     those of a nested repository holding it)
    grep             -L --sort path --regexp PATTERN (-i) (-t TYPE)
      mode           files_with_matches: -l, then newest first (ties in walk order);
                     count: -c; content: -n/-N --no-heading --with-filename,
                     -B/-A the context of each side
      multiline      -U --multiline-dotall; otherwise --crlf, and \\z as $
      include        -g is a whitelist that overrides ignore files and -t, so it is
                     applied as the files both ``rg --files`` and ``rg --files -g
                     INCLUDE`` list: ``-g '!*' -g '*/'`` then ``-g '/<file>'`` each
      a single file  its absolute path as rg's path argument
      paging         head_limit and offset slice rg's output lines
    glob (type file) rg --files -L --sort path -g PATTERN, minus what lies below a
                     symlinked directory, newest first; -g again as a whitelist

A second test asks only which files grep and glob see, on a small tree whose ignore
files of every kind and level disagree about the same names.

Profiles: CI runs a bounded number of trees; ``HYPOTHESIS_PROFILE=deep`` runs
thousands of questions (by hand: a few minutes on a 2-core machine).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.support import text_of

pytestmark = pytest.mark.anyio

RG = Path(sys.executable).parent / "rg"

#: Bugs of ripgrep 14.1 that this test steps around.
RIPGREP_BUGS = {
    "parent paths": (
        "The rules of a .gitignore above the search root that name a path (/a/b/x, "
        "a/*/x, **/b/**) are tested against a wrong path for files two or more levels "
        "below the root: rg drops the directories between."
    ),  # search_roots() avoids such roots
    "phantom context": (
        "In multiline mode, an empty match at the very end of a file (after its last "
        "newline) matches no line, yet rg prints the context lines before it."
    ),  # without_phantom_context() drops a context group that has no match line
    "resumed anchors": (
        "In multiline mode rg searches on from the end of a match as from the start of "
        "a text: there ^ and \\A match even in the middle of a line (^$\\n. over "
        "LF b LF LF c LF finds lines 1-2, and rg prints line 3 too)."
    ),  # grep_questions(): no multiline question with a start anchor
    "crlf end of text": (
        "With --crlf, \\z matches at the end of a line only if the line ends in \\r\\n "
        "or is the last without a newline: foo\\z finds nothing in foo LF bar LF. "
        "Without --crlf, rg (and Boris) match \\z at the end of every line."
    ),  # GrepQuestion.rg_pattern: without multiline, \z is $ for rg, which it equals
}

#: The documented differences from ripgrep (README, "Differences from ripgrep"),
#: each with where this test accounts for it.
DIFFERENCES = {
    "directories once": (
        "Each real directory is entered once: a symlink to a directory already "
        "entered is not followed again (ripgrep -L enters it under every name)."
    ),  # the generator: a directory link leads out of the tree, or back up it (a cycle)
    "parent ignores": (
        "The .gitignore files above the searched directory apply only inside a git "
        "repository, up to its root; those in the searched tree apply everywhere (as "
        "with rg --no-require-git)."
    ),  # rg_tree(): outside a repository, a copy with a .git at the top, and without
    # the .gitignore files above the search root
    "nested repositories": (
        "Outside a repository too, a directory holding .git is a repository of its "
        "own: the .gitignore files above it do not apply inside (rg --no-require-git "
        "applies them)."
    ),  # rg_tree(): the .git at the top of the copy makes rg stop at a nested .git
    "filters after ignores": (
        "include, type and glob's pattern choose among the files the ignore rules "
        "leave; rg's -g is a whitelist that overrides the ignore files and -t."
    ),  # expected_grep() and expected_glob(): the files rg lists without -g that it
    # also lists with it
    "global excludes": (
        "git's global excludes file (core.excludesFile) is not read."
    ),  # RG_BASE: --no-ignore-global
    "line ends": (
        "A line ends at \\n, at \\r\\n, or at a \\r that ends the file, and the \\r of a "
        "line end is not shown (ripgrep --crlf prints it, and takes any \\r as a line "
        "end for ^ and $)."
    ),  # run_rg() drops one \r before each \n; the generator writes no other \r
    "explicit file": (
        "include and type also filter a file named explicitly in path, and a binary "
        "file is skipped there too (ripgrep searches a file named on its command line "
        "whatever -g and -t say, and reports a binary one as matching)."
    ),  # the generator: no include or type, and a text file, for a single-file search
    "binary": (
        "A NUL byte anywhere makes a file binary, and it is not searched (ripgrep "
        "stops reading at the NUL but may still report what matched before it)."
    ),  # contents(): a binary file's text starts with its NUL
    "multiline count": (
        "In multiline mode count counts the lines the matches touch, as the other "
        "modes do (rg -c -U counts matches)."
    ),  # expected_count() counts the match lines of rg's content output
    "ascii classes": (
        "\\w, \\d, \\s and \\b are ASCII, as in Go (ripgrep's are Unicode)."
    ),  # the pattern pieces: rg gets (?-u:\w) for \w, and so on
    "gitignore braces": (
        "In a .gitignore, .ignore or .rgignore, { and } are literal characters, as git "
        "has them (ripgrep reads {a,b} as alternatives)."
    ),  # IGNORE_LINES has no braces
    "glob braces": (
        "In glob patterns and include, braces nest ({a,{b,c}}, which rg refuses), and "
        "braces without a comma ({c}) and a } outside braces are ordinary text (rg "
        "reads {c} as c and drops the })."
    ),  # RG_GLOBS: what rg is given for such a pattern
    "newline alternative": (
        "Without multiline, a newline written as a literal is refused also as one of "
        "single-character alternatives (x|\\n), which ripgrep merges into a class that "
        "never matches a newline."
    ),  # not generated: no alternative is a lone newline
    "glob symlinks": (
        "glob lists symlinks to files and does not enter symlinked directories "
        "(rg --files lists neither, or follows both with -L)."
    ),  # expected_glob() drops what lies below a symlinked directory
}


def rg_version_ok() -> bool:
    return (
        RG.exists()
        and b"ripgrep 14.1.0"
        in subprocess.run([str(RG), "--version"], capture_output=True, check=False).stdout
    )


# --- trees ---------------------------------------------------------------------------

DIRS = ["", "a/", "a/b/", "a/b/c/", "d/", ".hid/", "node_modules/", "a/node_modules/",
        "build/", "a/build/", "sub/", "sub/e/"]  # fmt: skip
NON_UTF8 = os.fsdecode(b"n\xff.txt")
NAMES = ["x.py", "y.txt", "z.log", "w.js", "v.vue", "c.H", "h.h", "composer.lock", ".env",
         "README.md", "data.json", NON_UTF8, "sp ace.txt", "build", "keep.log", "m.min.js",
         "noext", "t.ts", "s.yaml", "e", "n\U0001f600.txt", "{x}.txt", "a}.txt",
         "a,b"]  # fmt: skip
IGNORE_LINES = ["*.log", "!keep.log", "build/", "/y.txt", "y.txt", "a/**/z.log", "**/w.js",
                "*.txt", "!y.txt", ".*", "!.gitignore", "b/", "/a/b", "a/b/", "node_modules",
                "*.py", "!x.py", "**/build/**", "a/**", "d/**/", "*/", "# comment", "",
                "*.[hH]", "sp\\ ace.txt", "n?.txt", "x.py  ", "\\!x", "**/c", "c/", "/d", "e",
                "sub/*.js", "*.min.js", "!m.min.js", "!build/", "*", "!*/", "!*.md", "e/",
                "a/b/**", "**/"]  # fmt: skip
#: Names that cannot be a rule of their own: not UTF-8, or braces (which rg reads
#: as syntax in an ignore file, DIFFERENCES["gitignore braces"]).
ODD_NAMES = {NON_UTF8, "{x}.txt", "a}.txt", "a,b"}
TEXT_WORDS = ["foo", "bar", "Foo", "baz qux", "été", "x.y", "a\tb", "123", "", "foo bar",
              "FOO", "naïve", "é", "_w1", "foo", "o", "a", "foo", "bar foo"]  # fmt: skip
BYTE_WORDS = [b"\xff", b"caf\xe9", b"\xc3"]  # not UTF-8


#: The ignore files a directory may hold (a repository's exclude file is another).
IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"]
EXCLUDE = ".git/info/exclude"


@dataclass
class Tree:
    files: dict[str, bytes]
    ignores: dict[str, list[str]]  # an ignore file (relative to the top) → its lines
    repository: bool  # .git at the top
    nested: list[str]  # directories holding a .git of their own
    file_links: dict[str, str]  # link → file it points to (both relative to the top)
    out_link: str | None  # a directory link to a directory outside the tree
    loop_links: dict[str, str]  # link → "." or "..", back up the tree
    broken_link: str | None
    seed: int
    dirs: list[str] = field(default_factory=list)  # filled in when written


@st.composite
def contents(draw: st.DrawFn) -> bytes:
    words = st.one_of(st.sampled_from(TEXT_WORDS).map(str.encode), st.sampled_from(BYTE_WORDS))
    encoding = draw(st.sampled_from(["plain"] * 6 + ["utf8-bom", "utf16le", "utf16be"]))
    if encoding.startswith("utf16"):
        words = st.sampled_from(TEXT_WORDS).map(str.encode)
    lines = draw(st.lists(st.lists(words, max_size=3).map(b" ".join), min_size=1, max_size=6))
    ending = draw(st.sampled_from([b"\n", b"\r\n", None]))  # None: each line its own
    parts = []
    for line in lines:
        parts.append(line + (ending or draw(st.sampled_from([b"\n", b"\r\n"]))))
    data = b"".join(parts)
    if data and draw(st.booleans()):
        data = data[:-1]  # no final newline
        if data.endswith(b"\r"):
            data = data[:-1]  # no \r at the end (DIFFERENCES["line ends"])
    if encoding.startswith("utf16"):
        text = data.decode("utf-8")
        if draw(st.integers(0, 9)) == 0:
            text = "\x00" + text  # binary: DIFFERENCES["binary"]
        if encoding == "utf16le":
            return b"\xff\xfe" + text.encode("utf-16-le")
        return b"\xfe\xff" + text.encode("utf-16-be")
    if draw(st.integers(0, 9)) == 0:
        data = b"\x00" + data  # binary: DIFFERENCES["binary"]
    if encoding == "utf8-bom":
        return b"\xef\xbb\xbf" + data
    return data


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    paths = draw(
        st.lists(
            st.tuples(st.sampled_from(DIRS), st.sampled_from(NAMES)),
            min_size=5,
            max_size=20,
            unique=True,
        )
    )
    files = {d + n: draw(contents()) for d, n in paths}
    repository = draw(st.booleans())
    nested = draw(st.lists(st.sampled_from(["sub/", "a/b/"]), unique=True))
    ignore_files = st.tuples(st.sampled_from(DIRS), st.sampled_from(IGNORE_FILES)).map("".join)
    names = draw(st.lists(ignore_files, max_size=6, unique=True))
    repositories = ([""] if repository else []) + nested
    names += [d + EXCLUDE for d in repositories if draw(st.integers(0, 3)) == 0]
    # Rules that name the tree's own files and directories, ignoring or re-including
    # them, so that files of several levels and kinds often disagree about a path.
    targets = sorted({n for _, n in paths if n not in ODD_NAMES} | {"a/", "b/", "sub/", ".hid/"})
    own = st.tuples(st.sampled_from(["", "!"]), st.sampled_from(targets)).map("".join)
    lines = st.one_of(st.sampled_from(IGNORE_LINES), own)
    ignores = {name: draw(st.lists(lines, min_size=1, max_size=5)) for name in names}
    file_links: dict[str, str] = {}
    if draw(st.booleans()) and files:
        target = draw(st.sampled_from(sorted(files)))
        file_links[draw(st.sampled_from(DIRS)) + "link.txt"] = target
    out_link = draw(st.sampled_from([None, "out", "a/out", "d/out"]))
    loops = draw(st.lists(st.sampled_from(["a/self", "a/b/up", "d/self"]), unique=True))
    loop_links = {link: ("." if link.endswith("self") else "..") for link in loops}
    broken = draw(st.sampled_from([None, "broken.txt", "a/broken"]))
    return Tree(files, ignores, repository, nested, file_links, out_link, loop_links, broken,
                draw(st.integers(0, 1 << 16)))  # fmt: skip


EPOCH = 1_704_067_200


def write(tree: Tree, case: Path) -> Path:
    """The tree under ``case/tree`` (a directory link may lead to ``case/elsewhere``);
    every file gets its own mtime."""
    top = case / "tree"
    top.mkdir(parents=True)
    elsewhere = case / "elsewhere"
    (elsewhere / "in").mkdir(parents=True)
    (elsewhere / "in" / "y.txt").write_bytes(b"foo elsewhere\n")
    (elsewhere / "e.log").write_bytes(b"foo\n")
    (elsewhere / ".gitignore").write_bytes(b"*.txt\n")
    made: list[Path] = []

    def make_dir(rel: str) -> bool:
        target = top / rel
        if target.exists() and not target.is_dir():
            return False
        target.mkdir(parents=True, exist_ok=True)
        return True

    for rel, data in tree.files.items():
        if make_dir(rel.rpartition("/")[0]) and not (top / rel).exists():
            (top / rel).write_bytes(data)
            made.append(top / rel)
    if tree.repository:
        (top / ".git").mkdir()
        (top / ".git" / "HEAD").write_bytes(b"foo\n")
    tree.nested = [directory for directory in tree.nested if make_dir(directory)]
    for directory in tree.nested:
        (top / directory / ".git").mkdir(exist_ok=True)
    for name in list(tree.ignores):
        if not make_dir(name.rpartition("/")[0]) or os.path.lexists(top / name):
            del tree.ignores[name]  # a file or directory of that name is already there
            continue
        (top / name).write_bytes("\n".join(tree.ignores[name]).encode() + b"\n")
        if not name.endswith(EXCLUDE):
            made.append(top / name)
    for link, target in tree.file_links.items():
        fits = make_dir(link.rpartition("/")[0]) and not os.path.lexists(top / link)
        if (top / target).is_file() and fits:
            (top / link).symlink_to(os.path.relpath(top / target, (top / link).parent))
    out = tree.out_link
    if out and make_dir(out.rpartition("/")[0]) and not os.path.lexists(top / out):
        (top / out).symlink_to(elsewhere)
    for link, target in tree.loop_links.items():
        if make_dir(link.rpartition("/")[0]) and not os.path.lexists(top / link):
            (top / link).symlink_to(target)
    broken = tree.broken_link
    if broken and make_dir(broken.rpartition("/")[0]) and not os.path.lexists(top / broken):
        (top / broken).symlink_to("missing")
    made += [p for p in elsewhere.rglob("*") if p.is_file()]
    ranked = sorted(made, key=lambda p: (zlib.crc32(os.fsencode(f"{tree.seed}{p}")), str(p)))
    for rank, path in enumerate(ranked):
        os.utime(path, (EPOCH + 60 * rank, EPOCH + 60 * rank))
    tree.dirs = sorted(
        os.path.relpath(d, top) + "/" if d != str(top) else ""
        for d, _, _ in os.walk(top)
        if ".git" not in Path(d).relative_to(top).parts
    )
    return top


# --- questions -----------------------------------------------------------------------

#: Pattern pieces as (Boris's RE2, rg's equivalent): a pattern is an optional
#: prefix, a core that often matches, and an optional suffix.
PREFIXES = [("^", "^"), ("\\b", "(?-u:\\b)"), ("(?i)", "(?i)"), (" ", " "), ("\\s", "(?-u:\\s)"),
            ("[^o]", "[^o]"), (".", "."), ("(foo|bar)", "(foo|bar)"), ("\\n", "\\n"),
            ("\\A", "\\A")]  # fmt: skip
CORES = [("foo", "foo"), ("foo", "foo"), ("o", "o"), ("bar", "bar"), ("Foo", "Foo"), ("é", "é"),
         ("a", "a"), ("x\\.y", "x\\.y"), ("1", "1"), ("\\w+", "(?-u:\\w)+"), (".", "."),
         ("[fb]o", "[fb]o"),
         ("\\d", "(?-u:\\d)"), ("\\pL", "\\pL"), ("[[:upper:]]", "[[:upper:]]"), ("^$", "^$"),
         ("\\x{e9}", "\\x{e9}"), ("a\\tb", "a\\tb"), ("q?", "q?")]  # fmt: skip
SUFFIXES = [("$", "$"), ("+", "+"), (".*", ".*"), ("\\s", "(?-u:\\s)"), ("[^o]", "[^o]"),
            ("o*", "o*"), (" (foo|bar)", " (foo|bar)"), ("\\b", "(?-u:\\b)"), ("\\n", "\\n"),
            (".\\w", ".(?-u:\\w)"), ("\\n.", "\\n."), ("\\z", "\\z"), ("o\\z", "o\\z")]  # fmt: skip


@st.composite
def patterns(draw: st.DrawFn) -> list[tuple[str, str]]:
    pieces = [draw(st.sampled_from(CORES))]
    if draw(st.booleans()):
        pieces.insert(0, draw(st.sampled_from(PREFIXES)))
    if draw(st.booleans()):
        suffix = draw(st.sampled_from(SUFFIXES))
        # A quantifier after a quantifier ("\\w++") is an error in RE2, not in rg.
        if not (pieces[-1][0][-1] in "+*?" and suffix[0][0] in "+*?"):
            pieces.append(suffix)
    return pieces


#: What rg is given for the glob patterns it reads differently (DIFFERENCES["glob braces"]).
RG_GLOBS = {"{x}.txt": "\\{x\\}.txt", "a}*": "a\\}*", "*.{py,{js,txt}}": "*.{py,js,txt}"}
INCLUDES = ["*.py", "*.{js,vue}", "a/**", "a/**/*.txt", "*.txt", "[xy].*", "?.py", "**/*.log",
            "b*/*", "*.{log,txt}", "sub/**/*", "**/b/**", ".*", "*", "a/*", "[!x]*",
            "\\{x\\}.txt", "[{]x}*", "a,b", "a,*", *RG_GLOBS]  # fmt: skip
TYPES = ["py", "python", "js", "c", "cpp", "json", "markdown", "md", "ts", "typescript", "yaml",
         "rust", "html"]  # fmt: skip
GLOB_PIECES = [*INCLUDES, "**", "**/*", "*.{py,txt}", "{a,d}/**", "a/b/*", "**/e"]


@dataclass
class GrepQuestion:
    place: int  # which search root (or file, for a single-file search) of the tree
    single: bool
    fragments: list[tuple[str, str]]
    case_insensitive: bool
    include: str | None
    file_type: str | None
    mode: str
    line_numbers: bool
    before: int | None
    after: int | None
    context: int
    multiline: bool
    head_limit: int
    offset: int
    root: str = ""  # relative to the tree's top, chosen once the tree is written

    @property
    def pattern(self) -> str:
        return "".join(boris for boris, _ in self.fragments)

    @property
    def rg_pattern(self) -> str:
        pattern = "".join(rg for _, rg in self.fragments)
        if not self.multiline:  # RIPGREP_BUGS["crlf end of text"]
            pattern = pattern.replace("\\z", "$")
        return pattern

    def place_in(self, roots: list[str], files: list[str]) -> None:
        if self.single and files:
            self.root = files[self.place % len(files)]
        else:
            self.single = False  # the top half of the time, else any directory
            self.root = roots[self.place % len(roots)] if self.place >= 50 else ""


def search_roots(tree: Tree) -> list[str]:
    """Directories to search from: any, but one that a loop link inside it leads
    above (DIFFERENCES["directories once"]), or one that an ignore file above it
    with a rule that names a path reaches (RIPGREP_BUGS["parent paths"])."""
    roots = [""]
    for root in tree.dirs:
        above = any(
            link.startswith(root)
            and not os.path.normpath(os.path.join(link, "..", target) + "/").startswith(
                root.rstrip("/")
            )
            for link, target in tree.loop_links.items()
        )
        path_rules = any(
            names_a_path(rule) for name in ignores_above(tree, root) for rule in tree.ignores[name]
        )
        if root and not above and not path_rules:
            roots.append(root)
    return roots


def ignore_file_directory(name: str) -> str:
    """The directory an ignore file's rules are relative to ("" for the top)."""
    if name.endswith(EXCLUDE):
        return name[: -len(EXCLUDE)]
    return name.rpartition("/")[0] + "/" if "/" in name else ""


def ignores_above(tree: Tree, root: str) -> list[str]:
    """The ignore files of the directories above ``root`` whose rules reach it: every
    .ignore and .rgignore, and git's files up to the nearest repository's root."""
    repositories = ([""] if tree.repository else []) + tree.nested
    repository = max((r for r in repositories if root.startswith(r)), key=len, default=None)
    reaching = []
    for name in tree.ignores:
        directory = ignore_file_directory(name)
        if root == directory or not root.startswith(directory):
            continue
        gits = name.endswith(EXCLUDE) or name.endswith(".gitignore")
        if gits and (repository is None or not directory.startswith(repository)):
            continue
        if name.endswith(EXCLUDE) and directory != repository:
            continue
        reaching.append(name)
    return reaching


def names_a_path(rule: str) -> bool:
    """Whether a .gitignore rule has a "/" other than a last one: it matches paths
    from its directory rather than names at any depth."""
    return "/" in rule.strip().lstrip("!").rstrip("/")


def text_files(top: Path) -> list[str]:
    """Files (no links) without a NUL, for single-file searches; a name that is not
    UTF-8 cannot be sent in a JSON request."""
    found = []
    for directory, _, names in os.walk(top):
        if ".git" in Path(directory).parts:
            continue
        for name in names:
            path = Path(directory) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if data.startswith((b"\xff\xfe", b"\xfe\xff")):
                data = data.decode("utf-16", "replace").encode()
            if b"\x00" not in data and name != NON_UTF8:
                found.append(str(path.relative_to(top)))
    return sorted(found)


#: The pattern pieces that anchor at a line's or the text's start.
START_ANCHORS = {"^", "^$", "\\A"}


@st.composite
def grep_questions(draw: st.DrawFn) -> GrepQuestion:
    single = draw(st.integers(0, 5)) == 0
    side = st.one_of(st.none(), st.integers(0, 3))
    fragments = draw(patterns())
    multiline = draw(st.integers(0, 4)) == 0
    if any(boris in START_ANCHORS for boris, _ in fragments):
        multiline = False  # RIPGREP_BUGS["resumed anchors"]
    return GrepQuestion(
        place=draw(st.integers(0, 99)),
        single=single,
        fragments=fragments,
        case_insensitive=draw(st.booleans()),
        include=None if single or draw(st.integers(0, 3)) else draw(st.sampled_from(INCLUDES)),
        file_type=None if single or draw(st.integers(0, 3)) else draw(st.sampled_from(TYPES)),
        mode=draw(st.sampled_from(["files_with_matches", "content", "count"])),
        line_numbers=draw(st.booleans()),
        before=draw(side),
        after=draw(side),
        context=draw(st.integers(0, 2)),
        multiline=multiline,
        head_limit=draw(st.sampled_from([0, 0, 1, 3])),
        offset=draw(st.sampled_from([0, 0, 1, 2])),
    )


# --- ripgrep -------------------------------------------------------------------------


#: rg's arguments for every question: DIFFERENCES["global excludes"], then what
#: Boris always skips.
RG_BASE = [str(RG), "--no-config", "--hidden", "--no-ignore-global", "--no-messages",
           "--glob=!.git", "--glob=!node_modules"]  # fmt: skip

_copies = itertools.count()


def rg_tree(tree: Tree, top: Path, root: str) -> Path:
    """The tree rg searches for a question asked from ``root``: in a repository, the
    tree itself. Outside one, a copy (symlinks as they are, the same mtimes) with
    a .git at its top, so that rg applies the .gitignore files as Boris does there
    and stops them at a nested .git (DIFFERENCES["nested repositories"]), and
    without the .gitignore files above ``root`` but those of a nested repository
    that holds it (DIFFERENCES["parent ignores"])."""
    if tree.repository:
        return top
    copy = top.parent / f"rg{next(_copies)}"
    shutil.copytree(top, copy, symlinks=True)
    (copy / ".git").mkdir()
    reaching = ignores_above(tree, root)  # those of a nested repository around root
    for name in tree.ignores:
        directory = ignore_file_directory(name)
        above = root != directory and root.startswith(directory)
        if name.endswith(".gitignore") and above and name not in reaching:
            (copy / name).unlink()
    return copy


@dataclass
class RgResult:
    lines: list[bytes]  # one entry a line, without the \r of a CRLF line end
    failed: bool  # rg refused the pattern

    def text(self) -> list[str]:
        """As a client sees Boris's output: invalid UTF-8 as U+FFFD."""
        return [line.decode("utf-8", "replace") for line in self.lines]


def run_rg(arguments: Sequence[str], cwd: Path) -> RgResult:
    done = subprocess.run(list(arguments), cwd=cwd, capture_output=True, check=False, timeout=60)
    if done.returncode == 2 and b"regex" in done.stderr + done.stdout:
        return RgResult([], True)
    assert done.returncode in (0, 1, 2), done.stderr
    lines = done.stdout.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    # DIFFERENCES["line ends"]
    return RgResult([line[:-1] if line.endswith(b"\r") else line for line in lines], False)


def files_of(base: list[str], cwd: Path, *more: str) -> list[str]:
    """File names (as the file system has them) of ``rg --files``."""
    found = run_rg([*base, "--files", "-L", "--sort", "path", *more], cwd)
    return [os.fsdecode(line) for line in found.lines]


def glob_escape(path: str) -> str:
    return re.sub(r"([\\*?\[\]{}!])", r"\\\1", path)


def only_files(files: list[str]) -> list[str]:
    """-g arguments that let rg search exactly ``files`` (relative to its cwd)."""
    whitelist = ["--glob=!*", "--glob=*/"]
    for name in files:
        raw = os.fsencode(name)
        # A name that is not UTF-8 cannot be a glob: each such byte becomes "?".
        text = raw.decode("utf-8", "surrogateescape")
        escaped = "".join("?" if "\udc80" <= ch <= "\udcff" else glob_escape(ch) for ch in text)
        whitelist.append(f"--glob=/{escaped}")
    return whitelist


def newest_first(names: list[str], base: Path) -> list[str]:
    """``names`` newest first, equal times in their order (the walk's)."""
    order = {name: index for index, name in enumerate(names)}
    return sorted(names, key=lambda name: (-(base / name).stat().st_mtime_ns, order[name]))


def shown(name: str) -> str:
    """A file name as Boris shows it: bytes that are not UTF-8 as U+FFFD."""
    return os.fsencode(name).decode("utf-8", "replace")


def expected_grep(tree: Tree, top: Path, q: GrepQuestion) -> RgResult | list[str]:
    """rg's answer to ``q``: its output lines, or a result that says it refused the
    pattern."""
    base = RG_BASE
    # A file named on the command line is searched whatever the ignore files say.
    cwd = top if q.single else rg_tree(tree, top, q.root) / q.root
    args = ["-L", "--sort", "path", f"--regexp={q.rg_pattern}"]
    if q.case_insensitive:
        args.append("-i")
    if q.multiline:
        args += ["-U", "--multiline-dotall"]
    else:
        args.append("--crlf")
    if q.file_type:
        args.append(f"--type={q.file_type}")
    if q.include:
        walked = files_of(base, cwd, *([f"--type={q.file_type}"] if q.file_type else []))
        matching = set(files_of(base, cwd, f"--glob={RG_GLOBS.get(q.include, q.include)}"))
        chosen = [name for name in walked if name in matching]
        if not chosen:
            found = run_rg([*base, *args, os.devnull], cwd)  # does rg take the pattern?
            return found if found.failed else []
        args += only_files(chosen)
    before = q.context if q.before is None else q.before
    after = q.context if q.after is None else q.after
    target = [str(top / q.root)] if q.single else []
    if q.mode == "files_with_matches":
        found = run_rg([*base, *args, "-l", *target], cwd)
        if found.failed:
            return found
        lines = [shown(name) for name in newest_first([os.fsdecode(n) for n in found.lines], cwd)]
    elif q.mode == "count" and q.multiline:  # DIFFERENCES["multiline count"]
        found = run_rg([*base, *args, "-n", "--with-filename", *target], cwd)
        lines = expected_count(found.text())
    elif q.mode == "count":
        found = run_rg([*base, *args, "-c", "--with-filename", *target], cwd)
        lines = found.text()
    else:
        shape = ["-n" if q.line_numbers else "-N", "--no-heading", "--with-filename"]
        context = [f"--before-context={before}", f"--after-context={after}"]
        found = run_rg([*base, *args, *shape, *context, *target], cwd)
        lines = found.text()
        if q.multiline:
            lines = without_phantom_context(lines, "".join(target))
    if found.failed:
        return found
    end = q.offset + q.head_limit if q.head_limit else None
    return lines[q.offset : end]


def without_phantom_context(lines: list[str], label: str) -> list[str]:
    """rg's content output without groups of context lines alone
    (RIPGREP_BUGS["phantom context"]); ``label`` is the path of a single file."""
    groups: list[list[str]] = [[]]
    for line in lines:
        if line == "--":
            groups.append([])
        else:
            groups[-1].append(line)
    kept = [group for group in groups if any(is_match_line(line[len(label) :]) for line in group)]
    return "\n--\n".join("\n".join(group) for group in kept).split("\n") if kept else []


def is_match_line(line: str) -> bool:
    """A match line has ":" after its path, a context line "-" (the generated paths
    hold neither; a single file's path is cut off before)."""
    separator = re.match(r"[^:-]*([:-])", line)
    return bool(separator and separator[1] == ":")


def expected_count(content: list[str]) -> list[str]:
    """path:N from rg's content output, N the number of match lines of the path."""
    counts: dict[str, int] = {}
    for line in content:
        match = re.match(r"(.*?):(\d+):", line)
        assert match, line
        counts[match[1]] = counts.get(match[1], 0) + 1
    return [f"{path}:{n}" for path, n in counts.items()]


def expected_glob(tree: Tree, top: Path, root: str, pattern: str) -> list[str]:
    base = RG_BASE
    cwd = rg_tree(tree, top, root) / root
    walked = files_of(base, cwd)
    matching = set(files_of(base, cwd, f"--glob={RG_GLOBS.get(pattern, pattern)}"))
    chosen = [
        name for name in walked if name in matching and not below_a_symlinked_directory(cwd, name)
    ]
    return [shown(name) for name in newest_first(chosen, cwd)]


def below_a_symlinked_directory(cwd: Path, name: str) -> bool:
    """DIFFERENCES["glob symlinks"]"""
    parts = name.split("/")
    return any((cwd.joinpath(*parts[:n])).is_symlink() for n in range(1, len(parts)))


# --- the test ------------------------------------------------------------------------

_cases = itertools.count()


def boris_arguments(top: Path, q: GrepQuestion) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "pattern": q.pattern,
        "path": str(top / q.root),
        "output_mode": q.mode,
        "case_insensitive": q.case_insensitive,
        "multiline": q.multiline,
        "line_numbers": q.line_numbers,
        "context": q.context,
        "head_limit": q.head_limit,
        "offset": q.offset,
    }
    for name, value in (
        ("include", q.include),
        ("type", q.file_type),
        ("context_before", q.before),
        ("context_after", q.after),
    ):
        if value is not None:
            arguments[name] = value
    return arguments


#: The explain phase traces every line (slow before Python 3.12), and its report
#: adds nothing to the failing case itself.
SHRINK_WITHOUT_EXPLAINING = [p for p in Phase if p is not Phase.explain]

#: Each example asks ripgrep and Boris several questions: outside the deep profile
#: (HYPOTHESIS_PROFILE=deep, by hand) a few dozen trees keep the test well under a
#: minute.
EXAMPLES = (
    settings().max_examples
    if os.environ.get("HYPOTHESIS_PROFILE") == "deep"
    else min(settings().max_examples, 40)
)


@pytest.mark.skipif(not rg_version_ok(), reason="needs rg 14.1.0 (the ripgrep test extra)")
@pytest.mark.timeout(0 if EXAMPLES > 40 else 600)  # room to shrink a failing case
@settings(max_examples=EXAMPLES, phases=SHRINK_WITHOUT_EXPLAINING)
@given(
    tree=trees(),
    questions=st.lists(grep_questions(), min_size=1, max_size=3),
    glob_place=st.integers(0, 99),
    glob_pattern=st.sampled_from(GLOB_PIECES),
)
async def test_grep_and_glob_agree_with_ripgrep(
    client: Client[Any],
    root: Path,
    tree: Tree,
    questions: list[GrepQuestion],
    glob_place: int,
    glob_pattern: str,
) -> None:
    top = write(tree, root / f"case{next(_cases)}")
    roots = search_roots(tree)
    files = text_files(top)
    for q in questions:
        q.place_in(roots, files)
        expected = expected_grep(tree, top, q)
        result = await client.call_tool("grep", boris_arguments(top, q), raise_on_error=False)
        if isinstance(expected, RgResult):  # rg refused the pattern
            assert result.is_error, (q, text_of(result))
            assert text_of(result).startswith("[GREP_INVALID_PATTERN]")
            continue
        assert not result.is_error, (q, text_of(result))
        got = text_of(result).split("\n") if text_of(result) else []
        assert got == expected, q
    glob_root = roots[glob_place % len(roots)]
    arguments = {"pattern": glob_pattern, "path": str(top / glob_root), "type": "file"}
    listed = text_of(await client.call_tool("glob", arguments, raise_on_error=False))
    got = [] if listed == "No files found" else listed.split("\n")
    assert got == expected_glob(tree, top, glob_root, glob_pattern), (glob_root, glob_pattern)


# --- ignore files alone ------------------------------------------------------------------

#: A small tree where every directory has the same few files, and rules naming them.
IGNORE_DIRS = ["", "a/", "a/b/", "sub/", "sub/c/"]
IGNORE_NAMES = ["x.py", "y.txt", "k.log", ".h"]
IGNORE_TARGETS = [*IGNORE_NAMES, "*.py", "*.txt", "*", "a/", "b/", "sub/", "c/", "*/", "/x.py",
                  "b/y.txt", "**/c/k.log", "b", "c"]  # fmt: skip


@st.composite
def ignore_trees(draw: st.DrawFn) -> Tree:
    """The same files in each directory, ignore files of every kind at several levels
    whose rules name those files (often with "!"), a repository at the top or not,
    nested ones or not."""
    files = {d + n: b"foo\n" for d in IGNORE_DIRS for n in IGNORE_NAMES}
    repository = draw(st.booleans())
    nested = draw(st.lists(st.sampled_from(["sub/", "a/b/"]), unique=True))
    names = draw(
        st.lists(
            st.tuples(st.sampled_from(IGNORE_DIRS), st.sampled_from(IGNORE_FILES)).map("".join),
            min_size=1,
            max_size=8,
            unique=True,
        )
    )
    names += [d + EXCLUDE for d in ([""] if repository else []) + nested if draw(st.booleans())]
    rule = st.tuples(st.sampled_from(["", "!", "!"]), st.sampled_from(IGNORE_TARGETS)).map("".join)
    ignores = {name: draw(st.lists(rule, min_size=1, max_size=4)) for name in names}
    return Tree(files, ignores, repository, nested, {}, None, {}, None, draw(st.integers(0, 99)))


@pytest.mark.skipif(not rg_version_ok(), reason="needs rg 14.1.0 (the ripgrep test extra)")
@pytest.mark.timeout(0 if EXAMPLES > 40 else 600)
@settings(phases=SHRINK_WITHOUT_EXPLAINING)
@given(
    tree=ignore_trees(),
    place=st.integers(0, 99),
    include=st.sampled_from([None, None, "*.py", "*.log", "[xk].*", "**/c/*", "a/**"]),
    file_type=st.sampled_from([None, None, "py"]),
)
async def test_ignore_files_agree_with_ripgrep(
    client: Client[Any],
    root: Path,
    tree: Tree,
    place: int,
    include: str | None,
    file_type: str | None,
) -> None:
    """Which files grep searches and glob lists, from any directory, when .gitignore,
    .ignore, .rgignore and info/exclude files at several levels disagree about them,
    and which of them include and type choose (DIFFERENCES["filters after ignores"])."""
    top = write(tree, root / f"case{next(_cases)}")
    roots = search_roots(tree)
    search_root = roots[place % len(roots)]
    arguments = {"pattern": "**", "path": str(top / search_root), "type": "file"}
    listed = text_of(await client.call_tool("glob", arguments, raise_on_error=False))
    got = [] if listed == "No files found" else listed.split("\n")
    assert got == expected_glob(tree, top, search_root, "**"), search_root
    q = GrepQuestion(place, False, [("foo", "foo")], False, include, file_type, "count", True,
                     None, None, 0, False, 0, 0, search_root)  # fmt: skip
    result = await client.call_tool("grep", boris_arguments(top, q), raise_on_error=False)
    got = text_of(result).split("\n") if text_of(result) else []
    assert got == expected_grep(tree, top, q), search_root


# --- corners, by hand --------------------------------------------------------------------

#: More rules than RE2 holds in one set within its memory budget (a thousand names of
#: a hundred characters), so that they are matched as several sets: the first rule,
#: one in the middle that re-includes and the last must all still count, in order.
MANY_LONG_RULES = ["*.log", *(f"{n:03d}{'x' * 100}" for n in range(1, 999)), "last.txt"]
MANY_LONG_RULES[600] = "!keep.log"

#: Trees with what the generated ones never hold, each a repository (so that rg reads
#: its git files as Boris does): (files, the directory searched, the files listed, newest
#: first). The files get increasing mtimes in the order given.
CORNERS: dict[str, tuple[dict[str, str], str, list[str]]] = {
    # A name may hold a newline, a directory's too: "*.log" reaches below it.
    "newline": (
        {".gitignore": "*.log\n", "d\ne/k.log": "", "d\ne/k.txt": "", "a.log": "", "b.txt": ""},
        "",
        ["b.txt", "d\ne/k.txt", ".gitignore"],
    ),
    # The exclude file's rules are relative to the repository's top, wherever the search
    # starts; the .ignore above applies along with it.
    "exclude from below": (
        {
            ".git/info/exclude": "/sub/x.txt\n",
            ".ignore": "*.tmp\n",
            "sub/x.txt": "",
            "sub/y.txt": "",
            "sub/z.tmp": "",
            "x.txt": "",
        },
        "sub",
        ["y.txt"],
    ),
    "many long rules": (
        {
            ".gitignore": "\n".join(MANY_LONG_RULES) + "\n",
            "a.log": "",
            "keep.log": "",
            "last.txt": "",
            "other.txt": "",
        },
        "",
        ["other.txt", "keep.log", ".gitignore"],
    ),
    # A rule too long for RE2 on its own is dropped (no file name can be that long);
    # the rules around it still apply.
    "a rule too long": (
        {".gitignore": "*.txt\n" + "x" * 120_000 + "\n!b.txt\n", "a.txt": "", "b.txt": ""},
        "",
        ["b.txt", ".gitignore"],
    ),
}


def rg_listing(cwd: Path) -> list[str]:
    """``rg --files`` from ``cwd``, names as they are (a newline in a name too),
    newest first."""
    found = subprocess.run(
        [*RG_BASE, "--files", "--null", "--sort", "path"],
        cwd=cwd,
        capture_output=True,
        check=True,
        timeout=60,
    )
    names = [os.fsdecode(name) for name in found.stdout.split(b"\0") if name]
    return newest_first(names, cwd)


@pytest.mark.skipif(not rg_version_ok(), reason="needs rg 14.1.0 (the ripgrep test extra)")
@pytest.mark.parametrize("corner", CORNERS)
async def test_ignore_corners_agree_with_ripgrep(
    client: Client[Any], case: Path, corner: str
) -> None:
    files, searched, expected = CORNERS[corner]
    for rel, text in files.items():
        (case / rel).parent.mkdir(parents=True, exist_ok=True)
        (case / rel).write_text(text)
    for rank, rel in enumerate(files):
        os.utime(case / rel, (EPOCH + 60 * rank, EPOCH + 60 * rank))
    (case / ".git").mkdir(exist_ok=True)
    arguments = {"pattern": "**", "path": str(case / searched), "type": "file"}
    listed = text_of(await client.call_tool("glob", arguments, raise_on_error=False))
    assert listed == "\n".join(rg_listing(case / searched))
    assert listed == "\n".join(expected)
