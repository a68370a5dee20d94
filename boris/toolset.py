"""The tools Boris serves, one module each. This package root stays import-light:
settings validation reads the names below before fastmcp is loaded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolDef:
    """What a tool module hands the server: the function and how to present it.

    Tool functions carry no docstring: fastmcp would parse it with griffe, which
    costs 60 ms of start-up. The description given here is what clients see.
    """

    fn: Callable[..., Any]
    title: str
    read_only: bool
    description: str
    #: Parameters ``fn`` accepts but the schema does not show: another mode's names
    #: for the same arguments, so a client using either set is understood.
    hidden_arguments: tuple[str, ...] = ()


#: Tools registered in the default mode, in tools/list order.
DEFAULT_TOOLS = ("bash", "task_output", "view", "str_replace", "create_file", "grep", "glob")

#: Tools registered with --anthropic-compat: one editor replaces the three file tools.
COMPAT_TOOLS = ("bash", "task_output", "str_replace_editor", "grep", "glob")

#: The split file tools whose work the compat editor does.
EDITOR_PARTS = ("view", "str_replace", "create_file")


def valid_disable_names(compat: bool) -> tuple[str, ...]:
    """Names --disable-tools accepts: the mode's tools, plus the editor's parts in compat mode."""
    return (*COMPAT_TOOLS, *EDITOR_PARTS) if compat else DEFAULT_TOOLS


def enabled_tools(compat: bool, disabled: frozenset[str] | set[str]) -> list[str]:
    """The tool names to register, given the mode and the --disable-tools names.

    bash and task_output live and die together; in compat mode disabling any part
    of the editor removes the editor.
    """
    off = set(disabled)
    if off & {"bash", "task_output"}:
        off |= {"bash", "task_output"}
    if compat and off & {*EDITOR_PARTS, "str_replace_editor"}:
        off.add("str_replace_editor")
    return [name for name in (COMPAT_TOOLS if compat else DEFAULT_TOOLS) if name not in off]
