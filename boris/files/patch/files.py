"""apply_patch as the tool runs it: every file of a patch checked, then all of them written,
or none.

First, with nothing written: the patch is parsed (boris.files.patch.format); every path
is resolved and checked against the scope; a file named twice is refused; each file
is locked (the per-path locks of every edit), then checked in the patch's order as
the other file tools check (it exists or must not, it is a regular file, it was
viewed, its size, that it can be written) and read; the hunks are applied in memory
(boris.files.patch.hunks) and the results' sizes checked.

Then the writes, with the primitives of every edit (boris.files.writing), in two
stages. First every new content is made ready beside its file, in the patch's order:
a synced temporary copy (or, for a file written in place, a synced backup of it), the
directories a new file needs; nothing at any name the patch changes has changed yet,
and a call cancelled meanwhile (the client's ``notifications/cancelled``, the end of
the session, the server's shutdown) drops all of it, so nothing was changed. Then,
no longer stopped by anything, the changes take effect: the files to remove (deleted
files, the old names of files moved with changes) are renamed to hidden names beside
them, which cannot run out of room and is undone by renaming them back; the contents
made ready are renamed into place (or written in place), a file moved without changes
is renamed to its new name, once; only once all of that succeeded are the files set
aside removed for good. A step that fails undoes the steps before it, in reverse:
files written are removed or given their old content back, files moved or set aside
get their names back; the error says what was restored. If a file turns out to have
changed since it was read, everything done is undone and the whole patch is applied
once more from the start, then given up with ``IO_ERROR``.

A moved file keeps its owner and group: moved without changes, it is the same file;
with changes, its new copy is given them, or else loses its set-user-ID and
set-group-ID bits, so no file gains privileges by passing through a patch.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import traceback
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field

from boris.errors import BorisError, Code, io_error
from boris.files.access import FileAccess
from boris.files.edit_bytes import encode_argument
from boris.files.edit_files import NEW_FILE_MODE, editing, read_for_edit, written_stat
from boris.files.lines import human_size
from boris.files.patch.format import FileChange, invalid, parse
from boris.files.patch.hunks import apply_hunks
from boris.files.place import (
    Place,
    entry_stat,
    fsync_directory,
    locate,
    names_directory,
    not_a_file,
    temporary_name,
)
from boris.files.writing import (
    Changed,
    Pending,
    prepare_move,
    prepare_new,
    prepare_replace,
    replace_existing,
    same_state,
)
from boris.stop import Stop, check

log = logging.getLogger("boris.files")

#: What one patch may read and write in all (old and new contents together), in units
#: of --max-file-size: a short patch must not make the server hold many large files.
PATCH_SIZE_FACTOR = 4
_TOOL = "apply_patch"


def apply_patch(access: FileAccess, patch: str, stop: Stop | None = None) -> str:
    """Apply ``patch``; one line per file changed: ``A p``, ``M p``, ``M p -> q``, ``D p``.

    ``stop`` set (the call cancelled) ends it with :class:`~boris.stop.Stopped` at the
    next look, before any file has changed, or not at all once the changes are taking
    effect: a patch is applied whole or not at all.
    """
    size = len(encode_argument("patch", patch))  # a lone surrogate is the caller's error
    try:
        access.check_size(size, "the patch is")
    except BorisError as error:
        raise BorisError(error.code, f"{error.message}; split it into smaller patches") from None
    changes = parse(patch)
    changed: str  # set by the first attempt that finds a file changed
    for _ in range(2):
        try:
            return _apply(access, changes, stop)
        except Changed as exc:
            changed = str(exc)
        except BorisError as error:
            # The frames of the attempt hold every file's content: let them go now, not
            # whenever the cyclic garbage collector gets to the exception.
            traceback.clear_frames(error.__traceback__)
            raise error.with_traceback(None) from None
    raise BorisError(
        Code.IO_ERROR,
        f"{changed} changed while the patch was being applied; view it again. Nothing was changed.",
    )


@dataclass
class _Plan:
    """One section of the patch, checked and ready to write."""

    change: FileChange
    #: The file the section names; for a move, also where it goes.
    place: Place
    target: Place | None = None
    #: The file as read (update, delete), its content, and its new content (add, update).
    info: os.stat_result | None = None
    old: bytes = b""
    new: bytes | None = None
    #: A move without changes within one file system: the file itself is renamed.
    renamed: bool = False

    def summary(self) -> str:
        letter = {"add": "A", "delete": "D", "update": "M"}[self.change.action]
        if self.target is not None:
            return f"M {self.place.path} -> {self.target.path}"
        return f"{letter} {self.place.path}"

    @property
    def removes(self) -> bool:
        """The file at the section's path goes: deleted, or moved by a copy."""
        return self.change.action == "delete" or (self.target is not None and not self.renamed)


