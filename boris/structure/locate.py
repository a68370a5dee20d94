"""view's ``symbol``: the one definition a name names, in a file or below a directory,
found as the symbols tool finds definitions by name.

None → ``SYMBOL_NOT_FOUND`` with the nearest names (difflib's closeness) among the
names the file, or the first ``NEAREST_FILES`` files of the tree, define; several →
``INVALID_INPUT`` listing each as ``path:line kind qualified name``.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.access import FileAccess
from boris.search.pool import Skipped
from boris.search.selection import FileFilter, search_root, tree_files
from boris.stop import Stop
from boris.structure.symbols import name_parts, run_files, skipped_error
from boris.structure.task import NAMES, PLACES, NameQuery, StructureTask, parse_place

#: Definitions listed at most when a name names several.
MAX_LISTED = 30
#: Files whose names are looked through for the nearest names.
NEAREST_FILES = 5000
#: How many times longer than the symbol a name close to it may be: difflib's
#: closeness, twice the characters in common over both lengths, is below its cutoff
#: (0.6) for a name more than 2/0.6 - 1 times as long.
CLOSE_LENGTH = 2 / 0.6 - 1 + 0.01


@dataclass(frozen=True)
class Located:
    #: The file, as found (view resolves it).
    path: str
    #: The lines of the definition; in a notebook, the cell that holds it.
    start: int
    end: int
    cell: int | None


def locate(access: FileAccess, path: str, symbol: str, stop: Stop | None = None) -> Located:
    if not symbol.strip():
        raise BorisError(Code.INVALID_INPUT, "symbol: must not be empty")
    parts = name_parts(symbol)
    root, label = search_root(access, path)
    files = (
        [(label, root)] if label is not None else tree_files(root, FileFilter(), access.scope, stop)
    )
    task = StructureTask(PLACES, access.max_size, NameQuery(parts=parts), parts[-1])
    found = []
    for file_label, file_path, lines in run_files(task, iter(files), stop):
        if isinstance(lines, Skipped):
            if label is not None:
                raise skipped_error(label, lines)
            continue  # a tree's file the parser could not finish: as one without the name
        found += [(file_label, file_path, parse_place(line)) for line in lines]
    if len(found) == 1:
        _, file_path, where = found[0]
        return Located(file_path, where.start, where.end, where.cell)
    if found:
        listed = [
            f"{file_label}:{_line(where.cell, where.start)} {where.kind} {where.qualified}"
            for file_label, _, where in found[:MAX_LISTED]
        ]
        if len(found) > MAX_LISTED:
            listed.append(f"... and {len(found) - MAX_LISTED} more")
        raise BorisError(
            Code.INVALID_INPUT,
            f'symbol "{symbol}" names {len(found)} definitions; give a qualified name '
            "or the path of the file that holds the one to view:\n" + "\n".join(listed),
        )
    shown = root if label is None else label
    nearest = _nearest(access, symbol, root, label, stop)
    raise BorisError(Code.SYMBOL_NOT_FOUND, f'no definition of "{symbol}" in {shown}{nearest}')


def _nearest(
    access: FileAccess, symbol: str, root: str, label: str | None, stop: Stop | None
) -> str:
    files = (
        [(label, root)]
        if label is not None
        else itertools.islice(tree_files(root, FileFilter(), access.scope, stop), NEAREST_FILES)
    )
    # A qualified symbol is compared with qualified names, a bare one with bare names.
    qualified = len(name_parts(symbol)) > 1
    wanted = ".".join(name_parts(symbol))
    # A name too long to be close is not made (deep nesting makes long ones): no name
    # longer than CLOSE_LENGTH times the symbol's is close enough to be shown.
    longest = max(int(len(wanted) * CLOSE_LENGTH), 1) if qualified else None
    task = StructureTask(NAMES, access.max_size, longest=longest)
    names: set[str] = set()
    for _, _, lines in run_files(task, iter(files), stop):
        if isinstance(lines, Skipped):
            continue
        names.update(lines)
    if not names:
        return "; it defines nothing symbols can see"
    names.discard("")  # the names too long to be close
    close = difflib.get_close_matches(wanted, sorted(names), n=5)
    if not close:
        return "; no name there is close to it"
    return "; nearest names: " + ", ".join(close)


def _line(cell: int | None, line: int) -> str:
    return f"cell {cell}:{line}" if cell is not None else str(line)
