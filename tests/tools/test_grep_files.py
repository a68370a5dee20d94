"""Which files grep searches, through a real client, exact texts (README "grep and glob,
and ripgrep"): include globs and types, what is skipped (binary, too large, ignored,
denied, not a regular file), byte order marks, ignore files and repositories, names that
are not UTF-8, symlinks. Output modes, context, paging and the pattern are
tests/tools/test_grep.py's.
"""

from __future__ import annotations

import os
import select
import socket
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support.grep_app import client, grep, grep_error, outside, workdir
from tests.support.trees import write_tree

pytestmark = pytest.mark.anyio

__all__ = ["client", "outside", "workdir"]  # the fixtures, used by name


# --- include globs and types ---------------------------------------------------------

INCLUDE_TREE = {"src/a/x.py": "hit\n", "src/b.py": "hit\n", "tests/c.py": "hit\n", "d.ts": "hit\n"}

#: (include, the count output): a pattern without "/" matches the name, one with "/"
#: the relative path.
INCLUDES = [
    ("*.py", "src/a/x.py:1\nsrc/b.py:1\ntests/c.py:1"),
    ("src/**/*.py", "src/a/x.py:1\nsrc/b.py:1"),
    ("*.{ts,tsx}", "d.ts:1"),
]


@pytest.mark.parametrize(("include", "expected"), INCLUDES)
async def test_include_matches_relative_path_then_basename(
    client: Client[Any], workdir: Path, include: str, expected: str
) -> None:
    write_tree(workdir / "include", INCLUDE_TREE)
    counted = await grep(
        client, pattern="hit", path="include", include=include, output_mode="count"
    )
    assert counted == expected


LITERAL_TREE = {"{c}.txt": "hit\n", "c.txt": "hit\n", "a}b.txt": "hit\n", "x,y.txt": "hit\n"}

#: (include, the files found): ``\\`` escapes the next character, and a ``}`` or ``,``
#: outside braces is an ordinary character (README, "Glob patterns").
LITERAL_INCLUDES = [
    ("\\{c}*", "{c}.txt"),
    ("a}b*", "a}b.txt"),
    ("x,y*", "x,y.txt"),
    ("{a},*", ""),
]


@pytest.mark.parametrize(("include", "expected"), LITERAL_INCLUDES)
async def test_include_escapes_and_literal_braces(
    client: Client[Any], workdir: Path, include: str, expected: str
) -> None:
    write_tree(workdir / "literal_include", LITERAL_TREE)
    assert await grep(client, pattern="hit", path="literal_include", include=include) == expected


#: (the directory searched, include, the error)
BAD_INCLUDES = [
    ("include", "[oops", "[INVALID_INPUT] include: unclosed '[' at position 0 in \"[oops\""),
    ("literal_include", "{c,d", "[INVALID_INPUT] include: unclosed '{' in \"{c,d\""),
]


@pytest.mark.parametrize(("path", "include", "expected"), BAD_INCLUDES)
async def test_a_malformed_include_is_refused(
    client: Client[Any], workdir: Path, path: str, include: str, expected: str
) -> None:
    write_tree(workdir / "include", INCLUDE_TREE)
    write_tree(workdir / "literal_include", LITERAL_TREE)
    assert await grep_error(client, pattern="hit", path=path, include=include) == expected


TYPES_TREE = {"a.py": "hit\n", "b.pyi": "hit\n", "c.ts": "hit\n", "d.md": "hit\n", "e.txt": "hit\n"}

#: (type, the count output): names and their aliases.
TYPES = [
    ("py", "a.py:1\nb.pyi:1"),
    ("python", "a.py:1\nb.pyi:1"),
    ("typescript", "c.ts:1"),
    ("md", "d.md:1"),
]


