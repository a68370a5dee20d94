"""The messages between the server and its worker processes (boris.search.pool): frames of
JSON, data only.

A worker is a process of the server's own user, and such a process is within reach of
the commands the server runs for a while after it starts (until it has made itself
non-dumpable, see boris.search.worker). So nothing the server reads from a worker is ever
in a form that can run code in the server (no pickle): a frame is a length and a JSON
document, and the server checks every reply's shape before it uses it
(:class:`Malformed` when it is not what was asked for).

A frame: a 4-byte little-endian length, then that many bytes of JSON in UTF-8 (lone
surrogates, which file names and lines of text may hold, pass as themselves).

Requests (server to worker): ``{"task": [class, fields], "chunk": [[label, path], …],
"skip": n}``; a task is named by its module and class (:func:`task_name`), which the
worker imports on first use, and travels as its fields (``wire()`` and ``from_wire()``).

Replies (worker to server), one JSON array each:
- ``["ready"]``: the worker has started and is non-dumpable, before any request;
- from a task that runs a native parser (``ISOLATED``), as it goes: ``["at", i]``, the
  files before ``i`` are done (sent as a chunk starts, then every so often);
  ``["file", i, payload]``, the result of file ``i``; ``["skip", i, reason]``, the worker
  gave up on file ``i`` (``MEMORY``, ``DEPTH``);
- ``["chunk", [[i, payload], …]]``: the end of a chunk, with the results of a task that
  answers by chunk (grep's), empty after ``file`` frames.

Workers load this module: it imports nothing of the server.
"""

from __future__ import annotations

import json
import struct
from typing import Any

HEADER = struct.Struct("<I")

#: The largest frame either side accepts: a reply is at most a chunk's output (grep's
#: lines are capped per file, structure's per file too), far below this.
MAX_FRAME = 256 << 20

#: Why a worker gave up on a file.
MEMORY = "memory"
DEPTH = "depth"
SKIP_REASONS = (MEMORY, DEPTH)


class Malformed(Exception):
    """A frame that is not what the protocol allows here."""


def encode(message: Any) -> bytes:
    """A message as one frame."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )
    if len(body) > MAX_FRAME:
        raise Malformed(f"a message of {len(body)} bytes")
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> Any:
    """The message of a frame's body; :class:`Malformed` if it is not JSON."""
    try:
        return json.loads(body.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Malformed("not a JSON document") from exc


def body_size(header: bytes) -> int:
    """The size a frame's header announces; :class:`Malformed` past MAX_FRAME."""
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise Malformed(f"a frame of {size} bytes")
    return int(size)


def task_name(task: object) -> str:
    """What names a task's class in a request: ``module:Class``."""
    cls = type(task)
    return f"{cls.__module__}:{cls.__qualname__}"


# --- checks of what a worker sent ---------------------------------------------------------


def index_of(value: Any, size: int) -> int:
    """A file's index in a chunk of ``size`` files."""
    if type(value) is not int or not 0 <= value < size:
        raise Malformed("a file index outside the chunk")
    return value


def string_list(value: Any) -> list[str]:
    if type(value) is not list or not all(type(item) is str for item in value):
        raise Malformed("not a list of strings")
    return value


def integer(value: Any) -> int:
    if type(value) is not int:
        raise Malformed("not an integer")
    return value
