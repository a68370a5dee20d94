"""The bash tool through a real client (README "Tools" and "How the tools behave").

One app serves the module; every test first moves the session into its own
directory, since the cwd carries over between calls (that is the point). The checks
that need a real server process are in tests/e2e/test_bash.py.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from boris.shell.command import MAX_TIMEOUT_MS, effective_timeout
from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.pids import pid_alive, pids_in, wait_gone
from tests.support.tasks import STARTED

pytestmark = pytest.mark.anyio

TRUNCATED = "\n\n[Truncated: output was {n} characters, showing first 30000]"


async def bash(client: Client[Any], command: str, **arguments: Any) -> str:
    result = await client.call_tool("bash", {"command": command, **arguments}, raise_on_error=False)
    return ok_text(result)


async def bash_error(client: Client[Any], arguments: dict[str, Any]) -> str:
    return error_text(await client.call_tool("bash", arguments, raise_on_error=False))


async def enter(client: Client[Any], directory: Path) -> None:
    """Move the session into ``directory`` (every test works in its own)."""
    assert await bash(client, f"cd '{directory}'") == "exit_code: 0\n"


async def cwd(client: Client[Any]) -> str:
    text = await bash(client, "pwd")
    assert text.startswith("exit_code: 0\n\nstdout:\n"), text
    return text.removeprefix("exit_code: 0\n\nstdout:\n").removesuffix("\n")


# --- result format -------------------------------------------------------------------


async def test_stdout_only(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    assert await bash(client, "echo hi") == "exit_code: 0\n\nstdout:\nhi\n"


async def test_no_output_at_all(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    assert await bash(client, "true") == "exit_code: 0\n"


async def test_stderr_section_comes_before_stdout(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "echo out; echo err >&2")
    assert text == "exit_code: 0\n\nstderr:\nerr\n\nstdout:\nout\n"
    assert await bash(client, "echo err >&2") == "exit_code: 0\n\nstderr:\nerr\n"


async def test_stdout_is_exactly_what_the_command_wrote(
    client: Client[Any], tmp_path: Path
) -> None:
    # Nothing is added to it and nothing taken away.
    await enter(client, tmp_path)
    assert await bash(client, "printf abc") == "exit_code: 0\n\nstdout:\nabc"
    assert await bash(client, "printf 'a\\n\\n\\n'") == "exit_code: 0\n\nstdout:\na\n\n\n"
    assert await bash(client, "echo") == "exit_code: 0\n\nstdout:\n\n"
    assert await bash(client, "printf '\\n\\n'") == "exit_code: 0\n\nstdout:\n\n\n"


async def test_nonzero_exit_is_a_normal_result(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    result = await client.call_tool("bash", {"command": "false"}, raise_on_error=False)
    assert not result.is_error
    assert ok_text(result) == "exit_code: 1\n"


async def test_exit_code_is_the_commands_own(client: Client[Any], tmp_path: Path) -> None:
    # Not the status of the wrapper's trailing pwd.
    await enter(client, tmp_path)
    missing = await anyio.run_process(["ls", "/missing"], check=False)
    assert missing.returncode == 2
    stderr = missing.stderr.decode()
    assert await bash(client, "ls /missing") == f"exit_code: 2\n\nstderr:\n{stderr}"
    assert await bash(client, "echo x; (exit 42)") == "exit_code: 42\n\nstdout:\nx\n"


async def test_killed_by_a_signal_reports_128_plus_the_signal(
    client: Client[Any], tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    await enter(client, tmp_path)
    assert await bash(client, "cd sub; echo x; kill -9 $$") == "exit_code: 137\n\nstdout:\nx\n"
    assert await cwd(client) == str(tmp_path)


async def test_utf8_decoding_replaces_invalid_bytes(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "printf 'h\\303\\251 \\377 \\342\\202\\254\\n'")
    assert text == "exit_code: 0\n\nstdout:\nhé \ufffd €\n"


async def test_description_is_accepted_and_ignored(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "echo hi", description="Say hi")
    assert text == "exit_code: 0\n\nstdout:\nhi\n"


async def test_heredoc_and_trailing_comment(client: Client[Any], tmp_path: Path) -> None:
    # Neither reaches the wrapper: the cd still carries over.
    await enter(client, tmp_path)
    (tmp_path / "sub").mkdir()
    assert await bash(client, "cat <<EOF\nhello\nEOF") == "exit_code: 0\n\nstdout:\nhello\n"
    assert await bash(client, "cd sub # move") == "exit_code: 0\n"
    assert await cwd(client) == str(tmp_path / "sub")


async def test_syntax_error_exits_2_and_keeps_cwd(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, 'cd / && echo "unterminated')
    assert text.startswith("exit_code: 2\n\nstderr:\n"), text
    assert await cwd(client) == str(tmp_path)


# --- input errors --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["", "   ", "\n\t\n"])
async def test_empty_command(client: Client[Any], command: str) -> None:
    text = await bash_error(client, {"command": command})
    assert text == "[BASH_EMPTY_COMMAND] command is empty; give a shell command"


async def test_missing_command(client: Client[Any]) -> None:
    text = await bash_error(client, {})
    assert text == "[INVALID_INPUT] command: missing required argument"


async def test_command_too_long_to_start(client: Client[Any]) -> None:
    text = await bash_error(client, {"command": "echo " + "x" * 140_000})
    assert text == (
        "[BASH_START_FAILED] could not start /bin/bash: Argument list too long (the command "
        "is 140005 bytes; a command is limited to about 128 KiB: write long content to a "
        "file with a file tool, then run a short command)"
    )


@pytest.mark.parametrize("milliseconds", [0, -5])
async def test_timeout_must_be_positive(client: Client[Any], milliseconds: int) -> None:
    text = await bash_error(client, {"command": "true", "timeout": milliseconds})
    assert text == (
        "[INVALID_INPUT] timeout: must be a positive number of milliseconds "
        f"(at most 600000), got {milliseconds}"
    )


def test_timeout_default_and_clamp() -> None:
    # A 10-minute wait has no place in the suite: this is the function the tool runs.
    assert effective_timeout(None, 120_000) == 120_000
    assert effective_timeout(1500, 120_000) == 1500
    assert effective_timeout(600_000, 120_000) == 600_000
    assert effective_timeout(900_000, 120_000) == MAX_TIMEOUT_MS == 600_000


# --- cwd tracking --------------------------------------------------------------------


async def test_cd_persists_across_calls(client: Client[Any], tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    await enter(client, tmp_path)
    assert await bash(client, "cd a") == "exit_code: 0\n"
    assert await cwd(client) == str(tmp_path / "a")
    assert await bash(client, "cd b && echo moved") == "exit_code: 0\n\nstdout:\nmoved\n"
    assert await cwd(client) == str(tmp_path / "a" / "b")
    assert await bash(client, "cd ../..") == "exit_code: 0\n"
    assert await cwd(client) == str(tmp_path)


async def test_cwd_with_spaces_and_quotes(client: Client[Any], tmp_path: Path) -> None:
    odd = tmp_path / "it's a dir"
    odd.mkdir()
    await enter(client, tmp_path)
    assert await bash(client, 'cd "it\'s a dir"') == "exit_code: 0\n"
    assert await cwd(client) == str(odd)
    assert await bash(client, "echo ok") == "exit_code: 0\n\nstdout:\nok\n"


async def test_cd_into_missing_directory(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, f"cd '{tmp_path}/nope'")
    assert text == (
        f"exit_code: 1\n\nstderr:\n/bin/bash: line 1: cd: {tmp_path}/nope: "
        "No such file or directory\n"
    )
    assert await cwd(client) == str(tmp_path)


async def test_exit_n_ends_the_shell_and_keeps_the_cwd(client: Client[Any], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    await enter(client, tmp_path)
    assert await bash(client, "cd sub && echo bye && exit 7") == "exit_code: 7\n\nstdout:\nbye\n"
    assert await cwd(client) == str(tmp_path)


async def test_user_text_like_the_sentinel_is_left_alone(
    client: Client[Any], tmp_path: Path
) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "echo __BORIS_CWD__; echo /etc")
    assert text == "exit_code: 0\n\nstdout:\n__BORIS_CWD__\n/etc\n"
    assert await cwd(client) == str(tmp_path)


async def test_deleted_cwd_falls_back_to_the_workdir(
    client: Client[Any], root: Path, tmp_path: Path
) -> None:
    """The next command runs in the workdir, which is the cwd from then on, and says so
    first; the command's own output follows unchanged."""
    doomed = tmp_path / "doomed"
    doomed.mkdir()
    await enter(client, doomed)
    assert await bash(client, f"rmdir '{doomed}'") == "exit_code: 0\n"
    text = await bash(client, "pwd; echo ran >&2")
    assert text == (
        f"[The working directory {doomed} no longer exists; commands run in {root} now "
        f"(--workdir).]\n\nexit_code: 0\n\nstderr:\nran\n\nstdout:\n{root}\n"
    )
    assert await cwd(client) == str(root)


