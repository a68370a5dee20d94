"""The MCP Bundle's manifest, read as Claude Desktop reads it: every way a user can fill in
its settings gives a command line that Boris's own parser turns into those settings; and
the icon. The bundle built from the pyz is unpacked and run in tests/e2e/test_bundle.py.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from boris.settings import Settings, load_settings
from scripts import build_bundle, bundle_icon
from tests.support.inprocess import environment
from tests.support.mcpb import MissingSetting, server_command

METADATA = {"Version": "1.2.3", "Summary": "a summary", "License-Expression": "MIT"}
TOOLS = [{"name": "bash", "description": "Run a command.\n\n- more"}, {"name": "view",
         "description": "Read a file."}]  # fmt: skip
MANIFEST = build_bundle.manifest(
    METADATA, TOOLS, ["darwin-arm64", "linux-x86_64"], ["3.10", "3.11", "3.12", "3.13", "3.14"]
)


def settings_for(values: dict[str, Any], bundle: Path = Path("/bundle")) -> Settings:
    """The settings Boris starts with when Claude Desktop runs the bundle with ``values``."""
    command = server_command(MANIFEST, bundle, values)
    assert command.command == "python3"
    assert command.args[:3] == [f"{bundle}/server/boris.pyz", "--transport", "stdio"]
    with environment(command.env):
        return load_settings(command.args[1:])


def test_only_the_working_directory(tmp_path: Path) -> None:
    """The one required setting; the others at their defaults add nothing, so Boris
    starts as it does without flags."""
    settings = settings_for({"workdir": str(tmp_path)})
    assert settings.transport == "stdio"
    assert settings.workdir == str(tmp_path)
    assert (settings.allow_dirs, settings.deny_dirs, settings.anthropic_compat) == ([], [], False)
    default = load_settings(["--transport", "stdio", "--workdir", str(tmp_path)])
    assert settings == default


def test_every_setting(tmp_path: Path) -> None:
    """Several allowed directories (one argument each), deny patterns with a comma
    inside braces, and the compat editor."""
    dirs = [tmp_path / "a", tmp_path / "b c", tmp_path / "d"]
    for directory in dirs:
        directory.mkdir()
    settings = settings_for(
        {
            "workdir": str(dirs[0]),
            "allowed_directories": [str(d) for d in dirs],
            "deny_patterns": "**/.env,**/*.{pem,key}",
            "anthropic_compat": True,
        }
    )
    assert settings.workdir == str(dirs[0])
    assert settings.allow_dirs == [str(d) for d in dirs]
    assert settings.deny_dirs == ["**/.env", "**/*.{pem,key}"]
    assert settings.anthropic_compat is True


@pytest.mark.parametrize(
    "values",
    [
        {"allowed_directories": [], "deny_patterns": "", "anthropic_compat": False},
        {"allowed_directories": ["{tmp}"]},
        {"deny_patterns": "secret/**"},
    ],
    ids=["empty", "one-dir", "deny-only"],
)
def test_optional_settings_left_empty_or_alone(values: dict[str, Any], tmp_path: Path) -> None:
    """An optional setting cleared by the user (an empty list, an empty text, unticked)
    or given alone never breaks start-up."""
    given = {k: [d.format(tmp=tmp_path) for d in v] if isinstance(v, list) else v
             for k, v in values.items()}  # fmt: skip
    settings = settings_for({"workdir": str(tmp_path), **given})
    assert settings.allow_dirs == given.get("allowed_directories", [])
    assert settings.deny_dirs == ([given["deny_patterns"]] if given.get("deny_patterns") else [])


def test_without_the_working_directory_nothing_starts() -> None:
    with pytest.raises(MissingSetting):
        server_command(MANIFEST, Path("/bundle"), {"allowed_directories": ["/tmp"]})


def test_the_manifest_says_what_the_pyz_carries() -> None:
    assert MANIFEST["manifest_version"] == "0.3"
    assert MANIFEST["version"] == "1.2.3"
    assert MANIFEST["server"]["type"] == "python"
    assert MANIFEST["server"]["entry_point"] == "server/boris.pyz"
    assert MANIFEST["compatibility"] == {
        "platforms": ["darwin", "linux"],
        "runtimes": {"python": ">=3.10 <3.15"},
    }
    # a tool's first paragraph
    assert MANIFEST["tools"] == [
        {"name": "bash", "description": "Run a command."},
        {"name": "view", "description": "Read a file."},
    ]
    assert MANIFEST["user_config"]["workdir"]["type"] == "directory"
    assert MANIFEST["user_config"]["allowed_directories"]["multiple"] is True
    # every optional setting has a default: a placeholder left without a value would be
    # passed to Boris as written
    optional = [o for o in MANIFEST["user_config"].values() if not o.get("required")]
    assert all("default" in option for option in optional)


@pytest.mark.parametrize(
    ("pythons", "expected"),
    [(["3.10", "3.11", "3.12", "3.13", "3.14"], ">=3.10 <3.15"), (["3.12"], ">=3.12 <3.13")],
)
def test_python_range(pythons: list[str], expected: str) -> None:
    assert build_bundle.python_range(pythons) == expected


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    assert zlib.crc32(data[12:29]) == struct.unpack(">I", data[29:33])[0]
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_icon_is_the_drawing() -> None:
    """The committed icon is what scripts/bundle_icon.py draws: a 512 x 512 PNG."""
    committed = build_bundle.ICON.read_bytes()
    assert committed == bundle_icon.render()
    assert _png_size(committed) == (512, 512)
