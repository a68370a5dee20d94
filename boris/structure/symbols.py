"""The symbols call: its arguments checked, which files it looks at, who parses them, in
what order, and the page of output.

Files are selected as grep selects them (boris.search.selection: scope, deny rules,
ignore files, ``include``, ``type``), and only those of a known language are looked
at. Each file's work (boris.structure.task) is done in this process for the first
files and by grep's worker processes (boris.search.pool) beyond, results read back in
order. Every mode pages as grep does (``head_limit``, ``offset``, the 30,000-character
cap with a line saying where to go on):
- a file's outline and a search by name or for references page over lines, in walk
  order, and stop once the page is full; a search by name keeps where it stopped, and
  the lines the workers found past the page, in the session (boris.structure.pages):
  its next page goes on from there rather than searching from the start again;
- a directory's map pages over files, newest first (as grep lists files): their
  modification times are known from the walk, so a file before the offset or after
  the page is never parsed.
"""

from __future__ import annotations

import dataclasses
import os
import re
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
from boris.structure.pages import MAX_CHARS, Gate, Pages, Relay, Resume
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


def run(
    access: FileAccess, request: Request, stop: Stop | None = None, pages: Pages | None = None
) -> str:
    """Check a symbols call's arguments (input first, then the path, as every file
    tool) and run it. Raises :class:`~boris.stop.Stopped` soon after ``stop`` is set.
    A search by name goes on from where an earlier page of it stopped, if ``pages``
    kept that (see :mod:`boris.structure.pages`), and keeps where this one stops."""
    query, task_mode = _query(request)
    files = file_filter(request.include, "include", request.file_type)
    root, label = search_root(access, request.path)
    if label is not None:
        return _one_file(access, root, label, files, request, query, task_mode, stop)
    mode = MAP if task_mode == OUTLINE else task_mode
    # A map's file gives no more than the page can take (its files are paged whole). A
    # search by name is not cut inside a file: a later page goes on from where it stopped.
    task = StructureTask(mode, access.max_size, query, _prefilter(query, mode), capped=mode == MAP)
    if mode == MAP:
        return _map(task, tree_entries(root, files, access.scope, stop), request, stop)
    key = (root, task, request.include, request.file_type)
    # A later page goes on from where the last one stopped; a first page is a search
    # from the start, whatever was kept.
    resume = pages.take(key, request.offset) if pages is not None and request.offset else None
    if resume is None:
        relay = Relay()
        entries = tree_entries(root, files, access.scope, relay)
        walk = ((label, entry.path) for label, entry in entries if _may_read(entry.name))
        resume = Resume(0, [], [], [], walk, relay)
    resume.relay.current = stop
    skipped: list[str] = []
    lines, after = _lines(task, resume, request, stop, skipped)
    if pages is not None:
        after.relay.current = None
        pages.keep(key, after)
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


#: A dot between the parts of a name: not one inside a computed member name
#: (``Queue.[Symbol.iterator]``).
_PART_DOT = re.compile(r"\.(?![^\[\]]*\])")


def name_parts(name: str) -> tuple[str, ...]:
    """The parts of a name as given (``Outer.inner``, ``Outer::inner``); INVALID_INPUT
    for an empty part."""
    parts = tuple(part.strip() for part in _PART_DOT.split(name.strip().replace("::", ".")))
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
    """The name a file must hold as a word to be read further: the name's last part
    (where a definition may name it is looked at next, in the few files that hold it)."""
    if mode not in (DEFINITIONS, REFERENCES) or not query.parts:
        return None
    return query.parts[-1]


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
    resume: Resume,
    request: Request,
    stop: Stop | None,
    skipped: list[str],
) -> tuple[str | None, Resume]:
    """The page of a search by name or for references, going on from ``resume``; None
    when nothing was found. Then where the search stands, to go on from for a later
    page. The files the parser could not finish are added to ``skipped``."""
    offset, head_limit = request.offset, request.head_limit
    wanted = offset + head_limit if head_limit else None
    # The lines found from the offset on and the file of each; every line found counts.
    lines, paths = resume.lines[offset - resume.start :], resume.paths[offset - resume.start :]
    produced = resume.start + len(resume.lines)
    chars = sum(len(line) + 1 for line in lines)
    files = Gate(resume.files, resume.walk)

    def full() -> bool:
        return (wanted is not None and produced >= wanted) or chars > LIMIT + 1

    def take(label: str, path: str, found: list[str]) -> None:
        nonlocal produced, chars
        produced += len(found)
        new = found[max(len(found) - (produced - offset), 0) :]  # those from the offset on
        lines.extend(new)
        paths.extend([path] * len(new))
        chars += sum(len(line) + 1 for line in new)
        files.searched(label, path)

    if full():  # by the lines kept from before: nothing is searched
        after = Resume(offset, lines, paths, resume.files, resume.walk, resume.relay)
        return paged(lines, None, head_limit, offset, "line"), after.stamp()
    results = run_files(task, files, stop)
    try:
        for label, path, found in results:
            if isinstance(found, Skipped):
                skipped.append(f"{label} ({why_skipped(found)})")
                files.searched(label, path)
                continue
            take(label, path, found)
            if full():
                break
        else:
            files.searched_all()
        # The page is full: the walk gives no more, and the lines of the files the
        # workers were given already are kept for the next page, while they fit.
        files.closed = True
        for label, path, found in results:
            if isinstance(found, Skipped):
                files.searched(label, path)  # its note goes with this page's
                skipped.append(f"{label} ({why_skipped(found)})")
                continue
            if chars + sum(len(line) + 1 for line in found) > MAX_CHARS:
                break
            take(label, path, found)
        else:
            files.searched_all()
    finally:
        results.close()  # an early stop lets workers finish and go back idle
    after = Resume(offset, lines, paths, files.left(), files.walk, resume.relay).stamp()
    if produced == 0:
        return None, after
    # The page is cut only after a break, when more lines may follow uncounted: the
    # lines kept till the end of the search are at most LIMIT characters.
    return paged(lines, None, head_limit, offset, "line"), after


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
