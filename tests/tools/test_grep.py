"""grep through a real client, exact texts (README "grep and glob, and ripgrep", "Limits
and bad input").

One app serves the module (``--allow-dir`` its workdir, ``--deny-dir **/secrets``,
``--max-file-size 4KB``); each test searches its own subdirectory. The check with the
official SDK client over STDIO is in tests/e2e/test_grep.py.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.inprocess import app_client, app_clients
from tests.support import error_text, ok_text, text_of
from tests.support.interpose import Unavailable, on_open
from tests.support.trees import set_mtimes, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("grep").resolve()


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("outside").resolve(), {"leak.txt": "needle\n"})


@pytest.fixture(scope="module")
async def client(workdir: Path) -> AsyncIterator[Client[Any]]:
    flags = ["--allow-dir", str(workdir), "--deny-dir", "**/secrets", "--max-file-size", "4KB"]
    async with app_client(*flags, workdir=workdir) as connected:
        yield connected


async def grep(client: Client[Any], **arguments: Any) -> str:
    return ok_text(await client.call_tool("grep", arguments, raise_on_error=False))


async def grep_error(client: Client[Any], **arguments: Any) -> str:
    return error_text(await client.call_tool("grep", arguments, raise_on_error=False))


CODE = {
    "main.py": "import os\nimport sys\n\n\ndef main():\n    return os.getcwd()\n",
    "lib/util.py": "def helper():\n    pass\n\n\nimport os.path\n",
    "lib/notes.md": "# Notes\nimport os is mentioned here\n",
    "web/app.ts": "import fs from 'fs'\n",
}


# --- output modes ------------------------------------------------------------------


async def test_files_with_matches_newest_first(client: Client[Any], workdir: Path) -> None:
    root = write_tree(workdir / "newest", CODE)
    set_mtimes(root, ["lib/notes.md", "main.py", "lib/util.py"])  # util.py is the newest
    text = await grep(client, pattern="import os", path="newest")
    assert text == "lib/util.py\nmain.py\nlib/notes.md"


async def test_content_mode_with_and_without_line_numbers(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "content", CODE)
    text = await grep(client, pattern="os", path="content", output_mode="content")
    assert text == (
        "lib/notes.md:2:import os is mentioned here\n"
        "lib/util.py:5:import os.path\n"
        "main.py:1:import os\n"
        "main.py:6:    return os.getcwd()"
    )
    plain = await grep(
        client, pattern="os", path="content", output_mode="content", line_numbers=False
    )
    assert plain == (
        "lib/notes.md:import os is mentioned here\n"
        "lib/util.py:import os.path\n"
        "main.py:import os\n"
        "main.py:    return os.getcwd()"
    )


async def test_count_mode_counts_lines_in_walk_order(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "count", {**CODE, "z.py": "os os os\nos\n"})
    text = await grep(client, pattern="os", path="count", output_mode="count")
    assert text == "lib/notes.md:1\nlib/util.py:1\nmain.py:2\nz.py:2"


async def test_no_match_is_an_empty_result(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "nomatch", CODE)
    for mode in ("files_with_matches", "content", "count"):
        assert await grep(client, pattern="absent_text", path="nomatch", output_mode=mode) == ""


# --- context -----------------------------------------------------------------------

NUMBERS = "".join(f"line {n}\n" for n in range(1, 21))


async def test_context_groups_merge_and_separate(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "ctx", {"n.txt": NUMBERS})
    # Matches on 3, 5 (overlapping context: one group) and 12 (a separate group).
    text = await grep(
        client, pattern=r"^line (3|5|12)$", path="ctx", output_mode="content", context=1
    )
    assert text == (
        "n.txt-2-line 2\n"
        "n.txt:3:line 3\n"
        "n.txt-4-line 4\n"
        "n.txt:5:line 5\n"
        "n.txt-6-line 6\n"
        "--\n"
        "n.txt-11-line 11\n"
        "n.txt:12:line 12\n"
        "n.txt-13-line 13"
    )


async def test_context_before_and_after_separately(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "ctx2", {"n.txt": NUMBERS})
    before = await grep(
        client, pattern="line 10$", path="ctx2", output_mode="content", context_before=2
    )
    assert before == "n.txt-8-line 8\nn.txt-9-line 9\nn.txt:10:line 10"
    after = await grep(
        client, pattern="line 19$", path="ctx2", output_mode="content", context_after=3
    )
    assert after == "n.txt:19:line 19\nn.txt-20-line 20"  # clamped at the end of the file
    first = await grep(
        client, pattern="line 1$", path="ctx2", output_mode="content", context_before=3
    )
    assert first == "n.txt:1:line 1"  # clamped at the start


async def test_adjacent_groups_need_no_separator(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "adjacent", {"n.txt": NUMBERS})
    # Line 2's after-context ends at 3, line 5's before-context starts at 4: contiguous.
    text = await grep(
        client, pattern="^line [25]$", path="adjacent", output_mode="content", context=1
    )
    assert text == (
        "n.txt-1-line 1\n"
        "n.txt:2:line 2\n"
        "n.txt-3-line 3\n"
        "n.txt-4-line 4\n"
        "n.txt:5:line 5\n"
        "n.txt-6-line 6"
    )


async def test_separator_between_files_and_without_numbers(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "ctxfiles", {"a.txt": "x\nhit\ny\n", "b.txt": "hit\nz\n"})
    text = await grep(
        client,
        pattern="hit",
        path="ctxfiles",
        output_mode="content",
        context=1,
        line_numbers=False,
    )
    assert text == "a.txt-x\na.txt:hit\na.txt-y\n--\nb.txt:hit\nb.txt-z"


async def test_an_explicit_side_overrides_context_even_when_zero(
    client: Client[Any], compat: Client[Any], workdir: Path
) -> None:
    """context_before/context_after (-B/-A) given explicitly, 0 included, override
    context on their side, as in ripgrep."""
    write_tree(workdir / "ctxzero", {"n.txt": NUMBERS})
    text = await grep(
        client,
        pattern="^line 5$",
        path="ctxzero",
        output_mode="content",
        context=2,
        context_after=0,
    )
    assert text == "n.txt-3-line 3\nn.txt-4-line 4\nn.txt:5:line 5"
    result = await compat.call_tool(
        "grep",
        {"pattern": "^line 5$", "path": "ctxzero", "output_mode": "content", "-C": 1, "-B": 0},
        raise_on_error=False,
    )
    assert ok_text(result) == "n.txt:5:line 5\nn.txt-6-line 6"


async def test_context_ignored_in_other_modes(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "ctxother", {"n.txt": NUMBERS})
    assert await grep(client, pattern="line 5$", path="ctxother", context=3) == "n.txt"
    counted = await grep(client, pattern="line 5$", path="ctxother", context=3, output_mode="count")
    assert counted == "n.txt:1"


# --- pagination --------------------------------------------------------------------


async def test_head_limit_and_offset_in_each_mode(client: Client[Any], workdir: Path) -> None:
    root = write_tree(workdir / "pages", {f"f{n}.txt": "hit\nhit\n" for n in range(1, 6)})
    set_mtimes(root, [f"f{n}.txt" for n in range(1, 6)])  # f5 newest
    files = await grep(client, pattern="hit", path="pages", head_limit=2, offset=1)
    assert files == "f4.txt\nf3.txt"
    counts = await grep(client, pattern="hit", path="pages", output_mode="count", head_limit=2)
    assert counts == "f1.txt:2\nf2.txt:2"
    lines = await grep(
        client, pattern="hit", path="pages", output_mode="content", head_limit=3, offset=2
    )
    assert lines == "f2.txt:1:hit\nf2.txt:2:hit\nf3.txt:1:hit"
    assert await grep(client, pattern="hit", path="pages", offset=50) == ""
    unlimited = await grep(client, pattern="hit", path="pages", output_mode="count", head_limit=0)
    assert len(unlimited.splitlines()) == 5


async def test_pagination_counts_context_and_separator_lines(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "pagectx", {"n.txt": NUMBERS})
    text = await grep(
        client,
        pattern="^line (3|9)$",
        path="pagectx",
        output_mode="content",
        context=1,
        offset=2,
        head_limit=3,
    )
    assert text == "n.txt-4-line 4\n--\nn.txt-8-line 8"


# --- the output cap ------------------------------------------------------------------

CAP = 30000


def fitting(lines: list[str]) -> int:
    """How many lines, from the first, a 30000-character result shows whole."""
    size = -1
    for count, line in enumerate(lines):
        size += len(line) + 1
        if size > CAP:
            return count
    return len(lines)


async def test_output_over_30000_characters_is_cut_with_a_paging_note(
    client: Client[Any], workdir: Path
) -> None:
    """Every output mode stops at 30000 characters, at a line boundary, with a last
    line that says which lines (files) are shown, of how many when that is known,
    and the offset to continue from."""
    text = "x" * 70
    files = {f"d/{n:03d}-{'n' * 100}.txt": f"{text} {n}\n" * 40 for n in range(300)}
    write_tree(workdir / "cap", files)
    paths = [name[2:] for name in sorted(files)]

    listed = await grep(client, pattern="x", path="cap/d")
    fit = fitting(paths)
    assert fit < len(paths)
    assert listed == "\n".join(paths[:fit]) + (
        f"\n\n[Truncated at 30000 characters: showing files 1-{fit} of 300. "
        f"To see more, call again with offset: {fit}.]"
    )
    counts = [f"{path}:40" for path in paths]
    counted = await grep(client, pattern="x", path="cap/d", output_mode="count")
    fit = fitting(counts)
    assert counted == "\n".join(counts[:fit]) + (
        f"\n\n[Truncated at 30000 characters: showing files 1-{fit} of 300. "
        f"To see more, call again with offset: {fit}.]"
    )

    lines = [f"{path}:{i}:{text} {n}" for n, path in enumerate(paths) for i in range(1, 41)]
    content = await grep(client, pattern="x", path="cap/d", output_mode="content")
    fit = fitting(lines)
    assert content == "\n".join(lines[:fit]) + (
        f"\n\n[Truncated at 30000 characters: showing lines 1-{fit}; more follow. "
        f"To see more, call again with offset: {fit}.]"
    )
    # The offset it names continues exactly where the page stopped.
    following = await grep(
        client, pattern="x", path="cap/d", output_mode="content", offset=fit, head_limit=3
    )
    assert following == "\n".join(lines[fit : fit + 3])
    paged = await grep(client, pattern="x", path="cap/d", output_mode="content", offset=1000)
    fit = fitting(lines[1000:])
    assert paged == "\n".join(lines[1000 : 1000 + fit]) + (
        f"\n\n[Truncated at 30000 characters: showing lines 1001-{1000 + fit}; more follow. "
        f"To see more, call again with offset: {1000 + fit}.]"
    )
    # Within the limit nothing is added.
    small = await grep(client, pattern="x", path="cap/d", output_mode="content", head_limit=5)
    assert small == "\n".join(lines[:5])


async def test_a_line_longer_than_the_cap_is_cut(tmp_path: Path) -> None:
    long_line = "y" * 40_000
    write_tree(tmp_path, {"a.txt": f"{long_line}\nshort y\n"})
    async with app_client(workdir=tmp_path) as big:
        arguments = {"pattern": "y", "output_mode": "content", "line_numbers": False}
        first = f"a.txt:{long_line}"
        assert text_of(await big.call_tool("grep", arguments)) == first[:CAP] + (
            f"\n\n[Truncated at 30000 characters: showing line 1, cut to its first 30000 "
            f"of {len(first)} characters; more follow. To see more, call again with offset: 1.]"
        )
        rest = await big.call_tool("grep", {**arguments, "offset": 1})
        assert text_of(rest) == "a.txt:short y"


async def test_a_file_longer_than_its_first_read_is_searched_whole(tmp_path: Path) -> None:
    """A text file is searched from its first byte to its last, whatever its size up to
    --max-file-size: match lines before, across and after the first few kilobytes read
    (a line straddles byte 4096 here), with LF or CRLF line ends."""
    lines = [f"{'hit' if n % 97 == 0 or n == 195 else 'pad'} line {n:011d}" for n in range(600)]
    assert all(len(line) == 20 for line in lines)  # line 195 spans bytes 4095-4115
    write_tree(
        tmp_path,
        {"lf.txt": "\n".join(lines) + "\n", "crlf.txt": "\r\n".join(lines)},
    )
    expected = [(n + 1, line) for n, line in enumerate(lines) if line.startswith("hit")]
    async with app_client(workdir=tmp_path) as big:
        for name in ("lf.txt", "crlf.txt"):
            for pattern in ("hit", "^hit.*$"):  # the second one sees line ends
                arguments = {"pattern": pattern, "path": name, "output_mode": "content"}
                content = text_of(await big.call_tool("grep", arguments))
                assert content == "\n".join(f"{name}:{n}:{line}" for n, line in expected)
            count = {"pattern": "hit", "path": name, "output_mode": "count"}
            assert text_of(await big.call_tool("grep", count)) == f"{name}:{len(expected)}"


# --- the pattern -------------------------------------------------------------------


async def test_re2_dialect(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "dialect", {"a.txt": "id 42\nID 7\nname: x\n"})
    numbers = await grep(client, pattern=r"\d+$", path="dialect", output_mode="count")
    assert numbers == "a.txt:2"
    named = await grep(client, pattern=r"(?P<key>\w+): x", path="dialect", output_mode="content")
    assert named == "a.txt:3:name: x"
    quoted = await grep(client, pattern=r"\Qname:\E", path="dialect", output_mode="count")
    assert quoted == "a.txt:1"


async def test_invalid_patterns(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "invalid", {"a.txt": "x\n"})
    assert await grep_error(client, pattern="(", path="invalid") == (
        '[GREP_INVALID_PATTERN] invalid regular expression "(": missing ): ('
    )
    # Backreferences and lookaround are not RE2 (nor Go): refused, not slow.
    assert await grep_error(client, pattern=r"(a)\1", path="invalid") == (
        '[GREP_INVALID_PATTERN] invalid regular expression "(a)\\1": invalid escape sequence: \\1'
    )
    lookahead = await grep_error(client, pattern="a(?=b)", path="invalid")
    assert lookahead.startswith('[GREP_INVALID_PATTERN] invalid regular expression "a(?=b)": ')
    assert await grep_error(client, pattern="") == "[INVALID_INPUT] pattern: must not be empty"


async def test_case_insensitive(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "case", {"a.txt": "Hello\nhello\nHELLO\nbye\n"})
    assert await grep(client, pattern="hello", path="case", output_mode="count") == "a.txt:1"
    insensitive = await grep(
        client, pattern="hello", path="case", output_mode="count", case_insensitive=True
    )
    assert insensitive == "a.txt:3"


async def test_matches_never_span_lines_without_multiline(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "oneline", {"a.txt": "alpha\nbeta\n", "b.txt": "alpha beta\n"})
    # \s and [^x] would cross the newline in a whole-buffer search; per-line they cannot.
    assert await grep(client, pattern=r"alpha\sbeta", path="oneline") == "b.txt"
    assert await grep(client, pattern="alpha[^x]beta", path="oneline") == "b.txt"
    anchored = await grep(client, pattern="^beta$", path="oneline", output_mode="content")
    assert anchored == "a.txt:2:beta"


async def test_multiline_spans_lines(client: Client[Any], workdir: Path) -> None:
    source = "struct Point {\n    x: i32,\n    y: i32,\n}\nfn main() {}\n"
    write_tree(workdir / "multi", {"p.rs": source})
    pattern = r"struct Point \{.*?y: i32"
    assert await grep(client, pattern=pattern, path="multi") == ""
    count = await grep(client, pattern=pattern, path="multi", multiline=True, output_mode="count")
    assert count == "p.rs:3"
    content = await grep(
        client, pattern=pattern, path="multi", multiline=True, output_mode="content", context=1
    )
    assert content == "p.rs:1:struct Point {\np.rs:2:    x: i32,\np.rs:3:    y: i32,\np.rs-4-}"


async def test_multiline_anchors_match_at_every_line(client: Client[Any], workdir: Path) -> None:
    """With multiline the pattern runs as (?ms): "." crosses lines while "^" and "$"
    still match at the start and end of every line, as ripgrep -U --multiline-dotall."""
    write_tree(workdir / "mlanchors", {"a.txt": "a\nfoo\nbar\n"})

    async def multiline(pattern: str) -> str:
        return await grep(
            client, pattern=pattern, path="mlanchors", multiline=True, output_mode="content"
        )

    assert await multiline("^foo") == "a.txt:2:foo"
    assert await multiline("foo$.^bar") == "a.txt:2:foo\na.txt:3:bar"
    assert await multiline(r"\Afoo") == ""  # \A and \z stay the ends of the file
    assert await multiline(r"\Aa.foo") == "a.txt:1:a\na.txt:2:foo"


async def test_a_literal_newline_needs_multiline(client: Client[Any], workdir: Path) -> None:
    r"""Without multiline, lines are matched one at a time, so a newline written as a
    literal character (typed, escaped, or a class of nothing else) can never match:
    such a pattern is refused with a hint, as ripgrep refuses it. What may match a
    newline among other characters (\s, [^x], (?s).) simply never matches one."""
    write_tree(workdir / "newline", {"a.txt": "a\nb\na b\n"})
    refused = ("a\\nb", "a\\x0Ab", "a\\x{a}b", "a\\012b", "a[\\n]b", "a\nb", "\\Q\n\\E", "x|\\n")
    for pattern in refused:
        assert await grep_error(client, pattern=pattern, path="newline") == (
            f'[GREP_INVALID_PATTERN] invalid regular expression "{pattern}": it contains a '
            "literal newline, which never matches because lines are searched one at a time; "
            "set multiline: true to let matches span lines"
        )
    accepted = ("a\\sb", "a[^x]b", "(?s)a.b", "a[\\n ]b", "a[[:space:]]b", "a\\x0b?\\x20b")
    for pattern in accepted:
        text = await grep(client, pattern=pattern, path="newline", output_mode="content")
        assert text == "a.txt:3:a b", pattern
    spans = await grep(
        client, pattern="a\\nb", path="newline", multiline=True, output_mode="content"
    )
    assert spans == "a.txt:1:a\na.txt:2:b"


async def test_crlf_lines(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "crlf", {"w.txt": b"first\r\nsecond line\r\n"})
    text = await grep(client, pattern="line$", path="crlf", output_mode="content")
    assert text == "w.txt:2:second line"  # "$" before "\r\n", and no "\r" shown


async def test_text_anchors_apply_per_line(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "anchors", {"a.txt": "one\ntwo\n"})
    text = await grep(client, pattern=r"\Atwo\z", path="anchors", output_mode="content")
    assert text == "a.txt:2:two"


# --- choosing files ----------------------------------------------------------------


async def test_include_matches_relative_path_then_basename(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(
        workdir / "include",
        {"src/a/x.py": "hit\n", "src/b.py": "hit\n", "tests/c.py": "hit\n", "d.ts": "hit\n"},
    )
    by_name = await grep(client, pattern="hit", path="include", include="*.py", output_mode="count")
    assert by_name == "src/a/x.py:1\nsrc/b.py:1\ntests/c.py:1"
    by_path = await grep(
        client, pattern="hit", path="include", include="src/**/*.py", output_mode="count"
    )
    assert by_path == "src/a/x.py:1\nsrc/b.py:1"
    braces = await grep(
        client, pattern="hit", path="include", include="*.{ts,tsx}", output_mode="count"
    )
    assert braces == "d.ts:1"
    bad = await grep_error(client, pattern="hit", path="include", include="[oops")
    assert bad == "[INVALID_INPUT] include: unclosed '[' at position 0 in \"[oops\""


async def test_include_escapes_and_literal_braces(client: Client[Any], workdir: Path) -> None:
    """In an include glob ``\\`` escapes the next character, and a ``}`` or ``,`` outside
    braces is an ordinary character (README, "Glob patterns")."""
    write_tree(
        workdir / "literal_include",
        {"{c}.txt": "hit\n", "c.txt": "hit\n", "a}b.txt": "hit\n", "x,y.txt": "hit\n"},
    )
    assert await grep(client, pattern="hit", path="literal_include", include="\\{c}*") == (
        "{c}.txt"
    )
    assert await grep(client, pattern="hit", path="literal_include", include="a}b*") == "a}b.txt"
    assert await grep(client, pattern="hit", path="literal_include", include="x,y*") == "x,y.txt"
    assert await grep(client, pattern="hit", path="literal_include", include="{a},*") == ""
    unclosed = await grep_error(client, pattern="hit", path="literal_include", include="{c,d")
    assert unclosed == "[INVALID_INPUT] include: unclosed '{' in \"{c,d\""


async def test_type_filter_aliases_and_errors(client: Client[Any], workdir: Path) -> None:
    write_tree(
        workdir / "types",
        {"a.py": "hit\n", "b.pyi": "hit\n", "c.ts": "hit\n", "d.md": "hit\n", "e.txt": "hit\n"},
    )
    py = await grep(client, pattern="hit", path="types", type="py", output_mode="count")
    assert py == "a.py:1\nb.pyi:1"
    assert await grep(client, pattern="hit", path="types", type="python", output_mode="count") == py
    ts = await grep(client, pattern="hit", path="types", type="typescript", output_mode="count")
    assert ts == "c.ts:1"
    md = await grep(client, pattern="hit", path="types", type="md", output_mode="count")
    assert md == "d.md:1"
    assert await grep_error(client, pattern="hit", path="types", type="cobol") == (
        '[INVALID_INPUT] unknown type "cobol"; valid types: c, cpp, css, go, html, java, js, '
        "json, markdown, py, rust, ts, yaml; aliases: python (py), typescript (ts), md (markdown)"
    )


async def test_type_and_include_must_both_pass(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "both", {"src/a.py": "hit\n", "src/b.ts": "hit\n", "c.py": "hit\n"})
    text = await grep(client, pattern="hit", path="both", type="py", include="src/**")
    assert text == "src/a.py"
    by_name = await grep(
        client, pattern="hit", path="both", type="py", include="[ab].*", output_mode="count"
    )
    assert by_name == "src/a.py:1"


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


async def test_types_are_ripgrep_globs_on_names(client: Client[Any], workdir: Path) -> None:
    """A type stands for ripgrep 14.1's globs, matched case-sensitively against the
    file name: js includes .vue, c includes .H, json includes composer.lock."""
    names = ["a.vue", "b.js", "c.H", "d.h", "e.C", "f.c.in", "composer.lock", "g.json"]
    write_tree(workdir / "rgtypes", {**{name: "hit\n" for name in names}, "h.JSON": "hit\n"})

    async def of_type(name: str, **more: Any) -> str:
        return await grep(client, pattern="hit", path="rgtypes", type=name, **more)

    assert await of_type("js") == "a.vue\nb.js"
    assert await of_type("c") == "c.H\nd.h\nf.c.in"
    assert await of_type("cpp") == "c.H\nd.h\ne.C"
    assert await of_type("json") == "composer.lock\ng.json"
    assert await of_type("json", include="*.lock") == "composer.lock"


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


async def test_gitignore_negation_in_nested_files(client: Client[Any], workdir: Path) -> None:
    write_tree(
        workdir / "nested",
        {
            ".gitignore": "*.gen\nout/\n",
            "a.gen": "hit\n",
            "pkg/.gitignore": "!keep.gen\n",
            "pkg/keep.gen": "hit\n",
            "pkg/drop.gen": "hit\n",
            "pkg/out/x.txt": "hit\n",
            "pkg/src.txt": "hit\n",
        },
    )
    text = await grep(client, pattern="hit", path="nested", output_mode="count")
    assert text == "pkg/keep.gen:1\npkg/src.txt:1"


async def test_search_inside_an_ignored_directory_keeps_the_other_rules(
    client: Client[Any], workdir: Path
) -> None:
    """Naming an ignored directory searches it; every other rule still applies in it."""
    write_tree(
        workdir / "inignored",
        {
            ".git/HEAD": "",
            ".gitignore": "build/\n*.log\n",
            "build/x.log": "foo\n",
            "build/y.txt": "foo\n",
        },
    )
    assert await grep(client, pattern="foo", path="inignored/build") == "y.txt"
    assert await grep(client, pattern="foo", path="inignored") == ""


async def test_a_nested_repository_has_its_own_rules(client: Client[Any], workdir: Path) -> None:
    """A directory holding .git starts a new repository: the outer .gitignore files
    do not apply inside it, from the top or from inside."""
    write_tree(
        workdir / "nestedrepo",
        {
            ".git/HEAD": "",
            ".gitignore": "*.log\n",
            "a.log": "foo\n",
            "sub/.git/HEAD": "",
            "sub/x.log": "foo\n",
        },
    )
    assert await grep(client, pattern="foo", path="nestedrepo") == "sub/x.log"
    assert await grep(client, pattern="foo", path="nestedrepo/sub") == "x.log"


async def test_ignore_and_rgignore_files_rank_above_gitignore(
    client: Client[Any], workdir: Path
) -> None:
    """.ignore and .rgignore are read as ripgrep reads them, outside a repository too:
    a path's verdict comes from .rgignore, else .ignore, else .gitignore, whichever
    directories the files are in; inside one kind, the deepest file decides."""
    write_tree(
        workdir / "dotignore",
        {
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
    )
    expected = "keep.gen:1\nkeep.tmp:1\npkg/keep.gen:1\npkg/src.txt:1"
    assert await grep(client, pattern="hit", path="dotignore", output_mode="count") == expected
    # From below, the .ignore and .rgignore files above apply too.
    assert await grep(client, pattern="hit", path="dotignore/pkg", output_mode="count") == (
        "keep.gen:1\nsrc.txt:1"
    )
    # A file named as the path is searched whatever the ignore files say.
    assert await grep(client, pattern="hit", path="dotignore/pkg/other.txt") == (
        "dotignore/pkg/other.txt"
    )


async def test_ignore_files_above_and_across_repositories(
    client: Client[Any], workdir: Path
) -> None:
    """The .ignore files of the searched directory's ancestors apply, in a repository
    or not, and reach into a nested repository, where the .gitignore files above it
    do not reach; an ancestor's .gitignore applies only inside a repository."""
    write_tree(
        workdir / "ignoreabove",
        {
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
    )

    async def count(path: str) -> str:
        return await grep(client, pattern="hit", path=path, output_mode="count")

    # The top .gitignore applies in its tree, but not inside a repository below it.
    assert await count("ignoreabove") == "d/a.txt:1\nrepo/sub/b.log:1\nrepo/sub/b.txt:1"
    assert await count("ignoreabove/d") == "a.log:1\na.txt:1"
    assert await count("ignoreabove/repo") == "sub/b.log:1\nsub/b.txt:1"
    assert await count("ignoreabove/repo/sub") == "b.log:1\nb.txt:1"


async def test_a_repositorys_exclude_file(client: Client[Any], workdir: Path) -> None:
    """A repository's info/exclude applies below a .gitignore (whose "!" rules
    re-include what it ignores), from any directory of the repository, and in a
    linked worktree (a .git file naming a directory whose commondir leads to it)."""
    write_tree(
        workdir / "exclude",
        {
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
    )

    async def count(path: str) -> str:
        return await grep(client, pattern="hit", path=path, output_mode="count")

    assert await count("exclude/repo") == "d/c.txt:1\nkeep.log:1"
    assert await count("exclude/repo/d") == "c.txt:1"
    assert await count("exclude/wt") == "a.txt:1"


async def test_a_name_that_is_not_utf8_is_shown_with_a_replacement_character(
    client: Client[Any], workdir: Path
) -> None:
    """Every output line is text: bytes of a file name that are not UTF-8 are shown
    as U+FFFD in every mode (content lines too), and the server goes on serving."""
    root = write_tree(workdir / "badname", {})
    (root / os.fsdecode(b"caf\xe9.txt")).write_text("hit\n")
    for mode, expected in (
        ("files_with_matches", "caf\ufffd.txt"),
        ("count", "caf\ufffd.txt:1"),
        ("content", "caf\ufffd.txt:1:hit"),
    ):
        assert await grep(client, pattern="hit", path="badname", output_mode=mode) == expected
    assert await grep(client, pattern="hit", path="badname", context=1, output_mode="content") == (
        "caf\ufffd.txt:1:hit"
    )


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


# --- paths -------------------------------------------------------------------------


async def test_default_path_is_the_cwd_and_output_is_relative(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "rel", {"deep/er/file.txt": "unique_marker_rel\n"})
    assert await grep(client, pattern="unique_marker_rel") == "rel/deep/er/file.txt"
    absolute = await grep(client, pattern="unique_marker_rel", path=str(workdir / "rel" / "deep"))
    assert absolute == "er/file.txt"


async def test_single_file_search_shows_the_path_as_given(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "single", {"one.txt": "a\nhit\n"})
    assert await grep(client, pattern="hit", path="single/one.txt") == "single/one.txt"
    content = await grep(client, pattern="hit", path="./single/one.txt", output_mode="content")
    assert content == "./single/one.txt:2:hit"
    full = str(workdir / "single" / "one.txt")
    assert await grep(client, pattern="hit", path=full, output_mode="count") == f"{full}:1"
    assert await grep(client, pattern="hit", path="single/one.txt", type="py") == ""


async def test_single_file_over_the_size_limit(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "toolarge", {"big.txt": "x" * 5000})
    target = workdir / "toolarge" / "big.txt"
    assert await grep_error(client, pattern="x", path="toolarge/big.txt") == (
        f"[FILE_TOO_LARGE] {target} is 5000 bytes, over the --max-file-size limit of 4096 bytes"
    )


async def test_path_errors(client: Client[Any], workdir: Path) -> None:
    missing = workdir / "no" / "such"
    assert await grep_error(client, pattern="x", path="no/such") == (
        f"[PATH_NOT_FOUND] path does not exist: {missing}"
    )
    outside = await grep_error(client, pattern="x", path="/")
    assert outside.startswith("[ACCESS_DENIED] / is outside the allowed directories")
    write_tree(workdir / "deny" / "secrets", {"a.txt": "x\n"})
    denied = await grep_error(client, pattern="x", path="deny/secrets")
    assert denied == (f"[ACCESS_DENIED] {workdir}/deny/secrets is denied by the pattern **/secrets")


async def test_cwd_outside_the_allowed_dirs_is_checked(tmp_path: Path) -> None:
    # Without a path the session's cwd is searched; it must be in scope like any path.
    allowed = write_tree(tmp_path / "allowed", {"a.txt": "x\n"})
    elsewhere = write_tree(tmp_path / "elsewhere", {"b.txt": "x\n"})
    async with app_client("--allow-dir", str(allowed), workdir=elsewhere) as outside_cwd:
        result = await outside_cwd.call_tool("grep", {"pattern": "x"}, raise_on_error=False)
        assert error_text(result).startswith(f"[ACCESS_DENIED] {elsewhere} is outside")
        result = await outside_cwd.call_tool("glob", {"pattern": "*"}, raise_on_error=False)
        assert error_text(result).startswith(f"[ACCESS_DENIED] {elsewhere} is outside")
        inside = await outside_cwd.call_tool("grep", {"pattern": "x", "path": str(allowed)})
        assert text_of(inside) == "a.txt"


async def test_a_path_through_a_symlink_loop_cannot_leave_the_allowed_dirs(
    client: Client[Any], workdir: Path, outside: Path
) -> None:
    # realpath gives up at the loop and returns "<root>/link" unresolved; that link
    # leads outside. The search root must be resolved all the way and refused.
    root = write_tree(workdir / "loopescape", {"in.txt": "needle\n"})
    (root / "loop").symlink_to(root / "loop")
    (root / "link").symlink_to(outside)
    denied = await grep_error(client, pattern="needle", path="loopescape/loop/../link")
    assert denied.startswith(f"[ACCESS_DENIED] {outside} is outside the allowed directories")
    result = await client.call_tool(
        "glob", {"pattern": "*", "path": "loopescape/loop/../link"}, raise_on_error=False
    )
    assert error_text(result).startswith(f"[ACCESS_DENIED] {outside} is outside")


async def test_argument_errors(client: Client[Any], workdir: Path) -> None:
    assert await grep_error(client, pattern="x", output_mode="lines") == (
        '[GREP_INVALID_OUTPUT_MODE] invalid output_mode "lines"; '
        "use one of: files_with_matches, content, count"
    )
    assert await grep_error(client, pattern="x", head_limit=-1) == (
        "[INVALID_INPUT] head_limit: Input should be greater than or equal to 0"
    )
    assert await grep_error(client, pattern="x", context=-2) == (
        "[INVALID_INPUT] context: Input should be greater than or equal to 0"
    )
    assert await grep_error(client, pattern="x", **{"-B": -1}) == (
        "[INVALID_INPUT] -B: Input should be greater than or equal to 0"
    )
    # Invalid input is reported before the path is looked at.
    early = await grep_error(client, pattern="(", path="no/such/dir")
    assert early.startswith("[GREP_INVALID_PATTERN]")


# --- schemas and the compat names -------------------------------------------------


async def test_default_schema(client: Client[Any]) -> None:
    tool = next(t for t in await client.list_tools() if t.name == "grep")
    assert list(tool.input_schema["properties"]) == [
        "pattern",
        "path",
        "include",
        "type",
        "output_mode",
        "line_numbers",
        "context_before",
        "context_after",
        "context",
        "case_insensitive",
        "multiline",
        "head_limit",
        "offset",
    ]
    assert tool.input_schema["properties"]["output_mode"]["type"] == "string"  # not an enum
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True


async def test_default_mode_also_understands_the_compat_names(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "dialects", {"n.txt": NUMBERS, "a.py": "LINE 3\n"})
    text = await grep(
        client,
        pattern="LINE 3$",
        path="dialects",
        output_mode="content",
        glob="*.txt",
        **{"-i": True, "-n": False, "-A": 1},
    )
    assert text == "n.txt:line 3\nn.txt-line 4"


@pytest.fixture(scope="module")
async def compat(workdir: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--anthropic-compat", workdir=workdir) as connected:
        yield connected


async def test_compat_schema_shows_only_the_compat_names(compat: Client[Any]) -> None:
    tool = next(t for t in await compat.list_tools() if t.name == "grep")
    assert list(tool.input_schema["properties"]) == [
        "pattern",
        "path",
        "glob",
        "output_mode",
        "-B",
        "-A",
        "-C",
        "context",
        "-n",
        "-i",
        "type",
        "head_limit",
        "offset",
        "multiline",
    ]
    assert tool.input_schema["additionalProperties"] is False


async def test_compat_names_behave_like_the_default_names(
    client: Client[Any], compat: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "compat", {"n.txt": NUMBERS, "skip.md": "line 5\n"})
    default = await grep(
        client,
        pattern="LINE (5|15)$",
        path="compat",
        output_mode="content",
        include="*.txt",
        case_insensitive=True,
        line_numbers=False,
        context_before=1,
        context_after=2,
    )
    compat_text = ok_text(
        await compat.call_tool(
            "grep",
            {
                "pattern": "LINE (5|15)$",
                "path": "compat",
                "output_mode": "content",
                "glob": "*.txt",
                "-i": True,
                "-n": False,
                "-B": 1,
                "-A": 2,
            },
            raise_on_error=False,
        )
    )
    assert compat_text == default
    assert default == (
        "n.txt-line 4\nn.txt:line 5\nn.txt-line 6\nn.txt-line 7\n--\n"
        "n.txt-line 14\nn.txt:line 15\nn.txt-line 16\nn.txt-line 17"
    )
    for both in ({"-C": 1}, {"context": 1}):
        result = await compat.call_tool(
            "grep",
            {"pattern": "line 10$", "path": "compat", "output_mode": "content", **both},
            raise_on_error=False,
        )
        assert ok_text(result) == "n.txt-9-line 9\nn.txt:10:line 10\nn.txt-11-line 11"
    # The default names are understood in compat mode too, though not shown.
    hidden = await compat.call_tool(
        "grep",
        {"pattern": "line 10$", "path": "compat", "output_mode": "content", "context_after": 1},
        raise_on_error=False,
    )
    assert ok_text(hidden) == "n.txt:10:line 10\nn.txt-11-line 11"


# --- other clients and sessions -----------------------------------------------------


async def test_long_search_does_not_stall_other_clients(tmp_path: Path) -> None:
    """A grep runs off the event loop: while one client's grep is held up (here inside
    its open of a file, held there by the test), a glob from another client is answered."""
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "many.txt").write_bytes(b"x\n" * 1000)
    (tmp_path / "quick").mkdir()
    (tmp_path / "quick" / "a.txt").write_text("")
    finished: list[str] = []
    opened, release = threading.Event(), threading.Event()

    def hold(name: str) -> None:
        if name == "many.txt":
            opened.set()
            release.wait(60)

    async with app_clients(workdir=tmp_path, count=2) as (slow, quick):

        async def long_grep() -> None:
            result = await slow.call_tool(
                "grep", {"pattern": "x", "path": "slow", "output_mode": "count"}
            )
            assert text_of(result) == "many.txt:1000"
            finished.append("grep")

        try:
            with on_open(tmp_path / "slow", hold):
                async with anyio.create_task_group() as group:
                    group.start_soon(long_grep)
                    assert await anyio.to_thread.run_sync(opened.wait, 30), "no grep"
                    try:
                        with anyio.fail_after(30):  # the glob waits for the grep
                            result = await quick.call_tool(
                                "glob", {"pattern": "*.txt", "path": "quick"}
                            )
                    finally:
                        release.set()
                    assert text_of(result) == "a.txt"
                    finished.append("glob")
        except Unavailable as exc:
            pytest.skip(f"fanotify permission events unavailable: {exc}")
    assert finished == ["glob", "grep"]
