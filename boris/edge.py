"""The edge between MCP and the tools: what a client sends in, what it gets back.

Every tool call passes here on its way in and out, whatever the transport:

- a call of a tool that is not served is refused (``[INVALID_INPUT] unknown tool 'x';
  available: …``: :class:`CallGuard`);
- the arguments are checked against the tool's schema before anything walks them
  (:mod:`boris.arguments`: unknown names, lists longer than allowed, lone surrogates),
  here and nowhere else;
- they are then validated strictly (a string where an integer belongs is the client's
  mistake, not something to coerce), and a bad one is named in an
  ``[INVALID_INPUT] <argument>: <what is wrong>`` result;
- a :class:`~boris.errors.BorisError` raised below becomes its ``[CODE] message``
  result with ``isError: true``;
- every text that goes back is valid Unicode (:func:`boris.text.printable`).

Failures are caught in the tool's own dispatch (:meth:`EdgeTool.run`) rather than in
middleware: fastmcp logs any other exception escaping a tool as an ERROR with its
traceback before middleware sees it, and a missing file is the client's business,
not an event for the server's log.

A transport that parsed a call itself may hand the SDK the message without its
arguments and the arguments beside it (:func:`arguments_beside`), so that they are
parsed once and the SDK's parser, which refuses a lone surrogate anywhere in a message,
never reads them; :class:`CallGuard` puts them back.
"""

from __future__ import annotations

import functools
import inspect
import logging
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any

import mcp_types
import pydantic_core
from fastmcp.exceptions import NotFoundError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from fastmcp.tools.function_tool import FunctionTool
from mcp_types import ToolAnnotations
from pydantic import Field, Strict, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from boris.arguments import check_arguments
from boris.changes import wrote
from boris.errors import BorisError, Code
from boris.text import printable
from boris.tools import Unlisted

log = logging.getLogger("boris.edge")


def failure(error: BorisError) -> ToolResult:
    """The result a client gets for ``error``."""
    return ToolResult(content=[mcp_types.TextContent(type="text", text=str(error))], is_error=True)


