"""str_replace, multi_edit, insert and create_file on files: the read-edit-write cycle.

An edit is a function from the file's bytes to its new bytes (boris.files.edit_bytes), run
between a read and an atomic write (boris.files.writing). Just before the write the
file must be as it was read; if another writer changed it meanwhile, the edit is
redone once on the new content, then given up with ``IO_ERROR``. Edits of one file
are serialised within the server, and a file the caller edited or created counts as
viewed afterwards (what it is after the write is what the caller saw). The new text
goes through the caller's syntax check just before it is written: its lines are added
to the reply, or it refuses the write.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from boris.errors import BorisError, Code, io_error
from boris.files import edit_bytes
from boris.files.access import FileAccess
from boris.files.lines import EditSnippets, edit_snippet, read_up_to
from boris.files.place import (
    Place,
    entry_stat,
    locate,
    names_directory,
    not_a_file,
    open_existing,
)
from boris.files.writing import Changed, replace_existing, write_new
from boris.text import LIMIT

#: Mode of a file create_file makes, whatever the umask.
NEW_FILE_MODE = 0o644


def replacement(old_str: str, new_str: str) -> tuple[bytes, bytes]:
    """A replacement's strings as bytes, refused when it cannot mean anything."""
    if old_str == "":
        raise BorisError(
            Code.INVALID_INPUT,
            "old_str: must not be empty; give the exact text to replace "
            "(to write a whole file, use create_file)",
        )
    old = edit_bytes.encode_argument("old_str", old_str)
    new = edit_bytes.encode_argument("new_str", new_str)
    if old_str == new_str:
        # Refused before the file is even looked at: the call cannot change anything,
        # and a rewrite would still give the file a new inode and modification time.
        raise BorisError(
            Code.INVALID_INPUT, "old_str and new_str are identical: nothing to replace"
        )
    return old, new


def replace(access: FileAccess, path: str, old_str: str, new_str: str, replace_all: bool) -> str:
    """str_replace (and the editor's str_replace command): what it does and returns."""
    old, new = replacement(old_str, new_str)
    applied: list[edit_bytes.Edit] = []  # the edit as last applied, for the result

    with locate(access.resolve, path) as place, editing(place.path):

        def apply(data: bytes) -> bytes:
            edit = edit_bytes.replace(data, old, new, replace_all, place.path, access.check_size)
            applied.append(edit)
            return applied[-1].data

        note = edit_file(access, place, "str_replace", apply)
    edit = applied[-1]
    if replace_all:
        return f"Replaced {edit.count} occurrences in {place.path}{note}"
    return f"Replaced in {place.path}\n\n" + edit_snippet(edit.data, edit.begin, edit.end) + note


def multi_replace(
    access: FileAccess, path: str, replacements: Sequence[tuple[str, str, bool]]
) -> str:
    """multi_edit: ``(old_str, new_str, replace_all)`` replacements applied in order to one
    file, each as str_replace would, written at once or not at all."""
    total = len(replacements)
    changes = []
    refused: BorisError | None = None  # the first edit whose arguments cannot mean anything
    for number, (old_str, new_str, replace_all) in enumerate(replacements, 1):
        try:
            old, new = replacement(old_str, new_str)
        except BorisError as error:
            refused = BorisError(error.code, f"edit {number} of {total}: {error.message}")
            break
        changes.append(edit_bytes.Change(old, new, replace_all))
    applied: list[tuple[bytes, list[edit_bytes.Region] | None]] = []  # as last applied

    with locate(access.resolve, path) as place, editing(place.path):

        def apply(data: bytes) -> bytes:
            # The edits before a refused one still run: the first edit that fails, in
            # order, is the one reported.
            done = edit_bytes.replace_each(data, changes, place.path, access.check_size, total)
            if refused is not None:
                raise refused
            applied.append(done)
            return done[0]

        note = edit_file(access, place, "multi_edit", apply)
    data, regions = applied[-1]
    head = f"Applied {total} edits to {place.path}"
    if regions is None:
        limit = edit_bytes.MAX_REGIONS
        return f"{head}\n\n(more than {limit} places changed: view the file to see them){note}"
    shown: list[str] = []
    size = len(head)
    snippets = EditSnippets(data, regions)
    for snippet in snippets:
        size += len(snippet) + 1
        if size > LIMIT and shown:
            rest = len(snippets) - len(shown)
            shown.append(f"[{rest} more edited regions not shown: view the file to see them]\n")
            break
        shown.append(snippet)
    return head + "\n\n" + "\n".join(shown) + note


def insert(
    access: FileAccess, path: str, insert_line: int, new_str: str, name: str = "new_str"
) -> str:
    """The editor's insert command: ``new_str`` (given as argument ``name``) as whole
    lines after line ``insert_line``."""
    text = edit_bytes.encode_argument(name, new_str)
    applied: list[edit_bytes.Edit] = []  # the edit as last applied, for the result

    with locate(access.resolve, path) as place, editing(place.path):

        def apply(data: bytes) -> bytes:
            applied.append(edit_bytes.insert(data, insert_line, text, place.path, name))
            return applied[-1].data

        note = edit_file(access, place, "insert", apply)
    edit = applied[-1]
    return f"Inserted in {place.path}\n\n" + edit_snippet(edit.data, edit.begin, edit.end) + note


