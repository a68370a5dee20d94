"""Build an MCP Bundle for Claude Desktop around a boris.pyz (see build_zipapp.sh).

Usage: python3 scripts/build_bundle.py <pyz> <output.mcpb>

A bundle (``.mcpb``) is a zip with ``manifest.json`` at its root (the format of
``@anthropic-ai/mcpb``, manifest version 0.3): here the pyz as ``server/boris.pyz``, the
icon, and a manifest that runs the pyz with ``python3`` over STDIO, with the settings a
user picks when installing it (user_config) mapped to Boris's flags and env vars.

Everything the manifest says of Boris is read from the pyz itself: the tools and their
descriptions from the server it runs (initialize and tools/list over STDIO, default
settings, started here under this interpreter), the version, summary and licence from the
wheel's metadata inside, the platforms and Pythons from the archive's own manifest.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ICON = REPO / "scripts" / "bundle_icon.png"
MANIFEST_VERSION = "0.3"
#: Where the pyz lies in the bundle.
ENTRY_POINT = "server/boris.pyz"
#: The protocol version the build speaks to the server (any the server accepts).
PROTOCOL_VERSION = "2025-06-18"
#: How long the server may take to answer: a first start unpacks the archive.
ANSWER_TIMEOUT = 180.0

#: The settings Claude Desktop asks for when the bundle is installed. Keys are the names
#: ``${user_config.KEY}`` takes in the server's command.
USER_CONFIG: dict[str, dict[str, Any]] = {
    "workdir": {
        "type": "directory",
        "title": "Working directory",
        "description": "The project Boris works in: where bash starts and what relative "
        "paths are relative to.",
        "required": True,
    },
    "allowed_directories": {
        "type": "directory",
        "title": "Allowed directories",
        "description": "The only directories the file tools (view, edits, grep, glob) may "
        "touch. None: any directory this user can reach. Shell commands are not confined.",
        "multiple": True,
        "required": False,
        "default": [],
    },
    "deny_patterns": {
        "type": "string",
        "title": "Denied paths",
        "description": "Glob patterns the file tools may not touch, comma-separated, e.g. "
        "**/.env,**/*.{pem,key} (a comma inside {...} does not split).",
        "required": False,
        "default": "",
    },
    "anthropic_compat": {
        "type": "boolean",
        "title": "Claude-style file editor",
        "description": "Serve one str_replace_editor tool in place of view, str_replace, "
        "multi_edit and create_file.",
        "required": False,
        "default": False,
    },
}

#: How the settings reach Boris. The directory lists go into the arguments, where a client
#: expands a list into one argument per item (and an empty list into none: a repeatable
#: flag with no value adds nothing); the deny patterns and the boolean go into env vars,
#: which Boris ignores when empty and reads "true"/"false" from.
MCP_CONFIG: dict[str, Any] = {
    "command": "python3",
    "args": [
        f"${{__dirname}}/{ENTRY_POINT}",
        *("--transport", "stdio"),
        *("--workdir", "${user_config.workdir}"),
        *("--allow-dir", "${user_config.allowed_directories}"),
    ],
    "env": {
        "BORIS_DENY_DIRS": "${user_config.deny_patterns}",
        "BORIS_ANTHROPIC_COMPAT": "${user_config.anthropic_compat}",
    },
}

LONG_DESCRIPTION = """\
Boris gives Claude the tools of a coding agent on your machine: shell commands in a \
working directory that carries over between calls (with background tasks), viewing files, \
images and notebooks, edits that never lose a byte, patches, and fast search by content \
and by name.

It runs from this bundle with the `python3` on your PATH: CPython {pythons} on {where}. \
The file tools are confined to the allowed directories you pick, if any, and never touch \
the denied paths; shell commands run as you, unconfined. With the Claude-style file \
editor, one `str_replace_editor` tool replaces view, str_replace, multi_edit and \
create_file."""


# --- what the pyz says of itself --------------------------------------------------------


def pyz_metadata(pyz: Path) -> dict[str, str]:
    """Version, Summary and License-Expression of the Boris wheel inside the pyz."""
    with zipfile.ZipFile(pyz) as archive:
        (name,) = (
            n
            for n in archive.namelist()
            if re.fullmatch(r"site-packages/boris-[^/]+\.dist-info/METADATA", n)
        )
        text = archive.read(name).decode()
    headers = text.split("\n\n", 1)[0]
    fields = dict(line.split(": ", 1) for line in headers.splitlines() if ": " in line)
    return {key: fields[key] for key in ("Version", "Summary", "License-Expression")}


def pyz_targets(pyz: Path) -> tuple[list[str], list[str]]:
    """The platforms (``linux-x86_64``...) and Pythons (``3.10``...) the pyz carries."""
    with zipfile.ZipFile(pyz) as archive:
        layers: dict[str, list[str]] = json.loads(archive.read("boris-pyz.json"))["layers"]
    combos = [combo.rsplit("-cp", 1) for combo in layers]
    platforms = sorted({platform for platform, _ in combos})
    pythons = sorted({f"3.{cp[1:]}" for _, cp in combos}, key=lambda v: int(v.split(".")[1]))
    return platforms, pythons


# --- what the server serves ---------------------------------------------------------------


class _Server:
    """A server on STDIO pipes, spoken to in JSON-RPC lines, each reply read with a
    deadline."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None
        assert proc.stdout is not None
        self._stdin = proc.stdin
        self._fd = proc.stdout.fileno()
        self._pending = b""
        self._ids = itertools.count(1)

    def send(self, message: Mapping[str, Any]) -> None:
        self._stdin.write(json.dumps(message).encode() + b"\n")
        self._stdin.flush()

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                raise TimeoutError("the server did not answer in time")
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                raise EOFError("the server closed its stdout")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        ident = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": dict(params)})
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            reply = self._message(deadline)
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply["result"]
                return result

    def close(self) -> None:
        self._stdin.close()


