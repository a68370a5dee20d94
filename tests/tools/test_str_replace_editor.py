"""The compat str_replace_editor through a real client: same results as the split tools, insert.

The check with the official SDK client over STDIO is in tests/e2e/test_str_replace_editor.py.
"""

from __future__ import annotations

import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.files import IMAGE_SAMPLES
from tests.support.inprocess import app_client
from tests.support.pids import costing_at_most, server_pid

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def split(root: Path) -> AsyncIterator[Client[Any]]:
    async with app_client(workdir=root) as client:
        yield client


@pytest.fixture(scope="module")
async def compat(root: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--anthropic-compat", workdir=root) as client:
        yield client


async def editor(client: Client[Any], command: str, path: Path | str, **args: Any) -> Any:
    arguments = {"command": command, "path": str(path), **args}
    return await client.call_tool("str_replace_editor", arguments, raise_on_error=False)


def wire(result: Any) -> tuple[bool, list[dict[str, Any]]]:
    return bool(result.is_error), [block.model_dump(mode="json") for block in result.content]


# --- compat results equal split results --------------------------------------------------

# Each scenario: the file to start from (None: no file), whether both sessions view it
# first, the split call, and the editor call that must give the same result.
Scenario = tuple[bytes | None, bool, str, dict[str, Any], dict[str, Any]]

SCENARIOS: dict[str, Scenario] = {
    "view text": (b"a\nb\nc\n", False, "view", {}, {"command": "view"}),
    "view range": (
        b"".join(b"l%d\n" % n for n in range(1, 30)),
        False,
        "view",
        {"view_range": [8, 12]},
        {"command": "view", "view_range": [8, 12]},
    ),
    "view range error": (
        b"a\n",
        False,
        "view",
        {"view_range": [3, 4]},
        {"command": "view", "view_range": [3, 4]},
    ),
    "view binary": (b"\x00\x01" * 100, False, "view", {}, {"command": "view"}),
    "view image": (IMAGE_SAMPLES["image/gif"], False, "view", {}, {"command": "view"}),
    "view missing": (None, False, "view", {}, {"command": "view"}),
    "view long": (
        b"".join(b"%d\n" % n for n in range(2500)),
        False,
        "view",
        {},
        {"command": "view"},
    ),
    "replace": (
        b"".join(b"line %d\n" % n for n in range(1, 15)),
        True,
        "str_replace",
        {"old_str": "line 7", "new_str": "seven\nand a half"},
        {"command": "str_replace", "old_str": "line 7", "new_str": "seven\nand a half"},
    ),
    "replace all": (
        b"x y x y x\n",
        True,
        "str_replace",
        {"old_str": "x", "new_str": "z", "replace_all": True},
        {"command": "str_replace", "old_str": "x", "new_str": "z", "replace_all": True},
    ),
    "delete": (
        b"keep\ndrop\nkeep too\n",
        True,
        "str_replace",
        {"old_str": "drop\n"},
        {"command": "str_replace", "old_str": "drop\n"},
    ),
    "not found with hint": (
        b"def f():\n\treturn 1\n",
        True,
        "str_replace",
        {"old_str": "    return 1", "new_str": "x"},
        {"command": "str_replace", "old_str": "    return 1", "new_str": "x"},
    ),
    "ambiguous": (
        b"a\na\n",
        True,
        "str_replace",
        {"old_str": "a", "new_str": "b"},
        {"command": "str_replace", "old_str": "a", "new_str": "b"},
    ),
    "identical strings": (
        b"a\n",
        True,
        "str_replace",
        {"old_str": "a", "new_str": "a"},
        {"command": "str_replace", "old_str": "a", "new_str": "a"},
    ),
    "non-ascii into a file that is not utf-8": (
        "name = 'x'\nтекст\n".encode("cp1251"),
        True,
        "str_replace",
        {"old_str": "'x'", "new_str": "'é'"},
        {"command": "str_replace", "old_str": "'x'", "new_str": "'é'"},
    ),
    "empty old_str": (
        b"a\n",
        True,
        "str_replace",
        {"old_str": "", "new_str": "b"},
        {"command": "str_replace", "old_str": "", "new_str": "b"},
    ),
    "crlf": (
        b"one\r\ntwo\r\n",
        True,
        "str_replace",
        {"old_str": "one\ntwo", "new_str": "1\n2"},
        {"command": "str_replace", "old_str": "one\ntwo", "new_str": "1\n2"},
    ),
    "replace unviewed": (
        b"a\n",
        False,
        "str_replace",
        {"old_str": "a", "new_str": "b"},
        {"command": "str_replace", "old_str": "a", "new_str": "b"},
    ),
    "create new": (
        None,
        False,
        "create_file",
        {"content": "fresh\n"},
        {"command": "create", "file_text": "fresh\n"},
    ),
    "create over viewed": (
        b"old\n",
        True,
        "create_file",
        {"content": "new"},
        {"command": "create", "file_text": "new"},
    ),
    "create over unviewed": (
        b"old\n",
        False,
        "create_file",
        {"content": "new"},
        {"command": "create", "file_text": "new"},
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_compat_result_equals_split_result(
    split: Client[Any], compat: Client[Any], case: Path, name: str
) -> None:
    initial, view_first, tool, split_args, editor_args = SCENARIOS[name]
    path = case / "target.txt"  # the same path for both, so messages naming it compare
    calls = [
        (split, "view", tool, split_args),
        (compat, "str_replace_editor", "str_replace_editor", editor_args),
    ]
    outcomes = []
    for client, viewer, name_of_tool, arguments in calls:
        _reset(path, initial)
        if view_first:
            view_args = {"command": "view"} if viewer == "str_replace_editor" else {}
            viewed = await client.call_tool(viewer, {"path": str(path), **view_args})
            assert not viewed.is_error
        result = await client.call_tool(
            name_of_tool, {"path": str(path), **arguments}, raise_on_error=False
        )
        outcomes.append((wire(result), _content(path)))
    assert outcomes[0] == outcomes[1]


def _reset(path: Path, content: bytes | None) -> None:
    if content is None:
        path.unlink(missing_ok=True)
    else:
        path.write_bytes(content)


def _content(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


async def test_compat_directory_view_equals_split(
    split: Client[Any], compat: Client[Any], case: Path
) -> None:
    (case / "sub").mkdir()
    (case / "sub" / "x").write_text("")
    (case / ".hidden").write_text("")
    split_result = await split.call_tool("view", {"path": str(case)}, raise_on_error=False)
    assert wire(await editor(compat, "view", case)) == wire(split_result)


# --- editor-only behaviour ---------------------------------------------------------------


async def test_unknown_command(compat: Client[Any], case: Path) -> None:
    assert error_text(await editor(compat, "delete", case / "f.txt")) == (
        "[INVALID_INPUT] command: Input should be 'view', 'str_replace', 'create' or 'insert'"
    )


@pytest.mark.parametrize(
    ("command", "args", "missing"),
    [
        ("str_replace", {"new_str": "x"}, "old_str"),
        ("create", {}, "file_text"),
        ("insert", {"new_str": "x"}, "insert_line"),
        ("insert", {"insert_line": 0}, "new_str"),
    ],
)
async def test_missing_argument_for_command(
    compat: Client[Any], case: Path, command: str, args: dict[str, Any], missing: str
) -> None:
    result = await editor(compat, command, case / "f.txt", **args)
    assert error_text(result) == (
        f"[INVALID_INPUT] {missing}: missing required argument for the {command} command"
    )


async def viewed(compat: Client[Any], path: Path, content: bytes) -> Path:
    _reset(path, content)
    assert not (await editor(compat, "view", path)).is_error
    return path


async def insert(compat: Client[Any], path: Path, line: int, text: str, **more: Any) -> Any:
    return await editor(compat, "insert", path, insert_line=line, new_str=text, **more)


async def test_insert_before_first_line(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\nb\nc\n")
    result = await insert(compat, path, 0, "top")
    assert path.read_bytes() == b"top\na\nb\nc\n"
    assert ok_text(result) == f"Inserted in {path}\n\n1\ttop\n2\ta\n3\tb\n4\tc\n"


async def test_insert_in_the_middle_with_context(compat: Client[Any], case: Path) -> None:
    lines = b"".join(b"line %d\n" % n for n in range(1, 21))
    path = await viewed(compat, case / "f.txt", lines)
    result = await insert(compat, path, 10, "new one\nnew two")
    shown = [f"line {n}" for n in range(7, 11)] + ["new one", "new two"]
    shown += [f"line {n}" for n in range(11, 15)]
    expected = "".join(f"{n:>2}\t{text}\n" for n, text in enumerate(shown, 7))
    assert ok_text(result) == f"Inserted in {path}\n\n{expected}"
    assert path.read_bytes() == lines.replace(b"line 11\n", b"new one\nnew two\nline 11\n")


async def test_insert_text_ending_in_newline_adds_no_blank_line(
    compat: Client[Any], case: Path
) -> None:
    path = await viewed(compat, case / "f.txt", b"a\nb\n")
    await insert(compat, path, 2, "c\n")
    assert path.read_bytes() == b"a\nb\nc\n"


async def test_insert_empty_text_adds_an_empty_line(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\nb\n")
    result = await insert(compat, path, 1, "")
    assert path.read_bytes() == b"a\n\nb\n"
    assert ok_text(result) == f"Inserted in {path}\n\n1\ta\n2\t\n3\tb\n"


async def test_insert_after_unterminated_last_line(compat: Client[Any], case: Path) -> None:
    # The file still has no final newline afterwards.
    path = await viewed(compat, case / "f.txt", b"a\nb")
    result = await insert(compat, path, 2, "c")
    assert path.read_bytes() == b"a\nb\nc"
    assert ok_text(result) == f"Inserted in {path}\n\n1\ta\n2\tb\n3\tc\n"


async def test_insert_into_empty_file(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"")
    assert ok_text(await insert(compat, path, 0, "only")) == f"Inserted in {path}\n\n1\tonly\n"
    assert path.read_bytes() == b"only\n"


async def test_insert_into_crlf_file(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\r\nb\r\n")
    await insert(compat, path, 1, "x\ny")
    assert path.read_bytes() == b"a\r\nx\r\ny\r\nb\r\n"


async def test_insert_keeps_bom_first(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"\xef\xbb\xbfa\n")
    result = await insert(compat, path, 0, "top")
    assert path.read_bytes() == b"\xef\xbb\xbftop\na\n"
    assert ok_text(result) == f"Inserted in {path}\n\n1\ttop\n2\ta\n"


async def test_insert_keeps_other_bytes_and_mode(compat: Client[Any], case: Path) -> None:
    before = b"caf\xe9\n\xff\xfe\n"
    path = await viewed(compat, case / "f.txt", before)
    path.chmod(0o700)
    await insert(compat, path, 1, "mid")
    assert path.read_bytes() == b"caf\xe9\nmid\n\xff\xfe\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


async def test_insert_text_alias(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\n")
    result = await editor(compat, "insert", path, insert_line=1, insert_text="b")
    assert ok_text(result) == f"Inserted in {path}\n\n1\ta\n2\tb\n"


async def test_insert_text_conflicting_with_new_str(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\n")
    result = await editor(compat, "insert", path, insert_line=1, new_str="b", insert_text="c")
    assert error_text(result) == (
        "[INVALID_INPUT] new_str and insert_text name the same text; give only one"
    )


async def test_insert_line_beyond_file(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\nb\nc\n")
    assert error_text(await insert(compat, path, 5, "x")) == (
        f"[INVALID_INPUT] insert_line 5 exceeds total lines 3 in {path}; "
        "use 0 to 3 (0 inserts before the first line)"
    )
    assert path.read_bytes() == b"a\nb\nc\n"


async def test_insert_line_negative(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"a\n")
    assert error_text(await insert(compat, path, -1, "x")) == (
        "[INVALID_INPUT] insert_line: Input should be greater than or equal to 0"
    )


async def test_insert_checks(compat: Client[Any], case: Path) -> None:
    assert error_text(await insert(compat, case / "none.txt", 0, "x")) == (
        f"[PATH_NOT_FOUND] {case / 'none.txt'} does not exist"
    )
    assert error_text(await insert(compat, case, 0, "x")) == (
        f"[INVALID_INPUT] {case} is a directory; insert works on files only"
    )


async def test_insert_size_limit(root: Path) -> None:
    work = root / "limit"
    work.mkdir()
    (work / "f.txt").write_text("a" * 1000 + "\n")
    async with app_client("--anthropic-compat", "--max-file-size", "1KB", workdir=work) as c:
        await editor(c, "view", "f.txt")
        assert error_text(await editor(c, "insert", "f.txt", insert_line=1, new_str="b" * 40)) == (
            "[FILE_TOO_LARGE] the edited file would be 1.0 KB (1042 bytes), "
            "over the 1.0 KB limit set by --max-file-size"
        )


@pytest.mark.parametrize("part", ["view", "str_replace", "create_file", "str_replace_editor"])
async def test_editor_disabled_with_any_part(root: Path, part: str) -> None:
    async with app_client("--anthropic-compat", "--disable-tools", part, workdir=root) as c:
        names = [t.name for t in await c.list_tools()]
    assert "str_replace_editor" not in names


# --- insert into a file that is not UTF-8 ----------------------------------------------

CP1251 = "first\nтекст\n".encode("cp1251")


@pytest.mark.parametrize("argument", ["new_str", "insert_text"])
async def test_insert_of_non_ascii_refused_in_a_file_that_is_not_utf8(
    compat: Client[Any], case: Path, argument: str
) -> None:
    """Non-ASCII text is never inserted into a file that is not valid UTF-8 (it would
    mix encodings); the message names the argument the text came in."""
    path = await viewed(compat, case / "f.txt", CP1251)
    result = await editor(compat, "insert", path, insert_line=1, **{argument: "привет"})
    assert error_text(result) == (
        f"[INVALID_INPUT] {argument} has non-ASCII characters, but {path} is not valid "
        "UTF-8 (it is in another encoding): written as UTF-8 they would mix two encodings "
        "in one file. Use ASCII text only, or convert the file to UTF-8 first; the file is "
        "unchanged."
    )
    assert path.read_bytes() == CP1251


async def test_insert_of_ascii_into_a_file_that_is_not_utf8(
    compat: Client[Any], case: Path
) -> None:
    path = await viewed(compat, case / "f.txt", CP1251)
    result = await insert(compat, path, 1, "second")
    assert path.read_bytes() == CP1251.replace(b"first\n", b"first\nsecond\n")
    assert ok_text(result) == (
        f"Inserted in {path}\n\n1\tfirst\n2\tsecond\n3\t\ufffd\ufffd\ufffd\ufffd\ufffd\n"
    )


async def test_insert_of_non_ascii_into_utf8(compat: Client[Any], case: Path) -> None:
    path = await viewed(compat, case / "f.txt", b"first\n")
    assert ok_text(await insert(compat, path, 1, "текст")) == (
        f"Inserted in {path}\n\n1\tfirst\n2\tтекст\n"
    )
    assert path.read_bytes() == "first\nтекст\n".encode()


# --- insert: where exactly the text goes ---------------------------------------------------


@pytest.mark.parametrize(
    ("before", "line", "text", "after"),
    [
        # After an unterminated last line: that line is ended, the inserted text is
        # whole, and the file still ends without a newline.
        (b"a\nb", 2, "cd", b"a\nb\ncd"),
        (b"a\nb", 2, "x\ny", b"a\nb\nx\ny"),
        (b"a\nb", 2, "x\ny\n", b"a\nb\nx\ny"),
        (b"a\r\nb", 2, "x\ny", b"a\r\nb\r\nx\r\ny"),
        (b"a\r\nb", 2, "x\r\n", b"a\r\nb\r\nx"),
        (b"only", 1, "next", b"only\nnext"),
        (b"only", 1, "cr\r", b"only\ncr\r"),  # a CR of the text's own is kept
        # After a blank line, and among blank lines.
        (b"a\n\nb\n", 2, "X", b"a\n\nX\nb\n"),
        (b"\n\nz\n", 1, "X", b"\nX\n\nz\n"),
        (b"\n\n", 2, "X", b"\n\nX\n"),
        (b"a\r\n\r\nb\r\n", 2, "X", b"a\r\n\r\nX\r\nb\r\n"),
    ],
)
async def test_insert_places_text_exactly(
    compat: Client[Any], case: Path, before: bytes, line: int, text: str, after: bytes
) -> None:
    path = await viewed(compat, case / "f.txt", before)
    assert ok_text(await insert(compat, path, line, text)).startswith(f"Inserted in {path}\n\n")
    assert path.read_bytes() == after


async def test_insert_after_unterminated_last_line_shows_the_new_lines(
    compat: Client[Any], case: Path
) -> None:
    path = await viewed(compat, case / "f.txt", b"a\nb")
    result = await insert(compat, path, 2, "cd\nef")
    assert ok_text(result) == f"Inserted in {path}\n\n1\ta\n2\tb\n3\tcd\n4\tef\n"


async def test_insert_deep_into_a_file_of_millions_of_lines(
    compat: Client[Any], case: Path
) -> None:
    """Finding line N does not step through the lines one by one (the bound is on the
    server's CPU time, so a busy machine does not fail it)."""
    before = b"\n" * 8_000_000
    path = await viewed(compat, case / "f.txt", before)
    async with costing_at_most(await server_pid(compat), cpu=5):
        result = await insert(compat, path, 7_999_998, "x")
    assert ok_text(result) == f"Inserted in {path}\n\n" + "".join(
        f"{n}\t{'x' if n == 7_999_999 else ''}\n" for n in range(7_999_995, 8_000_002)
    )
    assert path.read_bytes() == before[:7_999_998] + b"x\n" + before[7_999_998:]
