"""The tool functions called in this process as plain functions, with a real Session in a
temporary directory: the property tests run thousands of calls, faster than through a
client."""

from __future__ import annotations

import asyncio
import functools
import tempfile
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from boris.files.access import FileAccess
from boris.files.scope import PathScope
from boris.session import Runtime, Session
from boris.settings import Settings
from boris.tools import create_file as create_file_tool
from boris.tools import str_replace as str_replace_tool
from boris.tools import str_replace_editor as editor_tool
from boris.tools import view as view_tool

P = ParamSpec("P")
T = TypeVar("T")


def in_loop(tool: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """An (async) tool function called as a plain one, each call on an event loop of its own."""

    @functools.wraps(tool)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(tool(*args, **kwargs))

    return call


@contextmanager
def session_in_tempdir(**settings: Any) -> Iterator[tuple[Session, Path]]:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory).resolve()
        runtime = Runtime(Settings(workdir=str(root), **settings), PathScope([], []), "/bin/sh")
        yield Session(id="test", runtime=runtime, cwd=str(root)), root


# The file tools as plain functions.
create_file = in_loop(create_file_tool.create_file)
str_replace = in_loop(str_replace_tool.str_replace)
str_replace_editor = in_loop(editor_tool.str_replace_editor)
view = in_loop(view_tool.view)


def open_access(root: Path) -> FileAccess:
    """What the file domain needs of a session, for ``root``: no scope, 1 MiB files, no
    view asked for first (the domain functions called without a session)."""
    return FileAccess(
        cwd=str(root),
        scope=PathScope([], []),
        max_size=1 << 20,
        view_first=False,
        viewed=lambda path: True,
        mark_viewed=lambda path, info: None,
    )
