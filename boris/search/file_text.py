"""A file's text as grep searches it, read in as few system calls as it takes.

Files are read whole. A NUL byte anywhere makes a file binary, and it is skipped. As
in ripgrep, a UTF-8 byte order mark is not part of the text, and a file starting with
a UTF-16 one is searched as the text it encodes (turned into UTF-8 first). FIFOs and
devices never block a read, and never give a result.

Grep's worker processes load this module (boris.search.pool): it imports nothing of
the server.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from boris.files.sniff import UTF8_BOM, UTF16_BE_BOM, UTF16_LE_BOM

#: The first read of every file: all of most source files, and no more of a longer
#: one before a NUL in it shows it is binary: a good part of a tree can be binaries
#: (compiled files, libraries) that are never searched.
_FIRST_READ = 1 << 12

#: Opening a file to read, whatever it turns out to be: a FIFO or a device never
#: blocks the open, and its type is then checked on the descriptor.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


def read_text_file(
    path: str, max_size: int, wanted: Callable[[bytes], bool] | None = None
) -> bytes | None:
    """The text of a regular file of at most ``max_size`` bytes, as the bytes grep
    searches (see :func:`as_text`); None for a file grep skips (binary, too large,
    empty, not a regular file, unreadable), or whose text ``wanted`` turns down. As in
    grep, ``wanted`` looks first: most files are turned down, and spared the look for a
    NUL and at the descriptor's type."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = read_text(fd, max_size)
        if data is None or (wanted is not None and not wanted(data)):
            return None
        if is_binary(data) or not _is_regular(fd):
            return None
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def is_binary(text: bytes) -> bool:
    """Whether a file's text (see :func:`as_text`) holds a NUL: it is binary, as in
    ripgrep, wherever the NUL is."""
    return text.find(b"\0") >= 0


def read_text(fd: int, max_size: int) -> bytes | None:
    """The text of the open file ``fd`` as :func:`as_text` gives it; None for a file
    grep skips, though a binary file may still be returned: the caller tests
    :func:`is_binary` (only once the text matches, which most do not).

    Most files take one read and no other system call: a read shorter than asked is
    the end of a regular file, and asking one byte more than ``max_size`` shows a
    file that is too large. A longer file is looked at on its descriptor (its type
    and size) before the rest of it is read, unless its first part shows a NUL. The
    type of a short file is checked by the caller once it has a result
    (:func:`_is_regular`): a FIFO or a device that took a file's place gives at most
    one non-blocking read and never a result.
    """
    data = os.read(fd, min(_FIRST_READ, max_size + 1))
    if not data or len(data) > max_size:
        return None
    bom = data[0] in _BOM_FIRST_BYTES
    # A NUL in the first part is binary (UTF-16 text is full of them): no more
    # of it is read. One further on is found once the text matches.
    if data.find(b"\0") >= 0 and not (bom and data.startswith((UTF16_LE_BOM, UTF16_BE_BOM))):
        return None
    if len(data) == _FIRST_READ:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_size:
            return None
        data = _read_rest(fd, info.st_size)
    if bom:
        data = as_text(data)
    return data or None


def _is_regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


#: The first bytes of the byte order marks: only files starting with one of them
#: need a closer look.
_BOM_FIRST_BYTES = frozenset({UTF8_BOM[0], UTF16_LE_BOM[0], UTF16_BE_BOM[0]})


def as_text(data: bytes) -> bytes:
    """A file's bytes as grep searches them. As in ripgrep, a UTF-8 byte order mark is
    dropped, and a file that starts with a UTF-16 one is decoded (invalid sequences
    become U+FFFD) and searched as UTF-8."""
    if data.startswith(UTF8_BOM):
        return data[len(UTF8_BOM) :]
    if data.startswith(UTF16_LE_BOM):
        return data[len(UTF16_LE_BOM) :].decode("utf-16-le", "replace").encode()
    if data.startswith(UTF16_BE_BOM):
        return data[len(UTF16_BE_BOM) :].decode("utf-16-be", "replace").encode()
    return data


def _read_rest(fd: int, size: int) -> bytes:
    """The ``size`` bytes of a regular file whose first bytes were read already.

    The file is read again from its start into one buffer: joining its first bytes
    and the rest would hold the file twice at once (and copy it once more), for a
    few kilobytes read twice.
    """
    data = os.pread(fd, size, 0)
    if len(data) >= size or not data:
        return data
    parts = [data]  # a short read: read on until the size or the end
    have = len(data)
    while have < size:
        chunk = os.pread(fd, size - have, have)
        if not chunk:
            break
        parts.append(chunk)
        have += len(chunk)
    return b"".join(parts)
