"""apply_patch through a real client (README "apply_patch"): the envelope read as Codex reads
it, every file checked before any is written, the bytes of every file kept as str_replace
keeps them, and nothing changed on any error."""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from boris.files import edit_files
from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.interpose import Unavailable, on_open

pytestmark = pytest.mark.anyio

State = dict[str, tuple[bytes | None, int, int, int]]


def state(directory: Path) -> State:
    """Every entry under ``directory``: content (None for a directory), inode, mtime, mode."""
    found: State = {}
    for path in sorted(directory.rglob("*")):
        info = path.lstat()
        content = None if path.is_dir() else path.read_bytes()
        found[str(path.relative_to(directory))] = (
            content,
            info.st_ino,
            info.st_mtime_ns,
            info.st_mode,
        )
    return found


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


async def apply(client: Client[Any], text: str) -> Any:
    return await client.call_tool("apply_patch", {"patch": text}, raise_on_error=False)


async def viewed(client: Client[Any], path: Path, content: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    result = await client.call_tool("view", {"path": str(path)}, raise_on_error=False)
    assert not result.is_error
    return path


async def refused(client: Client[Any], case: Path, text: str) -> str:
    """The error text of a patch that must change nothing under ``case``."""
    before = state(case)
    message = error_text(await apply(client, text))
    assert state(case) == before
    return message


# --- the four operations ----------------------------------------------------------------------


async def test_add_update_move_and_delete_in_one_patch(client: Client[Any], case: Path) -> None:
    app = await viewed(client, case / "app.py", "def greet():\n    print('Hi')\n    return 1\n")
    old = await viewed(client, case / "old.py", "import os\n\nos.getcwd()\n")
    await viewed(client, case / "obsolete.txt", "bye\n")
    old.chmod(0o750)
    result = await apply(
        client,
        patch(
            f"*** Add File: {case}/pkg/new.py",
            "+print('new')",
            "+",
            f"*** Update File: {app}",
            "@@ def greet():",
            "-    print('Hi')",
            "+    print('Hello')",
            f"*** Update File: {old}",
            f"*** Move to: {case}/lib/renamed.py",
            "@@",
            "-import os",
            "+import sys",
            f"*** Delete File: {case}/obsolete.txt",
        ),
    )
    assert ok_text(result) == (
        f"A {case}/pkg/new.py\nM {app}\nM {old} -> {case}/lib/renamed.py\nD {case}/obsolete.txt"
    )
    assert (case / "pkg/new.py").read_bytes() == b"print('new')\n\n"
    assert app.read_text() == "def greet():\n    print('Hello')\n    return 1\n"
    renamed = case / "lib/renamed.py"
    assert renamed.read_text() == "import sys\n\nos.getcwd()\n"
    assert stat.S_IMODE(renamed.stat().st_mode) == 0o750  # the moved file keeps its mode
    assert stat.S_IMODE((case / "pkg/new.py").stat().st_mode) == 0o644
    assert sorted(os.listdir(case)) == ["app.py", "lib", "pkg"]  # nothing set aside is left


async def test_relative_paths_start_at_the_working_directory(
    client: Client[Any], case: Path, root: Path
) -> None:
    """Paths are relative to the session's cwd (here the module's root) or absolute; the
    result names every file by its absolute path, as the other file tools do."""
    await viewed(client, case / "a.txt", "a\n")
    result = await apply(
        client,
        patch(
            f"*** Update File: {case.name}/a.txt",
            "-a",
            "+b",
            f"*** Add File: {case.name}/../{case.name}/c.txt",
            "+c",
        ),
    )
    assert ok_text(result) == f"M {case}/a.txt\nA {case}/c.txt"
    assert (root / case.name / "a.txt").read_text() == "b\n"


async def test_files_the_patch_wrote_count_as_viewed(client: Client[Any], case: Path) -> None:
    await viewed(client, case / "m.txt", "m\n")
    ok_text(
        await apply(
            client,
            patch(
                f"*** Add File: {case}/a.txt",
                "+a",
                f"*** Update File: {case}/m.txt",
                f"*** Move to: {case}/n.txt",
                "-m",
                "+n",
            ),
        )
    )
    for name, old in (("a.txt", "a"), ("n.txt", "n")):
        result = await client.call_tool(
            "str_replace",
            {"path": str(case / name), "old_str": old, "new_str": "x"},
            raise_on_error=False,
        )
        ok_text(result)


async def test_a_move_alone_needs_no_hunk(client: Client[Any], case: Path) -> None:
    src = await viewed(client, case / "a.txt", b"keep\r\nthese bytes\xff")
    result = await apply(client, patch(f"*** Update File: {src}", f"*** Move to: {case}/b.txt"))
    assert ok_text(result) == f"M {src} -> {case}/b.txt"
    assert (case / "b.txt").read_bytes() == b"keep\r\nthese bytes\xff"
    assert not src.exists()


# --- the third file fails: nothing is written -----------------------------------------------


async def test_a_patch_whose_third_file_fails_writes_nothing(
    client: Client[Any], case: Path
) -> None:
    one = await viewed(client, case / "one.txt", "alpha\nbeta\n")
    two = await viewed(client, case / "two.txt", "gamma\n")
    three = await viewed(client, case / "three.txt", "first\nsecond\nthird\n")
    await viewed(client, case / "four.txt", "delete me\n")
    message = await refused(
        client,
        case,
        patch(
            f"*** Update File: {one}",
            "-alpha",
            "+ALPHA",
            f"*** Update File: {two}",
            f"*** Move to: {case}/moved.txt",
            "-gamma",
            "+GAMMA",
            f"*** Update File: {three}",
            "@@",
            " first",
            "-secnod",
            "+SECOND",
            f"*** Delete File: {case}/four.txt",
            f"*** Add File: {case}/five.txt",
            "+five",
        ),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {three}: hunk 1 of 1: its context and removed lines were "
        "not found in the file. They must match lines of the file exactly, apart from "
        "trailing whitespace.\n"
        "Line 1 matches the first line of hunk 1, but line 2 differs (both shown as JSON "
        'strings):\n  line 2: "second"\n  hunk 1: "secnod"'
    )


# --- malformed patches: PATCH_INVALID naming the line ------------------------------------------


MALFORMED = [
    ("", 'line 1: the patch is empty; it starts with "*** Begin Patch"'),
    (
        "*** Update File: a.txt\n-a\n+b\n*** End Patch",
        'line 1: the patch must start with "*** Begin Patch", not "*** Update File: a.txt"',
    ),
    (
        "x\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch",
        'line 1: the patch must start with "*** Begin Patch", not "x"',
    ),
    (
        "\n\nx\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch",
        'line 3: the patch must start with "*** Begin Patch", not "x"',
    ),
    # Heredoc lines around nothing, or around one line, enclose no patch.
    ("<<EOF", 'line 1: the patch must start with "*** Begin Patch", not "<<EOF"'),
    ("<<EOF\nEOF", 'line 1: the patch must start with "*** Begin Patch", not "<<EOF"'),
    (
        "<<EOF\n*** Begin Patch\nEOF",
        'line 1: the patch must start with "*** Begin Patch", not "<<EOF"',
    ),
    # A heredoc's last line without its first.
    (
        "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF",
        'line 4: the patch must end with "*** End Patch", not "EOF"',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n",
        'line 2: the patch must end with "*** End Patch", not "*** Delete File: a.txt"',
    ),
    (
        "*** Begin Patch\n*** End Patch\n\n",
        'line 2: the patch changes no file: give at least one "*** Add File: <path>", '
        '"*** Update File: <path>" or "*** Delete File: <path>" section',
    ),
    (
        "*** Begin Patch\n*** Add File: n.txt\n+one\ntwo\n*** End Patch",
        "line 4: every line of an added file starts with '+' (an empty line is a lone "
        "'+'); got \"two\"",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n!c\n*** End Patch",
        "line 6: each line of a hunk starts with ' ' (context), '-' (removed) or '+' "
        '(added); got "!c"',
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@ -1,2 +1,2 @@\n-a\n+b\n*** End Patch",
        'line 3: "@@ -1,2 +1,2 @@" is a unified diff\'s hunk header: this format has no '
        "line numbers; start the hunk with '@@' alone, or '@@ ' and a line of the file it "
        "comes after (such as the first line of its function)",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n*** Delete File: b.txt\n*** End Patch",
        "line 2: \"*** Update File: a.txt\" has no hunks: give its changes as '@@' hunks "
        "of ' ' context, '-' removed and '+' added lines",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n*** End Patch",
        "line 3: this hunk has no lines",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n@@ x\n*** End Patch",
        "line 5: this hunk has no lines",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n*** End of File\n*** End Patch",
        'line 4: "*** End of File" must follow the lines of a hunk',
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n*** End of File\n"
        "*** End of File\n*** End Patch",
        'line 6: "*** End of File" must follow the lines of a hunk',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n*** Move to: b.txt\n*** End Patch",
        'line 3: "*** Move to:" must come right after its Update File line',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n-a\n*** End Patch",
        'line 3: a hunk belongs to an "*** Update File: <path>" section',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n@@\n-a\n*** End Patch",
        'line 3: a hunk belongs to an "*** Update File: <path>" section',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n a\n*** End Patch",
        'line 3: a hunk belongs to an "*** Update File: <path>" section',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n+a\n*** End Patch",
        'line 3: a hunk belongs to an "*** Update File: <path>" section',
    ),
    (
        "*** Begin Patch\n*** Add File: n.txt\n+a\n*** Move to: b.txt\n*** End Patch",
        'line 4: "*** Move to:" must come right after its Update File line',
    ),
    (
        "*** Begin Patch\n*** Add File:\n+a\n*** End Patch",
        'line 2: "*** Add File:" needs a path after it',
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to:\n*** End Patch",
        'line 3: "*** Move to:" needs a path after it',
    ),
    (
        "*** Begin Patch\n*** Add File:a.txt\n+a\n*** End Patch",
        'line 2: expected "*** Add File: <path>", "*** Update File: <path>", "*** Delete '
        'File: <path>" or "*** End Patch"; got "*** Add File:a.txt"',
    ),
    (
        "*** Begin Patch\n*** Add File:   \n+a\n*** End Patch",
        'line 2: "*** Add File:" needs a path after it',
    ),
    (
        "*** Begin Patch\n*** Modify File: a.txt\n*** End Patch",
        'line 2: expected "*** Add File: <path>", "*** Update File: <path>", "*** Delete '
        'File: <path>" or "*** End Patch"; got "*** Modify File: a.txt"',
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@hdr\n-a\n*** End Patch",
        "line 3: a hunk starts with '@@' alone or '@@ ' and a line of the file; got \"@@hdr\"",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n@@h\n-a\n*** End Patch",
        "line 3: a hunk starts with '@@' alone or '@@ ' and a line of the file; got \"@@h\"",
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n\n*** Begin Patch\n*** End Patch",
        'line 6: a second "*** Begin Patch": send one patch per call',
    ),
    (
        "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n*** Delete File: b.txt\n"
        "*** End Patch",
        'line 3: "*** End Patch" must be the patch\'s last line',
    ),
    (
        "*** Begin Patch\n*** Update File: a.txt\n-a\n*** End of File\n+b\n*** End Patch",
        "line 5: expected '@@' to start the next hunk, got \"+b\"",
    ),
    # A line quoted in a message: as JSON, non-ASCII as it is, cut after 80 characters.
    (
        "*** Begin Patch\n*** Add File: n.txt\n+one\n" + "é" * 80 + "\n*** End Patch",
        "line 4: every line of an added file starts with '+' (an empty line is a lone "
        "'+'); got \"" + "é" * 80 + '"',
    ),
    (
        "*** Begin Patch\n*** Add File: n.txt\n+one\n" + "é" * 79 + "xy\n*** End Patch",
        "line 4: every line of an added file starts with '+' (an empty line is a lone "
        "'+'); got \"" + "é" * 79 + 'x" (cut)',
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), MALFORMED, ids=[f"malformed{n}" for n in range(len(MALFORMED))]
)
async def test_malformed_patches(client: Client[Any], case: Path, text: str, message: str) -> None:
    await viewed(client, case / "a.txt", "a\n")
    assert await refused(client, case, text) == f"[PATCH_INVALID] {message}"


async def test_at_most_100_files(client: Client[Any], case: Path) -> None:
    sections = [f"*** Add File: {case}/f{n}.txt\n+x" for n in range(101)]
    message = await refused(
        client, case, "*** Begin Patch\n" + "\n".join(sections) + "\n*** End Patch"
    )
    assert message == (
        "[PATCH_INVALID] line 202: a patch changes at most 100 files; split it into several"
    )


async def test_at_most_10000_hunks(client: Client[Any], case: Path) -> None:
    """All files together: 10,000 hunks are taken, the next one is refused by its line."""
    path = await viewed(client, case / "f.txt", "".join(f"{n}\n" for n in range(10_001)))
    hunks = [f"@@\n-{n}\n+{n}!" for n in range(10_001)]
    message = await refused(client, case, patch(f"*** Update File: {path}", *hunks))
    assert message == (
        "[PATCH_INVALID] line 30003: a patch holds at most 10000 hunks; split it into several"
    )
    ok_text(await apply(client, patch(f"*** Update File: {path}", *hunks[:10_000])))
    assert path.read_text().count("!\n") == 10_000


LENIENT = [
    # Padded markers and section headers, blank lines around the patch, CRLF lines.
    "\n\n  *** Begin Patch \n  *** Update File: {path}\n@@\n-a\n+b\n *** End Patch  \n\n",
    "*** Begin Patch\r\n*** Update File: {path}\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n",
    "*** Begin Patch\r\n*** Update File: {path}\r\n-a\r\n+b\r\n*** End Patch\r",
    # A heredoc's lines around the patch.
    "<<'EOF'\n*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\nEOF\n",
    "\n<<EOF\n*** Begin Patch\n*** Update File: {path}\n-a\n+b\n*** End Patch\nEOF\n",
    # Blanks after a marker.
    "*** Begin Patch\n*** Update File: {path}\n-a\n+b\n*** End of File \t\n*** End Patch",
    '<<"EOF"\n*** Begin Patch\n*** Update File: {path}\n-a\n+b\n*** End Patch\nEOF',
    "<<EOF\n*** Begin Patch\n*** Update File: {path}\n-a\n+b\n*** End Patch\nEOF",
    # A first hunk without its @@ line; blank lines between hunks and before the end.
    "*** Begin Patch\n*** Update File: {path}\n-a\n+b\n\n*** End Patch",
    "*** Begin Patch\n*** Update File: {path}\n\n@@\n-a\n+b\n\n\n*** End Patch",
    "*** Begin Patch\n*** Update File: {path}\n-a\n+b\n*** End of File\n\n*** End Patch",
    # An indented end, and a blank line after it that no hunk line starts like.
    "*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n *** End Patch\n\t\n",
]


@pytest.mark.parametrize("text", LENIENT, ids=[f"lenient{n}" for n in range(len(LENIENT))])
async def test_what_codex_is_lenient_about(client: Client[Any], case: Path, text: str) -> None:
    path = await viewed(client, case / "a.txt", "a\n")
    assert ok_text(await apply(client, text.format(path=path))) == f"M {path}"
    assert path.read_bytes() == b"b\n"


async def test_an_empty_line_in_a_hunk_is_an_empty_context_line(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "a.py", "import os\n\nx = 1\n")
    ok_text(
        await apply(
            client, patch(f"*** Update File: {path}", "@@", " import os", "", "-x = 1", "+x = 2")
        )
    )
    assert path.read_text() == "import os\n\nx = 2\n"


# --- where hunks apply ------------------------------------------------------------------------

TWO_FUNCTIONS = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n"


async def test_context_found_twice_is_refused(client: Client[Any], case: Path) -> None:
    """Without an @@ line, a hunk whose lines occur twice is refused: taking the first, as
    Codex does, would silently edit the wrong place when the model meant the other."""
    path = await viewed(client, case / "f.py", TWO_FUNCTIONS)
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "@@", "-    x = 1", "+    x = 2")
    )
    assert message == (
        f"[STR_REPLACE_AMBIGUOUS] {path}: hunk 1 of 1: its context and removed lines occur "
        "2 times in the file (at lines 2, 6); add context lines to make them unique, or start "
        "the hunk with an '@@ ' line naming a line before it, such as the first line of its "
        "function or class (the first place after that line is taken)"
    )


