"""Building small directory trees for the search tests (grep, glob, the walk)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from boris.files.scope import PathScope
from boris.search import file_search
from boris.search import grep as engine
from boris.search.walk import walk

#: A fixed point in time the tests count mtimes from (2024-01-01T00:00:00Z).
EPOCH = 1_704_067_200


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Create ``root`` with ``files`` (relative path → content) below it.

    Every file and directory gets the same mtime (``EPOCH``) so that newest-first
    ordering falls back to walk order unless a test sets times itself with
    :func:`set_mtimes`. A path ending in ``/`` makes an empty directory.
    """
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        target = root / rel
        if rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    for directory, _, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(directory, name), (EPOCH, EPOCH), follow_symlinks=False)
        os.utime(directory, (EPOCH, EPOCH))
    return root


def set_mtimes(root: Path, order: list[str]) -> None:
    """Give the files in ``order`` increasing mtimes: the last one is the newest."""
    for index, rel in enumerate(order):
        moment = EPOCH + 60 * (index + 1)
        os.utime(root / rel, (moment, moment))


def search_query(
    pattern: str, mode: str, *, context: int = 0, head_limit: int = 0, budget: int | None = None
) -> engine.Query:
    """A grep query with no filters, for driving the search engine directly."""
    task = file_search.FileTask(
        pattern,
        case_insensitive=False,
        multiline=False,
        output_mode=mode,
        max_size=1 << 20,
        before=context,
        after=context,
        budget=budget,
    )
    return engine.Query(
        task=task,
        matcher=task.matcher(),
        include=None,
        include_has_slash=False,
        file_type=None,
        head_limit=head_limit,
        offset=0,
    )


#: More files than a search handles in-process, so that workers take part.
MANY = engine.IN_PROCESS_FILES + 700


def write_big_tree(root: Path) -> Path:
    """MANY files in 13 directories, every 7th with two hits, every 11th with a far one."""
    files: dict[str, str | bytes] = {}
    for n in range(MANY):
        body = f"file {n}\n"
        if n % 7 == 0:
            body += "hit one\ncontext\nhit two\n"
        if n % 11 == 0:
            body += "\n" * 5 + "hit far\n"
        files[f"d{n % 13:02d}/f{n:05d}.txt"] = body
    files["bin/blob.dat"] = b"hit\x00"
    write_tree(root, files)
    set_mtimes(root, [f"d{n % 13:02d}/f{n:05d}.txt" for n in range(0, MANY, 97)])
    return root


def expected_counts() -> list[str]:
    """The count output for "hit" in ``big_tree``, from how the tree was made: files in
    the order of their paths, each with its number of matching lines."""
    lines = []
    for n in sorted(range(MANY), key=lambda n: (n % 13, n)):
        hits = 2 * (n % 7 == 0) + (n % 11 == 0)
        if hits:
            lines.append(f"d{n % 13:02d}/f{n:05d}.txt:{hits}")
    return lines


#: A scope that allows everything.
OPEN = PathScope([], [])


def walk_entries(root: Path, scope: PathScope = OPEN, follow: bool = True) -> list[str]:
    """The walk's display paths, directories marked with a trailing ``/``."""
    return [
        rel + "/" if is_dir else rel
        for rel, is_dir, _ in walk(str(root), scope, follow_symlinks=follow)
    ]
