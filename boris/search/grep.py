"""grep's engine: a call's arguments checked, which files to search, in what order,
and the page of output.

The tree is walked as boris.search.selection selects its files (boris.search.walk:
scope, .gitignore, symlinks; the include and type filters); each file is
searched by boris.search.file_search, in this process for small searches and by worker
processes (boris.search.pool) once a search turns out large. Results come back in walk
order either way, so the output does not depend on who searched.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass

from boris.errors import BorisError, Code, io_error
from boris.files.access import FileAccess
from boris.files.scope import PathScope
from boris.patterns.line_regex import Matcher, PatternError
from boris.search.content_lines import Rendered
from boris.search.file_search import OUTPUT_MODES, FileTask, Result, compiled, search_file
from boris.search.filetypes import NameFilter
from boris.search.selection import FileFilter, file_filter, search_root, single_file, tree_files
from boris.search.walk import newest_first
from boris.stop import Stop, check
from boris.text import LIMIT, paged


@dataclass(frozen=True)
class Request:
    """A grep call's arguments, whichever schema they came by."""

    pattern: str
    path: str | None
    #: The include glob, and the name of the argument it came as (for messages).
    include: str | None
    include_name: str
    file_type: str | None
    output_mode: str
    line_numbers: bool
    #: Each side's context; None takes ``context``'s.
    before: int | None
    after: int | None
    context: int
    case_insensitive: bool
    multiline: bool
    head_limit: int
    offset: int


def run(access: FileAccess, request: Request, stop: Stop | None = None) -> str:
    """Check a grep call's arguments, in the order of the error codes, and run it.

    Raises :class:`~boris.stop.Stopped` soon after ``stop`` is set."""
    if not request.pattern:
        raise BorisError(Code.INVALID_INPUT, "pattern: must not be empty")
    try:
        matcher = compiled(request.pattern, request.case_insensitive, request.multiline)
    except PatternError as exc:
        raise BorisError(
            Code.GREP_INVALID_PATTERN, f'invalid regular expression "{request.pattern}": {exc}'
        ) from None
    output_mode = request.output_mode
    if output_mode not in OUTPUT_MODES:
        raise BorisError(
            Code.GREP_INVALID_OUTPUT_MODE,
            f'invalid output_mode "{output_mode}"; use one of: {", ".join(OUTPUT_MODES)}',
        )
    files = file_filter(request.include, request.include_name, request.file_type)
    path = request.path
    root, label = search_root(access, path)

    # A side given on its own (0 too) wins over the symmetric context, as in ripgrep.
    context = request.context
    before = context if request.before is None else request.before
    after = context if request.after is None else request.after
    head_limit, offset = request.head_limit, request.offset
    task = FileTask(
        pattern=request.pattern,
        case_insensitive=request.case_insensitive,
        multiline=request.multiline,
        output_mode=output_mode,
        max_size=access.max_size,
        line_numbers=request.line_numbers,
        before=before,
        after=after,
        budget=offset + head_limit if head_limit else None,
        max_chars=LIMIT,
    )
    query = Query(
        task=task,
        matcher=matcher,
        include=files.include,
        include_has_slash=files.include_has_slash,
        file_type=files.file_type,
        head_limit=head_limit,
        offset=offset,
        stop=stop,
    )
    try:
        return grep(root, label, query, access.scope)
    except OSError as exc:
        raise io_error("search", root, exc) from None


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
    file_type: NameFilter | None
    head_limit: int
    offset: int
    #: Set when the call is cancelled: the search stops (boris.stop.Stopped).
    stop: Stop | None = None

    @property
    def output_mode(self) -> str:
        return self.task.output_mode

    @property
    def wanted(self) -> int | None:
        """How many output lines (entries) the page needs, None for all."""
        return self.offset + self.head_limit if self.head_limit else None


@dataclass(frozen=True)
class Output:
    """The output lines (entries) from the requested offset on, at least to the end
    of the page, and how many there are in all (None when the search stopped
    before the end)."""

    lines: list[str]
    total: int | None


def grep(root: str, label: str | None, query: Query, scope: PathScope) -> str:
    """Search ``root`` (a resolved, in-scope directory or file) and render the page.

    ``label`` is how a single-file root is shown; directory results are shown
    relative to ``root``.
    """
    files = _single_file(root, label, query) if label is not None else _tree(root, query, scope)
    return page(search_files(files, query), query)


def page(output: Output, query: Query) -> str:
    """The requested page of ``output``, cut at ``LIMIT`` characters if need be with a
    last line that says what was left out and how to go on."""
    unit = "line" if query.output_mode == "content" else "file"
    return paged(output.lines, output.total, query.head_limit, query.offset, unit)