@pytest.mark.parametrize(
    "anchor", ["def b():", "def b():  ", "    def b():"], ids=["exact", "trailing", "indented"]
)
async def test_an_anchor_picks_the_first_place_after_it(
    client: Client[Any], case: Path, anchor: str
) -> None:
    """An @@ line is found as a line of the file (its indentation and trailing whitespace
    aside: it changes nothing), and the first place after it is taken."""
    path = await viewed(client, case / "f.py", TWO_FUNCTIONS)
    text = patch(f"*** Update File: {path}", f"@@ {anchor}", "-    x = 1", "+    x = 2")
    ok_text(await apply(client, text))
    assert path.read_text() == (
        "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 2\n    return x\n"
    )


async def test_several_anchors_narrow_in_turn(client: Client[Any], case: Path) -> None:
    content = (
        "class A:\n    def run(self):\n        return 1\n"
        "class B:\n    def run(self):\n        return 1\n"
    )
    path = await viewed(client, case / "f.py", content)
    text = patch(
        f"*** Update File: {path}",
        "@@ class B:",
        "@@     def run(self):",
        "-        return 1",
        "+        return 2",
    )
    ok_text(await apply(client, text))
    assert path.read_text() == content[: -len("1\n")] + "2\n"


async def test_an_anchor_not_found(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.py", TWO_FUNCTIONS)
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "@@ def c():", "-    x = 1", "+    x = 2")
    )
    assert message == (
        f'[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its @@ line "def c():" was not found in '
        "the file. An @@ line gives a line of the file (such as the first line of a function) "
        "after which the hunk is looked for.\n"
        "Line 1 resembles the @@ line (both shown as JSON strings):\n"
        '  line 1: "def a():"\n'
        '  the @@ line: "def c():"'
    )