def _apply(access: FileAccess, changes: list[FileChange], stop: Stop | None) -> str:
    resolved = [
        (access.resolve(change.path), access.resolve(change.move_to) if change.move_to else None)
        for change in changes
    ]
    _refuse_repeats(changes, resolved)
    paths = sorted({path for pair in resolved for path in pair if path is not None})
    with ExitStack() as stack:
        for path in paths:  # in one order, so two patches cannot wait for each other
            stack.enter_context(editing(path))
        budget = _Budget(access)
        plans = []
        for change in changes:
            check(stop)
            place = stack.enter_context(locate(access.resolve, change.path))
            target = None
            if change.move_to is not None:
                target = stack.enter_context(locate(access.resolve, change.move_to))
            plans.append(_check(access, change, place, target, budget, stop))
        # Every file's new text is checked before any is written: a refusal leaves all.
        notes = [_syntax(access, plan) for plan in plans]
        _write(plans, stop)
        for plan in plans:
            # A deleted file counts as viewed too: it was (deleting needs it), or no view
            # is asked for.
            where = plan.target or plan.place
            access.mark_viewed(where.path, None if plan.new is None else written_stat(where))
    return "\n".join(plan.summary() for plan in plans) + "".join(notes)


def _syntax(access: FileAccess, plan: _Plan) -> str:
    """What the syntax check says of a file's new text (nothing for a deleted file)."""
    new = plan.new
    if new is None or new == plan.old:  # deleted, or moved as it is
        return ""
    old = plan.old if plan.change.action == "update" else None
    return access.check_syntax((plan.target or plan.place).path, lambda: old, new, "patch")


def _refuse_repeats(changes: list[FileChange], resolved: list[tuple[str, str | None]]) -> None:
    """``PATCH_INVALID`` for a file named by two sections (or moved onto itself)."""
    seen: dict[str, int] = {}
    for change, (path, target) in zip(changes, resolved, strict=True):
        if target == path:
            raise invalid(
                change.move_line, f"{path} is moved onto itself; leave out the Move to line"
            )
        for name, line in ((path, change.line), (target, change.move_line)):
            if name is None:
                continue
            if name in seen:
                raise invalid(
                    line,
                    f"{name} is already changed by the section at line {seen[name]}; give "
                    "each file one section, with all its hunks",
                )
            seen[name] = line


class _Budget:
    """The bytes one patch holds, old and new contents together."""

    def __init__(self, access: FileAccess) -> None:
        self._limit = PATCH_SIZE_FACTOR * access.max_size
        self._used = 0

    def take(self, size: int) -> None:
        self._used += size
        if self._used > self._limit:
            raise BorisError(
                Code.FILE_TOO_LARGE,
                f"the files of this patch come to more than {human_size(self._limit)} "
                f"together, old and new contents counted (the limit for one patch is "
                f"{PATCH_SIZE_FACTOR} × --max-file-size); split it into smaller patches",
            )


# --- checks -------------------------------------------------------------------------------


def _check(
    access: FileAccess,
    change: FileChange,
    place: Place,
    target: Place | None,
    budget: _Budget,
    stop: Stop | None,
) -> _Plan:
    plan = _Plan(change, place, target)
    if change.action == "add":
        plan.new = change.content.encode()
        _check_new(change.path, place, "Add File")
        budget.take(len(plan.new))
        return plan
    if change.action == "delete":
        plan.info = _existing(access, place)
        _require_writable(place)
        return plan
    plan.old, plan.info = read_for_edit(access, place, _TOOL)
    budget.take(len(plan.old))
    plan.new = apply_hunks(plan.old, change.hunks, place.path, stop)
    access.check_size(len(plan.new), f"{place.path} would be")
    budget.take(len(plan.new))
    if target is not None:
        assert change.move_to is not None
        _check_new(change.move_to, target, "Move to")
        plan.renamed = plan.new == plan.old and _same_device(place, target)
    _require_writable(place)
    return plan


def _same_device(place: Place, target: Place) -> bool:
    try:
        return os.fstat(place.directory).st_dev == os.fstat(target.directory).st_dev
    except OSError:
        return False


