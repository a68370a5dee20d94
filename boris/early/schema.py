"""A request's parameters against a JSON Schema of the SDK's own models, as pydantic writes
them (``model_json_schema``, stored in answers.json by boris.early.generate).

Only the keywords pydantic writes for those models are read; a schema holding any other
keyword decides nothing, and the request waits for the app. Where JSON Schema and
pydantic's lax validation differ, this is the stricter (an integer is a JSON integer, not
a string of digits or a boolean): what it accepts, the SDK accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Keywords that say nothing about what is valid.
_NOTES = frozenset({"title", "description", "default", "examples"})
_READ = frozenset(
    {
        "$ref",
        "$defs",
        "anyOf",
        "allOf",
        "enum",
        "const",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
    }
)
_REF = "#/$defs/"


def conforms(value: Any, schema: Any, defs: Mapping[str, Any] | None = None) -> bool:
    """Whether ``value`` (parsed JSON) certainly conforms to ``schema``; False also where
    the schema holds a keyword not read here. ``defs`` are the root schema's ``$defs``."""
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
    return _conforms(value, schema, defs or {})


def _conforms(value: Any, schema: Any, defs: Mapping[str, Any]) -> bool:
    if schema is True:
        return True
    if not isinstance(schema, dict) or not schema.keys() <= _READ | _NOTES:
        return False
    if "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith(_REF) or ref[len(_REF) :] not in defs:
            return False
        if not _conforms(value, defs[ref[len(_REF) :]], defs):
            return False
    if "anyOf" in schema and not any(_conforms(value, s, defs) for s in schema["anyOf"]):
        return False
    if "allOf" in schema and not all(_conforms(value, s, defs) for s in schema["allOf"]):
        return False
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        return False
    if "const" in schema and not _same(value, schema["const"]):
        return False
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, kind) for kind in kinds):
            return False
    if isinstance(value, dict):
        return _object_conforms(value, schema, defs)
    if isinstance(value, list) and "items" in schema:
        return all(_conforms(item, schema["items"], defs) for item in value)
    return True


def _object_conforms(
    value: dict[str, Any], schema: dict[str, Any], defs: Mapping[str, Any]
) -> bool:
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return False
    if any(name not in value for name in schema.get("required", ())):
        return False
    others = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            if not _conforms(item, properties[name], defs):
                return False
        elif others is False or (others is not True and not _conforms(item, others, defs)):
            return False
    return True


def _is(value: Any, kind: Any) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return type(value) is int
    if kind == "number":
        return type(value) in (int, float)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    return False


def _same(value: Any, expected: Any) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    if isinstance(value, dict) and isinstance(expected, dict):
        return value.keys() == expected.keys() and all(_same(value[k], expected[k]) for k in value)
    if isinstance(value, list) and isinstance(expected, list):
        return len(value) == len(expected) and all(map(_same, value, expected))
    return type(value) is type(expected) and value == expected