async def test_hunks_go_in_file_order(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "one\ntwo\nthree\nfour\n")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", "@@", " three", "-four", "+4", "@@", "-one", "+1"),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 2 of 2: its context and removed lines were not "
        "found after line 4 (the end of hunk 1). They must match lines of the file exactly, "
        "apart from trailing whitespace.\n"
        "They are at line 1, before that: hunks go in the order of the file, each after the "
        "one before it and after its @@ lines."
    )


async def test_a_hunk_that_occurs_twice_after_the_one_before(
    client: Client[Any], case: Path
) -> None:
    """ "Once" counts from where the previous hunk ended: a line before it does not count."""
    path = await viewed(client, case / "f.txt", "x\nmark\nx\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", " mark", "@@", "-x", "+y")))
    assert path.read_text() == "x\nmark\ny\n"


async def test_trailing_whitespace_is_tolerated_and_kept(client: Client[Any], case: Path) -> None:
    """Lines that differ only in trailing whitespace match when nothing matches exactly;
    the file's context lines keep their own bytes."""
    path = await viewed(client, case / "f.txt", "keep  \nold\t\nafter \n")
    text = patch(f"*** Update File: {path}", " keep", "-old", "+new", " after")
    ok_text(await apply(client, text))
    assert path.read_bytes() == b"keep  \nnew\nafter \n"


