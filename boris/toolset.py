"""Which tools each mode serves, and what ``--disable-tools`` may name and removes.

Plain data, importing nothing of Boris: settings validates ``--disable-tools`` with it
before anything heavy is loaded, and the app serves by it.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Tools served in the default mode, in tools/list order.
DEFAULT_TOOLS = (
    "bash",
    "task_output",
    "task_stop",
    "view",
    "str_replace",
    "multi_edit",
    "apply_patch",
    "create_file",
    "notebook_edit",
    "grep",
    "glob",
)

#: Tools served with --anthropic-compat: one editor replaces the three file tools;
#: apply_patch and notebook_edit are served beside it.
COMPAT_TOOLS = (
    "bash",
    "task_output",
    "task_stop",
    "str_replace_editor",
    "apply_patch",
    "notebook_edit",
    "grep",
    "glob",
)

#: The split file tools whose work the compat editor does.
EDITOR_PARTS = ("view", "str_replace", "create_file")


def served(compat: bool) -> tuple[str, ...]:
    """The tools of a mode, in tools/list order."""
    return COMPAT_TOOLS if compat else DEFAULT_TOOLS


def valid_disable_names(compat: bool) -> tuple[str, ...]:
    """Names --disable-tools accepts: the mode's tools, plus in compat mode the editor's parts
    and multi_edit (not served there, so naming it changes nothing: one list of names
    can serve both modes)."""
    return (*COMPAT_TOOLS, *EDITOR_PARTS, "multi_edit") if compat else DEFAULT_TOOLS


def removed(compat: bool, disabled: Iterable[str]) -> set[str]:
    """The tools of a mode that the --disable-tools names take away.

    bash and task_output live and die together, and task_stop with them (it can also
    go alone); in compat mode disabling any part of the editor removes the editor.
    """
    off = set(disabled)
    if off & {"bash", "task_output"}:
        off |= {"bash", "task_output", "task_stop"}
    if compat and off & {*EDITOR_PARTS, "str_replace_editor"}:
        off.add("str_replace_editor")
    return off & set(served(compat))
