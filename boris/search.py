"""The grep engine: which files to search, in what order, and the page of output.

The tree is walked here (boris.walk: scope, .gitignore, symlinks); each file is
searched by boris.matching, in this process for small searches and by worker
processes (boris.searchpool) once a search turns out large. Results come back in walk
order either way, so the output does not depend on who searched.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass

from boris.matching import OUTPUT_MODES, FileTask, Matcher, Result, search_file
from boris.pathscope import PathScope
from boris.walk import printable, walk

__all__ = ["OUTPUT_MODES", "Query", "compile_include", "grep", "search_files"]

#: File types for grep's ``type`` filter: name → file name suffixes.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "c": (".c", ".h"),
    "cpp": (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".h", ".inl"),
    "css": (".css", ".scss"),
    "go": (".go",),
    "html": (".html", ".htm"),
    "java": (".java",),
    "js": (".js", ".mjs", ".cjs", ".jsx"),
    "json": (".json",),
    "markdown": (".md", ".markdown", ".mdx"),
    "py": (".py", ".pyi"),
    "rust": (".rs",),
    "ts": (".ts", ".tsx", ".mts", ".cts"),
    "yaml": (".yml", ".yaml"),
}

#: Other names accepted for a type.
TYPE_ALIASES = {"python": "py", "typescript": "ts", "md": "markdown"}


def file_type_suffixes(name: str) -> tuple[str, ...] | None:
    """The suffixes of a ``type`` name or alias, None when unknown."""
    return FILE_TYPES.get(TYPE_ALIASES.get(name, name))


def type_names() -> str:
    aliases = ", ".join(f"{alias} ({name})" for alias, name in TYPE_ALIASES.items())
    return f"{', '.join(FILE_TYPES)}; aliases: {aliases}"


#: Files searched in this process before a search hands the rest to worker processes:
#: small searches (and pages filled early) never pay for a round trip.
IN_PROCESS_FILES = 2000


@dataclass(frozen=True)
class Query:
    """A validated grep request."""

    task: FileTask
    matcher: Matcher
    include: Callable[[str], object] | None
    include_has_slash: bool
    suffixes: tuple[str, ...] | None
    head_limit: int
    offset: int

    @property
    def output_mode(self) -> str:
        return self.task.output_mode

    @property
    def wanted(self) -> int | None:
        """How many output lines (entries) the page needs, None for all."""
        return self.offset + self.head_limit if self.head_limit else None


def grep(root: str, label: str | None, query: Query, scope: PathScope) -> str:
    """Search ``root`` (a resolved, in-scope directory or file) and render the page.

    ``label`` is how a single-file root is shown; directory results are shown
    relative to ``root``.
    """
    files = _single_file(root, label, query) if label is not None else _tree(root, query, scope)
    lines = search_files(files, query)
    end = query.offset + query.head_limit if query.head_limit else None
    return "\n".join(lines[query.offset : end])


def search_files(
    files: Iterable[tuple[str, str]], query: Query, *, parallel: bool = True
) -> list[str]:
    """The output lines (or entries) for ``(label, path)`` pairs, at least up to the
    end of the requested page. Files are pulled lazily: content and count stop
    pulling once the page is full; files_with_matches needs them all to sort."""
    results = _results(iter(files), query, parallel)
    wanted = query.wanted
    if query.output_mode == "files_with_matches":
        hits = [(-_mtime(mtime), order, label) for order, (label, mtime) in enumerate(results)]
        hits.sort()  # newest first; equal times keep walk order
        return [printable(label) for _, _, label in hits]
    out: list[str] = []
    with_context = query.task.before > 0 or query.task.after > 0
    try:
        for label, result in results:
            if query.output_mode == "count":
                out.append(f"{printable(label)}:{result}")
            else:
                assert isinstance(result, list)
                if with_context and out:
                    out.append("--")
                out.extend(result)
            if wanted is not None and len(out) >= wanted:
                break
    finally:
        results.close()  # an early stop lets workers finish and go back idle
    return out


def _mtime(result: Result) -> int:
    assert isinstance(result, int)
    return result


def _results(
    files: Iterator[tuple[str, str]], query: Query, parallel: bool
) -> Generator[tuple[str, Result], None, None]:
    """``(label, result)`` for each file with a match, in the order of ``files``."""
    task, matcher = query.task, query.matcher
    for label, path in itertools.islice(files, IN_PROCESS_FILES):
        result = search_file(task, matcher, label, path)
        if result is not None:
            yield label, result
    from boris import searchpool

    pool = searchpool.shared_pool() if parallel else None
    if pool is None:
        yield from searchpool.search_here(task, files)
    else:
        yield from pool.results(task, files)


def _single_file(path: str, label: str, query: Query) -> Iterator[tuple[str, str]]:
    if _wanted_file(query, label.rpartition("/")[2]):
        yield label, path


def _tree(root: str, query: Query, scope: PathScope) -> Iterator[tuple[str, str]]:
    """The files of the walk that pass the include and type filters."""
    suffixes, include = query.suffixes, query.include
    by_path = include is not None and query.include_has_slash
    names: Callable[[str], object] | None = None
    if suffixes is not None and include is not None and not by_path:
        names = lambda name: name.endswith(suffixes) and include(name)  # noqa: E731
    elif suffixes is not None:
        names = lambda name: name.endswith(suffixes)  # noqa: E731
    elif include is not None and not by_path:
        names = include
    # The walk filters by name where it can; a pattern with a "/" needs the path too.
    for rel, is_dir, entry in walk(root, scope, follow_symlinks=True, names=names):
        if not is_dir and (not by_path or _wanted_file(query, rel)):
            yield rel, entry.path


def _wanted_file(query: Query, rel: str) -> bool:
    name = rel.rpartition("/")[2]
    if query.suffixes is not None and not name.endswith(query.suffixes):
        return False
    if query.include is None:
        return True
    return bool((query.include_has_slash and query.include(rel)) or query.include(name))


def compile_include(pattern: str) -> tuple[Callable[[str], object], bool]:
    """A matcher for grep's ``include`` (or glob's pattern) and whether it must see the
    relative path: a pattern without ``/`` (or ``**/`` then no ``/``) can only match
    the name, since ``*`` never crosses a ``/``.

    Matching takes linear time whatever the pattern (boris.globmatch). Raises
    ``ValueError`` (``PatternError``, ``GlobError``) for a pattern it cannot match.
    """
    from boris.globmatch import compile_glob

    if pattern.startswith("./"):
        pattern = pattern[2:]
    name_pattern = pattern
    while name_pattern.startswith("**/"):
        name_pattern = name_pattern[3:]
    if name_pattern and "/" not in name_pattern:
        return compile_glob(name_pattern), False
    return compile_glob(pattern), True
