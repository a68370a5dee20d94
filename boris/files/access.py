"""What a file operation knows of its caller: where relative paths start, what is in
scope, the size limit, and the view-before-edit rule.

Every file tool checks in the same order: invalid input, then ``ACCESS_DENIED``
(:meth:`FileAccess.resolve`), then ``PATH_NOT_FOUND``, then ``FILE_NOT_VIEWED``, then
the size limit, then the operation itself. Only a call that passes all of them
touches the disk.

What the caller saw of a file (its :data:`Identity`, when it viewed or wrote it)
guards the writes that do not look at what they replace (:meth:`FileAccess.require_fresh`),
and an edit's new text goes through the syntax check, if the caller has one, before
it is written (:data:`SyntaxCheck`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

from boris.errors import BorisError, Code
from boris.files.lines import human_size
from boris.files.scope import PathScope

#: What a caller saw of a file: device, inode, size, modification time in ns.
Identity = tuple[int, int, int, int]

#: What an edit asks of the syntax check before it writes: the file's path, a way to its
#: old bytes (None: it is new), its new bytes, and what they are (a whole ``file``, a
#: notebook's code ``cell``, a file of a ``patch``, whose lines name it). Returns the
#: text to add to the reply ("" for none); raises ``SYNTAX_ERROR`` to refuse the write.
#: boris.structure.edit_syntax makes it; the file tools know nothing of languages.
SyntaxCheck = Callable[[str, Callable[[], bytes | None], bytes, "Checked"], str]
Checked = Literal["file", "cell", "patch"]


def identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@dataclass(frozen=True)
class FileAccess:
    cwd: str
    scope: PathScope
    #: --max-file-size: the largest file read or written, in bytes.
    max_size: int
    #: --require-view-before-edit: an edit of a file not viewed first is refused.
    view_first: bool
    #: Whether the caller has viewed (or itself written) a resolved path.
    viewed: Callable[[str], bool]
    #: Records that the caller viewed or wrote a resolved path, and what it saw there.
    mark_viewed: Callable[[str, os.stat_result | None], None]
    #: What the caller last saw of a resolved path (None: nothing recorded).
    seen: Callable[[str], Identity | None] = lambda path: None
    #: --check-syntax (None: off).
    syntax: SyntaxCheck | None = None

    def resolve(self, path: str) -> str:
        """Resolve a tool's ``path`` against the cwd and check its scope."""
        return self.scope.resolve(path, self.cwd)

    def require_viewed(self, resolved: str, action: str) -> None:
        """``FILE_NOT_VIEWED`` unless view-before-edit is off or the file was viewed.

        ``action`` is ``editing`` or ``overwriting``.
        """
        if self.view_first and not self.viewed(resolved):
            raise BorisError(
                Code.FILE_NOT_VIEWED,
                f"file {resolved} must be viewed before {action}. Use the view tool first.",
            )

    def require_fresh(self, resolved: str, info: os.stat_result) -> None:
        """``FILE_CHANGED`` when the file the caller is about to overwrite without
        looking at its content (``info``, as it is now) is not what it last saw; off
        with view-before-edit."""
        if not self.view_first:
            return
        seen = self.seen(resolved)
        if seen is None or seen == identity(info):
            return
        when = datetime.fromtimestamp(info.st_mtime_ns / 1e9, timezone.utc)
        raise BorisError(
            Code.FILE_CHANGED,
            f"{resolved} changed since this session last viewed it (size {seen[2]} → "
            f"{info.st_size} bytes, modified {when.isoformat(timespec='milliseconds')}); "
            "view it again before overwriting",
        )

    def check_syntax(
        self,
        resolved: str,
        before: Callable[[], bytes | None],
        after: bytes,
        what: Checked = "file",
    ) -> str:
        """What the syntax check adds to an edit's reply ("" for nothing); it may refuse
        the edit (``SYNTAX_ERROR``)."""
        if self.syntax is None:
            return ""
        return self.syntax(resolved, before, after, what)

    def check_size(self, size: int, subject: str) -> None:
        """``FILE_TOO_LARGE`` when ``size`` bytes exceed ``--max-file-size``."""
        limit = self.max_size
        if size > limit:
            raise BorisError(
                Code.FILE_TOO_LARGE,
                f"{subject} {human_size(size)} ({size} bytes), over the {human_size(limit)} "
                "limit set by --max-file-size",
            )