def search_files(
    files: Iterable[tuple[str, str]], query: Query, *, parallel: bool = True
) -> Output:
    """The output for ``(label, path)`` pairs from the offset on, at least up to the
    end of the requested page; lines before the offset are counted, not kept, here
    and by whoever searches the files (see :class:`Position`).

    Files are pulled lazily: content stops pulling once the page is full or longer
    than any page can show, count once the page is full; files_with_matches needs
    them all to sort.
    """
    position = Position(query)
    results = _results(iter(files), query, parallel, position)
    offset, wanted = query.offset, query.wanted
    if query.output_mode == "files_with_matches":
        ordered = newest_first((label, _mtime(mtime)) for label, _, mtime in results)
        return Output(ordered[offset:], len(ordered))
    kept: list[str] = []
    content = query.output_mode == "content"
    kept_chars = 0
    complete = True
    try:
        for label, path, result in results:
            if content:
                new, cut = position.take(label, path, result)
            else:
                new, cut = position.take_entry(f"{label}:{result}")
            kept.extend(new)
            kept_chars += sum(len(line) + 1 for line in new)
            if (
                cut
                or (wanted is not None and position.produced >= wanted)
                or (content and kept_chars > LIMIT + 1)  # more than any page shows
            ):
                complete = False
                break
    finally:
        results.close()  # an early stop lets workers finish and go back idle
    return Output(kept, position.produced if complete else None)


class Position:
    """How far the output has got: the output lines (entries) produced so far, kept or
    not, and how many of a file's first lines fall before the page.

    A file is searched leaving out (counting) the lines before the page
    (:func:`boris.search.content_lines.render_file`'s ``skip``). Worker processes are told
    how many when a chunk of files is sent, before the files ahead of it are known,
    so a file of theirs may have left out lines the page needs after all: that file
    is searched again here, with the exact number. Only files that reach into the
    page can need it.
    """

    def __init__(self, query: Query) -> None:
        self.query = query
        self.produced = 0
        task = query.task
        self._with_context = task.before > 0 or task.after > 0
        self._separated = self._with_context and task.output_mode == "content"

    def skip(self) -> int:
        """How many output lines of the next file fall before the page."""
        separator = 1 if self._separated and self.produced else 0
        return max(self.query.offset - self.produced - separator, 0)

    def take_entry(self, entry: str) -> tuple[list[str], bool]:
        """One entry (count mode): kept if it is past the offset."""
        self.produced += 1
        return ([entry] if self.produced > self.query.offset else []), False

    def take(self, label: str, path: str, result: Result) -> tuple[list[str], bool]:
        """A file's content output: the lines of it on the page (with the ``--`` that
        separates it from the file before), and whether the file's lines were cut
        short (then nothing after it can be on the page)."""
        assert isinstance(result, Rendered)
        skip = self.skip()
        if result.left_out > skip or (result.cut and result.left_out != skip):
            query = self.query
            again = search_file(query.task, query.matcher, label, path, skip, query.stop)
            result = again if isinstance(again, Rendered) else Rendered(0, [])
        separator = 1 if self._separated and self.produced else 0
        on_page = self.query.offset <= self.produced
        self.produced += separator + result.left_out + len(result.lines)
        lines = result.lines[skip - result.left_out :] if skip > result.left_out else result.lines
        if separator and on_page:
            lines = ["--", *lines]
        return lines, result.cut


def _mtime(result: Result) -> int:
    assert isinstance(result, int)
    return result


def _results(
    files: Iterator[tuple[str, str]], query: Query, parallel: bool, position: Position
) -> Generator[tuple[str, str, Result], None, None]:
    """``(label, path, result)`` for each file with a match, in the order of ``files``."""
    task, matcher, stop = query.task, query.matcher, query.stop
    for label, path in itertools.islice(files, IN_PROCESS_FILES):
        check(stop)
        result = search_file(task, matcher, label, path, position.skip(), stop)
        if result is not None:
            yield label, path, result
    from boris.search import pool as searchpool

    pool = searchpool.shared_pool() if parallel else None
    if pool is None:
        yield from searchpool.search_here(task, files, position.skip, stop)
        return
    for label, path, found in pool.results(task, files, position.skip, stop):
        assert not isinstance(found, searchpool.Skipped)  # grep's task is not ISOLATED
        yield label, path, found


def _filter(query: Query) -> FileFilter:
    return FileFilter(query.include, query.include_has_slash, query.file_type)


def _single_file(path: str, label: str, query: Query) -> Iterator[tuple[str, str]]:
    return single_file(path, label, _filter(query))


def _tree(root: str, query: Query, scope: PathScope) -> Iterator[tuple[str, str]]:
    """``(label, path)`` for the files of the walk that pass the query's filters
    (boris.search.selection.tree_files)."""
    return tree_files(root, _filter(query), scope, query.stop)
