"""What a file operation knows of its caller: where relative paths start, what is in
scope, the size limit, and the view-before-edit rule.

Every file tool checks in the same order: invalid input, then ``ACCESS_DENIED``
(:meth:`FileAccess.resolve`), then ``PATH_NOT_FOUND``, then ``FILE_NOT_VIEWED``, then
the size limit, then the operation itself. Only a call that passes all of them
touches the disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from boris.errors import BorisError, Code
from boris.files.lines import human_size
from boris.files.scope import PathScope


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
    mark_viewed: Callable[[str], None]

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

    def check_size(self, size: int, subject: str) -> None:
        """``FILE_TOO_LARGE`` when ``size`` bytes exceed ``--max-file-size``."""
        limit = self.max_size
        if size > limit:
            raise BorisError(
                Code.FILE_TOO_LARGE,
                f"{subject} {human_size(size)} ({size} bytes), over the {human_size(limit)} "
                "limit set by --max-file-size",
            )
