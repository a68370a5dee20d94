"""The list of tools: each tool's name, the modes that serve it, and what ``--disable-tools``
takes away with it; every list of tool names Boris uses comes from it.

A tool is one module of :mod:`boris.tools` named after it (``boris/tools/bash.py`` serves
``bash``), which declares everything else about it (its functions, descriptions, the
view-first sentence: its decorators, see boris.tools). Only what settings needs before anything
heavy is loaded is here: settings validates ``--disable-tools`` with it without importing
fastmcp or a tool module, and so do the answers given before the app has loaded
(boris.early). Plain data, importing nothing of Boris (nor dataclasses, which imports
inspect: some 15 ms of those answers' time).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

#: The two modes: the default tools, and ``--anthropic-compat``.
DEFAULT = "default"
COMPAT = "compat"
BOTH = frozenset({DEFAULT, COMPAT})


class Listed(NamedTuple):
    """A tool as the list of tools holds it."""

    #: The tool's name, and its module's (``boris/tools/<name>.py``).
    name: str
    #: The modes that serve it.
    modes: frozenset[str] = BOTH
    #: Tools that go when this one is disabled: they only make sense together.
    together: tuple[str, ...] = ()
    #: Tools of the other mode whose work this one does: disabling one of them disables it.
    parts: tuple[str, ...] = ()


#: Every tool, in tools/list order (each mode lists its own in this order).
TOOLS = (
    Listed("bash", together=("task_output", "task_stop")),
    Listed("task_output", together=("bash", "task_stop")),
    Listed("task_stop"),
    Listed("view", modes=frozenset({DEFAULT})),
    Listed("str_replace", modes=frozenset({DEFAULT})),
    Listed("multi_edit", modes=frozenset({DEFAULT})),
    Listed(
        "str_replace_editor",
        modes=frozenset({COMPAT}),
        parts=("view", "str_replace", "create_file"),
    ),
    Listed("apply_patch"),
    Listed("create_file", modes=frozenset({DEFAULT})),
    Listed("notebook_edit"),
    Listed("grep"),
    Listed("glob"),
    Listed("symbols"),
)


def mode(compat: bool) -> str:
    return COMPAT if compat else DEFAULT


def served(compat: bool) -> tuple[str, ...]:
    """The tools of a mode, in tools/list order."""
    return tuple(tool.name for tool in TOOLS if mode(compat) in tool.modes)


def valid_disable_names(compat: bool) -> tuple[str, ...]:
    """Names --disable-tools accepts: the mode's tools; in compat mode also the parts of
    its tools, then every other tool (not served there, so naming it changes nothing:
    one list of names can serve both modes)."""
    names = served(compat)
    if not compat:
        return names
    parts = tuple(part for tool in TOOLS if tool.name in names for part in tool.parts)
    known = (*names, *parts)
    return (*known, *(tool.name for tool in TOOLS if tool.name not in known))


def removed(compat: bool, disabled: Iterable[str]) -> set[str]:
    """The tools of a mode that the --disable-tools names take away: each named tool with
    the tools that go with it, and each tool one of whose parts is named."""
    off = set(disabled)
    for tool in TOOLS:
        if tool.name in off:
            off.update(tool.together)
    for tool in TOOLS:
        if off.intersection(tool.parts):
            off.add(tool.name)
    return off & set(served(compat))


def serving(compat: bool, disabled: Iterable[str]) -> list[str]:
    """The tools a server of the mode serves, in tools/list order: the mode's own but those
    the --disable-tools names take away."""
    off = removed(compat, disabled)
    return [name for name in served(compat) if name not in off]
