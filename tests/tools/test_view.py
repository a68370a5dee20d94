"""The view tool through a real client: line format, ranges, limits, binaries, images, trees.

What needs a real server process (other clients and transports, the server's memory) is in
tests/e2e/test_view.py.
"""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from mcp_types import ImageContent

from tests.support import error_text, ok_text
from tests.support.calls import view
from tests.support.files import IMAGE_SAMPLES, MB, make_files
from tests.support.inprocess import app_client
from tests.support.interpose import Unavailable, on_open, watching_opens
from tests.support.models import cut_listing, tree

pytestmark = pytest.mark.anyio


def numbered(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


# --- line format -----------------------------------------------------------------------


async def test_three_line_file(client: Client[Any], case: Path) -> None:
    (case / "three.txt").write_text("a\nb\nc\n")
    assert ok_text(await view(client, case / "three.txt")) == "1\ta\n2\tb\n3\tc\n"


async def test_width_is_digits_of_last_number_shown(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text("".join(f"l{n}\n" for n in range(1, 13)))
    assert ok_text(await view(client, case / "f.txt", [9, 10])) == " 9\tl9\n10\tl10\n"
    assert ok_text(await view(client, case / "f.txt", [8, 9])) == "8\tl8\n9\tl9\n"


async def test_missing_final_newline_and_blank_lines(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_bytes(b"a\n\n\nb")
    assert ok_text(await view(client, case / "f.txt")) == "1\ta\n2\t\n3\t\n4\tb\n"


async def test_empty_file(client: Client[Any], case: Path) -> None:
    (case / "empty.txt").write_bytes(b"")
    assert ok_text(await view(client, case / "empty.txt")) == ""


async def test_crlf_shown_without_cr_and_bom_hidden(client: Client[Any], case: Path) -> None:
    (case / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nlone\rcr\r\n")
    assert ok_text(await view(client, case / "win.txt")) == "1\tone\n2\ttwo\n3\tlone\rcr\n"


async def test_invalid_utf8_shown_as_replacement(client: Client[Any], case: Path) -> None:
    (case / "latin.txt").write_bytes(b"caf\xe9 ok\n\xc3\xa9t\xc3\xa9\n")
    assert ok_text(await view(client, case / "latin.txt")) == "1\tcaf\ufffd ok\n2\tété\n"


async def test_long_line_cut_at_2000_characters(client: Client[Any], case: Path) -> None:
    (case / "min.js").write_text("x" * 5000 + "\nshort\n")
    expected = "1\t" + "x" * 2000 + "... [truncated, 5000 chars total]\n2\tshort\n"
    assert ok_text(await view(client, case / "min.js")) == expected


async def test_long_line_counts_characters_not_bytes(client: Client[Any], case: Path) -> None:
    # 2000 two-byte characters (4000 bytes) fit; 3000 of them do not.
    (case / "fits.txt").write_text("é" * 2000 + "\n", encoding="utf-8")
    assert ok_text(await view(client, case / "fits.txt")) == "1\t" + "é" * 2000 + "\n"
    (case / "cut.txt").write_text("é" * 3000, encoding="utf-8")
    assert (
        ok_text(await view(client, case / "cut.txt"))
        == "1\t" + "é" * 2000 + "... [truncated, 3000 chars total]\n"
    )


async def test_over_2000_lines_without_range(client: Client[Any], case: Path) -> None:
    (case / "big.txt").write_text(numbered(5000))
    expected = (
        "".join(f"{n:>4}\tline {n}\n" for n in range(1, 2001))
        + "\n[Truncated: file has 5000 lines. Use view_range to read specific sections.]"
    )
    assert ok_text(await view(client, case / "big.txt")) == expected


async def test_exactly_2000_lines_not_truncated(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(2000))
    text = ok_text(await view(client, case / "f.txt"))
    assert text == "".join(f"{n:>4}\tline {n}\n" for n in range(1, 2001))


# --- ranges ----------------------------------------------------------------------------


async def test_range_in_100_line_file(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(100))
    expected = "".join(f"{n}\tline {n}\n" for n in range(10, 21))
    assert ok_text(await view(client, case / "f.txt", [10, 20])) == expected


async def test_range_end_clamped(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(42))
    expected = "".join(f"{n}\tline {n}\n" for n in range(10, 43))
    assert ok_text(await view(client, case / "f.txt", [10, 100])) == expected


@pytest.mark.parametrize(
    ("view_range", "note"),
    [
        (
            [1, 3000],
            "showing lines 1-2000 of the requested 1-3000. Use view_range [2001, 3000] to read on.",
        ),
        # -1 is "to the end" said in words, never "1--1" or a range ending in -1.
        (
            [1, -1],
            "showing lines 1-2000 of the requested lines 1 to the end of the file. Use a "
            "view_range starting at 2001 to read on.",
        ),
        (
            [1, 99999],
            "showing lines 1-2000 of the requested 1-99999. Use view_range [2001, 99999] to "
            "read on.",
        ),
    ],
    ids=["3000", "to the end", "99999"],
)
async def test_a_range_of_more_than_2000_lines_is_cut(
    client: Client[Any], case: Path, view_range: list[int], note: str
) -> None:
    """One answer holds at most 2000 lines, whatever range is asked; the note says what
    to ask for next."""
    (case / "f.txt").write_text(numbered(3000))
    text = ok_text(await view(client, case / "f.txt", view_range))
    assert text == "".join(f"{n:>4}\tline {n}\n" for n in range(1, 2001)) + f"\n[Truncated: {note}]"
    rest = ok_text(await view(client, case / "f.txt", [2001, view_range[1]]))
    assert rest == "".join(f"{n}\tline {n}\n" for n in range(2001, 3001))


async def test_a_range_of_2000_lines_or_of_the_last_lines_is_not_cut(
    client: Client[Any], case: Path
) -> None:
    (case / "f.txt").write_text(numbered(3000))
    text = ok_text(await view(client, case / "f.txt", [11, 2010]))
    assert text == "".join(f"{n:>4}\tline {n}\n" for n in range(11, 2011))
    # 2001 lines asked, but the file ends after 2000 of them: nothing is left out.
    text = ok_text(await view(client, case / "f.txt", [1001, 3001]))
    assert text == "".join(f"{n:>4}\tline {n}\n" for n in range(1001, 3001))
    # One line more than an answer holds.
    text = ok_text(await view(client, case / "f.txt", [1000, 3000]))
    assert text.endswith(
        "2999\tline 2999\n\n[Truncated: showing lines 1000-2999 of the requested "
        "1000-3000. Use view_range [3000, 3000] to read on.]"
    )


async def test_range_start_beyond_file(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(42))
    result = await view(client, case / "f.txt", [100, 200])
    assert error_text(result) == (
        f"[INVALID_INPUT] start 100 exceeds total lines 42 in {case / 'f.txt'}"
    )


async def test_range_start_below_one(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(5))
    assert (
        error_text(await view(client, case / "f.txt", [0, 3]))
        == "[INVALID_INPUT] view_range start must be 1 or more, got 0"
    )


async def test_range_start_after_end(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(5))
    assert error_text(await view(client, case / "f.txt", [4, 2])) == (
        "[INVALID_INPUT] view_range start 4 is greater than end 2; "
        "give [start, end] with start <= end"
    )


async def test_range_end_minus_one_means_last_line(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(12))
    assert ok_text(await view(client, case / "f.txt", [10, -1])) == (
        "10\tline 10\n11\tline 11\n12\tline 12\n"
    )


async def test_range_must_have_two_numbers(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_text(numbered(5))
    assert (
        error_text(await view(client, case / "f.txt", [1]))
        == "[INVALID_INPUT] view_range: List should have at least 2 items after validation, not 1"
    )


async def test_range_checked_before_path(client: Client[Any], case: Path) -> None:
    # Invalid input comes before PATH_NOT_FOUND in the order of checks.
    result = await view(client, case / "missing.txt", [0, 1])
    assert error_text(result) == "[INVALID_INPUT] view_range start must be 1 or more, got 0"


async def test_range_on_crlf_file(client: Client[Any], case: Path) -> None:
    (case / "f.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    assert ok_text(await view(client, case / "f.txt", [2, 3])) == "2\tb\n3\tc\n"


async def test_range_over_one_megabyte_line(client: Client[Any], case: Path) -> None:
    # Lines of any length: a 1 MB single line (and lines after it) read with a range.
    (case / "one.txt").write_bytes(b"y" * MB + b"\nsecond\nthird")
    expected = "1\t" + "y" * 2000 + f"... [truncated, {MB} chars total]\n"
    assert ok_text(await view(client, case / "one.txt", [1, 1])) == expected
    assert ok_text(await view(client, case / "one.txt", [2, 9])) == "2\tsecond\n3\tthird\n"


async def test_range_over_lines_spanning_read_chunks(client: Client[Any], case: Path) -> None:
    # 3 MB of 1000-byte lines: line boundaries fall across the 1 MiB read chunks.
    line = b"z" * 999 + b"\n"
    (case / "f.txt").write_bytes(line * 3000)
    start = 1048  # line 1049 starts at byte 1,048,000 and crosses 1 MiB
    text = ok_text(await view(client, case / "f.txt", [start, start + 3]))
    z = "z" * 999
    assert text == "".join(f"{n}\t{z}\n" for n in range(start, start + 4))


# --- paths -----------------------------------------------------------------------------


async def test_relative_path_resolved_against_session_cwd(
    client: Client[Any], root: Path, case: Path
) -> None:
    # The session starts in --workdir (root); bash's cd would move it.
    (case / "src").mkdir()
    (case / "src" / "main.go").write_text("package main\n")
    rel = f"{case.name}/src/main.go"
    assert ok_text(await view(client, rel)) == "1\tpackage main\n"


async def test_symlink_to_file_followed(client: Client[Any], case: Path) -> None:
    (case / "target.txt").write_text("real content\n")
    (case / "link.txt").symlink_to(case / "target.txt")
    assert ok_text(await view(client, case / "link.txt")) == "1\treal content\n"


async def test_missing_path(client: Client[Any], case: Path) -> None:
    result = await view(client, case / "nope.txt")
    assert error_text(result) == f"[PATH_NOT_FOUND] {case / 'nope.txt'} does not exist"


async def test_path_under_a_file(client: Client[Any], case: Path) -> None:
    (case / "file").write_text("x\n")
    result = await view(client, case / "file" / "child")
    assert error_text(result) == f"[PATH_NOT_FOUND] {case / 'file' / 'child'} does not exist"


async def test_file_with_trailing_slash_is_not_a_directory(client: Client[Any], case: Path) -> None:
    # As the system sees it: "a.txt/" and "a.txt/." name a directory, and a.txt is none.
    (case / "a.txt").write_text("x\n")
    for given in (f"{case}/a.txt/", f"{case}/a.txt/."):
        assert error_text(await view(client, given)) == (
            f"[INVALID_INPUT] {case / 'a.txt'}/ is not a directory"
        )


async def test_directory_with_trailing_slash_is_listed(client: Client[Any], case: Path) -> None:
    (case / "d").mkdir()
    (case / "d" / "x.txt").write_text("x\n")
    assert ok_text(await view(client, f"{case}/d/")) == "d/\n└── x.txt\n"
    assert error_text(await view(client, f"{case}/nope/")) == (
        f"[PATH_NOT_FOUND] {case / 'nope'} does not exist"
    )


async def test_broken_symlink(client: Client[Any], case: Path) -> None:
    (case / "dangling").symlink_to(case / "gone")
    result = await view(client, case / "dangling")
    assert error_text(result) == f"[PATH_NOT_FOUND] {case / 'gone'} does not exist"


async def test_empty_path(client: Client[Any]) -> None:
    assert error_text(await view(client, "")) == "[INVALID_INPUT] path: must not be empty"


async def test_path_over_the_system_limit_is_refused_at_once(
    client: Client[Any], root: Path
) -> None:
    # No system call takes a path of PATH_MAX bytes or more (4096 on Linux, the final
    # NUL included); resolving one component by component would take time that grows
    # with the square of its length.
    for length in (4096 - len(f"{root}/"), 1_000_000):
        path = ("a/" * length)[:length]
        with anyio.fail_after(10):
            result = await view(client, path)
        assert error_text(result) == (
            "[INVALID_INPUT] path: longer than the system's limit of 4095 bytes "
            "(as an absolute path)"
        )
    at_limit = ("b/" * 4096)[: 4095 - len(f"{root}/")]
    assert error_text(await view(client, at_limit)).startswith("[PATH_NOT_FOUND] ")


async def test_fifo_is_refused_without_hanging(client: Client[Any], case: Path) -> None:
    os.mkfifo(case / "pipe")
    result = await view(client, case / "pipe")
    assert error_text(result) == f"[INVALID_INPUT] {case / 'pipe'} is not a regular file"


async def test_special_files_are_refused_without_being_opened(
    client: Client[Any], case: Path
) -> None:
    # Opening a device can have effects of its own (a watchdog starts counting, a tape
    # rewinds), so anything but a regular file or a directory is refused on its stat.
    os.mkfifo(case / "pipe")
    names = ["pipe"]
    if os.geteuid() == 0:
        os.mknod(case / "null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
        names.append("null")
    try:
        with watching_opens(case) as opened:
            for name in names:
                for tool, arguments in (
                    ("view", {}),
                    ("str_replace", {"old_str": "a", "new_str": "b"}),
                ):
                    result = await client.call_tool(
                        tool, {"path": str(case / name), **arguments}, raise_on_error=False
                    )
                    assert error_text(result) == (
                        f"[INVALID_INPUT] {case / name} is not a regular file"
                    )
            assert opened() == []
    except Unavailable as exc:
        pytest.skip(f"inotify unavailable: {exc}")


# --- binary files and images -------------------------------------------------------------


async def test_binary_file_notice(client: Client[Any], case: Path) -> None:
    (case / "prog.exe").write_bytes(b"MZ\x90\x00\x03" + bytes(600))
    assert ok_text(await view(client, case / "prog.exe")) == "Binary file (605 bytes)"


async def test_binary_size_in_megabytes(client: Client[Any], case: Path) -> None:
    size = int(2.4 * MB)
    (case / "blob.bin").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(size - 7))
    assert ok_text(await view(client, case / "blob.bin")) == "Binary file (2.4 MB)"


async def test_wasm_is_binary(client: Client[Any], case: Path) -> None:
    (case / "mod.wasm").write_bytes(b"\x00asm\x01\x00\x00\x00" + b"x" * 2040)
    assert ok_text(await view(client, case / "mod.wasm")) == "Binary file (2.0 KB)"


async def test_control_bytes_make_binary_even_without_nul(client: Client[Any], case: Path) -> None:
    (case / "data").write_bytes(b"header\x01\x02\x03 rest\n")
    assert ok_text(await view(client, case / "data")) == "Binary file (15 bytes)"


async def test_nul_after_first_512_bytes_is_still_text(client: Client[Any], case: Path) -> None:
    (case / "late.txt").write_bytes(b"a" * 600 + b"\n\x00\n")
    text = ok_text(await view(client, case / "late.txt"))
    assert text == "1\t" + "a" * 600 + "\n2\t\x00\n"


@pytest.mark.parametrize("mime", sorted(IMAGE_SAMPLES))
async def test_image_by_magic_bytes(client: Client[Any], case: Path, mime: str) -> None:
    # A neutral extension: detection is by content.
    data = IMAGE_SAMPLES[mime]
    (case / "picture.dat").write_bytes(data)
    result = await view(client, case / "picture.dat")
    assert not result.is_error
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, ImageContent)
    assert block.mime_type == mime
    assert base64.b64decode(block.data) == data


async def test_svg_by_extension(client: Client[Any], case: Path) -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n'
    (case / "logo.SVG").write_bytes(svg)
    result = await view(client, case / "logo.SVG")
    [block] = result.content
    assert isinstance(block, ImageContent)
    assert block.mime_type == "image/svg+xml"
    assert base64.b64decode(block.data) == svg


async def test_text_starting_with_bm_is_not_a_bitmap(client: Client[Any], case: Path) -> None:
    (case / "cars.txt").write_text("BMW and Mercedes\n")
    assert ok_text(await view(client, case / "cars.txt")) == "1\tBMW and Mercedes\n"


# --- directories -----------------------------------------------------------------------


async def test_directory_tree(client: Client[Any], case: Path) -> None:
    proj = case / "proj"
    for directory in (".github/workflows", ".git/objects", "node_modules/left", "src/pkg"):
        (proj / directory).mkdir(parents=True)
    for file in (".dockerignore", ".env", "README.md", "src/main.py", "src/pkg/deep.py"):
        (proj / file).write_text("x\n")
    (proj / "link").symlink_to("/usr/local/bin")
    (proj / "src" / "up").symlink_to("..")
    expected = (
        "proj/\n"
        "├── .dockerignore\n"
        "├── .env\n"
        "├── .github/\n"
        "│   └── workflows/\n"
        "├── README.md\n"
        "├── link -> /usr/local/bin\n"
        "└── src/\n"
        "    ├── main.py\n"
        "    ├── pkg/\n"
        "    └── up -> ..\n"
    )
    assert ok_text(await view(client, proj)) == expected


async def test_nested_git_and_node_modules_hidden(client: Client[Any], case: Path) -> None:
    for directory in ("a/.git", "a/node_modules", "a/lib"):
        (case / "top" / directory).mkdir(parents=True)
    (case / "top" / "b.txt").write_text("")
    expected = "top/\n├── a/\n│   └── lib/\n└── b.txt\n"
    assert ok_text(await view(client, case / "top")) == expected


async def test_empty_directory(client: Client[Any], case: Path) -> None:
    (case / "empty").mkdir()
    assert ok_text(await view(client, case / "empty")) == "empty/\n"


# --- limits and scope (servers with their own flags) -------------------------------------


@pytest.fixture(scope="module")
async def small_limit(root: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--max-file-size", "1KB", workdir=root) as client:
        yield client


async def test_file_over_max_size(small_limit: Client[Any], case: Path) -> None:
    (case / "big.txt").write_text("x" * 1500)
    result = await view(small_limit, case / "big.txt", [1, 1])
    assert error_text(result) == (
        f"[FILE_TOO_LARGE] {case / 'big.txt'} is 1.5 KB (1500 bytes), "
        "over the 1.0 KB limit set by --max-file-size"
    )


async def test_file_at_max_size_is_fine(small_limit: Client[Any], case: Path) -> None:
    (case / "exact.txt").write_text("y" * 1023 + "\n")
    assert ok_text(await view(small_limit, case / "exact.txt")) == "1\t" + "y" * 1023 + "\n"


async def test_image_over_max_size(small_limit: Client[Any], case: Path) -> None:
    (case / "big.png").write_bytes(IMAGE_SAMPLES["image/png"] + bytes(2000))
    size = len(IMAGE_SAMPLES["image/png"]) + 2000
    result = await view(small_limit, case / "big.png")
    assert error_text(result) == (
        f"[FILE_TOO_LARGE] {case / 'big.png'} is 2.0 KB ({size} bytes), "
        "over the 1.0 KB limit set by --max-file-size"
    )


def bytes_read() -> int:
    """What this process has read so far, by any read call (/proc/self/io rchar)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise LookupError("rchar")


@pytest.mark.parametrize("view_range", [None, [1, 1], [5, 6]], ids=["whole", "line-1", "later"])
async def test_a_file_growing_while_it_is_read_is_read_no_further_than_the_limit(
    small_limit: Client[Any], case: Path, view_range: list[int] | None
) -> None:
    # Within the limit when its size is checked; 8 MB more, with no newline, by the time
    # the server reads it (added while its first read waits).
    path = case / "grows.txt"
    path.write_bytes(b"x" * 1000)
    writer = os.open(path, os.O_WRONLY | os.O_APPEND)
    grown: list[str] = []

    def grow(name: str) -> None:
        if name == path.name and not grown:
            grown.append(name)
            os.write(writer, b"x" * (8 * MB))

    try:
        before = bytes_read()
        with on_open(case, grow, reads=True):
            result = await view(small_limit, path, view_range)
        read = bytes_read() - before
    except Unavailable as exc:
        pytest.skip(f"fanotify permission events unavailable: {exc}")
    finally:
        os.close(writer)
    assert grown
    assert error_text(result) == (
        f"[FILE_TOO_LARGE] {path} grew while it was read: at least 1.0 KB (1025 bytes), "
        "over the 1.0 KB limit set by --max-file-size"
    )
    assert read < MB, read  # the limit and the head sniffed, not the 8 MB


async def test_scope_denials(root: Path) -> None:
    scoped = root / "scoped"
    (scoped / "allowed").mkdir(parents=True)
    (scoped / "other").mkdir()
    (scoped / "allowed" / "ok.txt").write_text("fine\n")
    (scoped / "allowed" / ".env").write_text("SECRET=1\n")
    (scoped / "other" / "x.txt").write_text("no\n")
    allowed = scoped / "allowed"
    async with app_client(
        "--allow-dir", str(allowed), "--deny-dir", "**/.env", workdir=allowed
    ) as client:
        assert error_text(await view(client, scoped / "other" / "x.txt")) == (
            f"[ACCESS_DENIED] {scoped / 'other' / 'x.txt'} is outside the allowed "
            f"directories ({allowed})"
        )
        # ACCESS_DENIED comes before PATH_NOT_FOUND.
        missing = scoped / "other" / "missing.txt"
        assert error_text(await view(client, missing)).startswith(f"[ACCESS_DENIED] {missing} ")
        assert error_text(await view(client, ".env")) == (
            f"[ACCESS_DENIED] {allowed / '.env'} is denied by the pattern **/.env"
        )
        # A symlink inside the allowed dir does not lead outside it.
        (allowed / "escape").symlink_to(scoped / "other" / "x.txt")
        assert error_text(await view(client, "escape")).startswith("[ACCESS_DENIED] ")
        # Denied entries are left out of listings.
        assert (
            ok_text(await view(client, "."))
            == "allowed/\n├── escape -> " + str(scoped / "other" / "x.txt") + "\n└── ok.txt\n"
        )


# --- a listing too long to return whole ----------------------------------------------------


async def test_directory_of_20000_files_is_cut(client: Client[Any], case: Path) -> None:
    names = [f"file_{n:05d}.txt" for n in range(20_000)]
    make_files(case / "many", names, case / "empty")
    (case / "many" / ".git").mkdir()  # hidden: neither shown nor counted
    header, lines = tree("many", dict.fromkeys(names))
    text = ok_text(await view(client, case / "many"))
    assert text == cut_listing(header, lines)
    assert text.endswith(
        f"\n[Truncated: {20_000 - 1578} more entries not shown. View a subdirectory, or use glob.]"
    )


async def test_cut_counts_the_entries_of_subdirectories(client: Client[Any], case: Path) -> None:
    """50 folders of 1,000 files: the cut falls inside the second folder's files, and
    the count includes the rest of its files, the folders after it and their files."""
    folders = {f"folder_{f:02d}": [f"f{n:04d}.py" for n in range(1000)] for f in range(50)}
    for folder, files in folders.items():
        make_files(case / "wide" / folder, files, case / "empty")
    header, lines = tree("wide", dict(folders))
    text = ok_text(await view(client, case / "wide"))
    assert text == cut_listing(header, lines)
    assert len(text) < 30_200


@pytest.mark.parametrize("extra", [0, 1])
async def test_listing_of_exactly_30000_characters_is_whole(
    client: Client[Any], case: Path, extra: int
) -> None:
    # "edge/\n" and 300 lines "├── <name>\n": 299 names of 95 characters and a last
    # one of 89 make 30,000 characters; one character more cuts the last line.
    names = [f"{n:03d}".ljust(95, "x") for n in range(299)] + ["999".ljust(89 + extra, "y")]
    make_files(case / "edge", names, case / "empty")
    header, lines = tree("edge", dict.fromkeys(names))
    assert len(header) + sum(map(len, lines)) == 30_000 + extra
    text = ok_text(await view(client, case / "edge"))
    assert text == cut_listing(header, lines)
    assert text.endswith(
        "\n[Truncated: 1 more entries not shown. View a subdirectory, or use glob.]"
        if extra
        else "└── " + names[-1] + "\n"
    )


async def test_control_characters_in_names_cannot_forge_entries(
    client: Client[Any], case: Path
) -> None:
    """A name's control characters (newline, tab, escape, …) are shown as "?", as
    ls -q does, so a name cannot add lines to the tree; the name stays a shell glob
    that matches the file."""
    (case / "top").mkdir()
    (case / "top" / "evil\n├── fake.txt").write_text("")
    (case / "top" / "b\x1b[31mred\tx").write_text("")
    (case / "top" / "link").symlink_to("tar\nget")
    expected = "top/\n├── b?[31mred?x\n├── evil?├── fake.txt\n└── link -> tar?get\n"
    assert ok_text(await view(client, case / "top")) == expected
