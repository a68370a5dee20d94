"""The early answers are the app's, byte for byte, on the wire: for every setting that
changes them, every protocol version a client may ask for (those the SDK knows, others
it negotiates away, the 2026-07-28 envelope, one no SDK knows) and clients that say
more or less about themselves. Each line goes to the app's STDIO server and to the early
answers; wherever the early answers reply, the app replied the same bytes, and the
lines they must answer they do answer (a check that cannot pass by answering nothing).
A declaration changed without boris/early/answers.json following fails here (and in
tests/early/test_answers.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from mcp_types import CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from boris.early.generate import enveloped, notification, request, talk
from tests.support.early import (
    CAPABLE,
    early_replies,
    early_settings,
    initialize_with,
    legacy,
    modern,
    stdio_app,
    with_meta,
)

pytestmark = pytest.mark.anyio

#: Every setting that changes an early answer, alone and together.
SETTINGS = [
    [],
    ["--anthropic-compat"],
    ["--disable-tools", "bash"],
    ["--disable-tools", "task_stop", "--disable-tools", "notebook_edit"],
    ["--disable-tools", "grep", "--disable-tools", "glob", "--disable-tools", "create_file"],
    ["--anthropic-compat", "--disable-tools", "view"],
    ["--anthropic-compat", "--disable-tools", "task_stop", "--disable-tools", "apply_patch"],
    ["--disable-tools", "symbols"],
    ["--disable-tools", "symbols", "notebook_edit", "--disable-tools"],
    ["--anthropic-compat", "--disable-tools", "symbols", "str_replace"],
    ["--require-view-before-edit", "false"],
    ["--anthropic-compat", "--require-view-before-edit=false"],
    ["--timeout", "7"],
    ["--anthropic-compat", "--timeout", "3600"],
    ["--max-file-size", "1KB"],
    ["--allow-dir", "{sub}", "--allow-dir", ".", "--deny-dir", "**/.env"],
    ["--allow-dir", "{sub}", ".", "--deny-dir", "**/.env", "**/*.key", "--allow-dir"],
    ["--deny-dir", "**/*.{pem,key}", "--deny-dir", "./secret/", "--anthropic-compat"],
]
#: The same, given by environment variables.
ENVIRONMENTS = [
    {"BORIS_TIMEOUT": "9", "BORIS_ANTHROPIC_COMPAT": "true"},
    {"BORIS_DISABLE_TOOLS": "notebook_edit,glob", "BORIS_REQUIRE_VIEW_BEFORE_EDIT": "auto"},
    {"BORIS_DISABLE_TOOLS": "symbols", "BORIS_MAX_FILE_SIZE": "3MB"},
    {"BORIS_ALLOW_DIRS": "{sub},.", "BORIS_DENY_DIRS": "**/.env,**/*.{a,b}"},
]

UNKNOWN = "1999-01-01"
NEWER = "2099-01-01"


def conversations() -> list[tuple[str, list[bytes], int]]:
    """Each conversation, and how many of its lines the early answers must answer."""
    found: list[tuple[str, list[bytes], int]] = []
    # Each version a client may ask for in initialize: the SDK negotiates the unknown
    # ones (and the 2026-07-28 one, which has no handshake) to its latest.
    for version in (*HANDSHAKE_PROTOCOL_VERSIONS, UNKNOWN, *MODERN_PROTOCOL_VERSIONS):
        found.append((f"initialize {version}", legacy(version), 2))
    found.append(
        (
            "a client that says more of itself",
            [
                initialize_with(
                    0,
                    "2025-06-18",
                    capabilities=CAPABLE,
                    clientInfo={"name": "c", "version": "9", "title": "C", "websiteUrl": "x"},
                ),
                notification("notifications/initialized"),
                with_meta(request("a", "tools/list"), progressToken="p"),
                request(7, "tools/list", {}),
            ],
            3,
        )
    )
    found.append(
        (
            "tools/list before initialized, as the SDK allows",
            [initialize_with(1, "2025-11-25"), request(2, "tools/list")],
            2,
        )
    )
    for version in MODERN_PROTOCOL_VERSIONS:
        found.append((f"2026-07-28 envelope at {version}", modern(version), 2))
        found.append(
            (
                f"a 2026-07-28 client that says more of itself, at {version}",
                [
                    with_meta(
                        enveloped(1, "tools/list", version),
                        **{
                            LOG_LEVEL_META_KEY: "debug",
                            CLIENT_INFO_META_KEY: {"name": "z", "version": "1"},
                        },
                    ),
                    with_meta(
                        enveloped(2, "server/discover", version),
                        **{
                            "io.modelcontextprotocol/clientCapabilities": {
                                "extensions": {"io.modelcontextprotocol/ui": {}}
                            }
                        },
                    ),
                ],
                2,
            )
        )
    # Left to the app: a version of the envelope no SDK knows, a request the SDK's
    # models refuse (client info without its version), and whatever comes after either.
    found.append((f"2026-07-28 envelope at {NEWER}", modern(NEWER), 0))
    for version in MODERN_PROTOCOL_VERSIONS:
        found.append(
            (
                f"a malformed envelope at {version}",
                [
                    with_meta(
                        enveloped(1, "tools/list", version), **{CLIENT_INFO_META_KEY: {"name": "z"}}
                    ),
                    enveloped(2, "server/discover", version),
                ],
                0,
            )
        )
    found.append(
        (
            "an initialize the SDK's models refuse",
            [
                initialize_with(1, "2025-11-25", capabilities={"roots": {"listChanged": "yes"}}),
                *legacy("2025-11-25")[1:],
            ],
            0,
        )
    )
    return found


def settings_cases() -> list[tuple[list[str], dict[str, str]]]:
    return [(argv, {}) for argv in SETTINGS] + [([], env) for env in ENVIRONMENTS]


def rooted(values: Sequence[str], sub: Path) -> list[str]:
    return [value.replace("{sub}", str(sub)) for value in values]


@pytest.mark.parametrize(("argv", "env"), settings_cases(), ids=str)
async def test_early_answers_are_the_apps(
    argv: list[str], env: dict[str, str], tmp_path: Path
) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    argv = ["--workdir", str(tmp_path), *rooted(argv, sub)]
    env = {name: value.replace("{sub}", str(sub)) for name, value in env.items()}
    settings = early_settings(argv, env)
    app = stdio_app(argv, env)
    for name, lines, answered in conversations():
        ours = early_replies(settings, lines)
        theirs = await talk(app, lines)  # a connection of its own
        given = [(i, reply) for i, reply in enumerate(ours) if reply is not None]
        assert len(given) == answered, f"{name}: {len(given)} answered early"
        for index, reply in given:
            assert reply == theirs[index], f"{name}, line {index}:\n{reply!r}\n{theirs[index]!r}"
