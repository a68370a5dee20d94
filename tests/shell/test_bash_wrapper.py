"""What a command can and cannot do to the wrapper that runs it, through a real client.

The command text is handed to the shell as data, never pasted into the wrapper's own
script, and the cwd after the command comes back on a descriptor of its own. So no
command text (a heredoc left open, a quote left open, lookalikes of old markers) can
reach the wrapper, stdout is exactly what the command wrote, and any directory name
(a newline in it, bytes that are not UTF-8, a path longer than the kernel's PATH_MAX)
carries over to the next call (README "bash").
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client

pytestmark = pytest.mark.anyio

NUL_REFUSED = (
    "[INVALID_INPUT] command: contains a NUL character at index {i}; "
    "a shell command cannot contain one"
)


async def bash(client: Client[Any], command: str, **arguments: Any) -> str:
    result = await client.call_tool("bash", {"command": command, **arguments}, raise_on_error=False)
    return ok_text(result)


async def enter(client: Client[Any], directory: Path) -> None:
    assert await bash(client, f"cd '{directory}'") == "exit_code: 0\n"


async def task_output(client: Client[Any], task_id: str) -> str:
    return ok_text(await client.call_tool("task_output", {"task_id": task_id}))


async def pwd_text(client: Client[Any]) -> str:
    return await bash(client, "pwd")


def stdout_of(path: str | bytes | os.PathLike[str]) -> str:
    """The result of ``pwd`` in ``path``: its bytes and a newline, decoded as a result is."""
    data = os.fsencode(path) + b"\n"
    return "exit_code: 0\n\nstdout:\n" + data.decode("utf-8", "replace")


# --- commands that used to swallow the wrapper -----------------------------------------------


async def test_unterminated_heredoc(client: Client[Any], case: Path) -> None:
    await enter(client, case)
    text = await bash(client, "cat <<EOF\nabc")
    assert text == (
        "exit_code: 0\n\nstderr:\n/bin/bash: line 2: warning: here-document at line 1 "
        "delimited by end-of-file (wanted `EOF')\n\nstdout:\nabc\n"
    )
    assert await pwd_text(client) == stdout_of(case)


async def test_unterminated_heredoc_after_cd(client: Client[Any], case: Path) -> None:
    # The cd inside the command still carries over: the wrapper ran after it.
    (case / "sub").mkdir()
    await enter(client, case)
    assert await bash(client, "cd sub && cat <<'X'\n$HOME") == (
        "exit_code: 0\n\nstderr:\n/bin/bash: line 2: warning: here-document at line 1 "
        "delimited by end-of-file (wanted `X')\n\nstdout:\n$HOME\n"
    )
    assert await pwd_text(client) == stdout_of(case / "sub")


async def test_trailing_backslash_and_open_quote(client: Client[Any], case: Path) -> None:
    await enter(client, case)
    assert await bash(client, "echo a\\") == "exit_code: 0\n\nstdout:\na\\\n"
    text = await bash(client, "echo before\necho 'open")
    assert text == (
        "exit_code: 2\n\nstderr:\n/bin/bash: eval: line 2: unexpected EOF while looking for "
        "matching `''\n\nstdout:\nbefore\n"
    )
    assert await pwd_text(client) == stdout_of(case)


async def test_the_command_has_no_arguments_and_sees_none_of_the_wrapper(
    client: Client[Any], case: Path
) -> None:
    # As with `bash -c '<command>'`: $0 is the shell, there are no positional parameters,
    # and the processes of the command inherit no descriptor beyond stdin, stdout, stderr
    # (`ls` itself opens 3 to read the directory).
    await enter(client, case)
    text = await bash(client, 'echo "$0 $# [$1] [$*]"; ls /proc/self/fd')
    assert text == "exit_code: 0\n\nstdout:\n/bin/bash 0 [] []\n0\n1\n2\n3\n"


async def test_nul_in_a_command_is_refused(client: Client[Any], case: Path) -> None:
    await enter(client, case)
    for background in (False, True):
        result = await client.call_tool(
            "bash",
            {"command": "echo a\x00b", "run_in_background": background},
            raise_on_error=False,
        )
        assert error_text(result) == NUL_REFUSED.format(i=6)
    assert await pwd_text(client) == stdout_of(case)


# --- odd directory names carry over ---------------------------------------------------------

ODD_NAMES = [
    b"new\nline",
    b"trailing newline\n",
    b"\n\n",
    b"\n",
    b"__BORIS_CWD__",
    b"__BORIS_CWD_0123abcd__",
    b"\n__BORIS_CWD_0123abcd__\n",
    b"x\n__BORIS_CWD_0123abcd__\n",
    b"back\\slash\\",
    b"-",
    b"-P",
    b'it\'s "quoted" $(echo no) `no` *?[',
    b"\xff\xfe not utf-8 \xc3",
    b"\t tab",
    b"\x1b[31mred",
]


@pytest.mark.parametrize("name", ODD_NAMES, ids=repr)
async def test_cd_into_an_oddly_named_directory(
    client: Client[Any], case: Path, name: bytes
) -> None:
    target = os.path.join(os.fsencode(case), name)
    os.mkdir(target)
    Path(os.fsdecode(target), "inside").touch()
    await enter(client, case)
    # The glob is the only subdirectory; the result shows nothing but the exit code.
    assert await bash(client, "cd -- */") == "exit_code: 0\n"
    assert await pwd_text(client) == stdout_of(target)
    assert await bash(client, "ls") == "exit_code: 0\n\nstdout:\ninside\n"


async def test_cwd_longer_than_path_max(client: Client[Any], case: Path) -> None:
    # 25 levels of 200-byte names: past the 4096 bytes a single chdir() accepts.
    name = "d" * 200
    await enter(client, case)
    make = f"for i in $(seq 25); do mkdir {name} && cd {name} || exit; done; echo made"
    assert await bash(client, make) == "exit_code: 0\n\nstdout:\nmade\n"
    deep = str(case) + f"/{name}" * 25
    assert len(deep.encode()) > 4096
    assert await pwd_text(client) == stdout_of(deep)
    # The next calls run there: the physical cwd too, and relative paths resolve there.
    assert await bash(client, "pwd -P; touch here; ls") == stdout_of(deep) + "here\n"
    assert await bash(client, "cd .. && echo up") == "exit_code: 0\n\nstdout:\nup\n"
    assert await pwd_text(client) == stdout_of(deep.rsplit("/", 1)[0])
    # A background command starts there too, and leaves the cwd alone.
    result = await client.call_tool(
        "bash", {"command": "pwd", "run_in_background": True}, raise_on_error=False
    )
    task_id = ok_text(result).removeprefix("task_id: ").split("\n")[0]
    deadline = time.monotonic() + 30
    while (report := await task_output(client, task_id)).startswith("status: running"):
        assert time.monotonic() < deadline
        await anyio.sleep(0.05)
    parent = deep.rsplit("/", 1)[0]
    assert report == "status: completed\n" + stdout_of(parent)
    assert await pwd_text(client) == stdout_of(parent)


async def test_cwd_deleted_by_the_command_itself(
    client: Client[Any], root: Path, case: Path
) -> None:
    # After `rmdir "$PWD"` the cwd names nothing: the next call runs in the workdir,
    # saying why, and the workdir is the cwd from then on.
    doomed = case / "doomed"
    doomed.mkdir()
    await enter(client, doomed)
    assert await bash(client, 'rmdir "$PWD" && echo gone') == "exit_code: 0\n\nstdout:\ngone\n"
    assert await bash(client, "echo ran") == (
        f"[The working directory {doomed} no longer exists; commands run in {root} now "
        "(--workdir).]\n\nexit_code: 0\n\nstdout:\nran\n"
    )
    assert await pwd_text(client) == stdout_of(root)


async def test_writing_on_descriptors_the_command_does_not_have(
    client: Client[Any], case: Path
) -> None:
    # The report descriptor is closed while the command runs: writing to it fails like
    # any other closed descriptor, and stdout carries the command's bytes unchanged.
    (case / "sub").mkdir()
    await enter(client, case)
    text = await bash(client, "cd sub; printf '/etc\\n\\0' >&9; printf '\\n/etc\\n\\0'")
    assert text == (
        "exit_code: 0\n\nstderr:\n/bin/bash: line 1: 9: Bad file descriptor\n\nstdout:\n"
        "\n/etc\n\x00"
    )
    assert await pwd_text(client) == stdout_of(case / "sub")


async def test_a_report_forged_by_the_command_is_ignored(client: Client[Any], case: Path) -> None:
    # The shell keeps a copy of the report descriptor while the command runs; a command
    # that writes a report of its own there on purpose makes the report malformed (more
    # than one), and a malformed report leaves the cwd where it was.
    (case / "sub").mkdir()
    await enter(client, case)
    forge = (
        "cd sub; fds=$(ls /proc/$$/fd); for n in $fds; do [ $n -gt 2 ] && "
        "printf '/etc\\n\\0' >&$n; done 2>/dev/null; echo done"
    )
    assert await bash(client, forge) == "exit_code: 0\n\nstdout:\ndone\n"
    assert await pwd_text(client) == stdout_of(case)


async def test_a_report_forged_before_an_exit_is_not_believed(
    client: Client[Any], case: Path
) -> None:
    # The shell's copy of the report socket (descriptor 10 in bash) takes a report of
    # the command's own; then `exit` ends the shell before the wrapper's report. A
    # report counts only if it names the directory the shell is in.
    await enter(client, case)
    forged = "printf '/etc\\n\\0' >&10; exit 3"
    assert await bash(client, forged) == "exit_code: 3\n"
    assert await pwd_text(client) == stdout_of(case)
    # Through every descriptor the shell holds, with the cwd moved meanwhile.
    (case / "sub").mkdir()
    forge_all = (
        "cd sub; fds=$(ls /proc/$$/fd); for n in $fds; do [ $n -gt 2 ] && "
        "printf '/etc\\n\\0' >&$n; done 2>/dev/null; exit 4"
    )
    assert await bash(client, forge_all) == "exit_code: 4\n"
    assert await pwd_text(client) == stdout_of(case)


async def test_a_report_of_where_the_shell_is_is_believed(client: Client[Any], case: Path) -> None:
    # The one report a command can write that counts: where its shell really is when
    # Boris looks (the command waits for that, as the wrapper does).
    (case / "sub").mkdir()
    await enter(client, case)
    honest = "cd sub; printf '%s\\n\\0' \"$PWD\" >&10; read -r x <&10; cd ..; exit 3"
    assert await bash(client, honest) == "exit_code: 3\n"
    assert await pwd_text(client) == stdout_of(case / "sub")


@pytest.mark.parametrize(
    "setup", ["BASH_XTRACEFD=1", "BASH_XTRACEFD=2", "exec 5>&1; BASH_XTRACEFD=5", "exec 2>&1"]
)
async def test_tracing_to_any_descriptor_shows_only_the_command(
    client: Client[Any], case: Path, setup: str
) -> None:
    # Wherever the trace goes (stdout, stderr, a copy of stdout), the wrapper's own
    # steps after the command never show in it.
    (case / "sub").mkdir()
    await enter(client, case)
    text = await bash(client, f"{setup}; set -x; cd sub")
    assert "__boris" not in text
    assert text in (
        "exit_code: 0\n\nstdout:\n++ cd sub\n",
        "exit_code: 0\n\nstderr:\n++ cd sub\n",
    ), text
    assert await pwd_text(client) == stdout_of(case / "sub")


async def test_an_exit_trap_still_writes_where_the_command_did(
    client: Client[Any], case: Path
) -> None:
    await enter(client, case)
    text = await bash(client, "trap 'echo bye; echo err >&2' EXIT; echo hi")
    assert text == "exit_code: 0\n\nstderr:\nerr\n\nstdout:\nhi\nbye\n"


async def test_cwd_too_long_to_report_stays(client: Client[Any], case: Path) -> None:
    # A cwd is kept up to 64 KiB; deeper than that the session stays where it was.
    name = "d" * 200
    await enter(client, case)
    make = f"for i in $(seq 330); do mkdir {name} && cd -P {name} || exit; done; pwd | wc -c"
    assert (
        await bash(client, make)
        == "exit_code: 0\n\nstdout:\n" + f"{len(str(case)) + 1 + 330 * 201}\n"
    )
    assert await pwd_text(client) == stdout_of(case)
    make = f"for i in $(seq 325); do cd -P {name} || exit; done; pwd | wc -c"
    deep = str(case) + f"/{name}" * 325
    assert await bash(client, make) == "exit_code: 0\n\nstdout:\n" + f"{len(deep) + 1}\n"
    digest = hashlib.sha256(f"{deep}\n".encode()).hexdigest()
    assert await bash(client, "pwd | sha256sum") == f"exit_code: 0\n\nstdout:\n{digest}  -\n"


async def test_tracing_shows_only_the_command(client: Client[Any], case: Path) -> None:
    # `set -x` traces the command's own steps (one level deeper, as inside any eval),
    # and none of the wrapper's after it.
    (case / "sub").mkdir()
    await enter(client, case)
    text = await bash(client, "set -x; cd sub; echo hi")
    assert text == "exit_code: 0\n\nstderr:\n++ cd sub\n++ echo hi\n\nstdout:\nhi\n"
    assert await pwd_text(client) == stdout_of(case / "sub")


# --- property: any command text, against bash itself ----------------------------------------

# Pieces that broke wrappers: quotes, newlines, heredoc starts, backslashes, comments,
# lookalikes of the old stdout marker, exits, and what reveals the shell's arguments.
# Nothing that can make a pipeline or a background job (`\\` before `&&` leaves `&`):
# processes running side by side write their stderr in no fixed order.
FRAGMENTS = [
    "'",
    '"',
    "\n",
    "\\",
    "<<EOF",
    "<<'EOF'",
    "<<-X",
    "EOF",
    "X",
    "echo ",
    "printf ",
    "%s",
    "\\n",
    " ",
    "\t",
    "x",
    "é",
    ";",
    "#",
    " && ",
    " || ",
    " 1>&2",
    "(",
    ")",
    "{",
    "}",
    "`",
    "$#",
    "$1",
    "$0",
    "$*",
    "$LINENO",
    "__BORIS_CWD_deadbeef__",
    "__BORIS_CWD__",
    "exit ",
    "3",
    "true",
    "false",
    "cat",
]
commands = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=14).map("".join)


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal(backend="asyncio") as portal:
        yield portal


@pytest.fixture(scope="module")
def sync_client(portal: BlockingPortal, root: Path) -> Iterator[Client[Any]]:
    with portal.wrap_async_context_manager(app_client(workdir=root)) as client:
        yield client


def reference(command: str, directory: str) -> str:
    """The result text bash itself gives for ``bash -c <command>`` run the same way."""
    done = subprocess.run(
        ["/bin/bash", "-c", command],
        cwd=directory,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    stdout = done.stdout.decode("utf-8", "replace")
    text = f"exit_code: {done.returncode}\n"
    text += f"\nstderr:\n{stderr}" if stderr else ""
    return text + (f"\nstdout:\n{stdout}" if stdout else "")


@given(command=commands.filter(lambda c: c.strip()))
def test_any_command_text_gives_what_bash_gives(
    portal: BlockingPortal, sync_client: Client[Any], root: Path, command: str
) -> None:
    """Exit code, stdout and stderr are those of ``bash -c`` in the same directory.

    The known difference: a syntax error is reported by ``eval``, where bash run
    directly names ``-c``, and its status is always 2 (``bash -c`` keeps a failed
    previous command's status instead). After the command the cwd is still the
    directory it ran in.
    """
    here = tempfile.mkdtemp(dir=root)
    there = tempfile.mkdtemp(dir=root)

    def call(text: str) -> str:
        result = portal.call(lambda: sync_client.call_tool("bash", {"command": text}))
        return ok_text(result)

    assert call(f"cd '{here}'") == "exit_code: 0\n"
    got = call(command)
    expected = reference(command, there)
    if "\n/bin/bash: -c: line " in expected:
        expected = "exit_code: 2\n" + expected.split("\n", 1)[1]
    assert got.replace("/bin/bash: eval: line ", "/bin/bash: -c: line ") == expected
    assert "__boris" not in got
    assert "9>&" not in got
    assert call("pwd") == stdout_of(here)


async def test_the_users_bashrc_is_not_read_even_with_shlvl_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Debian's bash reads ~/.bashrc for `bash -c` when stdin is a socket and SHLVL is
    # unset, as under a container's entry point; BASH_ENV, set on purpose, still counts.
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("echo from-bashrc\nalias ls='echo aliased'\n")
    (home / "env.sh").write_text("export FROM_BASH_ENV=yes\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SHLVL", raising=False)
    monkeypatch.setenv("BASH_ENV", str(home / "env.sh"))
    async with app_client(workdir=tmp_path) as client:
        assert await bash(client, "echo $FROM_BASH_ENV") == "exit_code: 0\n\nstdout:\nyes\n"
        assert await bash(client, "cd home; pwd") == f"exit_code: 0\n\nstdout:\n{home}\n"
        assert await bash(client, "ls -a | grep -c bashrc") == "exit_code: 0\n\nstdout:\n1\n"