class EdgeTool(FunctionTool):
    """A tool function as Boris serves it: strict arguments, failures as results, and
    text that can always be sent."""

    #: Other names clients may give an argument by: the unlisted name → the listed one.
    aliases: dict[str, str] = Field(default_factory=dict)
    #: The input schema with the unlisted parameters too: what a call may hold.
    accepted: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(
        cls,
        fn: Callable[..., Any],
        *,
        name: str,
        description: str,
        annotations: ToolAnnotations | None,
        pairs: Mapping[str, str] | None = None,
    ) -> EdgeTool:
        """The tool ``name`` served by ``fn``, a plain typed function.

        Parameters marked :data:`~boris.tools.UNLISTED` are left out of the schema.
        ``pairs`` are two names for one argument: whichever of the two the schema
        lists, the other is understood as an alias of it. The tool has no output
        schema: a text result is not copied into ``structuredContent``.
        """
        strict = strictly_typed(fn)
        tool = cls.from_function(
            strict,
            name=name,
            description=description,
            annotations=annotations,
            output_schema=None,
        )
        schema = tool.parameters
        unlisted = _unlisted(strict)
        properties = {k: v for k, v in schema["properties"].items() if k not in unlisted}
        parameters = {**schema, "properties": properties}
        if "required" in schema:
            parameters["required"] = [r for r in schema["required"] if r not in unlisted]
        aliases = {}
        for first, second in (pairs or {}).items():
            if first in properties and second not in properties:
                aliases[second] = first
            elif second in properties and first not in properties:
                aliases[first] = second
        served = tool.model_copy(
            update={"parameters": parameters, "aliases": aliases, "accepted": schema}
        )
        assert isinstance(served, EdgeTool)
        return served

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        # A call that may write counts as one as it starts and as it ends: what a
        # search kept for its next page while it ran is not used after it.
        writes = self.annotations is None or not self.annotations.read_only_hint
        try:
            if writes:
                wrote()
            check_arguments(arguments, self.accepted, self.aliases)
            arguments, given_as = self._listed_names(arguments)
            self._refuse_invalid(arguments, given_as)
            result = await super().run(arguments)
        except BorisError as error:
            return failure(error)
        except ValidationError as exc:  # fastmcp's, not pydantic's: said as it is
            return failure(BorisError(Code.INVALID_INPUT, str(exc)))
        finally:
            if writes:
                wrote()
        try:
            return _printable(result, self.name)
        except BorisError as error:
            return failure(error)

    def _refuse_invalid(self, arguments: dict[str, Any], given_as: Mapping[str, str]) -> None:
        """Refuse ``arguments`` if fastmcp's validation would, naming each bad one.

        fastmcp turns a validation error into a text quoting the input (a repr of
        each bad value, however large: half a second for a list of 100,000 items) on
        the event loop; Boris's message needs only pydantic's list of errors. So the
        arguments are validated here first, the same way, and fastmcp validates
        them again once they are known to be good: a few microseconds per call.
        """
        try:
            _argument_validator(self.fn).validate_python(arguments)
        except PydanticValidationError as exc:
            raise _invalid_arguments(exc, given_as) from None

    def _listed_names(self, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """``arguments`` with each alias put under the listed name it stands for, which it
        overrides; and each such name → the alias it came as. An alias that is null or
        empty counts as not given."""
        if not self.aliases or self.aliases.keys().isdisjoint(arguments):
            return arguments, {}
        renamed = dict(arguments)
        given_as = {}
        for alias, name in self.aliases.items():
            if alias not in renamed:
                continue
            value = renamed.pop(alias)
            if value is None or value == "":
                continue
            renamed[name] = value
            given_as[name] = alias
        return renamed, given_as


@functools.lru_cache(maxsize=64)  # a server has a dozen; a test run builds many apps
def _argument_validator(strict: Callable[..., Any]) -> TypeAdapter[Any]:
    """A validator of the arguments of a :func:`strictly_typed` function, as fastmcp
    validates them before it calls the function: by a function of the same parameters,
    its injected ones (the session, the context) left out, that does nothing. Made on
    the tool's first call, as fastmcp makes its own."""
    listed = [p for p in inspect.signature(strict).parameters.values() if _set_by_client(p)]

    def accept(*args: Any, **kwargs: Any) -> None:
        return None

    accept.__signature__ = inspect.Signature(listed)  # type: ignore[attr-defined]
    accept.__annotations__ = {p.name: strict.__annotations__[p.name] for p in listed}
    return TypeAdapter(typing.cast(Any, accept))  # a function: pydantic validates a call


def _set_by_client(parameter: inspect.Parameter) -> bool:
    """Whether a tool function's ``parameter`` is one a client sets (not a dependency
    fastmcp injects, whose default says where it comes from)."""
    default = parameter.default
    return default is parameter.empty or default is None or isinstance(default, str | int)


def _unlisted(strict: Callable[..., Any]) -> set[str]:
    """The parameters of a :func:`strictly_typed` function marked UNLISTED."""
    return {
        name
        for name, hint in strict.__annotations__.items()
        if any(isinstance(meta, Unlisted) for meta in getattr(hint, "__metadata__", ()))
    }


def _invalid_arguments(exc: PydanticValidationError, given_as: Mapping[str, str]) -> BorisError:
    """``INVALID_INPUT`` naming each bad argument; one that came by an alias is named by
    the alias, with the one problem of its value (not each branch of an optional type)."""
    problems = []
    reported: set[str] = set()
    for error in exc.errors(include_url=False, include_input=False):
        loc = error.get("loc", ())
        if loc and loc[0] in given_as:
            alias = given_as[str(loc[0])]
            if error.get("type") == "none_required" or alias in reported:
                continue
            reported.add(alias)
            error = {**error, "loc": (alias,)}
        problems.append(_describe_argument_error(error))
    message = "; ".join(problems)
    log.debug("invalid arguments: %s", message)
    return BorisError(Code.INVALID_INPUT, message)


def _describe_argument_error(error: Any) -> str:
    loc = ".".join(str(part) for part in error.get("loc", ()))
    kind = error.get("type")
    if kind in ("missing", "missing_argument"):
        message = "missing required argument"
    elif kind == "none_required":
        message = "Input should be null"  # JSON's name for it, as the client wrote it
    elif kind == "unexpected_keyword_argument":
        message = "unknown argument"
    elif kind == "model_type":
        # Not the name of the class behind it, which means nothing to a client.
        message = "Input should be an object"
    else:
        message = str(error.get("msg", "invalid value"))
    return f"{loc}: {message}" if loc else message


def _printable(result: ToolResult, tool: str) -> ToolResult:
    """``result`` with its text made valid Unicode; ``IO_ERROR`` for anything else in it
    that cannot be encoded as JSON.

    Text from the file system can hold lone surrogates (a file name that is not UTF-8),
    which no JSON encoder accepts: one reply that cannot be encoded would end a STDIO
    session. They become U+FFFD here, whichever tool produced them.
    """
    content: list[mcp_types.ContentBlock] = []
    changed = False
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            safe = printable(block.text)
            if safe is not block.text:
                block = block.model_copy(update={"text": safe})
                changed = True
        content.append(block)
    try:
        for block in content:
            if not isinstance(block, mcp_types.TextContent):
                block.model_dump_json()
        for extra in (result.structured_content, result.meta):
            if extra is not None:
                pydantic_core.to_json(extra)
    except pydantic_core.PydanticSerializationError as exc:
        reason = printable(str(exc))
        raise BorisError(
            Code.IO_ERROR, f"the result of {printable(tool)} cannot be sent as JSON: {reason}"
        ) from None
    return result.model_copy(update={"content": content}) if changed else result


class CallGuard(Middleware):
    """Every tool call's way in: its arguments put back if a transport handed them on
    beside the message (:func:`arguments_beside`), and a call of a tool that is not
    served refused."""

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, ToolResult]
    ) -> ToolResult:
        beside = _ARGUMENTS_BESIDE.get()
        if beside is not None and context.fastmcp_context is not None:
            arguments = beside.take(context.fastmcp_context.request_id, context.message.name)
            if arguments is not None:
                # The message fastmcp made for this call alone: filled in, not copied.
                context.message.arguments = arguments
        try:
            return await call_next(context)
        except NotFoundError:
            assert context.fastmcp_context is not None
            tools = await context.fastmcp_context.fastmcp.list_tools()
            return failure(unknown_tool(context.message.name, [t.name for t in tools]))


