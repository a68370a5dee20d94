"""The symbols call: its arguments checked, which files it looks at, who parses them, in
what order, and the page of output.

Files are selected as grep selects them (boris.search.selection: scope, deny rules,
ignore files, ``include``, ``type``), and only those of a known language are looked
at. Each file's work (boris.structure.task) is done in this process for the first
files and by grep's worker processes (boris.search.pool) beyond, results read back in
order. Every mode pages as grep does (``head_limit``, ``offset``, the 30,000-character
cap with a line saying where to go on):
- a file's outline and a search by name or for references page over lines, in walk
  order, and stop once the page is full;
- a directory's map pages over files, newest first (as grep lists files): their
  modification times are known from the walk, so a file before the offset or after
  the page is never parsed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.access import FileAccess
from boris.search.pool import CRASH, DEPTH, MEMORY, TIME, Skipped
from boris.search.selection import (
    FileFilter,
    file_filter,
    search_root,
    single_file,
    tree_entries,
)
from boris.search.walk import newest_first
from boris.stop import Stop, check
from boris.structure import languages
from boris.structure.languages import KINDS, Language
from boris.structure.notebook_cells import NotebookTooDeep
from boris.structure.source import Part, Source, language_of, source_of
from boris.structure.task import (
    DEFINITIONS,
    FILE_SECONDS,
    MAP,
    OUTLINE,
    REFERENCES,
    NameQuery,
    StructureTask,
)
from boris.text import LIMIT, lines_within, paged


@dataclass(frozen=True)
class Request:
    """A symbols call's arguments."""

    path: str | None = None
    name: str | None = None
    kind: str | None = None
    references: bool = False
    regex: bool = False
    include: str | None = None
    file_type: str | None = None
    head_limit: int = 0
    offset: int = 0


def run(access: FileAccess, request: Request, stop: Stop | None = None) -> str:
    """Check a symbols call's arguments (input first, then the path, as every file
    tool) and run it. Raises :class:`~boris.stop.Stopped` soon after ``stop`` is set."""
    query, task_mode = _query(request)
    files = file_filter(request.include, "include", request.file_type)
    root, label = search_root(access, request.path)
    if label is not None:
        return _one_file(access, root, label, files, request, query, task_mode, stop)
    mode = MAP if task_mode == OUTLINE else task_mode
    # No file gives more than the page can take (a map's files are paged whole).
    offset, head_limit = request.offset, request.head_limit
    most, uncounted = (0, 0) if mode == MAP else (offset + head_limit if head_limit else 0, offset)
    task = StructureTask(
        mode,
        access.max_size,
        query,
        _prefilter(query, mode),
        most=most,
        uncounted=uncounted,
        capped=True,
    )
    entries = tree_entries(root, files, access.scope, stop)
    if mode == MAP:
        return _map(task, entries, request, stop)
    candidates = ((label, entry.path) for label, entry in entries if _may_read(entry.name))
    skipped: list[str] = []
    lines = _lines(task, candidates, request, stop, skipped)
    if lines is None:
        lines = "No references found" if mode == REFERENCES else "No definitions found"
    return lines + skipped_note(skipped) if skipped else lines


def _query(request: Request) -> tuple[NameQuery, str]:
    kind = request.kind
    if kind is not None and kind not in KINDS:
        raise BorisError(
            Code.INVALID_INPUT, f'unknown kind "{kind}"; use one of: {", ".join(KINDS)}'
        )
    name = request.name
    if name is None:
        if request.references:
            raise BorisError(Code.INVALID_INPUT, "references: give the name to look for in name")
        return NameQuery(kind=kind), OUTLINE
    if not name.strip():
        raise BorisError(Code.INVALID_INPUT, "name: must not be empty")
    if request.regex:
        if request.references:
            raise BorisError(
                Code.INVALID_INPUT, "references: takes a name, not a pattern (regex: false)"
            )
        check_pattern(name)
        return NameQuery(pattern=name, kind=kind), DEFINITIONS
    parts = name_parts(name)
    return NameQuery(parts=parts, kind=kind), REFERENCES if request.references else DEFINITIONS


def name_parts(name: str) -> tuple[str, ...]:
    """The parts of a name as given (``Outer.inner``, ``Outer::inner``); INVALID_INPUT
    for an empty part."""
    parts = tuple(part.strip() for part in name.strip().replace("::", ".").split("."))
    if not all(parts):
        raise BorisError(
            Code.INVALID_INPUT, f'name: "{name}" has an empty part; give Name or Outer.inner'
        )
    return parts


