"""What one file's structure work may take of memory, beyond what its process held
before it: the limit a worker process that parses a file is held to.

Measured on generated files (tests/structure/test_bounded.py, bench/symbols.py): a
file's syntax tree takes about 30 bytes per byte of a dense file, the query's matches
about as much again while they are read, the definitions found from them a little
more; nesting costs nothing more. A dense file of declarations or a minified bundle
(the worst) peaks near 90 bytes per byte, ordinary code far below. Past the cap a file
is not worth a server's memory: the work on it is given up.
"""

from __future__ import annotations

#: Bytes of memory per byte of the file.
MEMORY_PER_BYTE = 128
#: What any file may take, however small (a grammar's first use, the query's state).
MEMORY_FLOOR = 64 << 20
#: What no file may take more of.
MEMORY_CAP = 768 << 20


def memory_budget(size: int) -> int:
    """The bytes of memory the work on a file of ``size`` bytes may take."""
    return min(MEMORY_CAP, max(MEMORY_FLOOR, size * MEMORY_PER_BYTE))
