"""tools/list through a real client: which tools each flag combination serves, and their schemas.

The schemas are pinned as one snapshot file per tool and mode under tests/snapshots/, so
a schema change shows up as a diff. Regenerate with ``BORIS_UPDATE_SNAPSHOTS=1 pytest``.
What is compared is each tool as the server sends it: the JSON object of the tools/list
result (the server turns its result into JSON before any transport, in-memory included).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.inprocess import app_client

SNAPSHOTS = Path(__file__).parent.parent / "snapshots"
DEFAULT = [
    "bash",
    "task_output",
    "task_stop",
    "view",
    "str_replace",
    "multi_edit",
    "apply_patch",
    "create_file",
    "notebook_edit",
    "grep",
    "glob",
    "symbols",
]
COMPAT = [
    "bash",
    "task_output",
    "task_stop",
    "str_replace_editor",
    "apply_patch",
    "notebook_edit",
    "grep",
    "glob",
    "symbols",
]
FILE_TOOLS = [
    "view",
    "str_replace",
    "multi_edit",
    "apply_patch",
    "create_file",
    "notebook_edit",
    "grep",
    "glob",
    "symbols",
]

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], DEFAULT),
        # bash, task_output and task_stop live and die together.
        (["--disable-tools", "bash"], FILE_TOOLS),
        (["--disable-tools", "task_output"], FILE_TOOLS),
        # task_stop, multi_edit, apply_patch and notebook_edit can go alone.
        (["--disable-tools", "task_stop"], [t for t in DEFAULT if t != "task_stop"]),
        (["--disable-tools", "multi_edit"], [t for t in DEFAULT if t != "multi_edit"]),
        (["--disable-tools", "apply_patch"], [t for t in DEFAULT if t != "apply_patch"]),
        (["--disable-tools", "notebook_edit"], [t for t in DEFAULT if t != "notebook_edit"]),
        (["--disable-tools", "symbols"], DEFAULT[:-1]),
        (
            ["--disable-tools", "bash", "--disable-tools", "create_file"],
            [
                "view",
                "str_replace",
                "multi_edit",
                "apply_patch",
                "notebook_edit",
                "grep",
                "glob",
                "symbols",
            ],
        ),
        (["--disable-tools", "grep", "--disable-tools", "glob"], [*DEFAULT[:-3], "symbols"]),
        (["--anthropic-compat"], COMPAT),
        # Disabling the editor, or a part of it, leaves apply_patch and notebook_edit.
        (
            ["--anthropic-compat", "--disable-tools", "view"],
            [
                "bash",
                "task_output",
                "task_stop",
                "apply_patch",
                "notebook_edit",
                "grep",
                "glob",
                "symbols",
            ],
        ),
        (
            ["--anthropic-compat", "--disable-tools", "create_file"],
            [
                "bash",
                "task_output",
                "task_stop",
                "apply_patch",
                "notebook_edit",
                "grep",
                "glob",
                "symbols",
            ],
        ),
        (
            ["--anthropic-compat", "--disable-tools", "str_replace_editor"],
            [
                "bash",
                "task_output",
                "task_stop",
                "apply_patch",
                "notebook_edit",
                "grep",
                "glob",
                "symbols",
            ],
        ),
        (
            ["--anthropic-compat", "--disable-tools", "notebook_edit"],
            [t for t in COMPAT if t != "notebook_edit"],
        ),
        (
            ["--anthropic-compat", "--disable-tools", "bash"],
            ["str_replace_editor", "apply_patch", "notebook_edit", "grep", "glob", "symbols"],
        ),
        (
            ["--anthropic-compat", "--disable-tools", "task_output"],
            ["str_replace_editor", "apply_patch", "notebook_edit", "grep", "glob", "symbols"],
        ),
        (
            ["--anthropic-compat", "--disable-tools", "task_stop"],
            [
                "bash",
                "task_output",
                "str_replace_editor",
                "apply_patch",
                "notebook_edit",
                "grep",
                "glob",
                "symbols",
            ],
        ),
        (["--anthropic-compat", "--disable-tools", "symbols"], COMPAT[:-1]),
        (["--anthropic-compat", "--disable-tools", "multi_edit"], COMPAT),
        (
            ["--anthropic-compat", "--disable-tools", "apply_patch"],
            [t for t in COMPAT if t != "apply_patch"],
        ),
    ],
)
async def test_tools_served_per_flags(
    tmp_path: Path, flags: list[str], expected: list[str]
) -> None:
    async with app_client(*flags, workdir=tmp_path) as client:
        assert [t.name for t in await client.list_tools()] == expected


async def test_disable_tools_from_env(tmp_path: Path) -> None:
    env = {"BORIS_DISABLE_TOOLS": "bash,grep"}
    async with app_client(workdir=tmp_path, env=env) as client:
        names = [t.name for t in await client.list_tools()]
    assert names == [
        "view",
        "str_replace",
        "multi_edit",
        "apply_patch",
        "create_file",
        "notebook_edit",
        "glob",
        "symbols",
    ]


def _wire(tool: Any) -> dict[str, Any]:
    data: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("_meta", None)
    return data


def _check_snapshot(mode: str, tool: dict[str, Any]) -> None:
    path = SNAPSHOTS / mode / f"{tool['name']}.json"
    rendered = json.dumps(tool, indent=2, sort_keys=True) + "\n"
    if os.environ.get("BORIS_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered)
    assert path.exists(), f"no snapshot {path}; run with BORIS_UPDATE_SNAPSHOTS=1"
    assert json.loads(path.read_text()) == tool, f"tools/list changed for {path}"


@pytest.mark.parametrize(("mode", "flags"), [("default", []), ("compat", ["--anthropic-compat"])])
async def test_schema_snapshots(tmp_path: Path, mode: str, flags: list[str]) -> None:
    async with app_client(*flags, workdir=tmp_path) as client:
        tools = [_wire(t) for t in await client.list_tools()]
    for tool in tools:
        _check_snapshot(mode, tool)
    stale = {p.stem for p in (SNAPSHOTS / mode).glob("*.json")} - {t["name"] for t in tools}
    assert not stale, f"snapshots of tools no longer served: {stale}"


async def test_annotations(tmp_path: Path) -> None:
    async with app_client("--anthropic-compat", workdir=tmp_path) as compat:
        tools = list(await compat.list_tools())
    async with app_client(workdir=tmp_path) as client:
        tools += list(await client.list_tools())
    read_only = {"view", "grep", "glob", "symbols", "task_output"}
    for tool in tools:
        assert tool.annotations is not None
        assert tool.annotations.title, tool.name
        if tool.name in read_only:
            assert tool.annotations.read_only_hint is True, tool.name
        else:
            assert tool.annotations.destructive_hint is True, tool.name
            assert tool.annotations.read_only_hint is False, tool.name


def _snapshot_description(mode: str, name: str) -> str:
    description: str = json.loads((SNAPSHOTS / mode / f"{name}.json").read_text())["description"]
    return description


async def _descriptions(tmp_path: Path, *flags: str) -> dict[str, str]:
    async with app_client(*flags, workdir=tmp_path) as client:
        return {t.name: t.description or "" for t in await client.list_tools()}


@pytest.mark.parametrize(
    ("flags", "tool", "left_out"),
    [
        (["--disable-tools", "notebook_edit"], "view", " Edit cells with notebook_edit."),
        (
            ["--disable-tools", "symbols"],
            "view",
            " The symbols tool lists the definitions of a file or a tree.",
        ),
        (
            ["--anthropic-compat", "--disable-tools", "notebook_edit"],
            "str_replace_editor",
            "; edit cells with the `notebook_edit` tool",
        ),
        (["--disable-tools", "task_stop"], "task_output", " Stop a task with task_stop."),
        (
            ["--anthropic-compat", "--disable-tools", "task_stop"],
            "task_output",
            "\n- Use task_stop to end a background command.",
        ),
    ],
)
async def test_a_description_names_no_tool_that_is_not_served(
    tmp_path: Path, flags: list[str], tool: str, left_out: str
) -> None:
    # The snapshot's text (every tool served), without the sentence about the tool that
    # is not: a client would call a tool it has not got.
    full = _snapshot_description("compat" if "--anthropic-compat" in flags else "default", tool)
    assert full.count(left_out) == 1
    assert (await _descriptions(tmp_path, *flags))[tool] == full.replace(left_out, "")


VIEW_FIRST = {
    "default": {
        "view": "\n- A file must be viewed in this session before str_replace or create_file "
        "may change it.",
        "str_replace": "\n- The file must have been viewed in this session first (view tool).",
        "multi_edit": "\n- The file must have been viewed in this session first (view tool).",
        "apply_patch": "\n- A file must have been viewed in this session before the patch "
        "updates, moves or deletes it.",
        "create_file": "\n- Overwriting an existing file requires viewing it first in this "
        "session.",
        "notebook_edit": "\n- The notebook must have been viewed in this session first (view "
        "tool).",
    },
    "compat": {
        "str_replace_editor": "\n* View a file before `str_replace` or `insert` on it, or "
        "before `create` overwrites it; an edit of a file not viewed in this session is "
        "refused.",
        "apply_patch": "\n- A file must have been viewed in this session before the patch "
        "updates, moves or deletes it.",
        "notebook_edit": "\n- The notebook must have been viewed in this session first (view "
        "tool).",
    },
}


@pytest.mark.parametrize(("mode", "flags"), [("default", []), ("compat", ["--anthropic-compat"])])
async def test_descriptions_follow_the_settings(
    tmp_path: Path, mode: str, flags: list[str]
) -> None:
    # Without view-before-edit the editing tools lose their sentence about it, and no
    # other text changes; bash names the default timeout --timeout sets.
    plain = await _descriptions(tmp_path, *flags, "--require-view-before-edit", "false")
    for name, text in plain.items():
        sentence = VIEW_FIRST[mode].get(name, "")
        assert text + sentence == _snapshot_description(mode, name), name
    timed = (await _descriptions(tmp_path, *flags, "--timeout", "30"))["bash"]
    default = _snapshot_description(mode, "bash")
    assert "120000" in default
    assert timed == default.replace("120000", "30000")