async def test_cwd_deleted_in_the_same_command_stays_where_it_was(
    client: Client[Any], tmp_path: Path
) -> None:
    """A command that enters a directory and deletes it leaves the cwd where it was,
    and the next command runs there."""
    await enter(client, tmp_path)
    assert await bash(client, "mkdir d && cd d && rmdir ../d") == "exit_code: 0\n"
    assert await bash(client, "pwd") == f"exit_code: 0\n\nstdout:\n{tmp_path}\n"


async def test_deleted_cwd_before_a_background_command(
    client: Client[Any], root: Path, tmp_path: Path
) -> None:
    """A background command starts in the workdir too; the notice follows the lines
    that give its task id."""
    doomed = tmp_path / "doomed"
    doomed.mkdir()
    await enter(client, doomed)
    assert await bash(client, f"rmdir '{doomed}'") == "exit_code: 0\n"
    result = await client.call_tool(
        "bash", {"command": "pwd", "run_in_background": True}, raise_on_error=False
    )
    text = ok_text(result)
    started, notice = text.split("\n\n")
    assert notice == (
        f"[The working directory {doomed} no longer exists; commands run in {root} now "
        "(--workdir).]"
    )
    match = STARTED.fullmatch(started)
    assert match, started
    task_id = match.group(1)
    report = ok_text(await client.call_tool("task_output", {"task_id": task_id, "block": True}))
    assert report == f"status: completed\nexit_code: 0\n\nstdout:\n{root}\n"
    assert await cwd(client) == str(root)


