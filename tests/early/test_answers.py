"""boris/early/answers.json is what boris.early.generate builds from the app as it is now,
and an answer put together from a file that is not is caught on the wire."""

from __future__ import annotations

import copy
import difflib
from pathlib import Path

import pytest

from boris.early import answers
from boris.early.generate import build_answers, text
from tests.support.early import app_replies, early_replies, early_settings, legacy

pytestmark = pytest.mark.anyio

REGENERATE = ".venv/bin/python -m boris.early.generate"


async def test_the_answers_file_is_what_the_app_builds() -> None:
    built = text(await build_answers())
    with open(answers.PATH, encoding="utf-8") as file:
        stored = file.read()
    if built != stored:
        diff = "".join(
            list(difflib.unified_diff(stored.splitlines(True), built.splitlines(True), n=1))[:40]
        )
        pytest.fail(f"boris/early/answers.json is stale; run `{REGENERATE}`:\n{diff}")


@pytest.mark.parametrize("where", ["description", "schema"])
async def test_an_answer_from_a_stale_file_differs_on_the_wire(where: str, tmp_path: Path) -> None:
    """What tests/early/test_wire.py would catch: a file built before a tool's declaration
    changed (its description, or a parameter) gives answers the app does not."""
    known = answers.load()
    stale = copy.deepcopy(dict(known.data))
    if where == "description":
        stale["descriptions"]["default"]["bash"]["parts"] = ["Run a command."]
    else:
        bash = next(tool for tool in stale["tool_objects"] if tool["name"] == "bash")
        bash["inputSchema"]["properties"].pop("description")
    argv = ["--workdir", str(tmp_path)]
    lines = legacy("2025-11-25")
    ours = early_replies(early_settings(argv), lines, answers.Answers(stale))
    theirs = await app_replies(argv, lines)
    assert ours[0] == theirs[0]  # initialize names no tool
    assert ours[2] is not None
    assert ours[2] != theirs[2]