def check_pattern(pattern: str) -> None:
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        re2.compile(pattern, options)
    except re2.error as exc:
        # RE2's message, UTF-8 bytes, quotes the part of the pattern at fault in whole
        # characters.
        message = exc.args[0].decode()
        raise BorisError(
            Code.INVALID_INPUT, f'name: invalid regular expression "{pattern}": {message}'
        ) from None


def _prefilter(query: NameQuery, mode: str) -> str | None:
    """The grep pattern a file must match to be parsed: the name's last part, as grep
    would look for it (a literal: RE2 finds it fastest; where it stands alone, and where
    a definition may name it, is looked at next, in Python, in the few files that hold
    it)."""
    if mode not in (DEFINITIONS, REFERENCES) or not query.parts:
        return None
    return literal_pattern(query.parts[-1])


def literal_pattern(word: str) -> str:
    import re2

    escaped: str = re2.escape(word)
    return escaped


def _may_read(name: str) -> bool:
    """Whether a file may be of a known language by its name (one without an extension
    may be, by its #! line, which its reader looks at)."""
    return (
        languages.is_notebook(name)
        or languages.by_name(name) is not None
        or languages.needs_first_line(name)
    )


# --- one file ------------------------------------------------------------------------------


def _one_file(
    access: FileAccess,
    path: str,
    label: str,
    files: FileFilter,
    request: Request,
    query: NameQuery,
    mode: str,
    stop: Stop | None,
) -> str:
    if not any(single_file(path, label, files)):
        return f"{label}: not read: include or type leaves it out"
    name = os.path.basename(path)
    language = language_of(name, path)
    if language is None:
        return f"{label}: not read: not a language symbols knows ({languages.language_names()})"
    try:
        source = _read_one(access, path, name, language)
    except NotebookTooDeep:
        return f"{label}: not read: a notebook whose JSON nests too deep to read"
    if source is None:
        return f"{label}: not read: a binary file, or a notebook that is not valid JSON"
    task = StructureTask(mode, access.max_size, query)
    offset, head_limit = request.offset, request.head_limit
    # The lines past the page are counted, not made: a page cut at the output cap
    # says how many there are.
    counted = dataclasses.replace(task, uncounted=offset, capped=True, counted=True)
    if head_limit:
        # A full page that fits says nothing of the rest: no more is looked at.
        bounded = dataclasses.replace(counted, most=offset + head_limit, counted=False)
        lines = _file_lines(bounded, source, label, path, stop)
        page = lines[offset : offset + head_limit]
        if lines_within(page) < len(page):
            lines = _file_lines(counted, source, label, path, stop)
    else:
        lines = _file_lines(counted, source, label, path, stop)
    if not lines:
        return "No references found" if mode == REFERENCES else "No definitions found"
    return paged(lines[offset:], len(lines), head_limit, offset, "line")


def _file_lines(
    task: StructureTask, source: Source, label: str, path: str, stop: Stop | None
) -> list[str]:
    """One file's lines for ``task``, made by the workers (an empty file's here)."""
    if not any(part.text for part in source.parts):
        return task.lines(label, source)  # an empty file: nothing to parse
    lines: list[str] = []
    for _, _, found in run_files(task, iter([(label, path)]), stop):
        if isinstance(found, Skipped):
            raise skipped_error(label, found)
        lines = found
    return lines


def _read_one(access: FileAccess, path: str, name: str, language: Language) -> Source | None:
    from boris.search.file_text import read_text_file

    data = read_text_file(path, access.max_size)
    if data is None:
        try:
            empty = os.stat(path).st_size == 0
        except OSError:
            return None
        return Source(language, [Part(None, b"")]) if empty else None
    return source_of(name, data, language)


# --- many files ----------------------------------------------------------------------------


def run_files(
    task: StructureTask, files: Iterator[tuple[str, str]], stop: Stop | None
) -> Generator[tuple[str, str, list[str] | Skipped], None, None]:
    """``(label, path, lines)`` for the files that give lines, in the order of
    ``files``, each parsed by a worker process (in this process only where none can
    run); a file a worker could not finish comes as :class:`Skipped`."""
    from boris.search import pool as searchpool

    pool = searchpool.shared_pool(parsing=True)
    if pool is None:
        yield from searchpool.search_here(task, files, lambda: 0, stop)
        return
    for found in pool.results(task, files, lambda: 0, stop):
        check(stop)  # replies already in the socket are not waited for, nor read on
        yield found


