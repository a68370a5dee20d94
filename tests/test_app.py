"""The app as clients see it whatever the transport: argument errors and unknown tools are
``[INVALID_INPUT]`` results, and arguments are never coerced (README "Limits and bad input").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import DEFAULT_TOOLS, error_text
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio


async def test_argument_errors_are_invalid_input_results(tmp_path: Path) -> None:
    async with app_client(workdir=tmp_path) as client:

        async def call(name: str, arguments: dict[str, Any]) -> str:
            return error_text(await client.call_tool(name, arguments, raise_on_error=False))

        assert (
            await call("view", {"path": 3})
            == "[INVALID_INPUT] path: Input should be a valid string"
        )
        assert await call("view", {}) == "[INVALID_INPUT] path: missing required argument"
        assert (
            await call("view", {"path": "x", "bogus": 1})
            == "[INVALID_INPUT] bogus: unknown argument"
        )
        assert await call("nope", {}) == (
            f"[INVALID_INPUT] unknown tool 'nope'; available: {', '.join(DEFAULT_TOOLS)}"
        )
        # The server is still serving after all of that.
        assert len(await client.list_tools()) == len(DEFAULT_TOOLS)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "bash",
            {"command": "true", "timeout": "1000"},
            "timeout.int: Input should be a valid integer; timeout.none: Input should be null",
        ),
        (
            "bash",
            {"command": "true", "timeout": 1000.0},
            "timeout.int: Input should be a valid integer; timeout.none: Input should be null",
        ),
        (
            "bash",
            {"command": "true", "run_in_background": 1},
            "run_in_background: Input should be a valid boolean",
        ),
        (
            "bash",
            {"command": "true", "run_in_background": "true"},
            "run_in_background: Input should be a valid boolean",
        ),
        (
            "grep",
            {"pattern": "x", "line_numbers": "false"},
            "line_numbers: Input should be a valid boolean",
        ),
        (
            "grep",
            {"pattern": "x", "head_limit": "3"},
            "head_limit: Input should be a valid integer",
        ),
        ("grep", {"pattern": "x", "-B": "2"}, "-B: Input should be a valid integer"),
        (
            "view",
            {"path": "x", "view_range": ["1", 2]},
            "view_range.0: Input should be a valid integer",
        ),
        (
            "view",
            {"path": "x", "view_range": [1.0, 2]},
            "view_range.0: Input should be a valid integer",
        ),
        ("view", {"path": None}, "path: Input should be a valid string"),
        ("glob", {"pattern": ["a"]}, "pattern: Input should be a valid string"),
    ],
)
async def test_arguments_are_not_coerced(
    client: Any, tool: str, arguments: dict[str, Any], message: str
) -> None:
    # A value of another JSON type is the client's mistake: "10" is not taken for 10,
    # nor 1 for true (README).
    result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert error_text(result) == f"[INVALID_INPUT] {message}"


# --- arguments checked before anything walks them (README "Limits and bad input") ---------

UNKNOWN_MANY = {"path": "x", **{f"k{i}": [0, {"a": "\ud800"}] for i in range(1000)}}


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        # An unknown argument is refused by its name, whatever it holds.
        ("view", {"path": "x", "junk": {"deep": ["ok", "\ud800"]}}, "junk: unknown argument"),
        (
            "view",
            {"path": 3, "junk": [0] * 100_000},
            "junk: unknown argument",
        ),
        (
            "view",
            UNKNOWN_MANY,
            "k0: unknown argument; k1: unknown argument; k2: unknown argument; "
            "k3: unknown argument; k4: unknown argument; and 995 more unknown arguments",
        ),
        ("view", {"path": "x", "p" * 1000: 1}, f"{'p' * 100}…: unknown argument"),
        # A list longer than the schema allows is refused by its length.
        (
            "view",
            {"path": "x", "view_range": [0] * 1_000_000},
            "view_range: List should have at most 2 items after validation, not 1000000",
        ),
        (
            "multi_edit",
            {"path": "x", "edits": [{"old_str": "\ud800"}] * 101},
            "edits: List should have at most 100 items after validation, not 101",
        ),
        # A field an object argument does not have, likewise.
        (
            "multi_edit",
            {"path": "x", "edits": [{"old_str": "a", **{f"f{i}": "\ud800" for i in range(1000)}}]},
            "edits.0.f0: Extra inputs are not permitted; edits.0.f1: Extra inputs are not "
            "permitted; edits.0.f2: Extra inputs are not permitted; edits.0.f3: Extra inputs "
            "are not permitted; edits.0.f4: Extra inputs are not permitted; and 995 more "
            "extra inputs",
        ),
        # A value of another type than the schema's is refused once, not item by item.
        (
            "multi_edit",
            {"path": "x", "edits": [{"old_str": [0] * 100_000}]},
            "edits.0.old_str: Input should be a valid string",
        ),
        (
            "view",
            {"path": {f"k{i}": i for i in range(100_000)}},
            "path: Input should be a valid string",
        ),
    ],
    ids=[
        "unknown-nested",
        "unknown-before-type",
        "many-unknown",
        "long-name",
        "too-long",
        "too-many-edits",
        "extra-fields",
        "wrong-type-list",
        "wrong-type-object",
    ],
)
async def test_arguments_a_tool_cannot_take_are_refused_before_they_are_walked(
    client: Any, tool: str, arguments: dict[str, Any], message: str
) -> None:
    result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert error_text(result) == f"[INVALID_INPUT] {message}"


async def test_grep_compat_names_are_known_arguments(client: Any, root: Path) -> None:
    # Other names of an argument (grep's "-i") are checked as the argument they stand for.
    result = await client.call_tool("grep", {"pattern": "x", "-i": "\ud800"}, raise_on_error=False)
    assert error_text(result) == (
        "[INVALID_INPUT] -i: contains a lone UTF-16 surrogate, which is not valid Unicode text"
    )
