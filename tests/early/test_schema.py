"""boris.early.schema is never less strict than the SDK's models: parameters it takes as
conforming to a model's JSON Schema, the model accepts (checked on generated
parameters, right and wrong), and a schema holding a keyword it does not read decides
nothing."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st
from mcp_types import InitializeRequestParams, PaginatedRequestParams
from mcp_types import methods as sdk_methods
from pydantic import BaseModel, ValidationError

from boris.early.schema import conforms

#: JSON values of every kind, small.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=3),
)
ANY_JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=4,
)


def maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``value`` mostly, anything at all now and then."""
    return st.one_of(*[value] * 24, ANY_JSON)


CAPABILITY = maybe(st.fixed_dictionaries({}, optional={"listChanged": maybe(st.booleans())}))
CAPABILITIES = maybe(
    st.fixed_dictionaries(
        {},
        optional={
            "roots": CAPABILITY,
            "sampling": maybe(st.fixed_dictionaries({}, optional={"context": maybe(st.just({}))})),
            "elicitation": maybe(st.fixed_dictionaries({}, optional={"form": maybe(st.just({}))})),
            "experimental": maybe(
                st.dictionaries(st.text(max_size=2), maybe(st.just({})), max_size=2)
            ),
            "extensions": maybe(
                st.dictionaries(st.text(max_size=2), maybe(st.just({})), max_size=2)
            ),
            "tasks": maybe(st.fixed_dictionaries({}, optional={"list": maybe(st.just({}))})),
        },
    )
)
IMPLEMENTATION = maybe(
    st.fixed_dictionaries(
        {"name": maybe(st.text(max_size=3)), "version": maybe(st.text(max_size=3))},
        optional={
            "title": maybe(st.text(max_size=3)),
            "icons": maybe(
                st.lists(st.fixed_dictionaries({"src": maybe(st.text(max_size=3))}), max_size=2)
            ),
        },
    )
)
META = maybe(
    st.fixed_dictionaries(
        {}, optional={"progressToken": maybe(st.integers() | st.text(max_size=3))}
    )
)
INITIALIZE = maybe(
    st.fixed_dictionaries(
        {
            "protocolVersion": maybe(st.sampled_from(["2025-11-25", "2024-11-05", "x"])),
            "capabilities": CAPABILITIES,
            "clientInfo": IMPLEMENTATION,
        },
        optional={"_meta": META},
    )
)
LIST = st.fixed_dictionaries({}, optional={"cursor": maybe(st.text(max_size=3)), "_meta": META})


def accepted(model: type[BaseModel], value: Any) -> bool:
    try:
        model.model_validate(value, by_name=False)
    except ValidationError:
        return False
    return True


@functools.cache
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True)


def check(model: type[BaseModel], value: Any) -> None:
    ours = conforms(value, schema_of(model))
    event("conforms" if ours else "does not conform")
    if ours:
        assert accepted(model, value), value


@given(params=INITIALIZE)
def test_initialize_parameters_that_conform_are_accepted(params: dict[str, Any]) -> None:
    check(InitializeRequestParams, params)
    wire = sdk_methods.CLIENT_REQUESTS[("initialize", "2025-11-25")]
    check(wire, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})


@given(params=LIST)
def test_list_parameters_that_conform_are_accepted(params: dict[str, Any]) -> None:
    check(PaginatedRequestParams, params)
    for version in ("2024-11-05", "2025-11-25"):
        wire = sdk_methods.CLIENT_REQUESTS[("tools/list", version)]
        check(wire, {"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": params})


def test_a_keyword_not_read_decides_nothing() -> None:
    assert conforms("abc", {"type": "string"})
    assert not conforms("abc", {"type": "string", "pattern": "^a"})
    assert not conforms({"a": "abc"}, {"properties": {"a": {"type": "string", "format": "uri"}}})


def test_json_types_are_told_apart() -> None:
    assert not conforms(True, {"type": "integer"})
    assert not conforms(1, {"const": True})
    assert not conforms("1", {"type": "integer"})
    assert conforms(1, {"anyOf": [{"type": "string"}, {"type": "integer"}]})
    assert not conforms({}, {"required": ["x"]})
    assert not conforms({"x": 1}, {"additionalProperties": False})
    assert conforms({"x": 1}, {"$defs": {"A": {"type": "object"}}, "$ref": "#/$defs/A"})
    assert not conforms({}, {"$ref": "#/$defs/Missing"})
