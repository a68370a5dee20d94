"""The view tool where the server process is the point: other clients and transports, and
the server's own memory.

Everything else about view is tested in process: tests/tools/test_view.py.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import ImageContent

from tests.support import http_client, http_server, ok_text, sdk_stdio_client, stdio_client
from tests.support.calls import view
from tests.support.files import IMAGE_SAMPLES, MB, child_pid, make_files, memory_kib, peak_start
from tests.support.models import cut_listing, tree
from tests.support.pids import cpu_seconds

pytestmark = pytest.mark.anyio


async def test_image_through_the_official_sdk_client(root: Path, case: Path) -> None:
    (case / "pic.png").write_bytes(IMAGE_SAMPLES["image/png"])
    async with sdk_stdio_client(workdir=root) as sdk:
        result = await sdk.call_tool("view", {"path": str(case / "pic.png")})
    assert result.is_error is False
    [block] = result.content
    assert isinstance(block, ImageContent)
    assert block.mime_type == "image/png"
    assert base64.b64decode(block.data) == IMAGE_SAMPLES["image/png"]


async def test_directory_through_relative_dot(root: Path) -> None:
    # "." is the session cwd; over HTTP, through both kinds of client.
    sub = root / "dot_case"
    sub.mkdir()
    (sub / "only.txt").write_text("1\n")
    with http_server(workdir=sub) as server:
        async with http_client(server.url) as client:
            assert ok_text(await view(client, ".")) == "dot_case/\n└── only.txt\n"


async def test_a_range_over_ten_million_lines_is_one_bounded_answer(root: Path) -> None:
    """view_range [1, -1] on a file of ten million (empty) lines answers with 2000 of
    them and a note, at once, reading no further than the line after them (it used to
    answer with 100 MB of text after more than a minute, the server a gigabyte larger)."""
    big = root / "lines_case"
    big.mkdir()
    (big / "lines.txt").write_bytes(b"\n" * 10_000_000)
    (big / "small.txt").write_bytes(b"x\n")
    async with stdio_client(workdir=big) as client:
        pid = child_pid(str(big))
        await view(client, "small.txt", [1, 1])  # warm up the call path
        before = peak_start(pid)
        with anyio.fail_after(30):
            text = ok_text(await view(client, "lines.txt", [1, -1]))
        peak = memory_kib(pid, "VmHWM")
    assert text == "".join(f"{n:>4}\t\n" for n in range(1, 2001)) + (
        "\n[Truncated: showing lines 1-2000 of the requested lines 1 to the end of the file. "
        "Use a view_range starting at 2001 to read on.]"
    )
    assert (peak - before) * 1024 < 4 * MB, (before, peak)


async def test_a_notebook_cell_of_millions_of_lines_is_one_bounded_answer(root: Path) -> None:
    """A notebook whose one cell has 4.9 million (empty) source lines: the answer is its
    first 2000 lines and a note, not 44 MB of numbered lines."""
    big = root / "cell_case"
    big.mkdir()
    cell: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "id": "big",
        "metadata": {},
        "outputs": [],
        "source": "\n" * 4_900_000,
    }
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (big / "big.ipynb").write_text(json.dumps(notebook))
    async with stdio_client(workdir=big) as client:
        with anyio.fail_after(30):
            text = ok_text(await view(client, "big.ipynb"))
    lines = text.splitlines()
    assert lines[:3] == [
        "[notebook] 1 cell, nbformat 4.5",
        "[cell 1] code id=big execution_count=none",
        "   1\t",
    ]
    assert lines[-1] == "[Truncated: cell 1 goes on from line 2000 of its 4900000 source lines.]"
    assert len(text) < 20_000


async def test_range_read_does_not_load_the_file(root: Path) -> None:
    # A 10 MB file must not be loaded to show lines 1-10: the server's peak memory
    # grows by far less than the file's size.
    big = root / "memory_case"
    big.mkdir()
    line = b"m" * 99 + b"\n"
    (big / "ten.txt").write_bytes(line * (10 * MB // 100))
    (big / "small.txt").write_bytes(line)
    async with stdio_client(workdir=big) as client:
        pid = child_pid(str(big))
        await view(client, "small.txt", [1, 1])  # warm up the call path
        before = peak_start(pid)
        text = ok_text(await view(client, "ten.txt", [1, 10]))
        peak = memory_kib(pid, "VmHWM")
    assert text == "".join(f"{n:>2}\t{'m' * 99}\n" for n in range(1, 11))
    assert (peak - before) * 1024 < 2 * MB, (before, peak)


@pytest.mark.parametrize("line", [b"a" * 100 * MB, "é".encode() * 50 * MB], ids=["ascii", "utf-8"])
async def test_one_line_of_100_mb_is_shown_from_a_bounded_read(root: Path, line: bytes) -> None:
    """view_range [1, 1] of a file that is one line of 100 MB shows 2,000 characters of
    it and its length: the server's peak memory rises by far less than the line (it
    rose by 205 MB, keeping the whole line twice), however many bytes a character takes."""
    big = root / f"one_line_case_{len(line.decode()[0].encode())}"
    big.mkdir()
    (big / "line.txt").write_bytes(line + b"\r\n")
    (big / "small.txt").write_bytes(b"x\n")
    async with stdio_client("--max-file-size", "200MB", workdir=big) as client:
        pid = child_pid(str(big))
        await view(client, "small.txt", [1, 1])  # warm up the call path
        before = peak_start(pid)
        with anyio.fail_after(60):
            text = ok_text(await view(client, "line.txt", [1, 1]))
        peak = memory_kib(pid, "VmHWM")
    shown = line.decode()
    assert text == f"1\t{shown[:2000]}... [truncated, {len(shown)} chars total]\n"
    assert (peak - before) * 1024 < 32 * MB, (before, peak)


async def test_listing_a_huge_directory_is_bounded(root: Path) -> None:
    """Listing 20,000 entries with long names (4 MB of tree) builds only what it shows:
    the server's peak memory grows by far less than the full listing would take, and
    the answer comes promptly (the bound only catches a hang)."""
    work = root / "huge_listing"
    names = [f"{n:05d}_" + "n" * 200 for n in range(20_000)]
    make_files(work / "big", names, work / "empty")
    header, lines = tree("big", dict.fromkeys(names))
    full = len(header) + sum(map(len, lines))
    async with stdio_client(workdir=work) as client:
        pid = child_pid(str(work))
        await view(client, ".")  # warm up the listing path
        before = peak_start(pid)
        with anyio.fail_after(10):
            text = ok_text(await view(client, "big"))
        peak = memory_kib(pid, "VmHWM")
    assert text == cut_listing(header, lines)
    assert (peak - before) * 1024 < full // 2, (before, peak, full)


def settle(path: Path) -> None:
    """Set the modification time of ``path`` ten seconds back, so that a notebook's verdict
    is kept (README "Notebooks": not for a file modified in the last two seconds)."""
    past = path.stat().st_mtime_ns - 10**10
    os.utime(path, ns=(past, past))


async def test_a_large_notebook_is_checked_once_while_unchanged(root: Path) -> None:
    """nbformat's check of a notebook of 40,000 cells takes most of a view's work; it is
    made once per unchanged file, so later views cost a fraction of the first (in the
    server's CPU time, which a busy machine stretches less than the clock). A change
    to the file is checked again."""
    case = root / "checked_case"
    case.mkdir()
    cells = [
        {"cell_type": "markdown", "id": f"{n:x}", "metadata": {}, "source": "x"}
        for n in range(40_000)
    ]
    content = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = case / "big.ipynb"
    path.write_text(json.dumps(content))
    (case / "small.txt").write_text("x\n")
    async with stdio_client(workdir=case) as client:
        pid = child_pid(str(case))
        await view(client, "small.txt")  # warm up the call path
        settle(path)
        used = []
        for _ in range(3):
            before = cpu_seconds(pid)
            text = ok_text(await view(client, "big.ipynb"))
            used.append(cpu_seconds(pid) - before)
            assert text.startswith("[notebook] 40000 cells, nbformat 4.5\n[cell 1] markdown id=0")
        assert max(used[1:]) < used[0] / 3, used
        # Changed, and no longer valid: checked again.
        cells[0]["metadata"] = {"collapsed": "yes"}
        cells[0]["cell_type"] = "code"
        path.write_text(json.dumps(content))
        settle(path)
        text = ok_text(await view(client, "big.ipynb"))
    assert text.startswith("[Shown as text, not as notebook cells: not a valid nbformat 4")
