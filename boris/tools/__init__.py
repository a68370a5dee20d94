"""The tools, one module each, named after the tool (``bash.py`` serves ``bash``): plain
typed functions that hand their arguments to the domain and return its text, each
declared once, at its decorators:

- fastmcp's own ``@tool`` (fastmcp's standalone decorator, for tools defined apart from
  their server): the tool's name, its annotations (title and hints: :func:`read_only`,
  :func:`destructive`) and its description, plain text or a
  :class:`~boris.descriptions.Described` made of parts (:class:`Mention`, :class:`Filled`);
- Boris's :func:`served`, where Boris serves more than fastmcp knows of: the sentence
  view-before-edit adds, another description in compat mode, the two names of an
  argument, or that this function serves the tool in compat mode.

``boris.app`` builds the app from the modules of the list of tools
(``boris.toolset.TOOLS``, which also holds the modes that serve each tool), taking each
tool's function for the mode from its module (:func:`declaration`).

Tool functions carry no docstring: fastmcp would parse it with griffe, which costs
start-up time. What clients read is the declared description, with the parts that
depend on the settings or on the other tools served filled in
(boris.descriptions.describe).
"""

from __future__ import annotations

import base64
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from fastmcp.decorators import get_fastmcp_meta
from fastmcp.tools.function_tool import ToolMeta
from mcp_types import ImageContent, TextContent, ToolAnnotations

from boris.descriptions import Described, Filled, Mention, Part, parts_of
from boris.files.lines import Image
from boris.files.notebook.view import NotebookView
from boris.shell.progress import Send

if TYPE_CHECKING:
    from fastmcp import Context

__all__ = [
    "UNLISTED",
    "Declaration",
    "Described",
    "Filled",
    "Mention",
    "Served",
    "Unlisted",
    "ViewContent",
    "as_content",
    "declaration",
    "destructive",
    "progress_of",
    "read_only",
    "served",
]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Served:
    """What Boris serves of a tool function beyond fastmcp's declaration (:func:`served`)."""

    #: This function serves the tool with --anthropic-compat (another schema there).
    compat: bool = False
    #: With --anthropic-compat, this description instead of the one at ``@tool``.
    compat_description: str | None = None
    #: The sentence the description gains while view-before-edit is on.
    view_first: str = ""
    #: Two names of one argument: the schema lists one, the other is understood too.
    name_pairs: Mapping[str, str] = field(default_factory=dict)


def served(
    *,
    compat: bool = False,
    compat_description: str | None = None,
    view_first: str = "",
    name_pairs: Mapping[str, str] | None = None,
) -> Callable[[F], F]:
    """Boris's part of a tool function's declaration, beside fastmcp's ``@tool``."""

    def mark(fn: F) -> F:
        fn.__boris__ = Served(  # type: ignore[attr-defined]
            compat=compat,
            compat_description=compat_description,
            view_first=view_first,
            name_pairs=dict(name_pairs or {}),
        )
        return fn

    return mark


def served_of(fn: Callable[..., Any]) -> Served:
    """What :func:`served` declared of ``fn``; the defaults if nothing."""
    found = getattr(fn, "__boris__", None)
    return found if isinstance(found, Served) else Served()


@dataclass(frozen=True)
class Declaration:
    """A tool as its module declares it for one mode."""

    name: str
    #: The function serving the tool in this mode.
    function: Callable[..., Any]
    annotations: ToolAnnotations | None
    #: The description's parts (boris.descriptions.describe puts them together).
    parts: tuple[Part, ...]
    view_first: str
    name_pairs: Mapping[str, str]


def declaration(name: str, compat: bool) -> Declaration:
    """Tool ``name`` as its module, ``boris.tools.<name>``, declares it for the mode:
    the function whose ``@tool`` names it and that :func:`served` marks for compat mode
    (in compat mode, if the module has one), else the one it does not mark."""
    module = importlib.import_module(f"boris.tools.{name}")
    functions: dict[bool, Callable[..., Any]] = {}
    for value in vars(module).values():
        meta = get_fastmcp_meta(value) if callable(value) else None
        if isinstance(meta, ToolMeta) and meta.name == name:
            variant = served_of(value).compat
            assert variant not in functions, f"boris.tools.{name}: two functions for one mode"
            functions[variant] = value
    assert False in functions, f"boris.tools.{name} declares no @tool({name!r}) for both modes"
    function = functions[True] if compat and True in functions else functions[False]
    meta = get_fastmcp_meta(function)
    assert isinstance(meta, ToolMeta)
    extras = served_of(function)
    description = meta.description
    if compat and extras.compat_description is not None:
        description = extras.compat_description
    assert description is not None, f"boris.tools.{name}: no description"
    return Declaration(
        name=name,
        function=function,
        annotations=meta.annotations,
        parts=parts_of(description),
        view_first=extras.view_first,
        name_pairs=extras.name_pairs,
    )


#: The sentence the description of every tool that edits source files ends with.
SYNTAX_CHECKED = (
    "Syntax errors the edit brings into a source file (Python, JavaScript, TypeScript, "
    "Go, Rust, Java, C, C++, C#, Ruby, PHP, Kotlin, Swift, Bash) are listed after the result."
)


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