def _tools(server: _Server) -> list[dict[str, Any]]:
    """initialize, then tools/list, every page."""
    server.request(
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "build_bundle", "version": "0"},
        },
    )
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = server.request("tools/list", {"cursor": cursor} if cursor else {})
        tools += page["tools"]
        cursor = page.get("nextCursor")
        if not cursor:
            return tools


#: The interpreter outside any virtualenv, so that nothing but the pyz provides Boris.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)


def served_tools(pyz: Path, python: str = BASE_PYTHON) -> list[dict[str, Any]]:
    """The tools (as tools/list gives them) of the pyz started with default settings, as
    a client starts it (``python3 pyz --transport stdio``, here isolated from the
    environment), in an empty directory and unpacking into a directory of its own."""
    with tempfile.TemporaryDirectory(prefix="boris-bundle-") as scratch:
        workdir = Path(scratch) / "project"
        workdir.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("BORIS_")}
        env["SHIV_ROOT"] = str(Path(scratch) / "shiv")
        with (Path(scratch) / "stderr").open("w+b") as errors:
            proc = subprocess.Popen(
                [python, "-I", str(pyz.resolve()), "--transport", "stdio"],
                cwd=workdir,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
            )
            try:
                server = _Server(proc)
                tools = _tools(server)
                server.close()
                # A first start answers while it unpacks, and exits once it has: the
                # same wait as for an answer.
                proc.wait(timeout=ANSWER_TIMEOUT)
            except (OSError, TimeoutError, EOFError, RuntimeError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
                errors.seek(0)
                sys.stderr.write(errors.read().decode(errors="replace"))
                raise
    return tools


# --- the manifest -----------------------------------------------------------------------


def summary(description: str) -> str:
    """A tool's description as the manifest lists it: its first paragraph."""
    return description.split("\n\n", 1)[0].strip()


def python_range(pythons: Sequence[str]) -> str:
    """``>=3.10 <3.15`` for 3.10-3.14: the runtime constraint as the manifest spells it."""
    minors = sorted(int(v.split(".")[1]) for v in pythons)
    return f">=3.{minors[0]} <3.{minors[-1] + 1}"


def _where(platforms: Sequence[str]) -> str:
    """``Linux aarch64/x86_64 or macOS arm64/x86_64`` for the four."""
    machines: dict[str, list[str]] = {}
    for platform in sorted(platforms):
        system, machine = platform.split("-", 1)
        machines.setdefault(system, []).append(machine)
    names = {"linux": "Linux", "darwin": "macOS"}
    return " or ".join(
        f"{names.get(system, system)} {'/'.join(found)}"
        for system, found in sorted(machines.items(), key=lambda item: names.get(item[0], ""))
    )


def manifest(
    metadata: Mapping[str, str],
    tools: Sequence[Mapping[str, Any]],
    platforms: Sequence[str],
    pythons: Sequence[str],
) -> dict[str, Any]:
    """The bundle's manifest.json for a pyz with this metadata, serving these tools,
    carrying these platforms (``linux-x86_64``...) and Pythons (``3.10``...)."""
    span = f"{pythons[0]}-{pythons[-1]}" if len(pythons) > 1 else pythons[0]
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": "boris",
        "display_name": "Boris",
        "version": metadata["Version"],
        "description": metadata["Summary"],
        "long_description": LONG_DESCRIPTION.format(pythons=span, where=_where(platforms)),
        "author": {"name": "The Boris authors"},
        "license": metadata["License-Expression"],
        "keywords": ["coding", "shell", "files", "edit", "search", "grep"],
        "icon": "icon.png",
        "server": {"type": "python", "entry_point": ENTRY_POINT, "mcp_config": MCP_CONFIG},
        "tools": [{"name": t["name"], "description": summary(t["description"])} for t in tools],
        "compatibility": {
            "platforms": sorted({p.split("-", 1)[0] for p in platforms}),
            "runtimes": {"python": python_range(pythons)},
        },
        "user_config": USER_CONFIG,
    }


# --- the archive ----------------------------------------------------------------------------


def write_bundle(pyz: Path, document: Mapping[str, Any], output: Path) -> None:
    """The zip: manifest.json and the icon deflated, the pyz (compressed already) stored."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".part")
    with zipfile.ZipFile(partial, "w") as bundle:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        _add(bundle, "manifest.json", text.encode(), zipfile.ZIP_DEFLATED, 0o644)
        _add(bundle, "icon.png", ICON.read_bytes(), zipfile.ZIP_DEFLATED, 0o644)
        _add(bundle, ENTRY_POINT, pyz.read_bytes(), zipfile.ZIP_STORED, 0o755)
    partial.replace(output)


def _add(bundle: zipfile.ZipFile, name: str, data: bytes, method: int, mode: int) -> None:
    info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
    info.compress_type = method
    info.create_system = 3  # Unix, so that the mode below is read
    info.external_attr = (0o100000 | mode) << 16
    bundle.writestr(info, data)


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} <pyz> <output.mcpb>")
    pyz, output = Path(sys.argv[1]), Path(sys.argv[2])
    tools = served_tools(pyz)
    platforms, pythons = pyz_targets(pyz)
    write_bundle(pyz, manifest(pyz_metadata(pyz), tools, platforms, pythons), output)
    print(f"built {output}")


if __name__ == "__main__":
    main()