async def test_leading_whitespace_is_not_tolerated(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.py", "if x:\n    y = 1\n")
    message = await refused(client, case, patch(f"*** Update File: {path}", "-  y = 1", "+  y = 2"))
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        "found in the file. They must match lines of the file exactly, apart from trailing "
        "whitespace.\n"
        "Line 2 resembles the first line of hunk 1 (both shown as JSON strings):\n"
        '  line 2: "    y = 1"\n'
        '  hunk 1: "  y = 1"'
    )


async def test_exact_matches_win_over_tolerant_ones(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "a \nb\na\nb\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", " a", "-b", "+B")))
    assert path.read_text() == "a \nb\na\nB\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [(b"a \nb\na\n", b"x\nb\ny\n"), (b"a \nb\na", b"x\nb\ny")],
    ids=["final newline", "none"],
)
async def test_an_exact_match_where_the_next_hunk_is_is_no_rival(
    client: Client[Any], case: Path, before: bytes, after: bytes
) -> None:
    """The first hunk's lines match line 1 only without trailing whitespace, and line 3
    exactly; the second hunk's lines are first found at line 3, so the first hunk's
    region ends there, and it goes at line 1."""
    path = await viewed(client, case / "f.txt", before)
    ok_text(await apply(client, patch(f"*** Update File: {path}", "-a", "+x", "@@", "-a", "+y")))
    assert path.read_bytes() == after


async def test_an_exact_match_just_before_the_next_hunk_wins(
    client: Client[Any], case: Path
) -> None:
    """An empty context line matches line 1 (a tab) without trailing whitespace and line
    2 exactly, right before line 3, where the next hunk is found: line 2 is taken."""
    path = await viewed(client, case / "f.txt", b"\t\n\nZ\n")
    ok_text(
        await apply(client, patch(f"*** Update File: {path}", "@@", " ", "+new", "@@", "-Z", "+z"))
    )
    assert path.read_bytes() == b"\t\n\nnew\nz\n"


@pytest.mark.parametrize("hunk", [["-a", "+A"], [" a", "+A"]], ids=["removed", "context"])
async def test_lines_right_after_an_empty_first_line(
    client: Client[Any], case: Path, hunk: list[str]
) -> None:
    path = await viewed(client, case / "f.txt", b"\na\nb\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", *hunk)))
    assert path.read_bytes() == (b"\nA\nb\n" if hunk[0] == "-a" else b"\na\nA\nb\n")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"one\ntwo\nlast\n", b"one\ntwo\nLAST\nmore\n"),
        (b"one\ntwo\nlast", b"one\ntwo\nLAST\nmore"),  # still no final newline
        (b"one\r\ntwo\r\nlast", b"one\r\ntwo\r\nLAST\r\nmore"),
    ],
)
async def test_end_of_file_anchors_a_hunk_at_the_end(
    client: Client[Any], case: Path, before: bytes, after: bytes
) -> None:
    path = await viewed(client, case / "f.txt", before)
    text = patch(
        f"*** Update File: {path}", "@@", " two", "-last", "+LAST", "+more", "*** End of File"
    )
    ok_text(await apply(client, text))
    assert path.read_bytes() == after


async def test_end_of_file_anchors_a_hunk_of_one_line(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "last\none\nlast\n")
    ok_text(
        await apply(client, patch(f"*** Update File: {path}", "-last", "+LAST", "*** End of File"))
    )
    assert path.read_bytes() == b"last\none\nLAST\n"


async def test_end_of_file_refuses_lines_elsewhere(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "a\nb\nc\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "-a", "+A", "*** End of File")
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines are not "
        "the last lines of the file ('*** End of File' says they are).\n"
        "They are at line 1, which is not the end of the file: leave out '*** End of File', "
        "or give the file's last lines."
    )


@pytest.mark.parametrize(
    ("lines", "after"),
    [
        # Without an @@ line, added lines alone go at the end of the file (as in Codex).
        (["@@", "+end"], "a\nb\nend\n"),
        # With one, right after that line.
        (["@@ a", "+after a"], "a\nafter a\nb\n"),
        (["@@ a", "+x", "*** End of File"], "a\nb\nx\n"),
    ],
)
async def test_added_lines_alone(
    client: Client[Any], case: Path, lines: list[str], after: str
) -> None:
    path = await viewed(client, case / "f.txt", "a\nb\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", *lines)))
    assert path.read_text() == after


