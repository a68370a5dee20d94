"""grep through a real client, exact texts (README "grep and glob, and ripgrep", "Limits
and bad input"): output modes, context, paging, the output cap, the pattern, paths and
argument errors, the schemas and the compat names, other clients. Which files are
searched is tests/tools/test_grep_files.py's; the engine called directly,
tests/search/test_grep.py's.

One app serves the module (tests/support/grep_app.py: ``--allow-dir`` its workdir,
``--deny-dir **/secrets``, ``--max-file-size 4KB``); each test searches its own
subdirectory, which the rows of a table share. The check with the official SDK client
over STDIO is in tests/e2e/test_grep.py.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import error_text, ok_text, text_of
from tests.support.grep_app import client, grep, grep_error, outside, workdir
from tests.support.inprocess import app_client, app_clients
from tests.support.interpose import Unavailable, on_open
from tests.support.trees import set_mtimes, write_tree

pytestmark = pytest.mark.anyio

__all__ = ["client", "outside", "workdir"]  # the fixtures, used by name


@pytest.fixture(scope="module")
async def compat(workdir: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--anthropic-compat", workdir=workdir) as connected:
        yield connected


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


#: (line_numbers, the content output)
CONTENT = [
    (
        True,
        "lib/notes.md:2:import os is mentioned here\n"
        "lib/util.py:5:import os.path\n"
        "main.py:1:import os\n"
        "main.py:6:    return os.getcwd()",
    ),
    (
        False,
        "lib/notes.md:import os is mentioned here\n"
        "lib/util.py:import os.path\n"
        "main.py:import os\n"
        "main.py:    return os.getcwd()",
    ),
]


@pytest.mark.parametrize(("line_numbers", "expected"), CONTENT)
async def test_content_mode_with_and_without_line_numbers(
    client: Client[Any], workdir: Path, line_numbers: bool, expected: str
) -> None:
    write_tree(workdir / "content", CODE)
    text = await grep(
        client, pattern="os", path="content", output_mode="content", line_numbers=line_numbers
    )
    assert text == expected


async def test_count_mode_counts_lines_in_walk_order(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "count", {**CODE, "z.py": "os os os\nos\n"})
    text = await grep(client, pattern="os", path="count", output_mode="count")
    assert text == "lib/notes.md:1\nlib/util.py:1\nmain.py:2\nz.py:2"


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_no_match_is_an_empty_result(client: Client[Any], workdir: Path, mode: str) -> None:
    write_tree(workdir / "nomatch", CODE)
    assert await grep(client, pattern="absent_text", path="nomatch", output_mode=mode) == ""


# --- context -----------------------------------------------------------------------

NUMBERS = "".join(f"line {n}\n" for n in range(1, 21))

#: (arguments besides the path and the content mode, the output) on a file of the
#: lines "line 1" to "line 20".
CONTEXT: list[Any] = [
    pytest.param(
        {"pattern": r"^line (3|5|12)$", "context": 1},
        "n.txt-2-line 2\n"
        "n.txt:3:line 3\n"
        "n.txt-4-line 4\n"
        "n.txt:5:line 5\n"
        "n.txt-6-line 6\n"
        "--\n"
        "n.txt-11-line 11\n"
        "n.txt:12:line 12\n"
        "n.txt-13-line 13",
        id="3 and 5 overlap: one group; 12 another",
    ),
    pytest.param(
        {"pattern": "line 10$", "context_before": 2},
        "n.txt-8-line 8\nn.txt-9-line 9\nn.txt:10:line 10",
        id="before",
    ),
    pytest.param(
        {"pattern": "line 19$", "context_after": 3},
        "n.txt:19:line 19\nn.txt-20-line 20",
        id="after, clamped at the end of the file",
    ),
    pytest.param(
        {"pattern": "line 1$", "context_before": 3},
        "n.txt:1:line 1",
        id="before, clamped at the start",
    ),
    pytest.param(
        {"pattern": "^line [25]$", "context": 1},
        "n.txt-1-line 1\n"
        "n.txt:2:line 2\n"
        "n.txt-3-line 3\n"
        "n.txt-4-line 4\n"
        "n.txt:5:line 5\n"
        "n.txt-6-line 6",
        id="adjacent groups need no separator",  # 2's after-context ends at 3, 5's starts at 4
    ),
    pytest.param(
        {"pattern": "^line 5$", "context": 2, "context_after": 0},
        "n.txt-3-line 3\nn.txt-4-line 4\nn.txt:5:line 5",
        id="an explicit side overrides context, 0 too",  # as in ripgrep
    ),
    pytest.param(
        {"pattern": "^line (3|9)$", "context": 1, "offset": 2, "head_limit": 3},
        "n.txt-4-line 4\n--\nn.txt-8-line 8",
        id="paging counts context and separator lines",
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), CONTEXT)
async def test_context(
    client: Client[Any], workdir: Path, arguments: dict[str, Any], expected: str
) -> None:
    write_tree(workdir / "ctx", {"n.txt": NUMBERS})
    assert await grep(client, path="ctx", output_mode="content", **arguments) == expected


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


async def test_an_explicit_side_overrides_context_in_compat_mode(
    compat: Client[Any], workdir: Path
) -> None:
    """-B/-A given explicitly, 0 included, override -C on their side, as in ripgrep."""
    write_tree(workdir / "ctx", {"n.txt": NUMBERS})
    result = await compat.call_tool(
        "grep",
        {"pattern": "^line 5$", "path": "ctx", "output_mode": "content", "-C": 1, "-B": 0},
        raise_on_error=False,
    )
    assert ok_text(result) == "n.txt:5:line 5\nn.txt-6-line 6"


@pytest.mark.parametrize(
    ("mode", "expected"), [("files_with_matches", "n.txt"), ("count", "n.txt:1")]
)
async def test_context_ignored_in_other_modes(
    client: Client[Any], workdir: Path, mode: str, expected: str
) -> None:
    write_tree(workdir / "ctx", {"n.txt": NUMBERS})
    assert (
        await grep(client, pattern="line 5$", path="ctx", context=3, output_mode=mode) == expected
    )


# --- pagination --------------------------------------------------------------------

#: (arguments, the output) on five files of two "hit" lines, f5.txt the newest.
PAGES: list[tuple[dict[str, Any], str]] = [
    ({"head_limit": 2, "offset": 1}, "f4.txt\nf3.txt"),
    ({"output_mode": "count", "head_limit": 2}, "f1.txt:2\nf2.txt:2"),
    (
        {"output_mode": "content", "head_limit": 3, "offset": 2},
        "f2.txt:1:hit\nf2.txt:2:hit\nf3.txt:1:hit",
    ),
    ({"offset": 50}, ""),
    ({"output_mode": "count", "head_limit": 0}, "f1.txt:2\nf2.txt:2\nf3.txt:2\nf4.txt:2\nf5.txt:2"),
]


@pytest.mark.parametrize(("arguments", "expected"), PAGES)
async def test_head_limit_and_offset_in_each_mode(
    client: Client[Any], workdir: Path, arguments: dict[str, Any], expected: str
) -> None:
    root = write_tree(workdir / "pages", {f"f{n}.txt": "hit\nhit\n" for n in range(1, 6)})
    set_mtimes(root, [f"f{n}.txt" for n in range(1, 6)])  # f5 newest
    assert await grep(client, pattern="hit", path="pages", **arguments) == expected


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


@pytest.mark.parametrize("name", ["lf.txt", "crlf.txt"])
async def test_a_file_longer_than_its_first_read_is_searched_whole(
    tmp_path: Path, name: str
) -> None:
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
        for pattern in ("hit", "^hit.*$"):  # the second one sees line ends
            arguments = {"pattern": pattern, "path": name, "output_mode": "content"}
            content = text_of(await big.call_tool("grep", arguments))
            assert content == "\n".join(f"{name}:{n}:{line}" for n, line in expected)
        count = {"pattern": "hit", "path": name, "output_mode": "count"}
        assert text_of(await big.call_tool("grep", count)) == f"{name}:{len(expected)}"


# --- the pattern -------------------------------------------------------------------

#: (pattern, output mode, the output) in RE2's dialect, on "id 42", "ID 7", "name: x".
DIALECT = [
    (r"\d+$", "count", "a.txt:2"),
    (r"(?P<key>\w+): x", "content", "a.txt:3:name: x"),
    (r"\Qname:\E", "count", "a.txt:1"),
]


@pytest.mark.parametrize(("pattern", "mode", "expected"), DIALECT)
async def test_re2_dialect(
    client: Client[Any], workdir: Path, pattern: str, mode: str, expected: str
) -> None:
    write_tree(workdir / "dialect", {"a.txt": "id 42\nID 7\nname: x\n"})
    assert await grep(client, pattern=pattern, path="dialect", output_mode=mode) == expected


#: (arguments, the error): backreferences and lookaround are not RE2 (nor Go): refused,
#: not slow.
INVALID_PATTERNS: list[tuple[dict[str, Any], str]] = [
    (
        {"pattern": "(", "path": "invalid"},
        '[GREP_INVALID_PATTERN] invalid regular expression "(": missing ): (',
    ),
    (
        {"pattern": r"(a)\1", "path": "invalid"},
        '[GREP_INVALID_PATTERN] invalid regular expression "(a)\\1": invalid escape sequence: \\1',
    ),
    (
        {"pattern": "a(?=b)", "path": "invalid"},
        '[GREP_INVALID_PATTERN] invalid regular expression "a(?=b)": invalid perl operator: (?=',
    ),
    ({"pattern": ""}, "[INVALID_INPUT] pattern: must not be empty"),
]


@pytest.mark.parametrize(("arguments", "expected"), INVALID_PATTERNS)
async def test_invalid_patterns(
    client: Client[Any], workdir: Path, arguments: dict[str, Any], expected: str
) -> None:
    write_tree(workdir / "invalid", {"a.txt": "x\n"})
    assert await grep_error(client, **arguments) == expected


@pytest.mark.parametrize(("case_insensitive", "expected"), [(False, "a.txt:1"), (True, "a.txt:3")])
async def test_case_insensitive(
    client: Client[Any], workdir: Path, case_insensitive: bool, expected: str
) -> None:
    write_tree(workdir / "case", {"a.txt": "Hello\nhello\nHELLO\nbye\n"})
    counted = await grep(
        client,
        pattern="hello",
        path="case",
        output_mode="count",
        case_insensitive=case_insensitive,
    )
    assert counted == expected


#: (pattern, output mode, the output) on "alpha⏎beta⏎" (a.txt) and "alpha beta⏎" (b.txt):
#: \s and [^x] would cross the newline in a whole-buffer search; per line they cannot.
ONE_LINE = [
    (r"alpha\sbeta", "files_with_matches", "b.txt"),
    ("alpha[^x]beta", "files_with_matches", "b.txt"),
    ("^beta$", "content", "a.txt:2:beta"),
]


@pytest.mark.parametrize(("pattern", "mode", "expected"), ONE_LINE)
async def test_matches_never_span_lines_without_multiline(
    client: Client[Any], workdir: Path, pattern: str, mode: str, expected: str
) -> None:
    write_tree(workdir / "oneline", {"a.txt": "alpha\nbeta\n", "b.txt": "alpha beta\n"})
    assert await grep(client, pattern=pattern, path="oneline", output_mode=mode) == expected


#: (arguments, the output) of r"struct Point \{.*?y: i32" on a four-line struct.
MULTILINE: list[tuple[dict[str, Any], str]] = [
    ({}, ""),
    ({"multiline": True, "output_mode": "count"}, "p.rs:3"),
    (
        {"multiline": True, "output_mode": "content", "context": 1},
        "p.rs:1:struct Point {\np.rs:2:    x: i32,\np.rs:3:    y: i32,\np.rs-4-}",
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), MULTILINE)
async def test_multiline_spans_lines(
    client: Client[Any], workdir: Path, arguments: dict[str, Any], expected: str
) -> None:
    source = "struct Point {\n    x: i32,\n    y: i32,\n}\nfn main() {}\n"
    write_tree(workdir / "multi", {"p.rs": source})
    text = await grep(client, pattern=r"struct Point \{.*?y: i32", path="multi", **arguments)
    assert text == expected


#: (pattern, the content output) on "a⏎foo⏎bar⏎": with multiline the pattern runs as
#: (?ms): "." crosses lines while "^" and "$" still match at the start and end of every
#: line, as ripgrep -U --multiline-dotall; \A and \z stay the ends of the file.
MULTILINE_ANCHORS = [
    ("^foo", "a.txt:2:foo"),
    ("foo$.^bar", "a.txt:2:foo\na.txt:3:bar"),
    (r"\Afoo", ""),
    (r"\Aa.foo", "a.txt:1:a\na.txt:2:foo"),
]


@pytest.mark.parametrize(("pattern", "expected"), MULTILINE_ANCHORS)
async def test_multiline_anchors_match_at_every_line(
    client: Client[Any], workdir: Path, pattern: str, expected: str
) -> None:
    write_tree(workdir / "mlanchors", {"a.txt": "a\nfoo\nbar\n"})
    text = await grep(
        client, pattern=pattern, path="mlanchors", multiline=True, output_mode="content"
    )
    assert text == expected


#: Without multiline, lines are matched one at a time, so a newline written as a literal
#: character (typed, escaped, or a class of nothing else) can never match: such a
#: pattern is refused with a hint, as ripgrep refuses it.
LITERAL_NEWLINES = [
    "a\\nb",
    "a\\x0Ab",
    "a\\x{a}b",
    "a\\012b",
    "a[\\n]b",
    "a\nb",
    "\\Q\n\\E",
    "x|\\n",
]

#: What may match a newline among other characters (\s, [^x], (?s).) simply never
#: matches one.
NEWLINE_AMONG_OTHERS = ["a\\sb", "a[^x]b", "(?s)a.b", "a[\\n ]b", "a[[:space:]]b", "a\\x0b?\\x20b"]


@pytest.mark.parametrize("pattern", LITERAL_NEWLINES)
async def test_a_literal_newline_needs_multiline(
    client: Client[Any], workdir: Path, pattern: str
) -> None:
    write_tree(workdir / "newline", {"a.txt": "a\nb\na b\n"})
    assert await grep_error(client, pattern=pattern, path="newline") == (
        f'[GREP_INVALID_PATTERN] invalid regular expression "{pattern}": it contains a '
        "literal newline, which never matches because lines are searched one at a time; "
        "set multiline: true to let matches span lines"
    )


@pytest.mark.parametrize("pattern", NEWLINE_AMONG_OTHERS)
async def test_a_pattern_that_may_match_a_newline_is_run(
    client: Client[Any], workdir: Path, pattern: str
) -> None:
    write_tree(workdir / "newline", {"a.txt": "a\nb\na b\n"})
    text = await grep(client, pattern=pattern, path="newline", output_mode="content")
    assert text == "a.txt:3:a b"


async def test_a_literal_newline_spans_lines_in_multiline_mode(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "newline", {"a.txt": "a\nb\na b\n"})
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


# --- paths -------------------------------------------------------------------------


async def test_default_path_is_the_cwd_and_output_is_relative(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "rel", {"deep/er/file.txt": "unique_marker_rel\n"})
    assert await grep(client, pattern="unique_marker_rel") == "rel/deep/er/file.txt"
    absolute = await grep(client, pattern="unique_marker_rel", path=str(workdir / "rel" / "deep"))
    assert absolute == "er/file.txt"


#: (path, output mode, type, the output): a single file is shown by the path as given.
SINGLE_FILE: list[tuple[str, str, str | None, str]] = [
    ("single/one.txt", "files_with_matches", None, "single/one.txt"),
    ("./single/one.txt", "content", None, "./single/one.txt:2:hit"),
    ("{workdir}/single/one.txt", "count", None, "{workdir}/single/one.txt:1"),
    ("single/one.txt", "files_with_matches", "py", ""),
]


@pytest.mark.parametrize(("path", "mode", "file_type", "expected"), SINGLE_FILE)
async def test_single_file_search_shows_the_path_as_given(
    client: Client[Any],
    workdir: Path,
    path: str,
    mode: str,
    file_type: str | None,
    expected: str,
) -> None:
    write_tree(workdir / "single", {"one.txt": "a\nhit\n"})
    text = await grep(
        client, pattern="hit", path=path.format(workdir=workdir), output_mode=mode, type=file_type
    )
    assert text == expected.format(workdir=workdir)


async def test_single_file_over_the_size_limit(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "toolarge", {"big.txt": "x" * 5000})
    target = workdir / "toolarge" / "big.txt"
    assert await grep_error(client, pattern="x", path="toolarge/big.txt") == (
        f"[FILE_TOO_LARGE] {target} is 5000 bytes, over the --max-file-size limit of 4096 bytes"
    )


#: (path, the error)
PATH_ERRORS = [
    ("no/such", "[PATH_NOT_FOUND] path does not exist: {workdir}/no/such"),
    ("/", "[ACCESS_DENIED] / is outside the allowed directories ({workdir})"),
    ("deny/secrets", "[ACCESS_DENIED] {workdir}/deny/secrets is denied by the pattern **/secrets"),
]


@pytest.mark.parametrize(("path", "expected"), PATH_ERRORS)
async def test_path_errors(client: Client[Any], workdir: Path, path: str, expected: str) -> None:
    write_tree(workdir / "deny" / "secrets", {"a.txt": "x\n"})
    assert await grep_error(client, pattern="x", path=path) == expected.format(workdir=workdir)


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


#: (arguments, the error)
ARGUMENT_ERRORS: list[tuple[dict[str, Any], str]] = [
    (
        {"output_mode": "lines"},
        '[GREP_INVALID_OUTPUT_MODE] invalid output_mode "lines"; '
        "use one of: files_with_matches, content, count",
    ),
    ({"head_limit": -1}, "[INVALID_INPUT] head_limit: Input should be greater than or equal to 0"),
    ({"context": -2}, "[INVALID_INPUT] context: Input should be greater than or equal to 0"),
    ({"-B": -1}, "[INVALID_INPUT] -B: Input should be greater than or equal to 0"),
    # Invalid input is reported before the path is looked at.
    (
        {"pattern": "(", "path": "no/such/dir"},
        '[GREP_INVALID_PATTERN] invalid regular expression "(": missing ): (',
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), ARGUMENT_ERRORS)
async def test_argument_errors(
    client: Client[Any], arguments: dict[str, Any], expected: str
) -> None:
    assert await grep_error(client, **{"pattern": "x", **arguments}) == expected


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
    # The default names are understood in compat mode too, though not shown.
    hidden = await compat.call_tool(
        "grep",
        {"pattern": "line 10$", "path": "compat", "output_mode": "content", "context_after": 1},
        raise_on_error=False,
    )
    assert ok_text(hidden) == "n.txt:10:line 10\nn.txt-11-line 11"


@pytest.mark.parametrize("context", [{"-C": 1}, {"context": 1}])
async def test_both_names_of_the_symmetric_context_in_compat_mode(
    compat: Client[Any], workdir: Path, context: dict[str, int]
) -> None:
    write_tree(workdir / "compat", {"n.txt": NUMBERS, "skip.md": "line 5\n"})
    result = await compat.call_tool(
        "grep",
        {"pattern": "line 10$", "path": "compat", "output_mode": "content", **context},
        raise_on_error=False,
    )
    assert ok_text(result) == "n.txt-9-line 9\nn.txt:10:line 10\nn.txt-11-line 11"


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
