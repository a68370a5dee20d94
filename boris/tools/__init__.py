"""The tools, one module each: plain typed functions carrying fastmcp's ``tool`` decorator
(name, annotations with the title, no structured output), which hand their arguments
to the domain and return its text. ``boris.app`` adds them to an app.

Tool functions carry no docstring: fastmcp would parse it with griffe, which costs
start-up time. What clients read is the decorator's ``description``, or for the
texts that depend on the settings, what ``boris.app.describe`` makes of them.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from mcp_types import ImageContent, TextContent, ToolAnnotations

from boris.files.lines import Image
from boris.files.notebook_view import NotebookView
from boris.shell.progress import Send

if TYPE_CHECKING:
    from fastmcp import Context


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