@pytest.mark.parametrize(("file_type", "expected"), TYPES)
async def test_type_filter_and_aliases(
    client: Client[Any], workdir: Path, file_type: str, expected: str
) -> None:
    write_tree(workdir / "types", TYPES_TREE)
    counted = await grep(client, pattern="hit", path="types", type=file_type, output_mode="count")
    assert counted == expected


async def test_an_unknown_type_is_refused(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "types", TYPES_TREE)
    assert await grep_error(client, pattern="hit", path="types", type="cobol") == (
        '[INVALID_INPUT] unknown type "cobol"; valid types: c, cpp, css, go, html, java, js, '
        "json, markdown, py, rust, ts, yaml; aliases: python (py), typescript (ts), md (markdown)"
    )


#: (include, output mode, the output): a file must pass both the type and the include.
TYPE_AND_INCLUDE = [
    ("src/**", "files_with_matches", "src/a.py"),
    ("[ab].*", "count", "src/a.py:1"),
]


@pytest.mark.parametrize(("include", "mode", "expected"), TYPE_AND_INCLUDE)
async def test_type_and_include_must_both_pass(
    client: Client[Any], workdir: Path, include: str, mode: str, expected: str
) -> None:
    write_tree(workdir / "both", {"src/a.py": "hit\n", "src/b.ts": "hit\n", "c.py": "hit\n"})
    text = await grep(
        client, pattern="hit", path="both", type="py", include=include, output_mode=mode
    )
    assert text == expected


RG_TYPE_NAMES = ["a.vue", "b.js", "c.H", "d.h", "e.C", "f.c.in", "composer.lock", "g.json"]

#: (type, more arguments, the files found): a type stands for ripgrep 14.1's globs,
#: matched case-sensitively against the file name: js includes .vue, c includes .H,
#: json includes composer.lock.
RG_TYPES: list[tuple[str, dict[str, Any], str]] = [
    ("js", {}, "a.vue\nb.js"),
    ("c", {}, "c.H\nd.h\nf.c.in"),
    ("cpp", {}, "c.H\nd.h\ne.C"),
    ("json", {}, "composer.lock\ng.json"),
    ("json", {"include": "*.lock"}, "composer.lock"),
]


@pytest.mark.parametrize(("file_type", "more", "expected"), RG_TYPES)
async def test_types_are_ripgrep_globs_on_names(
    client: Client[Any], workdir: Path, file_type: str, more: dict[str, Any], expected: str
) -> None:
    write_tree(
        workdir / "rgtypes", {**{name: "hit\n" for name in RG_TYPE_NAMES}, "h.JSON": "hit\n"}
    )
    assert await grep(client, pattern="hit", path="rgtypes", type=file_type, **more) == expected


# --- what is skipped, and how files are read --------------------------------------------


