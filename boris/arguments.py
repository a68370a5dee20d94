"""A tool call's arguments checked against the tool's input schema before anything else
walks them.

A message of 30 MB can hold ten million values in an argument no tool takes. Every step
that walks them one by one (a path named for each, pydantic's validation and its list of
errors, an error text quoting them) costs many times the message, on the event loop that
serves every session. This check comes first, and looks only where the schema leads:

- an argument, or a field of an object argument, that the schema does not name is
  refused by its name; its value is never looked at;
- a list longer than the schema's ``maxItems`` is refused by its length; its items are
  never looked at;
- every string it meets is checked for a lone surrogate (valid JSON, not Unicode text);
- values of another type than the schema's are left to the validation after it, which
  refuses each with one error.

So its work is bounded by the size of the values a tool takes, and the dotted path of a
value (``edits.0.old_str``) is only made for the one it refuses. Raises BorisError
(``INVALID_INPUT``); the messages are the ones the validation would give.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import islice
from typing import Any

from boris.errors import BorisError, Code
from boris.text import LONE_SURROGATE, has_lone_surrogate, printable

#: Unknown names an error names one by one; the rest are counted.
_NAMED = 5
#: Characters of an unknown name an error shows.
_NAME_SHOWN = 100

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}

Path = tuple[str | int, ...]


def check_arguments(
    arguments: Mapping[str, Any],
    schema: Mapping[str, Any],
    aliases: Mapping[str, str] | None = None,
) -> None:
    """Refuse ``arguments`` if the tool whose input schema is ``schema`` cannot take them
    (see the module's text). ``aliases`` are other names of the schema's arguments."""
    aliases = aliases or {}
    walk = _Walk(schema.get("$defs") or {})
    properties: Mapping[str, Any] = schema.get("properties") or {}
    accepted = {**{name: name for name in properties}, **aliases}
    walk.refuse_unknown(arguments, accepted, (), top=True)
    for name, value in arguments.items():
        walk.value(value, properties[accepted[name]], (name,))


class _Walk:
    def __init__(self, definitions: Mapping[str, Any]) -> None:
        self.definitions = definitions

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return self.resolve(self.definitions[reference.removeprefix("#/$defs/")])
        return schema

    def value(self, value: Any, schema: Mapping[str, Any], path: Path) -> None:
        if isinstance(value, str):
            if has_lone_surrogate(value):
                raise BorisError(Code.INVALID_INPUT, f"{_dotted(path)}: {LONE_SURROGATE}")
            return
        schema = self.resolve(schema)
        options = schema.get("anyOf")
        if options is not None:
            for option in map(self.resolve, options):
                if _of_type(value, option):
                    self.value(value, option, path)
                    return
            return  # no option fits: the validation refuses it
        if not _of_type(value, schema):
            return
        if isinstance(value, dict):
            properties: Mapping[str, Any] = schema.get("properties") or {}
            if schema.get("additionalProperties") is False:
                self.refuse_unknown(value, {name: name for name in properties}, path, top=False)
                children: Iterator[tuple[str, Any]] = iter(value.items())
            else:  # other fields are not this check's business: not looked at either
                children = ((name, value[name]) for name in properties if name in value)
            for name, child in children:
                self.value(child, properties[name], (*path, name))
        elif isinstance(value, list):
            most = schema.get("maxItems")
            if most is not None and len(value) > most:
                items = "item" if most == 1 else "items"
                raise BorisError(
                    Code.INVALID_INPUT,
                    f"{_dotted(path)}: List should have at most {most} {items} after "
                    f"validation, not {len(value)}",
                )
            item_schema = schema.get("items")
            if item_schema is not None:
                for index, item in enumerate(value):
                    self.value(item, item_schema, (*path, index))

    def refuse_unknown(
        self, value: Mapping[str, Any], accepted: Mapping[str, str], path: Path, *, top: bool
    ) -> None:
        """Refuse ``value`` if it has a key not in ``accepted``, naming the first few;
        costs the number of accepted names, plus the keys before the first few unknown
        ones."""
        unknown = len(value) - sum(1 for name in accepted if name in value)
        if not unknown:
            return
        named = list(islice((key for key in value if key not in accepted), _NAMED))
        what = "unknown argument" if top else "Extra inputs are not permitted"
        problems = [f"{_dotted((*path, _shown(name)))}: {what}" for name in named]
        if unknown > len(named):
            more = "unknown arguments" if top else "extra inputs"
            problems.append(f"and {unknown - len(named)} more {more}")
        raise BorisError(Code.INVALID_INPUT, "; ".join(problems))


def _of_type(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` is of the JSON type ``schema`` names (True if it names none)."""
    kind = schema.get("type")
    if not isinstance(kind, str) or kind not in _JSON_TYPES:
        return True
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _JSON_TYPES[kind])


def _shown(name: str) -> str:
    return name if len(name) <= _NAME_SHOWN else name[:_NAME_SHOWN] + "…"


def _dotted(path: Path) -> str:
    return printable(".".join(str(part) for part in path))
