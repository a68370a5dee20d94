"""A patch in progress when the server is told to stop (README "apply_patch", "Writing
files"): on SIGTERM or SIGINT, over STDIO and over HTTP, it is undone (or finished)
before the server exits, within its grace period; after SIGKILL every byte is under a
name the README documents.

The server is slowed down deterministically: a fanotify permission event holds it in
each open of a file in the patched directory (tests/support/interpose.py), as a slow
disk would, and the signal is sent from inside one of those opens, so it always comes
in the middle of the patch.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from tests.support import http_client, http_server, ok_text, stdio_client
from tests.support.files import child_pid
from tests.support.interpose import Unavailable, on_open
from tests.support.pids import wait_gone

pytestmark = pytest.mark.anyio

FILES = 30
#: How long each open of a new copy takes: a slow disk.
SLOW_OPEN = 0.5
#: The STDIO server's grace after a signal (boris.transport.stdio._SIGNAL_GRACE).
GRACE = 7.0
#: The names a file may be under after a kill (README "Writing files").
HIDDEN = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{8}\.(?:tmp|bak|del)$")


def old(n: int) -> bytes:
    return f"old {n}\n".encode()


def new(n: int) -> bytes:
    return f"new {n}\n".encode()


def make_files(root: Path) -> None:
    for n in range(FILES):
        (root / f"f{n:02d}.txt").write_bytes(old(n))
    (root / "gone.txt").write_bytes(b"deleted\n")
    (root / "moved.txt").write_bytes(b"moved\n")


PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Delete File: gone.txt",
        "*** Update File: moved.txt",
        "*** Move to: sub/moved.txt",
        "-moved",
        "+MOVED",
        *(
            line
            for n in range(FILES)
            for line in (f"*** Update File: f{n:02d}.txt", f"-old {n}", f"+new {n}")
        ),
        "*** End Patch",
    ]
)


def state(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


ALL_OLD = {
    **{f"f{n:02d}.txt": old(n) for n in range(FILES)},
    "gone.txt": b"deleted\n",
    "moved.txt": b"moved\n",
}
ALL_NEW = {**{f"f{n:02d}.txt": new(n) for n in range(FILES)}, "sub/moved.txt": b"MOVED\n"}


class Server:
    """A spawned server under test: a client of it and its pid."""

    def __init__(self, client: Client[Any], pid: int) -> None:
        self.client = client
        self.pid = pid


@contextlib.asynccontextmanager
async def serving(transport: str, root: Path) -> AsyncIterator[Server]:
    if transport == "stdio":
        async with stdio_client(workdir=root) as client:
            yield Server(client, child_pid(str(root)))
    else:
        # The session cannot be ended once the server is gone.
        with http_server(workdir=root) as server, contextlib.suppress(Exception):
            async with http_client(server.url) as client:
                yield Server(client, server.proc.pid)


class Signaller:
    """Reacts to the server's opens in the patched directory: sends ``signum`` at the
    ``at``-th open that ``counts``, and notes when."""

    def __init__(self, pid: int, signum: int, at: int, counts: Callable[[str], bool]) -> None:
        self._pid = pid
        self._signum = signum
        self._at = at
        self._counts = counts
        self._seen = 0
        self.sent: float | None = None

    def __call__(self, name: str) -> None:
        if not self._counts(name):
            return
        self._seen += 1
        if self._seen == self._at:
            self.sent = time.monotonic()
            os.kill(self._pid, self._signum)


def slow_copies(pid: int, signum: int, at: int) -> Signaller:
    """Each open of a new copy held for SLOW_OPEN seconds; ``signum`` sent at the
    ``at``-th."""

    def counts(name: str) -> bool:
        if not name.endswith(".tmp"):
            return False
        time.sleep(SLOW_OPEN)  # a slow disk, not a wait for anything
        return True

    return Signaller(pid, signum, at, counts)


async def patch_until_gone(
    server: Server, root: Path, signaller: Signaller, *, itself: bool = False
) -> float:
    """Send the patch, the signaller watching every open in ``root``; wait for the
    server to exit. How long it took to exit after the signal."""
    try:
        with on_open(root, signaller, itself=itself):
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    with contextlib.suppress(Exception):  # the server goes: no answer
                        await server.client.call_tool("apply_patch", {"patch": PATCH})

                group.start_soon(call)
                assert not await wait_gone([server.pid], within=60), "the server did not exit"
                group.cancel_scope.cancel()
    except Unavailable as exc:
        pytest.skip(str(exc))
    assert signaller.sent is not None, "the signal was never sent"
    return time.monotonic() - signaller.sent


async def viewed_all(server: Server, root: Path) -> None:
    for name in ALL_OLD:
        ok_text(await server.client.call_tool("view", {"path": name}))


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_mid_patch_leaves_all_or_nothing(
    tmp_path: Path, transport: str, signum: int
) -> None:
    make_files(tmp_path)
    async with serving(transport, tmp_path) as server:
        await viewed_all(server, tmp_path)
        took = await patch_until_gone(server, tmp_path, slow_copies(server.pid, signum, at=3))
    after = state(tmp_path)
    assert after in (ALL_OLD, ALL_NEW), sorted(after)
    assert took < GRACE, f"the server took {took:.1f} s to exit"


def where_things_are(root: Path) -> dict[str, list[bytes]]:
    """For each file name, the contents under it and under its hidden names."""
    found: dict[str, list[bytes]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(root)
        hidden = HIDDEN.match(path.name)
        name = str(relative.parent / hidden["name"]) if hidden else str(relative)
        found.setdefault(name, []).append(path.read_bytes())
    return found


@pytest.mark.parametrize("stage", ["made ready", "taking effect"])
async def test_after_sigkill_every_byte_is_under_a_documented_name(
    tmp_path: Path, stage: str
) -> None:
    make_files(tmp_path)
    async with stdio_client(workdir=tmp_path) as client:
        server = Server(client, child_pid(str(tmp_path)))
        await viewed_all(server, tmp_path)
        if stage == "made ready":
            signaller = slow_copies(server.pid, signal.SIGKILL, at=3)
            await patch_until_gone(server, tmp_path, signaller)
        else:
            # Each change that takes effect syncs the directory, which opens it.
            signaller = Signaller(server.pid, signal.SIGKILL, 5, lambda name: name == tmp_path.name)
            await patch_until_gone(server, tmp_path, signaller, itself=True)
    found = where_things_are(tmp_path)
    names = set(found)
    assert names <= set(ALL_OLD) | set(ALL_NEW), sorted(names)
    for n in range(FILES):
        name = f"f{n:02d}.txt"
        assert old(n) in found[name] or new(n) in found[name], (name, found[name])
    assert b"deleted\n" in found.get("gone.txt", [])
    assert b"moved\n" in found.get("moved.txt", []) or b"MOVED\n" in found.get("sub/moved.txt", [])
