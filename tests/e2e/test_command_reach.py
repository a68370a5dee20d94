"""What a command can reach of the server that runs it (README "Security"): not the token,
not the server's descriptors, memory or environment, nothing of other sessions.

The server runs as a user other than root where the property depends on it
(tests/support/users.py): root may open any process's descriptors whatever the server
does, as the README says.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support import (
    BORIS,
    RawSession,
    http_client,
    http_request,
    http_server,
    ok_text,
    sdk_http_client,
    stdio_client,
)
from tests.support.tasks import task_id_of
from tests.support.users import as_other_user

pytestmark = pytest.mark.anyio

TOKEN = "0123456789abcdef" * 4


# --- the token ------------------------------------------------------------------------


async def test_commands_see_no_token_over_http(tmp_path: Path) -> None:
    with http_server(workdir=tmp_path, env={"BORIS_TOKEN": TOKEN}) as server:
        async with http_client(server.url, token=TOKEN) as client:
            text = ok_text(await client.call_tool("bash", {"command": "env; echo end"}))
    assert text.endswith("end\n"), text
    assert "BORIS_TOKEN" not in text
    assert TOKEN not in text


async def test_commands_see_no_token_over_stdio(tmp_path: Path) -> None:
    env = {"BORIS_TOKEN": TOKEN, "BORIS_TOKEN_FILE_NOTE": "x"}
    async with stdio_client(workdir=tmp_path, env=env) as client:
        text = ok_text(await client.call_tool("bash", {"command": "env; echo end"}))
    assert text.endswith("end\n"), text
    assert "BORIS_TOKEN" not in text


@pytest.mark.parametrize("given", ["flag", "env"])
async def test_a_token_file_keeps_the_token_off_the_command_line(
    tmp_path: Path, given: str
) -> None:
    """``--token-file`` (or ``BORIS_TOKEN_FILE``): its first line, whitespace stripped, is
    the token; neither ``ps`` (the server's command line) nor a command's environment
    shows it."""
    token_file = tmp_path / "secret"
    token_file.write_text(f"  {TOKEN}\t\nnot the token\n")
    args, env = ([], {"BORIS_TOKEN_FILE": str(token_file)})
    if given == "flag":
        args, env = (["--token-file", str(token_file)], {})
    with http_server(*args, workdir=tmp_path, env=env) as server:
        assert http_request("POST", server.url, {"Content-Type": "application/json"})[0] == 401
        async with sdk_http_client(server.url, token=TOKEN) as client:
            command = "ps -eo args; cat /proc/$PPID/cmdline; echo; env"
            text = ok_text(await client.call_tool("bash", {"command": command}))
    assert "boris" in text
    assert TOKEN not in text
    assert "BORIS_TOKEN" not in text


# --- the server's descriptors, memory and environment -----------------------------------


# Commands that open the server's descriptors (its pipes to the client on STDIO, other
# sessions' output pipes on HTTP), or read its environment and memory (the kernel's
# check for those is the one for tracing it). Each must fail for want of permission.
PROBES = {
    "descriptors": "ls /proc/$PPID/fd",
    "a descriptor": "cat /proc/$PPID/fd/0 </dev/null",
    "environment": "cat /proc/$PPID/environ",
    "memory": "head -c 16 /proc/$PPID/mem",
    "a forged reply": (
        'printf \'%s\\n\' \'{"jsonrpc":"2.0","id":1,"result":{}}\' > /proc/$PPID/fd/7'
    ),
    # ... or a request in its input (a pipe's end opened through /proc is the pipe).
    "a forged request": (
        'printf \'%s\\n\' \'{"jsonrpc":"2.0","id":9,"method":"ping"}\' > /proc/$PPID/fd/6'
    ),
}


async def test_a_stdio_servers_commands_cannot_open_it(other_dir: Path) -> None:
    command = as_other_user(BORIS)
    async with stdio_client(workdir=other_dir, command=command) as client:
        uid = ok_text(await client.call_tool("bash", {"command": "id -u"}))
        assert uid != "exit_code: 0\n\nstdout:\n0\n", "the server runs as root"
        # Non-dumpable, the server still follows its shells' working directory.
        assert ok_text(await client.call_tool("bash", {"command": "mkdir sub && cd sub"})) == (
            "exit_code: 0\n"
        )
        assert ok_text(await client.call_tool("bash", {"command": "pwd"})) == (
            f"exit_code: 0\n\nstdout:\n{other_dir}/sub\n"
        )
        for probe, line in PROBES.items():
            text = ok_text(await client.call_tool("bash", {"command": line}))
            assert not text.startswith("exit_code: 0\n"), (probe, text)
            assert "Permission denied" in text, (probe, text)
        # The session goes on as if nothing happened.
        assert ok_text(await client.call_tool("bash", {"command": "echo still"})) == (
            "exit_code: 0\n\nstdout:\nstill\n"
        )


async def test_a_session_cannot_read_another_sessions_output(other_dir: Path) -> None:
    """Over HTTP one server serves every session: session A must not read, through the
    server's descriptors, the output pipes of session B's background task."""
    with http_server(workdir=other_dir, command=as_other_user(BORIS)) as server:
        b = RawSession(server.url)
        task = task_id_of_raw(b.text("bash", command=TICKING, run_in_background=True))
        async with http_client(server.url) as a:
            stolen = ok_text(
                await a.call_tool(
                    "bash",
                    {"command": 'for f in /proc/$PPID/fd/*; do timeout 0.3 cat "$f"; done 2>&1'},
                )
            )
        assert "secret" not in stolen
        assert "Permission denied" in stolen, stolen
        # B's lines are all there, in order.
        deadline = time.monotonic() + 30
        while len(numbers := ticks(b.text("task_output", task_id=task))) < 10:
            assert time.monotonic() < deadline
            await anyio.sleep(0.05)
        assert numbers == list(range(1, len(numbers) + 1))
        assert b.delete() == 200


#: A background task printing a numbered line every 20 ms.
TICKING = "i=0; while :; do i=$((i+1)); echo secret-$i; sleep 0.02; done"


def ticks(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^secret-(\d+)$", text, re.M)]


def task_id_of_raw(text: str) -> str:
    match = re.fullmatch(r"task_id: ([0-9a-f]{32})\nCommand started in background\.", text)
    assert match, text
    return match.group(1)


# --- descriptors a command inherits --------------------------------------------------------

#: What a program a command runs holds: ls lists its own descriptors (3 is the directory
#: it reads).
LISTING = "ls -l /proc/self/fd"


def descriptors(text: str) -> dict[int, str]:
    """Descriptor → what it is, from lines ``N target`` or ``ls -l``'s ``… N -> target``."""
    found = {}
    for line in text.splitlines():
        listed = re.search(r" (\d+) -> (.*)$", line)
        number, _, target = line.partition(" ")
        if listed:
            found[int(listed.group(1))] = listed.group(2)
        elif number.isdigit():
            found[int(number)] = target
    return found


@contextlib.asynccontextmanager
async def client_over(transport: str, workdir: Path) -> AsyncIterator[Any]:
    """A fastmcp client of a server on ``transport`` (``stdio`` or ``http``)."""
    if transport == "stdio":
        async with stdio_client(workdir=workdir) as client:
            yield client
    else:
        with http_server(workdir=workdir) as server:
            async with http_client(server.url) as client:
                yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_command_inherits_nothing_but_its_stdio(tmp_path: Path, transport: str) -> None:
    """A program a command runs holds stdin (/dev/null), stdout and stderr (pipes),
    nothing else of the server's, in the foreground, the background, a subshell, a
    detached process."""
    detached_output = tmp_path / "detached"
    async with client_over(transport, tmp_path) as client:
        foreground = ok_text(await client.call_tool("bash", {"command": LISTING}))
        subshell = ok_text(await client.call_tool("bash", {"command": f"( {LISTING} )"}))
        detached = ok_text(
            await client.call_tool("bash", {"command": f"setsid {LISTING} > {detached_output}"})
        )
        task = task_id_of(
            await client.call_tool("bash", {"command": LISTING, "run_in_background": True})
        )
        result = await client.call_tool("task_output", {"task_id": task, "block": True})
        background = ok_text(result)
    assert detached == "exit_code: 0\n"
    for text in (foreground, subshell, background, detached_output.read_text()):
        held = descriptors(text)
        del held[3]  # ls's own
        assert sorted(held) == [0, 1, 2], text
        assert held[0] == "/dev/null", text
        assert held[2].startswith("pipe:"), text
        assert held[1].startswith("pipe:") or held[1] == str(detached_output), text


async def test_the_shell_holds_only_its_report_socket(tmp_path: Path) -> None:
    """The shell running a foreground command holds one descriptor beyond its stdio: its
    copy of the cwd report socket, closed on exec (so no program it runs inherits it);
    in the background, none."""
    # ls alone, run by the shell: a loop would open a command substitution's pipe in the
    # shell, and a pipeline's pipe may still be open there while ls looks.
    shells = "ls -l /proc/$$/fd"
    flags = "grep flags /proc/$$/fdinfo/{n}"
    async with stdio_client(workdir=tmp_path) as client:
        foreground = descriptors(ok_text(await client.call_tool("bash", {"command": shells})))
        (extra,) = set(foreground) - {0, 1, 2}
        assert foreground[extra].startswith("socket:"), foreground
        info = ok_text(
            await client.call_tool("bash", {"command": flags.format(n=extra)})
        ).splitlines()[-1]
        assert int(info.split()[-1], 8) & 0o2000000, info  # O_CLOEXEC
        task = task_id_of(
            await client.call_tool("bash", {"command": shells, "run_in_background": True})
        )
        result = await client.call_tool("task_output", {"task_id": task, "block": True})
        background = descriptors(ok_text(result))
    assert sorted(background) == [0, 1, 2], background
