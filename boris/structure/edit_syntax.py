"""What an edit did to a file's syntax: the errors its new text has that its old text did
not, and the lines an edit's reply adds about them (or the refusal that lists them).

An error is old when the old text had one of the same kind at the same line, shifted
by the lines the edit added or removed above it (an error on a line the edit changed
may be on either side of the shift). Only the stretch around the change is parsed
(boris.structure.syntax.window); the new text first, and the old one only when the
new has errors there; when the edit did bring errors in, the errors a file of up to
``WHOLE_BELOW`` bytes already had are counted in the whole file (a larger file's
count is of those in the stretch).

:func:`check_syntax_off_loop` is the one place a check parses: it takes and gives
plain data (a language's key, bytes, lists of strings and numbers); the server calls it
off its event loop (the edit runs in a worker thread), and each source it parses is
parsed by a worker process (boris.structure.syntax_task), with a memory and a time
budget: a parser's crash skips the check, never the edit.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Literal

from boris.errors import BorisError, Code
from boris.files.access import Checked, SyntaxCheck
from boris.search.file_text import as_text
from boris.structure import languages
from boris.structure.languages import PYTHON, Language
from boris.structure.notebook_cells import as_python
from boris.structure.syntax import Lines, Problem, window
from boris.structure.syntax_task import errors_elsewhere

#: Files larger than this are not checked (a parse takes about half a second a MB).
MAX_CHECKED = 2 * 1024**2
#: The longest stretch parsed for an edit: one that long cannot be cut at top-level
#: statements (a minified bundle is one line), and a parse costs about 0.5 ms a KB.
MAX_STRETCH = 256 * 1024
#: Files up to this size are parsed whole once an edit turns out to bring in errors.
WHOLE_BELOW = 256 * 1024
#: The errors a reply lists.
SHOWN = 10
#: The bytes of a new file read to find its language by its ``#!`` line.
_FIRST_LINE = 256

Mode = Literal["warn", "refuse", "off"]
#: The result of :func:`check_syntax_off_loop`: the errors the edit brought in (at most
#: ``SHOWN``, each ``[line, column, what, line text]``), how many it brought in, how
#: many the file already had and still has; or the reason the parser failed.
Result = dict[str, object]


#: Finds a source's errors: :func:`~boris.structure.syntax.errors`'s arguments.
Parse = Callable[[Language, bytes, int], list[Problem]]


def in_a_worker(language: Language, source: bytes, first_line: int = 1) -> list[Problem]:
    """A source's errors, found by a worker process (the parser never runs here)."""
    return errors_elsewhere(language.key, source, first_line)


def check_syntax_off_loop(
    language: str, before: bytes | None, after: bytes, parse: Parse = in_a_worker
) -> Result:
    """The syntax errors ``after`` has that ``before`` (None: a new file) did not, in
    the language whose key is ``language``; both as the file holds them (a byte order
    mark, UTF-16). Plain data in and out; each source is parsed by ``parse``."""
    read_as = languages.by_key(language)
    try:
        new_text = as_text(after)
        old_text = None if before is None else as_text(before)
        brought, already = _compare(read_as, old_text, new_text, parse)
    except Exception as exc:  # the parser's failure must not fail the edit: it is written
        return {"failed": f"{type(exc).__name__}: {exc}"}
    shown = [[e.line, e.column, e.what, e.text] for e in brought[:SHOWN]]
    return {"brought": shown, "count": len(brought), "already": already}


def _compare(
    language: Language, before: bytes | None, after: bytes, errors: Parse
) -> tuple[list[Problem], int]:
    """The errors ``after`` brought in, and the count of those it kept from ``before``."""
    if before is None:
        return errors(language, after, 1), 0
    stretch = window(language, before, after)
    if stretch.end - stretch.start > MAX_STRETCH:
        return [], 0  # a minified bundle's one line, a class the size of a file
    new = errors(language, after[stretch.start : stretch.end], 1)
    if not new:
        return [], 0
    lines = stretch.lines(before, after)
    old = errors(language, before[stretch.start : stretch.old_end], lines.first)
    new = [error._replace(line=error.line + lines.first - 1) for error in new]
    brought, kept = _new_ones(new, old, lines)
    if brought and max(len(before), len(after)) <= WHOLE_BELOW:
        # News to tell: in a file small enough, the errors it had and still has are
        # counted in the whole file, outside the stretch too. (The news are the
        # stretch's: Python's parser tells a file's first error only.)
        whole = lines._replace(first=1)
        kept = _new_ones(errors(language, after, 1), errors(language, before, 1), whole)[1]
    return brought, kept


