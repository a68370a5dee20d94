"""A failing apply_patch lets go of the files it read at once (README "apply_patch"): an
agent retrying a patch that does not apply to a large file does not pile up copies of it
in the server, each kept by the frames of an error until the garbage collector runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import error_text, ok_text, stdio_client
from tests.support.files import child_pid, memory_kib, peak_start

pytestmark = pytest.mark.anyio

MB = 1024 * 1024
LINES = 200_000


def line(n: int) -> str:
    return f"{n:08d} ".ljust(49, "x")


async def test_failing_patches_on_a_10_mb_file(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(line(n) + "\n" for n in range(1, LINES + 1)))
    patch = "\n".join(
        [
            "*** Begin Patch",
            "*** Update File: big.txt",
            "@@",
            f" {line(1000)}",
            f"-{line(1001)}!",  # not in the file
            "+changed",
            "*** End Patch",
        ]
    )
    async with stdio_client(workdir=tmp_path) as client:
        ok_text(await client.call_tool("view", {"path": "big.txt", "view_range": [1, 1]}))

        async def fail() -> None:
            result = await client.call_tool("apply_patch", {"patch": patch}, raise_on_error=False)
            assert error_text(result).startswith("[STR_REPLACE_NOT_FOUND]")

        await fail()
        pid = child_pid(str(tmp_path))
        before = peak_start(pid)
        for _ in range(20):
            await fail()
        peak = memory_kib(pid, "VmHWM")
    assert (peak - before) * 1024 < 40 * MB, f"grew by {(peak - before) // 1024} MB"