async def test_deleted_workdir_and_cwd_fall_back_to_the_root(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    async with app_client(workdir=workdir) as own:
        assert await bash(own, "mkdir sub && cd sub") == "exit_code: 0\n"
        assert await bash(own, f"rmdir {workdir}/sub {workdir}") == "exit_code: 0\n"
        assert await bash(own, "pwd") == (
            f"[The working directory {workdir}/sub no longer exists; commands run in / now "
            "(--workdir no longer exists either).]\n\nexit_code: 0\n\nstdout:\n/\n"
        )


# --- environment ---------------------------------------------------------------------


async def test_non_interactive_environment(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, 'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"')
    assert text == "exit_code: 0\n\nstdout:\ncat cat 0\n"
    # What the server sets for itself in its environment: tests/e2e/test_bash.py.


async def test_stdin_is_empty_and_there_is_no_tty(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    # `cat` with no input returns at once instead of waiting for the timeout.
    assert await bash(client, "cat", timeout=60_000) == "exit_code: 0\n"
    assert await bash(client, "readlink /proc/self/fd/0") == "exit_code: 0\n\nstdout:\n/dev/null\n"
    assert await bash(client, "tty") == "exit_code: 1\n\nstdout:\nnot a tty\n"
    text = await bash(client, "exec 3</dev/tty && echo has-a-terminal")
    assert not text.endswith("has-a-terminal\n")


async def test_command_leads_its_own_process_group(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "echo $$; cut -d' ' -f5,6 /proc/$$/stat")
    pid, groups = text.removeprefix("exit_code: 0\n\nstdout:\n").splitlines()
    assert groups == f"{pid} {pid}"  # process group and session both led by the shell


# --- truncation ----------------------------------------------------------------------


async def test_stdout_and_stderr_truncate_independently(
    client: Client[Any], tmp_path: Path
) -> None:
    await enter(client, tmp_path)
    text = await bash(
        client, "head -c 40000 /dev/zero | tr '\\0' o; head -c 35000 /dev/zero | tr '\\0' e >&2"
    )
    assert text == (
        "exit_code: 0\n\nstderr:\n"
        + "e" * 30000
        + TRUNCATED.format(n=35000)
        + "\nstdout:\n"
        + "o" * 30000
        + TRUNCATED.format(n=40000)
    )


async def test_truncation_boundary(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    exact = await bash(client, "head -c 29999 /dev/zero | tr '\\0' x; echo")
    assert exact == "exit_code: 0\n\nstdout:\n" + "x" * 29999 + "\n"
    over = await bash(client, "head -c 30000 /dev/zero | tr '\\0' x; echo")
    assert over == "exit_code: 0\n\nstdout:\n" + "x" * 30000 + TRUNCATED.format(n=30001)


async def test_truncation_counts_characters(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "for i in $(seq 30001); do printf '\\303\\251'; done")
    assert text == "exit_code: 0\n\nstdout:\n" + "é" * 30000 + TRUNCATED.format(n=30001)


async def test_one_line_longer_than_64k(client: Client[Any], tmp_path: Path) -> None:
    # The Go version loses all stdout when one line exceeds 64 KiB.
    (tmp_path / "sub").mkdir()
    await enter(client, tmp_path)
    text = await bash(client, "cd sub; head -c 200000 /dev/zero | tr '\\0' L")
    assert text == "exit_code: 0\n\nstdout:\n" + "L" * 30000 + TRUNCATED.format(n=200000)
    assert await cwd(client) == str(tmp_path / "sub")


# --- timeouts ------------------------------------------------------------------------


async def test_timeout_keeps_partial_output(client: Client[Any], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    await enter(client, tmp_path)
    text = await bash(
        client, "cd sub; echo before; echo oops >&2; sleep 30; echo after", timeout=1500
    )
    assert text == (
        "Command timed out after 1500ms\n\nexit_code: 143\n\nstderr:\noops\n\nstdout:\nbefore\n"
    )
    assert await cwd(client) == str(tmp_path)  # killed before it could report: cwd unchanged


async def test_timeout_kills_the_whole_process_group(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    text = await bash(client, "sleep 300 & echo $!; sleep 300 & echo $!; wait", timeout=1500)
    assert text.startswith("Command timed out after 1500ms\n\nexit_code: 143\n\nstdout:\n")
    pids = pids_in(text)
    assert len(pids) == 2
    assert await wait_gone(pids) == []


async def test_sigterm_trap_exits_gracefully(client: Client[Any], tmp_path: Path) -> None:
    # The group gets SIGTERM first: a command that cleans up and exits reports its own
    # status (3), not the 137 of a SIGKILL.
    await enter(client, tmp_path)
    text = await bash(
        client, "trap 'echo cleanup; exit 3' TERM; echo ready; sleep 30 & wait", timeout=1500
    )
    assert text == "Command timed out after 1500ms\n\nexit_code: 3\n\nstdout:\nready\ncleanup\n"


async def test_default_timeout_comes_from_the_flag(tmp_path: Path) -> None:
    async with app_client("--timeout", "1", workdir=tmp_path, env={"PAGER": "less"}) as client:
        text = await bash(client, "echo start; sleep 30")
        assert text == "Command timed out after 1000ms\n\nexit_code: 143\n\nstdout:\nstart\n"
        # A variable the user set is kept.
        assert await bash(client, "echo $PAGER") == "exit_code: 0\n\nstdout:\nless\n"


# --- leftovers and cancellation ------------------------------------------------------


async def test_background_grandchild_does_not_hang_the_call(
    client: Client[Any], tmp_path: Path
) -> None:
    # `sleep 300 &` keeps the stdout pipe open; the call still returns once the shell exits.
    await enter(client, tmp_path)
    text = await bash(client, "sleep 300 & echo $!", timeout=60_000)
    assert text.startswith("exit_code: 0\n\nstdout:\n")
    (pid,) = pids_in(text)
    try:
        assert pid_alive(pid)  # left running, like `server &`; the session ends it on close
    finally:
        await bash(client, f"kill {pid}")


async def test_leftover_process_can_still_write(client: Client[Any], tmp_path: Path) -> None:
    # Output written after the call returned is drained, not refused: a server started
    # with `&` that logs later does not die of a broken pipe. The leftover writes once
    # the test lets it (after the call returned), then says so in a file.
    await enter(client, tmp_path)
    go, wrote = tmp_path / "go", tmp_path / "wrote"
    text = await bash(
        client,
        f"(while [ ! -e {go} ]; do sleep 0.05; done; echo late; echo late >&2; "
        f"touch {wrote}; exec sleep 300) & echo $!",
    )
    (pid,) = pids_in(text)
    try:
        go.touch()
        deadline = time.monotonic() + 30
        while not wrote.exists() and pid_alive(pid):
            assert time.monotonic() < deadline, "the leftover neither wrote nor ended"
            await anyio.sleep(0.05)
        assert wrote.exists()
        assert pid_alive(pid)
    finally:
        await bash(client, f"kill {pid}")


async def test_cancelled_call_kills_the_group(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    pid_file = tmp_path / "pids"
    command = f"echo $$ > {pid_file}; sleep 300 & echo $! >> {pid_file}; wait"
    async with anyio.create_task_group() as group:
        # Cancelling the call makes the client send notifications/cancelled.
        group.start_soon(client.call_tool, "bash", {"command": command})
        deadline = time.monotonic() + 30
        while len(pids_in(pid_file.read_text() if pid_file.exists() else "")) < 2:
            assert time.monotonic() < deadline, "the command never started"
            await anyio.sleep(0.05)
        group.cancel_scope.cancel()
    pids = pids_in(pid_file.read_text())
    assert await wait_gone(pids) == []
    assert await bash(client, "echo still serving") == "exit_code: 0\n\nstdout:\nstill serving\n"


async def test_timeout_ends_jobs_that_left_the_process_group(
    client: Client[Any], tmp_path: Path
) -> None:
    """A job of a command with job control on (`set -m`) runs in a process group of its
    own; a timeout ends it with the command."""
    await enter(client, tmp_path)
    text = await bash(client, "set -m; sleep 300 & echo $!; sleep 300", timeout=1000)
    assert text.startswith("Command timed out after 1000ms\n\nexit_code: "), text
    (pid,) = pids_in(text)
    assert await wait_gone([pid]) == []


async def test_concurrent_calls_in_one_session(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    results: list[str] = []

    async def one(n: int) -> None:
        results.append(await bash(client, f"sleep 0.3; echo {n}"))

    async with anyio.create_task_group() as group:
        for n in range(4):
            group.start_soon(one, n)
    assert sorted(results) == [f"exit_code: 0\n\nstdout:\n{n}\n" for n in range(4)]


# --- progress ------------------------------------------------------------------------


async def test_progress_one_notification_per_line(client: Client[Any], tmp_path: Path) -> None:
    await enter(client, tmp_path)
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        (tmp_path / f"seen-{message}").touch()

    def after(line: str) -> str:
        """Shell text that waits until the notification of ``line`` has arrived, so that
        lines of stdout and stderr reach the server in a known order."""
        return f"while [ ! -e {tmp_path / f'seen-{line}'} ]; do sleep 0.01; done"

    result = await client.call_tool(
        "bash",
        {
            "command": f"echo one; {after('one')}; echo two >&2; {after('two')}; echo; "
            "printf three",
            "timeout": 60_000,
        },
        progress_handler=on_progress,
    )
    assert ok_text(result) == "exit_code: 0\n\nstderr:\ntwo\n\nstdout:\none\n\nthree"
    # stderr lines count too; the user's own blank line is sent, nothing else.
    assert seen == [(1, None, "one"), (2, None, "two"), (3, None, ""), (4, None, "three")]


async def test_progress_keeps_the_users_last_blank_line(
    client: Client[Any], tmp_path: Path
) -> None:
    await enter(client, tmp_path)
    seen: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    result = await client.call_tool(
        "bash", {"command": "echo a; echo"}, progress_handler=on_progress
    )
    assert ok_text(result) == "exit_code: 0\n\nstdout:\na\n\n"
    assert seen == ["a", ""]


async def test_progress_flood_is_bounded_and_monotonic(client: Client[Any], tmp_path: Path) -> None:
    # `yes` prints far faster than notifications can go out: lines are skipped, the call
    # still completes, and progress never goes backwards.
    await enter(client, tmp_path)
    seen: list[float] = []
    messages: set[str | None] = set()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)
        messages.add(message)

    result = await client.call_tool(
        "bash", {"command": "yes | head -c 20000000"}, progress_handler=on_progress
    )
    assert ok_text(result) == (
        "exit_code: 0\n\nstdout:\n" + "y\n" * 15000 + TRUNCATED.format(n=20_000_000)
    )
    assert seen, "no progress at all"
    assert all(a < b for a, b in itertools.pairwise(seen))
    assert seen[-1] <= 10_000_000
    assert messages == {"y"}


# --- other shells --------------------------------------------------------


async def test_wrapper_works_under_plain_sh(tmp_path: Path) -> None:
    # Where /bin/bash is missing the server falls back to /bin/sh; the wrapper must work
    # there too. The shell choice is made at start-up: here it is given to the app.
    (tmp_path / "sub").mkdir()
    async with app_client(workdir=tmp_path, shell="/bin/sh") as client:
        assert await bash(client, "cd sub; printf abc") == "exit_code: 0\n\nstdout:\nabc"
        assert await cwd(client) == str(tmp_path / "sub")
        assert await bash(client, "exit 4") == "exit_code: 4\n"
        text = await bash(client, "echo $0 $#")
        assert text == "exit_code: 0\n\nstdout:\n/bin/sh 0\n"
        # An open heredoc does not reach the wrapper; an odd name and a path past
        # PATH_MAX carry over.
        assert await bash(client, "cat <<EOF\nabc") == "exit_code: 0\n\nstdout:\nabc"
        (tmp_path / "sub" / "new\nline").mkdir()
        assert await bash(client, "cd 'new\nline'") == "exit_code: 0\n"
        assert await cwd(client) == str(tmp_path / "sub" / "new\nline")
        name = "d" * 200
        make = f"for i in $(seq 25); do mkdir {name} && cd -P {name} || exit; done"
        assert await bash(client, make) == "exit_code: 0\n"
        assert await cwd(client) == str(tmp_path / "sub" / "new\nline") + f"/{name}" * 25