def _new_ones(new: list[Problem], old: list[Problem], lines: Lines) -> tuple[list[Problem], int]:
    shift = lines.new_last - lines.old_last
    left: Counter[tuple[int, str]] = Counter()
    for error in old:
        kind = _kind(error)
        if error.line < lines.changed:
            left[error.line, kind] += 1
        elif error.line > lines.old_last:
            left[error.line + shift, kind] += 1
        else:  # on a line the edit changed: before or after the shift
            left[error.line, kind] += 1
            if shift:
                left[error.line + shift, kind] += 1
    brought = []
    kept = 0
    for error in new:
        key = (error.line, _kind(error))
        if left[key] > 0:
            left[key] -= 1
            kept += 1
        else:
            brought.append(error)
    return brought, kept


def _kind(error: Problem) -> str:
    """What makes two errors the same kind: unexpected text, or the same missing token."""
    return error.what if error.kind == "missing" else error.kind


# --- the edit's side --------------------------------------------------------------------


def language_of_file(path: str, after: bytes) -> Language | None:
    """The language ``symbols`` reads the file at ``path`` in, by its name, else by the
    ``#!`` line of its new text; None for a notebook (its cells are checked one at a time)."""
    name = os.path.basename(path)
    if languages.is_notebook(name):
        return None
    found = languages.by_name(name)
    if found is None and languages.needs_first_line(name):
        found = languages.by_first_line(after[:_FIRST_LINE])
    return found


def syntax_check(
    mode: Mode, run: Callable[[str, bytes | None, bytes], Result] = check_syntax_off_loop
) -> SyntaxCheck | None:
    """The check edits make under ``--check-syntax mode`` (None: no check); ``run`` is
    where the parse runs."""
    if mode == "off":
        return None

    def check(path: str, before: Callable[[], bytes | None], after: bytes, what: Checked) -> str:
        if len(after) > MAX_CHECKED:
            return ""
        language = PYTHON if what == "cell" else language_of_file(path, after)
        if language is None:
            return ""
        old = before()
        if old is not None and len(old) > MAX_CHECKED:
            return ""  # what it had is not known: its errors cannot be told from new ones
        if what == "cell":
            old = None if old is None else as_python(old)
            after = as_python(after)
        result = run(language.key, old, after)
        return report(mode, path, language, result, named=what == "patch")

    return check


def report(mode: Mode, path: str, language: Language, result: Result, *, named: bool) -> str:
    """The lines a reply gets (after two newlines), or the refusal, for ``result``;
    ``named``: the reply is about several files (a patch's), so the lines name it."""
    if "failed" in result:
        where = f" {path}" if named else " this file"
        return f"\n\nSyntax check ({language.name}): skipped, the parser failed on{where}"
    count = result["count"]
    assert isinstance(count, int)
    if not count:
        return ""
    brought = result["brought"]
    assert isinstance(brought, list)
    lines = [f"  {line}:{column}  {what}: {text}" for line, column, what, text in brought]
    already = result["already"]
    if already:
        lines.append(f"({already} syntax error(s) were already in the file before this edit)")
    listed = "\n".join(lines)
    if mode == "refuse":
        raise BorisError(
            Code.SYNTAX_ERROR,
            f"{path}: the edit would bring in {count} syntax error(s):\n{listed}",
        )
    where = f" in {path}" if named else ""
    return (
        f"\n\nSyntax check ({language.name}): this edit brought in {count} syntax "
        f"error(s){where}:\n{listed}"
    )
