"""The app as clients see it whatever the transport: argument errors and unknown tools are
``[INVALID_INPUT]`` results, and arguments are never coerced (README "Limits and bad input").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import app_client
from tests.support import error_text

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
            "[INVALID_INPUT] unknown tool 'nope'; available: "
            "bash, task_output, task_stop, view, str_replace, multi_edit, create_file, grep, glob"
        )
        # The server is still serving after all of that.
        assert len(await client.list_tools()) == 9


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
