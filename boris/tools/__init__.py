"""The tools, one module each, named after the tool (``bash.py`` serves ``bash``): plain
typed functions that hand their arguments to the domain and return its text, and the
module's ``TOOL``, a :class:`Declared` saying how they are served. ``boris.app`` builds
the app from these modules, those of the list of tools (``boris.toolset.TOOLS``, which
also holds the modes that serve each tool).

Tool functions carry no docstring: fastmcp would parse it with griffe, which costs
start-up time. What clients read is the declared description, with the parts that
depend on the settings or on the other tools served filled in by ``boris.app``.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp_types import ImageContent, TextContent, ToolAnnotations

from boris.files.lines import Image
from boris.files.notebook.view import NotebookView
from boris.shell.progress import Send

if TYPE_CHECKING:
    from fastmcp import Context


@dataclass(frozen=True)
class Mention:
    """A part of a description that names another tool: left out while that tool is not
    served (``--disable-tools``)."""

    tool: str
    text: str


@dataclass(frozen=True)
class Filled:
    """A part of a description whose ``{fields}`` are settings (boris.settings.Settings),
    filled in with their values."""

    template: str


#: What clients read about a tool: its text, whole or in parts.
Part = str | Mention | Filled
Description = Part | tuple[Part, ...]


@dataclass(frozen=True)
class Declared:
    """A tool as its module declares it. Its name is the module's, and the list of tools
    (boris.toolset.TOOLS) says which modes serve it."""

    #: The function serving the tool.
    function: Callable[..., Any]
    #: Its title and hints (:func:`read_only`, :func:`destructive`).
    annotations: ToolAnnotations
    description: Description
    #: With --anthropic-compat, another function or description, if the tool has one there.
    compat_function: Callable[..., Any] | None = None
    compat_description: Description | None = None
    #: The sentence the description gains while view-before-edit is on.
    view_first: str = ""
    #: Two names of one argument: the schema lists one, the other is understood too.
    name_pairs: Mapping[str, str] = field(default_factory=dict)

    def function_in(self, compat: bool) -> Callable[..., Any]:
        if compat and self.compat_function is not None:
            return self.compat_function
        return self.function

    def description_in(self, compat: bool) -> Description:
        if compat and self.compat_description is not None:
            return self.compat_description
        return self.description


def read_only(title: str) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=True, destructive_hint=False)


def destructive(title: str) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=False, destructive_hint=True)


class Unlisted:
    """Marks a parameter the schema does not show (``Annotated[str | None, UNLISTED]``):
    a client that knows it may still send it."""

    def __repr__(self) -> str:
        return "UNLISTED"


UNLISTED = Unlisted()


ViewContent = str | ImageContent | list[TextContent | ImageContent]


def as_content(result: str | Image | NotebookView) -> ViewContent:
    """A view result as the client receives it: text, an image block, or a notebook's
    text followed by the images of its outputs."""
    if isinstance(result, Image):
        return _image(result)
    if isinstance(result, NotebookView):
        return [TextContent(type="text", text=result.text), *map(_image, result.images)]
    return result


def _image(image: Image) -> ImageContent:
    encoded = base64.b64encode(image.data).decode("ascii")
    return ImageContent(type="image", data=encoded, mime_type=image.mime_type)


def progress_of(ctx: Context) -> Send | None:
    """How to send output lines as progress: None unless the client gave a progress token."""
    request = ctx.request_context
    if request is None or not request.meta or request.meta.get("progressToken") is None:
        return None

    async def send(count: int, line: str) -> None:
        await ctx.report_progress(progress=count, total=None, message=line)

    return send
