"""What clients read about the server and its tools, put together for the settings: a
tool's description (:func:`describe`) and the initialize instructions
(:func:`instructions`).

A tool's description is declared at its decorator (boris/tools/): plain text, or a
:class:`Described` made of parts, some of which name another tool (:class:`Mention`:
left out while that tool is not served) or hold settings (:class:`Filled`). The app
(boris.app) and the answers given while it is still loading (boris.early) both put
descriptions together here, so they cannot differ. Plain Python: this module loads no
library, and reads settings by attribute, so the full settings and the early reading of
them (boris.early.settings) both serve.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from boris.text import printable


class Mention(NamedTuple):
    """A part of a description that names another tool: left out while that tool is not
    served (``--disable-tools``)."""

    tool: str
    text: str


class Filled(NamedTuple):
    """A part of a description whose ``{fields}`` are settings (boris.settings.Settings),
    filled in with their values."""

    template: str


#: A part of what clients read about a tool.
Part = str | Mention | Filled


class Described(str):
    """A description made of parts, given where fastmcp takes a tool's description.

    As a string it is every part's own text, settings unfilled: what fastmcp shows if
    the function is served without Boris. Boris reads :attr:`parts` (:func:`parts_of`).
    """

    parts: tuple[Part, ...]

    def __new__(cls, *parts: Part) -> Described:
        text = "".join(_text(part) for part in parts)
        described = super().__new__(cls, text)
        described.parts = parts
        return described


def _text(part: Part) -> str:
    if isinstance(part, Mention):
        return part.text
    if isinstance(part, Filled):
        return part.template
    return part


def parts_of(description: str) -> tuple[Part, ...]:
    """The parts of a declared description: one plain part unless it is a :class:`Described`."""
    return description.parts if isinstance(description, Described) else (description,)


def describe(parts: Sequence[Part], view_first: str, settings: Any, served: Collection[str]) -> str:
    """What clients read about a tool under ``settings``, beside the tools ``served``.

    A part that names another tool is left out while that tool is not served; a part
    made of settings has their values filled in (each ``{name}`` is the settings'
    attribute of that name, the derived ones such as ``timeout_ms`` too); the
    view-first sentence is added while view-before-edit is on.
    """
    text = ""
    for part in parts:
        if isinstance(part, Mention):
            text += part.text if part.tool in served else ""
        elif isinstance(part, Filled):
            text += part.template.format_map(_Values(settings))
        else:
            text += part
    if settings.require_view_before_edit:
        text += view_first
    return text


class _Values:
    """Settings as ``str.format_map`` reads them: each attribute by its name."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def __getitem__(self, name: str) -> Any:
        return getattr(self.settings, name)


def instructions(settings: Any) -> str:
    """The initialize result's instructions: where the session starts, and the scope.

    Valid Unicode whatever the paths: bytes of a name that are not UTF-8 (a ``--workdir``
    of another encoding) show as U+FFFD, as in every tool result.
    """
    text = f"Working directory: {settings.workdir}"
    if settings.allow_dirs:
        text += f"\nAllowed directories: {', '.join(settings.allow_dirs)}"
    if settings.deny_dirs:
        text += f"\nDenied patterns: {', '.join(settings.deny_dirs)}"
    return printable(text)