def unknown_tool(name: str, available: Iterable[str]) -> BorisError:
    return BorisError(
        Code.INVALID_INPUT, f"unknown tool {name!r}; available: {', '.join(available)}"
    )


class _Beside:
    """The arguments of one tools/call, until :class:`CallGuard` takes them."""

    def __init__(self, request_id: int | str, name: str, arguments: dict[str, Any]) -> None:
        self.request_id = str(request_id)
        self.name = name
        self.arguments: dict[str, Any] | None = arguments

    def take(self, request_id: str, name: str) -> dict[str, Any] | None:
        """The arguments, if they are the call ``request_id`` of tool ``name``'s; after
        that nothing holds them here (tasks the call starts inherit this object)."""
        if request_id != self.request_id or name != self.name:
            return None
        arguments, self.arguments = self.arguments, None
        return arguments


_ARGUMENTS_BESIDE: ContextVar[_Beside | None] = ContextVar("boris_arguments_beside", default=None)


@contextmanager
def arguments_beside(request_id: int | str, name: str, arguments: dict[str, Any]) -> Iterator[None]:
    """Around a transport's hand-off of the tools/call ``request_id`` of tool ``name``
    without its arguments: :class:`CallGuard` puts ``arguments`` back.

    The SDK runs each request's handler in the context of the task that sent the
    message in (so that an ASGI middleware's context reaches it), which is where this
    is set.
    """
    token = _ARGUMENTS_BESIDE.set(_Beside(request_id, name, arguments))
    try:
        yield
    finally:
        _ARGUMENTS_BESIDE.reset(token)


def strictly_typed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with every parameter a client sets marked Strict.

    A string where an integer belongs is the client's mistake, not something to
    coerce silently. fastmcp's own strict mode (``strict_input_validation``) encodes
    every call's arguments to JSON again and parses that, which costs three times the
    size of a large argument (a file's content) in memory; a Strict parameter is
    validated as it is. Every tool parameter has a JSON type, for which strict
    validation of the parsed value and of JSON agree. Injected parameters (a
    dependency as default) are left alone. The copy keeps ``fn``'s attributes.
    """
    # The defaults are set once the hints are resolved: before 3.11, get_type_hints made
    # the hint of a parameter whose default is None Optional (a null in the schema).
    strict = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, None, fn.__closure__)
    strict.__qualname__ = fn.__qualname__
    strict.__module__ = fn.__module__
    strict.__dict__.update(fn.__dict__)
    annotations = dict(fn.__annotations__)
    # Only these are resolved: an injected parameter's type may be imported for type
    # checking alone.
    strict.__annotations__ = {
        name: annotations[name]
        for name, parameter in inspect.signature(fn).parameters.items()
        if _set_by_client(parameter)
    }
    for name, hint in typing.get_type_hints(strict, include_extras=True).items():
        annotations[name] = _strict_type(hint)
    strict.__annotations__ = annotations
    strict.__defaults__ = fn.__defaults__
    strict.__kwdefaults__ = fn.__kwdefaults__
    if sys.version_info < (3, 11):
        _defaults_in_signature_only(strict)
    return strict


def _defaults_in_signature_only(fn: Callable[..., Any]) -> None:
    """Before 3.11, get_type_hints makes the hint of each parameter that defaults to None
    Optional, burying its Field (an alias is then lost), and fastmcp resolves the hints
    of the function its argument validator calls that way. The defaults move to
    ``__signature__``, which inspect and pydantic read (pydantic passes every default
    in), out of get_type_hints' sight."""
    fn.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    fn.__defaults__ = None
    fn.__kwdefaults__ = None


def _strict_type(hint: Any) -> Any:
    """``hint`` with Strict on each scalar inside it (pydantic takes it nowhere else)."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        inner, *metadata = typing.get_args(hint)
        arguments = (_strict_type(inner), *metadata)  # a starred subscript is 3.11+ syntax
        return Annotated[arguments]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_strict_type(arg) for arg in typing.get_args(hint))]  # noqa: UP007
    if origin is list:
        (item,) = typing.get_args(hint)
        return list[_strict_type(item)]  # type: ignore[misc]
    if hint in (str, int, float, bool):
        return Annotated[hint, Strict()]
    return hint
