"""glob through a real client, exact texts (README "Glob patterns", "grep and glob, and
ripgrep", "Limits and bad input").

One app serves the module (``--allow-dir`` its workdir, ``--deny-dir **/secrets``); each
test lists its own subdirectory. The check with the official SDK client over HTTP is in
tests/e2e/test_glob.py.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.trees import set_mtimes, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("glob").resolve()


@pytest.fixture(scope="module")
async def client(workdir: Path) -> AsyncIterator[Client[Any]]:
    flags = ["--allow-dir", str(workdir), "--deny-dir", "**/secrets"]
    async with app_client(*flags, workdir=workdir) as connected:
        yield connected


async def glob(client: Client[Any], **arguments: Any) -> str:
    return ok_text(await client.call_tool("glob", arguments, raise_on_error=False))


async def glob_error(client: Client[Any], **arguments: Any) -> str:
    return error_text(await client.call_tool("glob", arguments, raise_on_error=False))


TREE = {
    "README.md": "",
    "setup.py": "",
    "src/app/main.py": "",
    "src/app/util.py": "",
    "src/lib.rs": "",
    "tests/test_main.py": "",
    "docs/guide.md": "",
    ".config/settings.json": "",
    ".env.example": "",
}


async def test_star_matches_names_at_any_depth(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "star", TREE)
    assert await glob(client, pattern="*.py", path="star") == (
        "setup.py\nsrc/app/main.py\nsrc/app/util.py\ntests/test_main.py"
    )


async def test_globstar_and_relative_paths(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "globstar", TREE)
    assert await glob(client, pattern="src/**/*.py", path="globstar") == (
        "src/app/main.py\nsrc/app/util.py"
    )
    assert await glob(client, pattern="**/*.py", path="globstar") == (
        "setup.py\nsrc/app/main.py\nsrc/app/util.py\ntests/test_main.py"
    )
    assert await glob(client, pattern="src/*", path="globstar") == "src/app\nsrc/lib.rs"
    assert await glob(client, pattern="./src/*.rs", path="globstar") == "src/lib.rs"


async def test_question_mark_braces_and_classes(client: Client[Any], workdir: Path) -> None:
    write_tree(
        workdir / "syntax", {"a1.txt": "", "b2.txt": "", "c3.txt": "", "ab.txt": "", "x.md": ""}
    )
    assert await glob(client, pattern="??.txt", path="syntax") == ("a1.txt\nab.txt\nb2.txt\nc3.txt")
    assert await glob(client, pattern="*.{md,rs}", path="syntax") == "x.md"
    assert await glob(client, pattern="[ab]?.txt", path="syntax") == "a1.txt\nab.txt\nb2.txt"
    assert await glob(client, pattern="[a-b][0-9].txt", path="syntax") == "a1.txt\nb2.txt"
    assert await glob(client, pattern="[!a]?.txt", path="syntax") == "b2.txt\nc3.txt"


async def test_escapes_and_literal_braces_and_commas(client: Client[Any], workdir: Path) -> None:
    """``\\`` escapes the next character; a ``}`` or ``,`` outside braces is an ordinary
    character; braces without a comma are ordinary characters too (README, "Glob
    patterns")."""
    write_tree(
        workdir / "literal",
        {"{c}.txt": "", "c.txt": "", "a}b.txt": "", "x,y.txt": "", "a*": "", "ab": ""},
    )
    assert await glob(client, pattern="\\{c}*", path="literal") == "{c}.txt"
    assert await glob(client, pattern="[{]c}*", path="literal") == "{c}.txt"
    assert await glob(client, pattern="{c}*", path="literal") == "{c}.txt"
    assert await glob(client, pattern="a}b*", path="literal") == "a}b.txt"
    assert await glob(client, pattern="x,y*", path="literal") == "x,y.txt"
    assert await glob(client, pattern="a\\*", path="literal") == "a*"
    assert await glob(client, pattern="\\x\\,y.txt", path="literal") == "x,y.txt"


async def test_nested_braces(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "nested", {"a.txt": "", "b.txt": "", "c.txt": "", "d.txt": ""})
    assert await glob(client, pattern="{a,{b,c}}.txt", path="nested") == "a.txt\nb.txt\nc.txt"
    assert await glob(client, pattern="{{a,b},{c,x}}.t{x,y}t", path="nested") == (
        "a.txt\nb.txt\nc.txt"
    )


async def test_trailing_globstar_needs_something_below(client: Client[Any], workdir: Path) -> None:
    """``dir/**`` matches every path below ``dir``, not ``dir`` itself."""
    write_tree(workdir / "below", {"src/a/b.py": "", "src/c.py": "", "srcx/d.py": ""})
    assert await glob(client, pattern="src/**", path="below") == "src/a\nsrc/a/b.py\nsrc/c.py"


async def test_trailing_slash_matches_directories_only(client: Client[Any], workdir: Path) -> None:
    """A pattern ending in ``/`` matches directories only, as in .gitignore."""
    write_tree(workdir / "slash", {"src/lib/a.py": "", "lib": "", "docs/": ""})
    assert await glob(client, pattern="*/", path="slash") == "docs\nsrc\nsrc/lib"
    assert await glob(client, pattern="lib/", path="slash") == "src/lib"
    assert await glob(client, pattern="src/*/", path="slash") == "src/lib"
    assert await glob(client, pattern="lib/", path="slash", type="file") == "No files found"


async def test_hidden_files_included_and_directories_listed(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "hidden", TREE)
    assert await glob(client, pattern="*.json", path="hidden") == ".config/settings.json"
    assert await glob(client, pattern=".*", path="hidden") == ".config\n.env.example"
    everything = (await glob(client, pattern="**", path="hidden")).splitlines()
    assert {"src", "src/app", "src/app/main.py"} <= set(everything)


async def test_type_file_or_directory(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "types", {"a/b/c.txt": "", "a/d.txt": "", "e/": ""})
    assert await glob(client, pattern="*", path="types", type="directory") == "a\na/b\ne"
    assert await glob(client, pattern="*", path="types", type="file") == "a/b/c.txt\na/d.txt"
    assert await glob_error(client, pattern="*", path="types", type="dir") == (
        '[GLOB_INVALID_TYPE] invalid type "dir"; use "file" or "directory"'
    )


async def test_newest_first(client: Client[Any], workdir: Path) -> None:
    root = write_tree(workdir / "mtime", {"old.txt": "", "mid.txt": "", "sub/new.txt": ""})
    set_mtimes(root, ["old.txt", "mid.txt", "sub/new.txt"])
    assert await glob(client, pattern="**/*.txt", path="mtime") == ("sub/new.txt\nmid.txt\nold.txt")


async def test_skips_git_node_modules_ignored_and_denied(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(
        workdir / "skips",
        {
            ".gitignore": "dist/\n*.tmp\n",
            "dist/out.js": "",
            "a.tmp": "",
            ".git/index.js": "",
            "node_modules/pkg/index.js": "",
            "secrets/key.js": "",
            "src/main.js": "",
        },
    )
    assert await glob(client, pattern="**/*.js", path="skips") == "src/main.js"
    assert await glob(client, pattern="*", path="skips") == ".gitignore\nsrc\nsrc/main.js"


async def test_inside_an_ignored_directory_and_in_nested_repositories(
    client: Client[Any], workdir: Path
) -> None:
    """Listing an ignored directory lists it under the other rules still; a
    directory holding .git has its own rules only."""
    write_tree(
        workdir / "ignoredroot",
        {
            ".git/HEAD": "",
            ".gitignore": "build/\n*.log\n",
            "build/x.log": "",
            "build/y.txt": "",
            "sub/.git/HEAD": "",
            "sub/z.log": "",
        },
    )
    assert await glob(client, pattern="*", path="ignoredroot/build") == "y.txt"
    assert await glob(client, pattern="*.log", path="ignoredroot") == "sub/z.log"
    assert await glob(client, pattern="*.log", path="ignoredroot/sub") == "z.log"


async def test_ignore_and_rgignore_files(client: Client[Any], workdir: Path) -> None:
    """glob leaves out what .ignore and .rgignore files exclude, as grep does: in a
    repository or not, across a nested repository's edge, .rgignore over .ignore
    over .gitignore whatever their depth, and a "!" rule re-including."""
    write_tree(
        workdir / "dotignore",
        {
            ".ignore": "gen/\n*.tmp\n",
            ".rgignore": "!keep.tmp\n",
            "gen/x.py": "",
            "a.tmp": "",
            "keep.tmp": "",
            "sub/.git/HEAD": "",
            "sub/.gitignore": "!b.tmp\n*.py\n",
            "sub/.ignore": "!c.py\n",
            "sub/b.tmp": "",
            "sub/c.py": "",
            "sub/d.py": "",
        },
    )
    assert await glob(client, pattern="**/*.{py,tmp}", path="dotignore") == "keep.tmp\nsub/c.py"
    assert await glob(client, pattern="*.py", path="dotignore/sub") == "c.py"
    assert await glob(client, pattern="*", path="dotignore/gen") == "x.py"


async def test_symlinks(client: Client[Any], workdir: Path) -> None:
    root = write_tree(workdir / "links", {"real/inside.txt": "", "file.txt": ""})
    (root / "linked_dir").symlink_to(root / "real")
    (root / "linked.txt").symlink_to(root / "file.txt")
    (root / "broken.txt").symlink_to(root / "missing.txt")
    # The symlinked directory is listed but not entered; the broken link is skipped.
    assert await glob(client, pattern="*", path="links") == (
        "file.txt\nlinked.txt\nlinked_dir\nreal\nreal/inside.txt"
    )


async def test_undecodable_names_are_shown_with_a_replacement_character(
    client: Client[Any], workdir: Path
) -> None:
    root = write_tree(workdir / "names", {})
    (root / os.fsdecode(b"caf\xe9.txt")).write_text("")
    assert await glob(client, pattern="*.txt", path="names") == "caf\ufffd.txt"


async def test_nothing_found(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "none", {"a.txt": ""})
    assert await glob(client, pattern="*.xyz", path="none") == "No files found"
    assert await glob(client, pattern="*", path="none/does/not/exist") == "No files found"


async def test_errors(client: Client[Any], workdir: Path) -> None:
    assert await glob_error(client, pattern="") == "[INVALID_INPUT] pattern: must not be empty"
    assert await glob_error(client, pattern="[invalid") == (
        "[GLOB_INVALID_PATTERN] unclosed '[' at position 0 in \"[invalid\""
    )
    assert await glob_error(client, pattern="{a,b") == (
        "[GLOB_INVALID_PATTERN] unclosed '{' in \"{a,b\""
    )
    outside = await glob_error(client, pattern="*", path="/")
    assert outside.startswith("[ACCESS_DENIED] / is outside the allowed directories")
    write_tree(workdir / "deny" / "secrets", {"a.txt": ""})
    assert await glob_error(client, pattern="*", path="deny/secrets") == (
        f"[ACCESS_DENIED] {workdir}/deny/secrets is denied by the pattern **/secrets"
    )


async def test_output_truncated_at_30000_characters(client: Client[Any], workdir: Path) -> None:
    names = {f"dir/{'n' * 87}{index:04d}.txt": "" for index in range(400)}  # 99 chars each
    write_tree(workdir / "many", names)
    text = await glob(client, pattern="*.txt", path="many")
    shown, note = text.split("\n\n")
    assert len(shown) <= 30000
    assert len(shown.splitlines()) == 30000 // 100  # each line is 99 characters + newline
    assert note == (
        "[Truncated: 400 paths matched (39999 characters), showing the first 300. "
        "Use a more specific pattern or path.]"
    )


async def test_default_schema(client: Client[Any]) -> None:
    tool = next(t for t in await client.list_tools() if t.name == "glob")
    assert list(tool.input_schema["properties"]) == ["pattern", "path", "type"]
    assert tool.input_schema["properties"]["type"]["type"] == "string"  # not an enum