async def test_a_hunk_may_empty_a_file(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", b"\xef\xbb\xbfonly\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", "-only")))
    assert path.read_bytes() == b"\xef\xbb\xbf"


# --- bytes kept as str_replace keeps them -------------------------------------------------------

BYTE_CASES = [
    # A CRLF file patched with LF lines stays CRLF, added lines included.
    (b"a\r\nb\r\nc\r\n", [" a", "-b", "+B", "+B2"], b"a\r\nB\r\nB2\r\nc\r\n"),
    # A missing final newline stays missing.
    (b"a\nb", ["-b", "+B"], b"a\nB"),
    (b"a\r\nb", [" a", "-b", "+B", "+C"], b"a\r\nB\r\nC"),
    # A BOM stays first.
    (b"\xef\xbb\xbffirst\nsecond\n", ["-first", "+FIRST"], b"\xef\xbb\xbfFIRST\nsecond\n"),
    # Bytes that are not UTF-8 survive an ASCII edit.
    (b"caf\xe9\nold\n\xff\xfe\n", ["-old", "+new"], b"caf\xe9\nnew\n\xff\xfe\n"),
    # A file with mixed endings: kept lines keep theirs, added lines take LF.
    (b"a\r\nb\nc\r\n", ["-b", "+B", "+B2"], b"a\r\nB\nB2\nc\r\n"),
    # Multi-byte characters, a lone CR inside a line, an empty file.
    ("é\nx\r y\n€\n".encode(), ["-x\r y", "+€€"], "é\n€€\n€\n".encode()),
    (b"", ["+first"], b"first\n"),
]


@pytest.mark.parametrize(
    ("before", "lines", "after"), BYTE_CASES, ids=[f"bytes{n}" for n in range(len(BYTE_CASES))]
)
async def test_bytes_are_kept(
    client: Client[Any], case: Path, before: bytes, lines: list[str], after: bytes
) -> None:
    path = await viewed(client, case / "f.txt", before)
    ok_text(await apply(client, patch(f"*** Update File: {path}", *lines)))
    assert path.read_bytes() == after


async def test_non_ascii_text_for_a_file_that_is_not_utf8(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", b"caf\xe9\nold\n")
    message = await refused(client, case, patch(f"*** Update File: {path}", "-old", "+néw"))
    assert message == (
        f"[INVALID_INPUT] {path}: hunk 1 of 1: its added lines have non-ASCII characters, but "
        "the file is not valid UTF-8 (it is in another encoding): written as UTF-8 they would "
        "mix two encodings in one file. Use ASCII text only, or convert the file to UTF-8 "
        "first; nothing was changed."
    )
    message = await refused(client, case, patch(f"*** Update File: {path}", "-café", "+cafe"))
    assert "The file is not valid UTF-8 (it is in another encoding), and these lines" in message


async def test_mode_hard_links_and_identity_are_kept(client: Client[Any], case: Path) -> None:
    script = await viewed(client, case / "run.sh", "#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    linked = await viewed(client, case / "linked.txt", "shared\n")
    os.link(linked, case / "other-name.txt")
    before = linked.stat()
    text = patch(
        f"*** Update File: {script}",
        "-echo hi",
        "+echo hello",
        f"*** Update File: {linked}",
        "-shared",
        "+changed",
    )
    ok_text(await apply(client, text))
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    # A file with two names is written in place: both names see the change.
    assert (case / "other-name.txt").read_text() == linked.read_text() == "changed\n"
    assert linked.stat().st_ino == before.st_ino
    assert sorted(os.listdir(case)) == ["linked.txt", "other-name.txt", "run.sh"]


async def test_an_update_that_changes_nothing_writes_nothing(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", "a\nb\n")
    before = state(case)
    assert ok_text(await apply(client, patch(f"*** Update File: {path}", " a", "-b", "+b"))) == (
        f"M {path}"
    )
    assert state(case) == before


# --- refusals: nothing changes -----------------------------------------------------------------


async def test_files_that_exist_or_do_not(client: Client[Any], case: Path) -> None:
    existing = await viewed(client, case / "exists.txt", "x\n")
    other = await viewed(client, case / "other.txt", "y\n")
    missing = case / "missing.txt"
    assert await refused(client, case, patch(f"*** Add File: {existing}", "+x")) == (
        f"[INVALID_INPUT] {existing} already exists (a file): Add File makes new files only. "
        "Change an existing file with Update File (after viewing it), or replace it whole "
        "with create_file."
    )
    assert await refused(client, case, patch(f"*** Add File: {case}", "+x")) == (
        f"[INVALID_INPUT] {case} already exists (a directory): Add File makes new files only. "
        "Change an existing file with Update File (after viewing it), or replace it whole "
        "with create_file."
    )
    assert await refused(client, case, patch(f"*** Add File: {existing}/x.txt", "+x")) == (
        f"[INVALID_INPUT] {existing} exists and is not a directory; {existing}/x.txt cannot be made"
    )
    assert await refused(client, case, patch(f"*** Add File: {case}/dir/", "+x")) == (
        f"[INVALID_INPUT] {case}/dir/ names a directory; Add File needs a file name"
    )
    for section in (f"*** Delete File: {missing}", f"*** Update File: {missing}\n-x\n+y"):
        assert await refused(client, case, patch(section)) == (
            f"[PATH_NOT_FOUND] {missing} does not exist"
        )
    move = patch(f"*** Update File: {existing}", f"*** Move to: {other}", "-x", "+z")
    assert await refused(client, case, move) == (
        f"[INVALID_INPUT] {other} already exists (a file): Move to makes new files only. "
        "Change an existing file with Update File (after viewing it), or replace it whole "
        "with create_file."
    )
    for section in (f"*** Delete File: {case}", f"*** Update File: {case}\n-x\n+y"):
        assert await refused(client, case, patch(section)) == (
            f"[INVALID_INPUT] {case} is a directory; apply_patch works on files only"
        )


async def test_a_name_the_system_refuses_to_look_up(client: Client[Any], case: Path) -> None:
    long = case / ("n" * 300)  # over NAME_MAX: stat fails with ENAMETOOLONG
    assert await refused(client, case, patch(f"*** Add File: {long}", "+x")) == (
        f"[IO_ERROR] could not stat {long}: File name too long"
    )


async def test_a_file_named_twice(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.txt", "a\n")
    twice = patch(
        f"*** Update File: {path}",
        "-a",
        "+b",
        f"*** Delete File: {case.name}/../{case.name}/f.txt",
    )
    assert await refused(client, case, twice) == (
        f"[PATCH_INVALID] line 5: {path} is already changed by the section at line 2; give "
        "each file one section, with all its hunks"
    )
    replaced = patch(f"*** Delete File: {path}", f"*** Add File: {path}", "+new")
    assert await refused(client, case, replaced) == (
        f"[PATCH_INVALID] line 3: {path} is already changed by the section at line 2; give "
        "each file one section, with all its hunks"
    )
    onto_itself = patch(f"*** Update File: {path}", f"*** Move to: {path}", "-a", "+b")
    assert await refused(client, case, onto_itself) == (
        f"[PATCH_INVALID] line 3: {path} is moved onto itself; leave out the Move to line"
    )


async def test_view_before_edit(client: Client[Any], case: Path) -> None:
    """Updated, moved and deleted files must have been viewed; an added file needs nothing,
    and a file the session wrote counts as viewed."""
    (case / "u.txt").write_text("u\n")
    (case / "d.txt").write_text("d\n")
    assert await refused(client, case, patch(f"*** Update File: {case}/u.txt", "-u", "+U")) == (
        f"[FILE_NOT_VIEWED] file {case}/u.txt must be viewed before editing. Use the view "
        "tool first."
    )
    move = patch(f"*** Update File: {case}/u.txt", f"*** Move to: {case}/v.txt")
    assert await refused(client, case, move) == (
        f"[FILE_NOT_VIEWED] file {case}/u.txt must be viewed before editing. Use the view "
        "tool first."
    )
    assert await refused(client, case, patch(f"*** Delete File: {case}/d.txt")) == (
        f"[FILE_NOT_VIEWED] file {case}/d.txt must be viewed before deleting. Use the view "
        "tool first."
    )
    ok_text(await apply(client, patch(f"*** Add File: {case}/n.txt", "+n")))
    ok_text(await apply(client, patch(f"*** Update File: {case}/n.txt", "-n", "+N")))
    assert (case / "n.txt").read_text() == "N\n"


# --- with other flags ---------------------------------------------------------------------------


@pytest.fixture
async def scoped(tmp_path: Path) -> AsyncIterator[tuple[Client[Any], Path]]:
    work = tmp_path / "work"
    work.mkdir()
    flags = ["--allow-dir", str(work), "--deny-dir", "**/secret*", "--max-file-size", "1KB"]
    async with app_client(*flags, workdir=work) as client:
        yield client, work


async def test_scope_is_checked_for_every_file_first(scoped: tuple[Client[Any], Path]) -> None:
    client, work = scoped
    await viewed(client, work / "a.txt", "a\n")
    outside = work.parent / "outside.txt"
    for section, denied in (
        ("*** Add File: ../outside.txt\n+x", outside),
        ("*** Delete File: secret.txt", work / "secret.txt"),
        ("*** Update File: a.txt\n*** Move to: secrets/a.txt", work / "secrets"),
    ):
        message = await refused(client, work, patch("*** Add File: new.txt", "+n", section))
        assert message.startswith(f"[ACCESS_DENIED] {denied}"), message
    assert not outside.exists()


async def test_size_limit_on_new_content(scoped: tuple[Client[Any], Path]) -> None:
    client, work = scoped
    path = await viewed(client, work / "a.txt", "a\n" + "x" * 1019 + "\n")
    assert await refused(client, work, patch("*** Update File: a.txt", "-a", "+a b c")) == (
        f"[FILE_TOO_LARGE] {path} would be 1.0 KB (1026 bytes), over the 1.0 KB limit "
        "set by --max-file-size"
    )


async def test_the_patch_text_is_within_the_size_limit(scoped: tuple[Client[Any], Path]) -> None:
    """A patch is at most --max-file-size of text: an added file over the limit cannot
    come in one."""
    client, work = scoped
    text = patch("*** Add File: big.txt", "+" + "x" * 1000)
    assert await refused(client, work, text) == (
        f"[FILE_TOO_LARGE] the patch is 1.0 KB ({len(text)} bytes), over the 1.0 KB limit set "
        "by --max-file-size; split it into smaller patches"
    )


async def test_a_patch_holds_at_most_four_times_the_size_limit(
    scoped: tuple[Client[Any], Path],
) -> None:
    client, work = scoped
    for n in range(3):
        await viewed(client, work / f"f{n}.txt", "a\n" + "x" * 900 + "\n")
    sections = [f"*** Update File: f{n}.txt\n@@\n-a\n+b" for n in range(3)]
    message = await refused(client, work, patch(*sections))
    assert message == (
        "[FILE_TOO_LARGE] the files of this patch come to more than 4.0 KB together, old "
        "and new contents counted (the limit for one patch is 4 × --max-file-size); split it "
        "into smaller patches"
    )
    # Exactly four times the limit is within it: two files of 1 KiB, old and new.
    for n in range(2):
        await viewed(client, work / f"f{n}.txt", "a\n" + "x" * 1021 + "\n")
    ok_text(await apply(client, patch(*sections[:2])))
    assert (work / "f1.txt").read_text() == "b\n" + "x" * 1021 + "\n"


async def test_without_view_before_edit(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    async with app_client("--require-view-before-edit", "false", workdir=tmp_path) as client:
        text = patch("*** Update File: f.txt", "-a", "+b", "*** Delete File: f2.txt")
        (tmp_path / "f2.txt").write_text("x")
        assert ok_text(await apply(client, text)) == f"M {tmp_path}/f.txt\nD {tmp_path}/f2.txt"


async def test_a_hunk_after_the_last_line_finds_nothing_before_it(
    client: Client[Any], case: Path
) -> None:
    """Once a hunk has ended at a last line without a newline, the next is looked for
    after it, in every way of comparing lines (a trailing space sends it past the
    exact search)."""
    path = await viewed(client, case / "f.txt", "x\nalpha")
    message = await refused(
        client,
        case,
        patch(f"*** Update File: {path}", "@@", "-alpha", "+beta", "@@", "-alpha ", "+gamma"),
    )
    assert message == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 2 of 2: its context and removed lines were not "
        "found after line 2 (the end of hunk 1). They must match lines of the file exactly, "
        "apart from trailing whitespace.\n"
        "They are at line 2, before that: hunks go in the order of the file, each after the "
        "one before it and after its @@ lines."
    )


# --- cancelled ----------------------------------------------------------------------------------


@pytest.mark.parametrize("held", [2, 3], ids=["a middle copy", "the last copy"])
async def test_a_cancelled_patch_changes_nothing(
    client: Client[Any], case: Path, caplog: pytest.LogCaptureFixture, held: int
) -> None:
    """A patch whose call is cancelled (the client sends notifications/cancelled) stops
    before any file changes: the copies it made ready are dropped. The server is held
    in its open of a new copy (of three) until the cancel has reached the patch."""
    caplog.set_level(logging.DEBUG, logger="boris.session")
    for name in "abc":
        await viewed(client, case / f"{name}.txt", f"old {name}\n")
    text = patch(*(f"*** Update File: {case}/{n}.txt\n-old {n}\n+new {n}" for n in "abc"))
    reached, release = threading.Event(), threading.Event()
    copies: list[str] = []

    def hold(name: str) -> None:
        if name.endswith(".tmp"):
            copies.append(name)
            if len(copies) == held:
                reached.set()
                release.wait(30)

    def told_to_stop() -> bool:
        return any("told to stop" in record.getMessage() for record in caplog.records)

    try:
        with on_open(case, hold):
            async with anyio.create_task_group() as group:
                group.start_soon(apply, client, text)
                await anyio.to_thread.run_sync(reached.wait, 30)
                group.cancel_scope.cancel()  # the client sends notifications/cancelled
            for _ in range(1000):  # ten seconds at most
                if told_to_stop():
                    break
                await anyio.sleep(0.01)
            release.set()
            # The patch holds its files' locks until it has ended: an edit of one of them
            # waits for it, then finds the file as it was.
            result = await client.call_tool(
                "str_replace",
                {"path": str(case / "a.txt"), "old_str": "old a", "new_str": "old a!"},
                raise_on_error=False,
            )
    except Unavailable as exc:
        pytest.skip(str(exc))
    finally:
        release.set()
    assert ok_text(result).startswith("Replaced in")
    assert {p.name: p.read_text() for p in case.iterdir()} == {
        "a.txt": "old a!\n",
        "b.txt": "old b\n",
        "c.txt": "old c\n",
    }
    assert len(copies) == held + 1  # the patch's copies, then str_replace's own


def edits_of(path: Path) -> int:
    """How many edits hold or wait for the lock of ``path``, as the locks count them."""
    return edit_files.edits_of(str(path))


async def test_an_edit_of_a_file_waits_for_the_patch_that_writes_it(
    client: Client[Any], case: Path
) -> None:
    """A patch holds its files' locks while it writes: an edit of one of them, started
    while the patch is held in the open of its copy, waits for it and finds its content.
    The patch is let go once the edit is counted at the file's lock."""
    path = await viewed(client, case / "a.txt", "old\n")
    reached, release = threading.Event(), threading.Event()
    edits: list[Any] = []

    def hold(name: str) -> None:
        if name.endswith(".tmp") and not reached.is_set():
            reached.set()
            release.wait(30)

    async def edit() -> None:
        arguments = {"path": str(path), "old_str": "new", "new_str": "newer"}
        edits.append(await client.call_tool("str_replace", arguments, raise_on_error=False))

    try:
        with on_open(case, hold):
            async with anyio.create_task_group() as group:
                group.start_soon(apply, client, patch(f"*** Update File: {path}", "-old", "+new"))
                await anyio.to_thread.run_sync(reached.wait, 30)
                group.start_soon(edit)
                for _ in range(2000):  # ten seconds at most
                    if edits_of(path) == 2:  # the patch, and the edit waiting for it
                        break
                    await anyio.sleep(0.005)
                waiting = edits_of(path)
                release.set()
    except Unavailable as exc:
        pytest.skip(str(exc))
    finally:
        release.set()
    assert waiting == 2
    assert ok_text(edits[0]).startswith("Replaced in")
    assert path.read_text() == "newer\n"


# --- empty context lines ending a hunk ---------------------------------------------------------


@pytest.mark.parametrize("ending", [[" "], [""], ["", " "]], ids=["lone space", "empty", "both"])
async def test_empty_context_lines_ending_a_hunk_are_dropped_if_not_found(
    client: Client[Any], case: Path, ending: list[str]
) -> None:
    """A hunk ending in empty context lines (an empty line, or a lone space) is found
    without them where the file has none there."""
    path = await viewed(client, case / "f.txt", "a\nb\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", " a", "+x", *ending)))
    assert path.read_text() == "a\nx\nb\n"


async def test_empty_context_lines_are_dropped_only_while_one_old_line_is_left(
    client: Client[Any], case: Path
) -> None:
    """Of a hunk's old lines, all empty context lines, one is kept: the file must hold
    an empty line (the hunk is not one of added lines alone, which would go at the end),
    and one is enough."""
    path = await viewed(client, case / "f.txt", "a\nb\n")
    message = await refused(client, case, patch(f"*** Update File: {path}", "+x", "", ""))
    assert message.startswith(
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were "
        "not found in the file."
    ), message
    path.write_text("a\n\nb\n")
    ok_text(await apply(client, patch(f"*** Update File: {path}", "@@", "", "", "")))
    assert path.read_text() == "a\n\nb\n"


# --- the region an End-of-File hunk bounds ----------------------------------------------------


@pytest.mark.parametrize(
    ("before", "hunks", "after"),
    [
        ("x\ny\nx\ny\n", ["-x", "+X", "@@", " x", "-y", "+Y"], "X\ny\nx\nY\n"),
        # The last lines start right where the hunk before ends.
        ("x\nx\n", ["-x", "+X", "@@", "-x", "+Y"], "X\nY\n"),
    ],
    ids=["after it", "where it ends"],
)
async def test_an_end_of_file_hunk_bounds_the_region_of_the_hunk_before(
    client: Client[Any], case: Path, before: str, hunks: list[str], after: str
) -> None:
    """The hunk before one with '*** End of File' is looked for only up to the file's
    last lines: a match of its lines among them does not make it ambiguous."""
    path = await viewed(client, case / "f.txt", before)
    ok_text(await apply(client, patch(f"*** Update File: {path}", *hunks, "*** End of File")))
    assert path.read_text() == after


@pytest.mark.parametrize("last", [[" b"], [" a", " b"]], ids=["at its start", "before it"])
async def test_an_end_of_file_hunk_whose_lines_start_where_the_region_does(
    client: Client[Any], case: Path, last: list[str]
) -> None:
    """The last lines an End-of-File hunk names start at the start of the region of the
    hunk before it, or before: that hunk is looked for up to there, or with no bound."""
    path = await viewed(client, case / "f.txt", "a\nb\nc\n")
    hunks = ["-a", "+A", "@@", "-b", "+B", "@@", *last, "-c", "+C", "*** End of File"]
    assert await refused(client, case, patch(f"*** Update File: {path}", *hunks)) == (
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 3 of 3: its context and removed lines are not "
        "the last lines of the file after line 2 (the end of hunk 2) ('*** End of File' says "
        f"they are).\nThey are at line {3 - len(last)}, before that: hunks go in the order of "
        "the file, each after the one before it and after its @@ lines."
    )


# --- lines that end in whitespace, in files of either line ending -----------------------------


@pytest.mark.parametrize(
    ("before", "context", "after"),
    [
        # A line of one space, first in the file, is found as an empty context line.
        (b" \nb\n", "", b" \nB\n"),
        # A line that ends in whitespace, past as many lines as the hunk has.
        (b"x\ny\nz\na \nb\n", " a", b"x\ny\nz\na \nB\n"),
        # A CR before the CRLF of a line of a CRLF file is whitespace at its end.
        (b"x\r\na\r\r\nb\r\n", " a", b"x\r\na\r\r\nB\r\n"),
        # So is a CR before the LF of one line of a file that mixes line endings.
        (b"x\na\r\nb\n", " a", b"x\na\r\nB\n"),
        # The last line, without a newline, ends in whitespace (all its bytes are its text).
        (b"a\nb ", " a", b"a\nB"),
        (b"a\r\nb\r", " a", b"a\r\nB"),
    ],
    ids=["space first", "further on", "cr in crlf", "mixed", "last line", "last line cr"],
)
async def test_context_found_through_whitespace_at_a_lines_end(
    client: Client[Any], case: Path, before: bytes, context: str, after: bytes
) -> None:
    path = await viewed(client, case / "f.txt", before)
    ok_text(await apply(client, patch(f"*** Update File: {path}", "@@", context, "-b", "+B")))
    assert path.read_bytes() == after


async def test_a_long_hunk_found_through_whitespace_at_the_end_of_its_last_line(
    client: Client[Any], case: Path
) -> None:
    """Of a hunk of 65 lines, past the first 65 lines of the file, the last line is
    found through the whitespace that ends it in the file."""
    lines = [f"l{n}" for n in range(65)]
    before = "".join(f"f{n}\n" for n in range(10)) + "\n".join(lines) + " \n"
    path = await viewed(client, case / "f.txt", before)
    hunk = [f" {line}" for line in lines] + ["+x"]
    ok_text(await apply(client, patch(f"*** Update File: {path}", *hunk)))
    assert path.read_text() == before + "x\n"


async def test_a_file_without_a_final_newline_emptied_keeps_its_bom(
    client: Client[Any], case: Path
) -> None:
    path = await viewed(client, case / "f.txt", b"\xef\xbb\xbfonly")
    ok_text(await apply(client, patch(f"*** Update File: {path}", "-only")))
    assert path.read_bytes() == b"\xef\xbb\xbf"


async def test_lines_not_found_after_a_non_ascii_anchor(client: Client[Any], case: Path) -> None:
    path = await viewed(client, case / "f.py", "def café():\n    pass\n")
    message = await refused(
        client, case, patch(f"*** Update File: {path}", "@@ def café():", "-    return")
    )
    assert message.startswith(
        f"[STR_REPLACE_NOT_FOUND] {path}: hunk 1 of 1: its context and removed lines were not "
        'found after line 1 (its @@ line "def café():").'
    ), message


async def test_a_hunk_of_more_than_1024_runs_of_lines(client: Client[Any], case: Path) -> None:
    """A hunk's old lines come from its runs of context and removed lines, over a thousand
    of them here (each followed by an added line)."""
    count = 1100
    path = await viewed(client, case / "f.txt", "".join(f"l{n}\n" for n in range(count)))
    hunk = [line for n in range(count) for line in (f" l{n}", f"+a{n}")]
    ok_text(await apply(client, patch(f"*** Update File: {path}", *hunk)))
    assert path.read_text() == "".join(f"l{n}\na{n}\n" for n in range(count))