def _existing(access: FileAccess, place: Place) -> os.stat_result:
    """The stat of the file to delete at ``place``, after the checks of an edit."""
    info = entry_stat(place)
    if info is None:
        raise BorisError(Code.PATH_NOT_FOUND, f"{place.path} does not exist")
    problem = not_a_file(place, info, _TOOL)
    if problem is not None:
        raise problem
    access.require_viewed(place.path, "deleting")
    # A deletion does not look at the content: the file must be as the caller last saw it.
    access.require_fresh(place.path, info)
    return info


def _check_new(given: str, place: Place, what: str) -> None:
    """A file to create at ``place`` (an added file, a moved file's new name)."""
    if names_directory(given):
        raise BorisError(
            Code.INVALID_INPUT, f"{place.path}/ names a directory; {what} needs a file name"
        )
    try:
        info = place.lstat()
        blocking = None
        if place.missing:
            # The first directory to make must not exist as anything else.
            missing = os.path.join(_existing_directory(place), place.missing[0])
            with contextlib.suppress(FileNotFoundError):
                os.stat(place.missing[0], dir_fd=place.directory, follow_symlinks=False)
                blocking = missing
    except OSError as exc:
        raise io_error("stat", place.path, exc) from None
    if info is not None:
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a file"
        raise BorisError(
            Code.INVALID_INPUT,
            f"{place.path} already exists ({kind}): {what} makes new files only. Change an "
            "existing file with Update File (after viewing it), or replace it whole with "
            "create_file.",
        )
    if blocking is not None:
        raise BorisError(
            Code.INVALID_INPUT,
            f"{blocking} exists and is not a directory; {place.path} cannot be made",
        )
    # No size check: an added file is smaller than the patch, checked already, and a
    # moved file's new content was checked as its update.
    _require_writable(place)


def _existing_directory(place: Place) -> str:
    """The path of the directory ``place`` holds (its parent, or its deepest ancestor)."""
    path = os.path.dirname(place.path)
    for _ in place.missing:
        path = os.path.dirname(path)
    return path


def _require_writable(place: Place) -> None:
    """``IO_ERROR`` now, before anything is written, if a write at ``place`` would be
    refused for its directory, where a temporary copy, a backup or a rename is made. (A
    file replaced in place is checked as its copy is made, before anything is renamed.)"""
    # os.access answers False where it cannot tell; it never raises.
    if not os.access(".", os.W_OK | os.X_OK, dir_fd=place.directory):
        raise BorisError(
            Code.IO_ERROR, f"could not write {place.path}: Permission denied; nothing was changed"
        )


# --- writes -------------------------------------------------------------------------------


@dataclass
class _Done:
    """Steps taken, each with how to undo it, and renames to finish."""

    undo: list[tuple[str, Callable[[], None]]] = field(default_factory=list)
    removed: list[tuple[Place, str]] = field(default_factory=list)


def _write(plans: list[_Plan], stop: Stop | None) -> None:
    """Make every new content ready, then write them all, or undo what was written and
    raise."""
    ready: list[tuple[_Plan, Pending]] = []
    try:
        for plan in plans:
            check(stop)  # nothing has changed yet: a cancelled call stops here
            pending = _prepare(plan)
            if pending is not None:
                ready.append((plan, pending))
        check(stop)
    except BaseException as exc:
        for _, pending in reversed(ready):
            pending.discard()
        if isinstance(exc, _StepFailed):
            raise _failure(exc, [], []) from None
        raise
    _commit(plans, ready)


def _prepare(plan: _Plan) -> Pending | None:
    """What makes ``plan``'s new content ready: a synced copy, a backup, new directories."""
    new = plan.new
    if new is None:
        return None
    if plan.renamed:
        assert plan.info is not None
        assert plan.target is not None
        with _step(plan.target.path):
            return prepare_move(plan.place, plan.info, plan.target)
    if plan.change.action == "add" or plan.target is not None:
        place = plan.target or plan.place
        mode = NEW_FILE_MODE if plan.info is None else stat.S_IMODE(plan.info.st_mode)
        with _step(place.path):
            return prepare_new(place, new, mode, owner_of=plan.info)
    if new == plan.old:
        return None
    assert plan.info is not None
    with _step(plan.place.path):
        return prepare_replace(plan.place, plan.info, new)


def _commit(plans: list[_Plan], ready: list[tuple[_Plan, Pending]]) -> None:
    """Let every change take effect, in an order that can be undone."""
    done = _Done()
    left = list(ready)
    try:
        for plan in plans:
            if plan.removes:
                _set_aside(plan, done)
        while left:
            plan, pending = left[0]
            _take_effect(plan, pending, done)
            left.pop(0)
    except BaseException as exc:
        for _, pending in reversed(left):
            pending.discard()
        restored = _undo(done)
        if isinstance(exc, _StepFailed):
            raise _failure(exc, *restored) from None
        raise
    for place, hidden in done.removed:
        try:
            os.unlink(hidden, dir_fd=place.directory)
        except OSError as exc:  # unlikely: the rename before it was allowed
            log.warning("could not remove %s, set aside as %s: %s", place.path, hidden, exc)
        fsync_directory(place.directory)


