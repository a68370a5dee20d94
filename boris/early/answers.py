"""The answers given while the app loads, put together from ``answers.json`` and the settings.

``answers.json`` (built from the app by boris.early.generate) holds each result as the
app sends it, for each protocol version, with a placeholder ``{"$boris": name}`` where
the settings come in: the instructions, the list of tools, each tool's description. The
tools are those the settings serve (boris.toolset.serving), each described by
boris.descriptions.describe from the parts its declaration has, as the app does. A reply
is encoded as the app's is: compact JSON, UTF-8 as it is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from boris import toolset
from boris.descriptions import Filled, Mention, Part, describe, instructions

#: The file, beside this module.
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "answers.json")
#: The key of a placeholder: ``{"$boris": "instructions"}``.
PLACEHOLDER = "$boris"

Json = Any


def load() -> Answers:
    # Through the module's loader: the first start of boris.pyz imports Boris from the
    # zip itself, where no open() reaches.
    data: bytes = __loader__.get_data(PATH)  # type: ignore[name-defined]
    return Answers(json.loads(data))


def placeholder(name: str) -> dict[str, str]:
    return {PLACEHOLDER: name}


def encode_part(part: Part) -> Json:
    """A description's part as answers.json holds it."""
    if isinstance(part, Mention):
        return {"mention": part.tool, "text": part.text}
    if isinstance(part, Filled):
        return {"filled": part.template}
    return part


def decode_part(value: Json) -> Part:
    if isinstance(value, str):
        return value
    if "mention" in value:
        return Mention(value["mention"], value["text"])
    return Filled(value["filled"])


def reply(request_id: int | str, result: Json) -> bytes:
    """The line answering ``request_id`` with ``result``, as the server encodes it.
    UnicodeEncodeError if it holds what UTF-8 cannot carry (a lone surrogate)."""
    message = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Answers:
    """The contents of answers.json, and the answers put together from them."""

    def __init__(self, data: Mapping[str, Json]) -> None:
        self.data = data
        #: What the settings' reading needs (boris.early.settings).
        self.settings: Mapping[str, Json] = data["settings"]
        #: The ``_meta`` keys of the 2026-07-28 envelope: protocol version, capabilities.
        self.envelope: Mapping[str, str] = data["envelope"]
        #: JSON Schemas of each request's parameters, by method and version.
        self.requests: Mapping[str, Mapping[str, Sequence[int]]] = data["requests"]
        self.schemas: Sequence[Json] = data["schemas"]

    def release(self) -> None:
        """Let go of the contents once the server has taken over (a few hundred KB that
        the process would otherwise keep to its end)."""
        self.data, self.settings, self.envelope, self.requests, self.schemas = {}, {}, {}, {}, []

    def schemas_of(self, method: str, version: str) -> list[Json] | None:
        """The schemas a message of ``method`` at ``version`` must conform to (the SDK's
        for that version, and the one its handler reads); None if there are none."""
        found = self.requests.get(method, {}).get(version)
        return None if found is None else [self.schemas[index] for index in found]

    def initialize(self, requested: str, settings: Any) -> Json:
        """The initialize result for a client asking for protocol version ``requested``."""
        templates = self.data["initialize"]
        template = templates.get(requested, templates["*"])
        return _filled(template, {"instructions": instructions(settings)})

    def discover(self, version: str, settings: Any) -> Json | None:
        """The server/discover result at ``version``; None if the file has none for it."""
        template = self.data["server/discover"].get(version)
        if template is None:
            return None
        return _filled(template, {"instructions": instructions(settings)})

    def tools_list(self, version: str, settings: Any) -> Json | None:
        """The tools/list result at ``version``; None if the file has none for it."""
        template = self.data["tools/list"].get(version)
        if template is None:
            return None
        return _filled(template, {"tools": self.tools(version, settings)})

    def tools(self, version: str, settings: Any) -> list[Json]:
        """The tools the settings serve, as tools/list at ``version`` lists them."""
        mode = toolset.mode(settings.anthropic_compat)
        served = toolset.serving(settings.anthropic_compat, settings.disable_tools)
        listed = dict(self.data["tools"][mode][version])
        declared = self.data["descriptions"][mode]
        tools = []
        for name in served:
            parts = [decode_part(part) for part in declared[name]["parts"]]
            text = describe(parts, declared[name]["view_first"], settings, served)
            tools.append(_filled(self.data["tool_objects"][listed[name]], {"description": text}))
        return tools


def _filled(template: Json, values: Mapping[str, Json]) -> Json:
    """``template`` with each placeholder replaced by its value."""
    if isinstance(template, dict):
        if len(template) == 1 and PLACEHOLDER in template:
            return values[template[PLACEHOLDER]]
        return {key: _filled(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [_filled(item, values) for item in template]
    return template