async def test_skips_binary_large_ignored_and_denied_files(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(
        workdir / "skips",
        {
            ".gitignore": "*.log\n",
            "app.log": "hit\n",
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00hit\n",
            "big.txt": "hit\n" + "x" * 5000,  # over --max-file-size 4KB
            "secrets/key.txt": "hit\n",
            "node_modules/m.js": "hit\n",
            ".git/HEAD": "hit\n",
            "late_nul.txt": "hit\n" + "y" * 600 + "\x00",  # a NUL anywhere: binary
            "later_nul.txt": "hit\n" + "y" * 5000 + "\x00",  # also past the first read
            "ok.txt": "hit\n",
        },
    )
    assert await grep(client, pattern="hit", path="skips", output_mode="count") == "ok.txt:1"


async def test_byte_order_marks_and_utf16(client: Client[Any], workdir: Path) -> None:
    """As in ripgrep, a UTF-8 byte order mark is not part of the first line, and a
    file that starts with a UTF-16 (LE or BE) one is searched as the text it
    encodes, its lines shown decoded. A NUL in the decoded text is still binary."""
    write_tree(
        workdir / "boms",
        {
            "utf8.txt": b"\xef\xbb\xbffoo\nbar\n",
            "le.txt": b"\xff\xfe" + "foo\nbar \u00e9t\u00e9\r\n".encode("utf-16-le"),
            "be.txt": b"\xfe\xff" + "x\nfoo bar\n".encode("utf-16-be"),
            "nobom.txt": "foo\n".encode("utf-16-le"),  # NUL bytes and no BOM: binary
            "nul.txt": b"\xff\xfe" + "foo\x00\n".encode("utf-16-le"),
            "odd.txt": b"\xff\xfe" + "foo\n".encode("utf-16-le") + b"x",  # odd length
        },
    )
    text = await grep(client, pattern="^foo|bar|\ufffd", path="boms", output_mode="content")
    assert text == (
        "be.txt:2:foo bar\n"
        "le.txt:1:foo\n"
        "le.txt:2:bar \u00e9t\u00e9\n"
        "odd.txt:1:foo\n"
        "odd.txt:2:\ufffd\n"
        "utf8.txt:1:foo\n"
        "utf8.txt:2:bar"
    )
    single = await grep(client, pattern="^foo$", path="boms/utf8.txt", output_mode="count")
    assert single == "boms/utf8.txt:1"


def read_fifo(path: Path) -> bytes:
    """What a writer sends through the FIFO at ``path``; never waits for one that is gone."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        select.select([fd], [], [], 10)
        return os.read(fd, 100)
    finally:
        os.close(fd)


async def test_fifos_sockets_and_devices_are_never_opened(
    client: Client[Any], workdir: Path
) -> None:
    """Only regular files are searched: a FIFO, a socket or a device in the tree is
    skipped without being opened, so grep neither waits on a FIFO nor takes the
    data of a writer waiting on it."""
    root = write_tree(workdir / "fifos", {"a.txt": "hit\n"})
    os.mkfifo(root / "pipe.txt")
    (root / "zero.txt").symlink_to("/dev/zero")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(root / "sock.txt"))
        with anyio.fail_after(10):  # a hang, not a speed bound
            counted = await grep(client, pattern="hit", path="fifos", output_mode="count")
        assert counted == "a.txt:1"
    writer = await anyio.open_process(["sh", "-c", "printf 'hit\\n' > pipe.txt"], cwd=root)
    try:
        wchan = Path(f"/proc/{writer.pid}/wchan")
        deadline = time.monotonic() + 10
        while wchan.read_text() != "wait_for_partner":  # blocked opening the FIFO
            assert time.monotonic() < deadline, "the writer never reached the FIFO"
            await anyio.sleep(0.01)
        with anyio.fail_after(10):
            assert await grep(client, pattern="hit", path="fifos") == "a.txt"
        assert writer.returncode is None  # still waiting for a reader
        assert await anyio.to_thread.run_sync(read_fifo, root / "pipe.txt") == b"hit\n"
        with anyio.fail_after(10):
            await writer.wait()
    finally:
        if writer.returncode is None:
            writer.kill()
            await writer.wait()


# --- ignore files and repositories ---------------------------------------------------------

#: Trees of ignore files, by the directory each is written to.
IGNORE_TREES: dict[str, dict[str, str]] = {
    # A nested .gitignore re-includes what its parent ignores.
    "nested": {
        ".gitignore": "*.gen\nout/\n",
        "a.gen": "hit\n",
        "pkg/.gitignore": "!keep.gen\n",
        "pkg/keep.gen": "hit\n",
        "pkg/drop.gen": "hit\n",
        "pkg/out/x.txt": "hit\n",
        "pkg/src.txt": "hit\n",
    },
    # Naming an ignored directory searches it; every other rule still applies in it.
    "inignored": {
        ".git/HEAD": "",
        ".gitignore": "build/\n*.log\n",
        "build/x.log": "hit\n",
        "build/y.txt": "hit\n",
    },
    # A directory holding .git starts a new repository: the outer .gitignore files do
    # not apply inside it, from the top or from inside.
    "nestedrepo": {
        ".git/HEAD": "",
        ".gitignore": "*.log\n",
        "a.log": "hit\n",
        "sub/.git/HEAD": "",
        "sub/x.log": "hit\n",
    },
    # .ignore and .rgignore are read as ripgrep reads them, outside a repository too: a
    # path's verdict comes from .rgignore, else .ignore, else .gitignore, whichever
    # directories the files are in; inside one kind, the deepest file decides.
    "dotignore": {
        ".gitignore": "*.gen\n",
        ".ignore": "!keep.gen\n*.tmp\n",
        ".rgignore": "!keep.tmp\n",
        "a.gen": "hit\n",
        "keep.gen": "hit\n",
        "a.tmp": "hit\n",
        "keep.tmp": "hit\n",
        # A deeper .gitignore cannot re-include what the top .ignore ignores, nor
        # ignore what it re-includes; a deeper .ignore can.
        "pkg/.gitignore": "!*.tmp\nsrc.txt\nkeep.gen\n",
        "pkg/.ignore": "!src.txt\n",
        "pkg/.rgignore": "other.txt\n",
        "pkg/x.tmp": "hit\n",
        "pkg/keep.gen": "hit\n",
        "pkg/src.txt": "hit\n",
        "pkg/other.txt": "hit\n",
    },
    # The .ignore files of the searched directory's ancestors apply, in a repository or
    # not, and reach into a nested repository, where the .gitignore files above it do
    # not reach; an ancestor's .gitignore applies only inside a repository.
    "ignoreabove": {
        ".gitignore": "*.log\n",
        ".ignore": "*.tmp\n",
        "d/a.log": "hit\n",
        "d/a.tmp": "hit\n",
        "d/a.txt": "hit\n",
        "repo/.git/HEAD": "",
        "repo/.gitignore": "*.txt\n",
        "repo/sub/.git/HEAD": "",
        "repo/sub/b.log": "hit\n",
        "repo/sub/b.tmp": "hit\n",
        "repo/sub/b.txt": "hit\n",
    },
    # A repository's info/exclude applies below a .gitignore (whose "!" rules re-include
    # what it ignores), from any directory of the repository, and in a linked worktree
    # (a .git file naming a directory whose commondir leads to it).
    "exclude": {
        "repo/.git/HEAD": "",
        "repo/.git/info/exclude": "*.log\n",
        "repo/.gitignore": "!keep.log\n",
        "repo/a.log": "hit\n",
        "repo/keep.log": "hit\n",
        "repo/d/b.log": "hit\n",
        "repo/d/c.txt": "hit\n",
        "repo/.git/worktrees/wt/commondir": "../..\n",
        "wt/.git": "gitdir: ../repo/.git/worktrees/wt\n",
        "wt/a.log": "hit\n",
        "wt/a.txt": "hit\n",
    },
}

#: (the path searched, output mode, the output)
IGNORED: list[tuple[str, str, str]] = [
    ("nested", "count", "pkg/keep.gen:1\npkg/src.txt:1"),
    ("inignored/build", "files_with_matches", "y.txt"),
    ("inignored", "files_with_matches", ""),
    ("nestedrepo", "files_with_matches", "sub/x.log"),
    ("nestedrepo/sub", "files_with_matches", "x.log"),
    ("dotignore", "count", "keep.gen:1\nkeep.tmp:1\npkg/keep.gen:1\npkg/src.txt:1"),
    # From below, the .ignore and .rgignore files above apply too.
    ("dotignore/pkg", "count", "keep.gen:1\nsrc.txt:1"),
    # A file named as the path is searched whatever the ignore files say.
    ("dotignore/pkg/other.txt", "files_with_matches", "dotignore/pkg/other.txt"),
    # The top .gitignore applies in its tree, but not inside a repository below it.
    ("ignoreabove", "count", "d/a.txt:1\nrepo/sub/b.log:1\nrepo/sub/b.txt:1"),
    ("ignoreabove/d", "count", "a.log:1\na.txt:1"),
    ("ignoreabove/repo", "count", "sub/b.log:1\nsub/b.txt:1"),
    ("ignoreabove/repo/sub", "count", "b.log:1\nb.txt:1"),
    ("exclude/repo", "count", "d/c.txt:1\nkeep.log:1"),
    ("exclude/repo/d", "count", "c.txt:1"),
    ("exclude/wt", "count", "a.txt:1"),
]


@pytest.fixture(scope="module")
def ignore_trees(workdir: Path) -> Path:
    for name, files in IGNORE_TREES.items():
        write_tree(workdir / name, files)
    return workdir


@pytest.mark.parametrize(("path", "mode", "expected"), IGNORED)
async def test_ignore_files_and_repositories(
    client: Client[Any], ignore_trees: Path, path: str, mode: str, expected: str
) -> None:
    assert await grep(client, pattern="hit", path=path, output_mode=mode) == expected


# --- names and symlinks --------------------------------------------------------------------

#: (output mode, context, the output): bytes of a file name that are not UTF-8 are shown
#: as U+FFFD in every mode, content lines too.
UNDECODABLE_NAME = [
    ("files_with_matches", 0, "caf\ufffd.txt"),
    ("count", 0, "caf\ufffd.txt:1"),
    ("content", 0, "caf\ufffd.txt:1:hit"),
    ("content", 1, "caf\ufffd.txt:1:hit"),
]


@pytest.mark.parametrize(("mode", "context", "expected"), UNDECODABLE_NAME)
async def test_a_name_that_is_not_utf8_is_shown_with_a_replacement_character(
    client: Client[Any], workdir: Path, mode: str, context: int, expected: str
) -> None:
    """Every output line is text, and the server goes on serving."""
    root = write_tree(workdir / "badname", {})
    (root / os.fsdecode(b"caf\xe9.txt")).write_text("hit\n")
    text = await grep(client, pattern="hit", path="badname", output_mode=mode, context=context)
    assert text == expected


async def test_a_message_naming_a_path_that_is_not_utf8_is_text(
    client: Client[Any], workdir: Path
) -> None:
    """A path resolved through a symlink may hold bytes that are not UTF-8: the
    messages that name it show them as U+FFFD, and the server goes on serving."""
    root = write_tree(workdir / "badtarget", {"ok.txt": "hit\n"})
    (root / "dangling").symlink_to(os.fsdecode(b"missing\xe9"))
    assert await grep_error(client, pattern="hit", path="badtarget/dangling") == (
        f"[PATH_NOT_FOUND] path does not exist: {root}/missing\ufffd"
    )
    assert await grep(client, pattern="hit", path="badtarget") == "ok.txt"


async def test_symlinks_followed_and_cycles_terminate(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "loop_target", {"t.txt": "hit\n"})
    root = write_tree(workdir / "loops", {"a/f.txt": "hit\n", "b/g.txt": "hit\n"})
    (root / "a" / "back").symlink_to(root)  # a cycle
    (root / "b" / "sideways").symlink_to(root / "a")  # a directory entered already
    (root / "c").symlink_to(root / "b")
    (root / "link").symlink_to(workdir / "loop_target")  # followed
    (root / "single.txt").symlink_to(workdir / "loop_target" / "t.txt")  # a file symlink
    text = await grep(client, pattern="hit", path="loops", output_mode="count")
    assert text == "a/f.txt:1\nb/g.txt:1\nlink/t.txt:1\nsingle.txt:1"


async def test_symlink_out_of_the_allowed_dirs_is_skipped(
    client: Client[Any], workdir: Path, outside: Path
) -> None:
    root = write_tree(workdir / "escape", {"in.txt": "needle\n"})
    (root / "out").symlink_to(outside)
    (root / "leak.txt").symlink_to(outside / "leak.txt")
    assert await grep(client, pattern="needle", path="escape") == "in.txt"