def _take_effect(plan: _Plan, pending: Pending, done: _Done) -> None:
    if plan.renamed:
        assert plan.target is not None
        source, target = plan.place, plan.target
        with _step(target.path, "move"):
            pending.commit()
        done.undo.append((source.path, lambda: _move_back(source, target)))
    elif plan.change.action == "add" or plan.target is not None:
        place = plan.target or plan.place
        with _step(place.path):
            pending.commit()
        done.undo.append((place.path, lambda: _remove_new(place)))
    else:
        place, old = plan.place, plan.old
        with _step(place.path):
            pending.commit()
        done.undo.append((place.path, lambda: _put_back(place, old)))


class _StepFailed(Exception):
    """A write of one file failed: its one argument says which, and why."""


def _set_aside(plan: _Plan, done: _Done) -> None:
    """Rename the file to remove to a hidden name beside it, until the patch is done."""
    place, info = plan.place, plan.info
    assert info is not None
    with _step(place.path, "remove"):
        now = place.lstat()
        if now is None or not same_state(now, info):
            raise Changed(place.path)
        hidden = _free_name(place)
        os.rename(place.name, hidden, src_dir_fd=place.directory, dst_dir_fd=place.directory)
    done.undo.append((place.path, lambda: _rename(place, hidden, place.name)))
    done.removed.append((place, hidden))


@contextlib.contextmanager
def _step(path: str, action: str = "write") -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        raise _StepFailed(f"could not {action} {path}: {exc.strerror or exc}") from None
    except BorisError as exc:  # an in-place write that kept its backup: its own message
        raise _StepFailed(exc.message) from None


def _free_name(place: Place) -> str:
    for _ in range(100):
        name = temporary_name(place.name, ".del")
        try:
            os.stat(name, dir_fd=place.directory, follow_symlinks=False)
        except FileNotFoundError:
            return name
    raise FileExistsError(errno.EEXIST, "no free name to set the file aside", place.path)


def _remove_new(place: Place) -> None:
    os.unlink(place.name, dir_fd=place.directory)
    place.remove_made()
    fsync_directory(place.directory)


def _move_back(source: Place, target: Place) -> None:
    os.rename(target.name, source.name, src_dir_fd=target.directory, dst_dir_fd=source.directory)
    target.remove_made()
    fsync_directory(source.directory)
    fsync_directory(target.directory)


def _put_back(place: Place, old: bytes) -> None:
    now = place.lstat()
    if now is None:
        raise FileNotFoundError(errno.ENOENT, "it is gone", place.path)
    replace_existing(place, now, old)


def _rename(place: Place, hidden: str, name: str) -> None:
    os.rename(hidden, name, src_dir_fd=place.directory, dst_dir_fd=place.directory)
    fsync_directory(place.directory)


def _undo(done: _Done) -> tuple[list[str], list[str]]:
    """Undo the steps done, last first: the paths restored, and those that could not be
    (with why)."""
    restored, failed = [], []
    for path, undo in reversed(done.undo):
        try:
            undo()
        except (OSError, BorisError, Changed) as exc:
            if isinstance(exc, Changed):  # it holds only the path, named already
                reason = "another process changed or removed it meanwhile"
            else:
                reason = exc.message if isinstance(exc, BorisError) else str(exc)
            failed.append(f"{path} ({reason})")
        else:
            restored.append(path)
    return restored[::-1], failed[::-1]


def _failure(failed: _StepFailed, restored: list[str], unrestored: list[str]) -> BorisError:
    """The error of a patch whose write failed at one file: what was restored."""
    reason = str(failed)
    if not restored and not unrestored:
        return BorisError(Code.IO_ERROR, f"{reason}; nothing was changed")
    if not unrestored:
        return BorisError(
            Code.IO_ERROR,
            f"{reason}; the files already changed were restored "
            f"({', '.join(restored)}), so nothing was changed",
        )
    also = f" (restored: {', '.join(restored)})" if restored else ""
    return BorisError(
        Code.IO_ERROR,
        f"{reason}; the files already changed could not all be restored: "
        f"{', '.join(unrestored)} keep the patch's changes{also}",
    )