def skipped_note(skipped: list[str]) -> str:
    """The line after a page that names the files a search skipped (``<label> (<why>)``)."""
    return f"\n\n[Skipped {len(skipped)} file(s) the parser could not finish: " + (
        "; ".join(skipped) + "]"
    )


def why_skipped(skipped: Skipped) -> str:
    """Why a file was not read to the end, in words."""
    if skipped.reason == TIME:
        return f"parsing it took more than {FILE_SECONDS:.0f} s"
    if skipped.reason == DEPTH:
        return "it nests deeper than the parser can follow"
    if skipped.reason == MEMORY:
        return "parsing it needed more memory than a file of its size may take"
    return "the parser failed on it (out of its memory budget, or it crashed)"


def skipped_error(label: str, skipped: Skipped) -> BorisError:
    """A single file's answer when it was skipped."""
    code = Code.IO_ERROR if skipped.reason == CRASH else Code.FILE_TOO_LARGE
    return BorisError(code, f"could not read the structure of {label}: {why_skipped(skipped)}")


def _lines(
    task: StructureTask,
    files: Iterator[tuple[str, str]],
    request: Request,
    stop: Stop | None,
    skipped: list[str],
) -> str | None:
    """The page of a search by name or for references; None when nothing was found.
    The files the parser could not finish are added to ``skipped``."""
    offset, head_limit = request.offset, request.head_limit
    wanted = offset + head_limit if head_limit else None
    kept: list[str] = []
    produced = 0
    chars = 0
    results = run_files(task, files, stop)
    try:
        for label, _, lines in results:
            if isinstance(lines, Skipped):
                skipped.append(f"{label} ({why_skipped(lines)})")
                continue
            for line in lines:
                produced += 1
                if produced > offset:
                    kept.append(line)
                    chars += len(line) + 1
            if (wanted is not None and produced >= wanted) or chars > LIMIT + 1:
                break
    finally:
        results.close()  # an early stop lets workers finish and go back idle
    if produced == 0:
        return None
    # The page is cut only after a break, when more lines may follow uncounted: the
    # lines kept till the end of the search are at most LIMIT characters.
    return paged(kept, None, head_limit, offset, "line")


def _map(
    task: StructureTask,
    entries: Iterable[tuple[str, os.DirEntry[str]]],
    request: Request,
    stop: Stop | None,
) -> str:
    """The page of a directory's map: files newest first, each with its definitions."""
    dated = []
    for label, entry in entries:
        if not _may_read(entry.name):
            continue
        try:
            info = entry.stat()
        except OSError:
            continue
        if info.st_size > task.max_size or not info.st_size:  # regular: as the walk found it
            continue
        if languages.needs_first_line(entry.name) and language_of(entry.name, entry.path) is None:
            continue
        dated.append(((label, entry.path), info.st_mtime_ns))
    ordered = newest_first(dated)
    if not ordered:
        return "No files of a known language found"
    offset, head_limit = request.offset, request.head_limit
    page = ordered[offset : offset + head_limit] if head_limit else ordered[offset:]
    position = {path: index for index, (_, path) in enumerate(page)}
    blocks: list[tuple[int, str]] = []  # (position in the page, the file's lines)
    chars = -1
    cut = False
    results = run_files(task, iter(page), stop)
    try:
        for label, path, lines in results:
            if isinstance(lines, Skipped):
                lines = [f"{label} [not read: {why_skipped(lines)}]"]
            block = "\n".join(lines)
            if blocks and chars + len(block) + 1 > LIMIT:
                cut = True
                break
            blocks.append((position[path], block))
            chars += len(block) + 1
    finally:
        results.close()  # an early stop lets workers finish and go back idle
    if not blocks:
        return "No files of a known language found"
    if not cut and chars <= LIMIT:
        return "\n".join(block for _, block in blocks)
    # A file that gave nothing (binary after all) keeps its place in the count.
    last, text = blocks[-1][0], "\n".join(block for _, block in blocks)
    shown = f"files {offset + 1}-{offset + last + 1} of {len(ordered)}"
    if len(text) > LIMIT:  # the page's first file alone is longer than the limit
        text = text[:LIMIT]
        shown = f"file {offset + 1} of {len(ordered)}, cut to its first {LIMIT} characters"
    return (
        f"{text}\n\n[Truncated at {LIMIT} characters: showing {shown}. "
        f"To see more, call again with offset: {offset + last + 1}.]"
    )
