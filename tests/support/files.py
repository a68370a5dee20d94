"""Files and processes for the file-tool tests: per-test directories, sample images and
files, a tiny tmpfs (a full disk), another owner, a server's memory and capabilities."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import re
import struct
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest


def case_dir(root: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh directory under a module's shared server root, named after the test."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)[:80]
    path = root / name
    path.mkdir()
    return path


def png_bytes() -> bytes:
    """A valid 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


#: Heads of each image format view recognises, padded to look like real files.
IMAGE_SAMPLES = {
    "image/png": png_bytes(),
    "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00" + bytes(range(256)),
    "image/gif": b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + bytes(64) + b";",
    "image/webp": b"RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00" + bytes(24),
    "image/bmp": b"BM" + struct.pack("<IHHII", 70, 0, 0, 54, 40) + bytes(52),
    "image/x-icon": b"\x00\x00\x01\x00\x01\x00\x10\x10\x00\x00" + bytes(40),
}


def child_pid(marker: str) -> int:
    """The pid of this process's child whose command line contains ``marker``."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            raw = Path(f"/proc/{entry}/cmdline").read_bytes()
            cmdline = raw.replace(b"\0", b" ").decode(errors="replace")  # any process's
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == me and marker in cmdline:
            return int(entry)
    raise LookupError(f"no child process with {marker!r} in its command line")


def memory_kib(pid: int, field: str) -> int:
    """A memory figure of a process from /proc (``VmRSS``, ``VmHWM``), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def peak_start(pid: int) -> int:
    """Start measuring how far the peak memory (VmHWM) of ``pid`` rises; its RSS now, in KiB.

    The peak is reset to the current RSS (``/proc/PID/clear_refs`` ← 5, Linux 4.0+), so
    ``memory_kib(pid, "VmHWM")`` minus the returned figure is the rise since this call.
    Where the kernel refuses the reset, the peak of the process's life so far still
    counts, so ``pid`` must be a server started for this one measurement: a fresh
    server's peak is its start-up, which ends at about its current RSS, and a rise
    measured from that RSS can only come out too large, never too small.
    """
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    return memory_kib(pid, "VmRSS")


#: Capability numbers (linux/capability.h) the file tests take away from a root server.
CAP_CHOWN = 0
CAP_DAC_OVERRIDE = 1


def boris_without(*capabilities: int) -> list[str]:
    """The server command, run with ``capabilities`` dropped from the bounding set.

    For root this takes them away for good after exec: a root server without
    CAP_DAC_OVERRIDE obeys file permissions, one without CAP_CHOWN cannot give files
    away. For other users it changes nothing they had.
    """
    drops = "".join(
        f"if ctypes.CDLL(None).prctl(24, {number}, 0, 0, 0) != 0: sys.exit('prctl')\n"
        for number in capabilities
    )
    program = (
        f"import ctypes, os, sys\n{drops}os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    )
    return [sys.executable, "-c", program, "-m", "boris"]


MB = 1024 * 1024


def make_files(directory: Path, names: list[str], source: Path) -> None:
    """Empty files ``names`` in ``directory``: hard links to the file ``source``, which
    are many times faster to make than as many new files."""
    directory.mkdir(parents=True, exist_ok=True)
    source.touch()
    for name in names:
        os.link(source, directory / name)


def original_text() -> str:
    return "".join(f"original line {n}\n" for n in range(2000))  # about 36 KB


_LIBC = ctypes.CDLL(None, use_errno=True)


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    target = os.fsencode(mount_point)
    if _LIBC.mount(b"tmpfs", target, b"tmpfs", 0, b"size=64k") != 0:
        error = ctypes.get_errno()
        if error == errno.EPERM:  # no CAP_SYS_ADMIN: the one reason to do without
            pytest.skip("cannot mount a tmpfs here: mounting needs CAP_SYS_ADMIN")
        raise OSError(error, os.strerror(error), str(mount_point))
    try:
        yield mount_point
    finally:
        if _LIBC.umount2(target, 0) != 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), str(mount_point))


# The inode flags' ioctls (linux/fs.h) and the immutable flag (chattr +i).
_FS_IOC_GETFLAGS = 0x80086601
_FS_IOC_SETFLAGS = 0x40086602
_FS_IMMUTABLE_FL = 0x10


def set_immutable(name: str | Path, on: bool, *, dir_fd: int | None = None) -> None:
    """Set or clear a file's immutable flag: while set, no process (root's neither) may
    rename, remove or write the file."""
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        (flags,) = struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack("i", 0)))
        flags = flags | _FS_IMMUTABLE_FL if on else flags & ~_FS_IMMUTABLE_FL
        fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("i", flags))
    finally:
        os.close(fd)


@contextlib.contextmanager
def immutable_files(directory: Path) -> Iterator[None]:
    """Files under ``directory`` may be made immutable in the block; none is when it
    ends. Skips the test where the file system or the test's privileges allow no
    immutable file (CAP_LINUX_IMMUTABLE, a file system with inode flags)."""
    probe = directory / ".immutable-probe"
    probe.touch()
    try:
        set_immutable(probe, True)
        set_immutable(probe, False)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTTY, errno.EOPNOTSUPP, errno.EINVAL):
            raise
        pytest.skip(f"no immutable files here: {exc.strerror}")
    finally:
        probe.unlink()
    try:
        yield
    finally:
        for path in directory.rglob("*"):
            if not path.is_symlink():
                set_immutable(path, False)


NOBODY = 65534


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give files to another user")