def create(access: FileAccess, path: str, content: str) -> str:
    """create_file (and the editor's create command): what it does and returns."""
    data = edit_bytes.encode_argument("content", content)
    if names_directory(path):
        raise BorisError(
            Code.INVALID_INPUT,
            f"{os.path.join(access.cwd, path)} names a directory (it ends in /); "
            "create_file writes files only",
        )
    with locate(access.resolve, path) as place, editing(place.path):
        note = redo_once_if_changed(place, lambda: _write(access, place, data))
        access.mark_viewed(place.path, written_stat(place))
    return f"Created {place.path} ({len(data)} bytes){note}"


def _write(access: FileAccess, place: Place, data: bytes) -> str:
    """Write ``data`` at ``place``; what the syntax check adds to the reply."""
    info = entry_stat(place)
    if info is not None:
        problem = not_a_file(place, info, "create_file")
        if problem is not None:
            raise problem
        access.require_viewed(place.path, "overwriting")
        # Its content is not looked at: the file must be as the caller last saw it.
        access.require_fresh(place.path, info)
    access.check_size(len(data), "content is")
    note = access.check_syntax(
        place.path, lambda: None if info is None else _old_content(access, place), data
    )
    try:
        if info is None:
            write_new(place, data, NEW_FILE_MODE)
        else:
            replace_existing(place, info, data)
    except OSError as exc:
        raise write_failure(place.path, exc, existed=info is not None) from None
    return note


def _old_content(access: FileAccess, place: Place) -> bytes | None:
    """The content of the file create_file is about to replace, for the syntax check
    (None if it cannot be read: the check then takes the file as new)."""
    try:
        fd, _ = open_existing(place, "create_file")
    except BorisError:
        return None
    try:
        return read_up_to(fd, access.max_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def written_stat(place: Place) -> os.stat_result | None:
    """The stat of the file just written at ``place``: what the caller now saw of it."""
    try:
        # A new file's place may still name the directories it made as missing.
        return place.lstat() or os.lstat(place.path)
    except OSError:
        return None


# --- the cycle ---------------------------------------------------------------------


def edit_file(
    access: FileAccess,
    place: Place,
    tool: str,
    edit: Callable[[bytes], bytes],
    *,
    blind: bool = False,
    check: bool = True,
) -> str:
    """Read the file at ``place``, apply ``edit`` to its bytes, write the result back.

    After the existence, view and size checks, and, for an edit ``blind`` to the text
    it replaces (a notebook's cell by number), the check that the file is as the caller
    last saw it. If another writer changed the file between the read and the write,
    the edit is redone once on the new content (so ``edit`` must depend on nothing but
    its argument). The new bytes go through the syntax check unless ``check`` is off
    (a notebook's edit checks its cell). Returns what the check adds to the reply.
    """

    def attempt() -> str:
        data, info = read_for_edit(access, place, tool)
        if blind:
            access.require_fresh(place.path, info)
        edited = edit(data)
        access.check_size(len(edited), "the edited file would be")
        note = access.check_syntax(place.path, lambda: data, edited) if check else ""
        try:
            replace_existing(place, info, edited)
        except OSError as exc:
            raise write_failure(place.path, exc, existed=True) from None
        return note

    note = redo_once_if_changed(place, attempt)
    access.mark_viewed(place.path, written_stat(place))
    return note


_T = TypeVar("_T")


def redo_once_if_changed(place: Place, attempt: Callable[[], _T]) -> _T:
    """``attempt()``, once more if the file changed under it, then ``IO_ERROR``."""
    for _ in range(2):
        try:
            return attempt()
        except Changed:
            continue
    raise BorisError(Code.IO_ERROR, f"{place.path} changed while being edited; view it again")


def read_for_edit(access: FileAccess, place: Place, tool: str) -> tuple[bytes, os.stat_result]:
    """The content of the file at ``place`` and its stat as read, after the checks of an
    edit: it exists and is a regular file, it was viewed, it is within the size limit."""
    fd, info = open_existing(place, tool)
    try:
        problem = not_a_file(place, info, tool)
        if problem is not None:
            raise problem
        access.require_viewed(place.path, "editing")
        access.check_size(info.st_size, f"{place.path} is")
        try:
            data = read_up_to(fd, access.max_size + 1)
        except OSError as exc:
            raise io_error("read", place.path, exc) from None
    finally:
        os.close(fd)
    access.check_size(len(data), f"{place.path} is")  # it may have grown since the stat
    return data, info


class _PathLocks:
    """One lock per path being edited, so concurrent edits of a file cannot lose one.

    Entries live only while someone holds or waits for them.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, path: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(path, (threading.Lock(), 0))
            self._locks[path] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[path]
                if users == 1:
                    del self._locks[path]
                else:
                    self._locks[path] = (lock, users - 1)

    def users(self, path: str) -> int:
        """How many edits hold or wait for the lock of ``path`` now."""
        with self._guard:
            return self._locks.get(path, (None, 0))[1]


_locks = _PathLocks()
#: Serialises the read-modify-write of str_replace, insert and create_file per file.
editing = _locks.hold
#: How many edits hold or wait for a file's lock (what a test waits on).
edits_of = _locks.users


def write_failure(path: str, exc: OSError, *, existed: bool) -> BorisError:
    """``IO_ERROR`` for a failed write, saying that nothing was lost."""
    reason = exc.strerror or str(exc)
    outcome = "the file is unchanged" if existed else "no file was created"
    return BorisError(Code.IO_ERROR, f"could not write {path}: {reason}; {outcome}")
