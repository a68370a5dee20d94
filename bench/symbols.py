r"""symbols speed on a large tree, through one real Boris session, side by side with grep.

Usage: python bench/symbols.py [--runs N] [--corpus-dir DIR] [--copies N]
                               [--checkout DIR ...] [--only TEXT] [--hostile]

Builds (once, then reuses) under --corpus-dir:
- ``tree/``: --copies copies of the running Python's standard library (site-packages
  and __pycache__ left out), 30,000 files and more with the default 13;
- ``map/``: 5,000 files: the standard library, then as many of its files again as that
  takes, in walk order;
- ``big.py``: 10,000 lines of the standard library's largest modules that define a
  function or a class (outside its tests; not a data module such as pydoc's topics),
  one after another, the last one cut before a top-level definition: code as dense as
  most; ``dense.py``: 10,000 lines of its smallest modules, dense with definitions
  (module constants, small classes).
Their sizes are printed first. It starts Boris over STDIO with the corpus as its
workdir and, in that one session, times each call: a warm-up, then the median of
--runs calls, measured from sending the request to reading the reply.

``--checkout DIR`` runs the server of that checkout (from DIR, whose ``boris``
``-m boris`` imports first, with this venv's libraries; ``.`` is this one). Given more
than once, every server is started and each call's runs alternate between them (and
grep's between them too), so that a changing load falls on all of them alike.
``--only TEXT`` times only the calls whose label holds TEXT.

Output, one line each, with the project's target:
- definitions of a name across ``tree/`` beside grep for the same literal
  (files_with_matches): a rare name, a common one, and the very common ``get``;
  definitions of a qualified name; references of a name beside grep; target: at most
  2x grep's time (grep finds the candidate files in both);
- the outline of ``big.py`` and of ``dense.py``: at most 100 ms;
- the map of ``map/`` (its first page): at most 3 s;
each with the CPU time the server and its search workers used for one call (the mean
of the timed runs; grep's too, and the ratio of the two); then the server's VmRSS idle
and its VmHWM after the calls, and its search workers'. The server and its workers use
every core: on a busy machine the times move (the CPU times less), and the load
average is printed beside them.

``--hostile`` times instead the outlines of files real repositories hold that are hard
on a parser's user (tests/support/hostile_sources.py, written under ``hostile/``):
minified one-line bundles of 0.9, 2.9 and 9 MB, JavaScript functions nested 14,600
deep (293 KB), a generated C file of 9.9 MB of declarations (whole, and its first
page of 3 lines), a notebook nested 100,000 deep, a generated Python module of 6 MB
(whole, and its first page). Each call runs once, in a server of
its own (one per checkout): the call's peak memory is the most the VmHWM of the server
or of one of its search workers grew by over it (after a first outline of a small
file), as a file is parsed in one of them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import (
    children,
    cpu_seconds,
    exit_cleanly_on_sigterm,
    load_average,
    memory_kib,
    print_memory,
)
from rawrpc import RawServer, boris_command

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from tests.support import hostile_sources  # the files the tests pin these cases with

#: Files of the map's tree, lines of the outlined file.
MAP_FILES = 5000
BIG_LINES = 10_000
SKIPPED = {"site-packages", "dist-packages", "__pycache__"}


@dataclass(frozen=True)
class Call:
    label: str
    arguments: dict[str, Any]
    #: The grep call it is compared with, if any; else its target in seconds.
    grep: dict[str, Any] | None = None
    seconds: float | None = None


def calls(root: str) -> list[Call]:
    tree = f"{root}/tree"
    return [
        Call(
            "definitions 'TarFile'",
            {"path": tree, "name": "TarFile"},
            grep={"path": tree, "pattern": "TarFile"},
        ),
        Call(
            "definitions 'urlopen'",
            {"path": tree, "name": "urlopen"},
            grep={"path": tree, "pattern": "urlopen"},
        ),
        Call(
            "definitions 'get' (a very common name)",
            {"path": tree, "name": "get"},
            grep={"path": tree, "pattern": "get"},
        ),
        Call(
            "definitions 'HTTPServer.server_bind'",
            {"path": tree, "name": "HTTPServer.server_bind"},
            grep={"path": tree, "pattern": "server_bind"},
        ),
        Call(
            "references 'urlopen'",
            {"path": tree, "name": "urlopen", "references": True},
            grep={"path": tree, "pattern": "urlopen"},
        ),
        Call(f"outline of a {BIG_LINES:,}-line file", {"path": f"{root}/big.py"}, seconds=0.1),
        Call(
            f"outline of a {BIG_LINES:,}-line dense file",
            {"path": f"{root}/dense.py"},
            seconds=0.1,
        ),
        Call(f"map of a {MAP_FILES:,}-file tree", {"path": f"{root}/map"}, seconds=3.0),
    ]


# --- the corpus --------------------------------------------------------------------


def stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        found += [Path(directory) / name for name in sorted(names)]
    return [path for path in found if path.is_file() and not path.is_symlink()]


def build_corpus(target: Path, copies: int) -> None:
    marker = target / f".boris-bench-complete-{copies}-{MAP_FILES}-3"
    if marker.exists():
        return
    files = stdlib_files()
    if (target / "tree").exists() and any(target.glob(f".boris-bench-complete-{copies}-*")):
        # The trees are there: only the outlined files are written again.
        for old in target.glob(".boris-bench-complete-*"):
            old.unlink()
        copies_done = True
    else:
        if target.exists():
            shutil.rmtree(target)
        copies_done = False
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    if not copies_done:
        print(f"copying the standard library {copies} times ...", file=sys.stderr)
    for copy in range(0 if copies_done else copies):
        for path in files:
            place = target / "tree" / f"copy{copy:02d}" / path.relative_to(stdlib)
            place.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, place)
    for index in range(0 if copies_done else MAP_FILES):
        path = files[index % len(files)]
        place = target / "map" / f"copy{index // len(files)}" / path.relative_to(stdlib)
        place.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, place)
    modules = [p for p in files if p.suffix == ".py" and "test" not in p.parts]
    by_size = sorted(modules, key=lambda p: p.stat().st_size)
    code = [p for p in reversed(by_size) if TOP_DEFINITION.search(p.read_bytes())]
    for name, chosen in (("big.py", code), ("dense.py", by_size)):
        lines: list[str] = []
        for path in chosen:
            if len(lines) >= BIG_LINES:
                break
            lines += path.read_text(errors="replace").splitlines()
        if name == "big.py":
            lines = cut_before_definition(lines[: BIG_LINES + 1])
        (target / name).write_text("\n".join(lines[:BIG_LINES]) + "\n")
    marker.write_text("")


#: A line that starts a top-level definition of a Python module.
TOP_DEFINITION = re.compile(rb"(?m)^(?:def|class|async def|@)\b")


def cut_before_definition(lines: list[str]) -> list[str]:
    """``lines`` cut before their last top-level definition (no definition is cut in
    two, so the file parses cleanly), made up to BIG_LINES with comment lines."""
    cut = max(
        (i for i, line in enumerate(lines) if TOP_DEFINITION.match(line.encode())),
        default=len(lines),
    )
    while cut > 0 and lines[cut - 1].startswith("@"):
        cut -= 1  # a decorated definition starts at its first decorator
    return lines[:cut] + ["# (filler)"] * (BIG_LINES - cut)


def count_files(root: Path) -> int:
    return sum(len(names) for _, _, names in os.walk(root))


# --- timing ------------------------------------------------------------------------


@dataclass
class Server:
    """A server under test: its label, its session, its VmRSS when idle."""

    label: str
    session: RawServer
    idle_rss: int = 0


@dataclass(frozen=True)
class Timed:
    """A call's median time, and the CPU time its server and search workers used for
    it (the mean of the timed runs): on a loaded machine the time moves, the CPU less."""

    seconds: float
    cpu: float


def process_cpu(pid: int) -> float:
    """The CPU time so far of a server and its search workers."""
    return cpu_seconds(pid) + sum(cpu_seconds(child) for child in children(pid))


def alternating_medians(
    runs: dict[str, tuple[Callable[[], object], int]], count: int
) -> dict[str, Timed]:
    """Each of ``runs`` (label -> the call, its server's pid) timed: one warm-up each,
    then ``count`` rounds, each running every call once in turn."""
    for run, _ in runs.values():
        run()  # warm-up: page cache, lazy imports, compiled patterns, grammars, workers
    times: dict[str, list[float]] = {label: [] for label in runs}
    cpu = dict.fromkeys(runs, 0.0)
    for _ in range(count):
        for label, (run, pid) in runs.items():
            used = process_cpu(pid)
            start = time.perf_counter()
            run()
            times[label].append(time.perf_counter() - start)
            cpu[label] += process_cpu(pid) - used
    return {
        label: Timed(statistics.median(values), cpu[label] / count)
        for label, values in times.items()
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--copies", type=int, default=13)
    parser.add_argument(
        "--corpus-dir",
        default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "boris-symbols-corpus"),
        help="where the corpus is built and kept",
    )
    parser.add_argument(
        "--checkout",
        action="append",
        help="run the server of this checkout (. for this one); more than once to alternate",
    )
    parser.add_argument("--only", default="", help="time only the calls whose label holds this")
    parser.add_argument(
        "--hostile", action="store_true", help="time the outlines of hard files instead"
    )
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    root = Path(args.corpus_dir).resolve()
    if args.hostile:
        hostile(root / "hostile", args.checkout or [None], args.only)
        return
    build_corpus(root, args.copies)
    print(
        f"corpus: {root}/tree ({count_files(root / 'tree'):,} files), map/ "
        f"({count_files(root / 'map'):,} files), big.py "
        f"({len((root / 'big.py').read_bytes().splitlines()):,} lines)"
    )
    print(f"median of {args.runs} runs after a warm-up; before: {load_average()}")
    print()
    checkouts: list[str | None] = args.checkout or [None]
    with contextlib.ExitStack() as stack:
        servers = []
        for checkout in checkouts:
            session = stack.enter_context(RawServer(boris_command(root), cwd=checkout))
            session.initialize()
            label = "" if checkout is None else os.path.abspath(checkout)
            servers.append(Server(label, session, memory_kib(session.pid, "VmRSS")))
        print(f"{'call':<42}{'symbols':>9}{'grep':>8}{'ratio':>8}  target")
        for call in calls(str(root)):
            if args.only not in call.label:
                continue
            time_call(call, servers, args.runs)
        for server in servers:
            if server.label:
                print(f"\n{server.label}:", end="")
            print_memory(server.session.pid, server.idle_rss, "calls")
    print(f"after: {load_average()}")


def time_call(call: Call, servers: list[Server], runs: int) -> None:
    """One call's line for each server: its median and its CPU, and grep's beside them."""
    timed: dict[str, tuple[Callable[[], object], int]] = {}
    for index, server in enumerate(servers):
        pid = server.session.pid
        timed[f"symbols {index}"] = (
            partial(server.session.call, "symbols", call.arguments),
            pid,
        )
        if call.grep is not None:
            timed[f"grep {index}"] = (partial(server.session.call, "grep", call.grep), pid)
    medians = alternating_medians(timed, runs)
    if len(servers) > 1:
        print(call.label)
    for index, server in enumerate(servers):
        label = f"  {server.label}" if len(servers) > 1 else call.label
        ours = medians[f"symbols {index}"]
        if call.grep is None:
            assert call.seconds is not None
            verdict = "ok" if ours.seconds <= call.seconds else "MISSED"
            limit = (
                f"<= {call.seconds * 1000:.0f} ms"
                if call.seconds < 1
                else f"<= {call.seconds:.0f} s"
            )
            print(
                f"{label:<42}{ours.seconds * 1000:7.0f}ms{'-':>8}{'-':>8}  {limit}  {verdict}"
                f"  (CPU {ours.cpu * 1000:.0f} ms)"
            )
            continue
        theirs = medians[f"grep {index}"]
        ratio = ours.seconds / theirs.seconds
        verdict = "ok" if ratio <= 2 else "MISSED"
        print(
            f"{label:<42}{ours.seconds:8.2f}s{theirs.seconds:7.2f}s{ratio:7.2f}x  "
            f"<= 2x grep  {verdict}  (CPU {ours.cpu:.2f} s, grep {theirs.cpu:.2f} s: "
            f"{ours.cpu / theirs.cpu:.2f}x)"
        )


# --- hard files --------------------------------------------------------------------


def hostile_files(root: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """The hard files, written once: (label, file name, the call's other arguments)."""
    made: dict[str, Callable[[], bytes]] = {
        "bundle-0.9MB.min.js": lambda: hostile_sources.minified(900_000),
        "bundle-2.9MB.min.js": lambda: hostile_sources.minified(2_900_000),
        "bundle-9MB.min.js": lambda: hostile_sources.minified(9_000_000),
        "nested-293KB.js": lambda: hostile_sources.nested("js", 14_600),
        "declarations-9.9MB.c": lambda: hostile_sources.declarations(9_900_000),
        "deep.ipynb": lambda: hostile_sources.deep_notebook(100_000),
        "module-6MB.py": lambda: hostile_sources.python_module(6_000_000),
        "small.js": lambda: b"function small() {}\n",
    }
    root.mkdir(parents=True, exist_ok=True)
    for name, make in made.items():
        if not (root / name).exists():
            (root / name).write_bytes(make())
    return [
        ("outline of a 0.9 MB minified bundle", "bundle-0.9MB.min.js", {}),
        ("outline of a 2.9 MB minified bundle", "bundle-2.9MB.min.js", {}),
        ("outline of a 9 MB minified bundle", "bundle-9MB.min.js", {}),
        ("outline of 14,600 nested functions", "nested-293KB.js", {}),
        ("map of 14,600 nested functions", "nested-293KB.js", {"map": True}),
        ("outline of a 9.9 MB C file", "declarations-9.9MB.c", {}),
        ("its first 3 lines", "declarations-9.9MB.c", {"head_limit": 3}),
        ("a notebook nested 100,000 deep", "deep.ipynb", {}),
        ("outline of a 6 MB Python module", "module-6MB.py", {}),
        ("its first 3 lines (Python)", "module-6MB.py", {"head_limit": 3}),
    ]


def peaks(server: int) -> dict[int, int]:
    """The VmHWM (KiB) of the server and of each of its search workers."""
    return {pid: memory_kib(pid, "VmHWM") for pid in (server, *children(server))}


def hostile(root: Path, checkouts: list[str | None], only: str) -> None:
    calls = hostile_files(root)
    print(f"{'call':<42}{'time':>9}{'peak':>10}  checkout")
    for label, name, extra in calls:
        if only not in label:
            continue
        arguments = dict(extra)
        # A map is of a directory that holds the file alone.
        if arguments.pop("map", False):
            alone = root / f"map-{name}"
            alone.mkdir(exist_ok=True)
            if not (alone / name).exists():
                os.link(root / name, alone / name)
            arguments["path"] = str(alone)
        else:
            arguments["path"] = str(root / name)
        for checkout in checkouts:
            with RawServer(boris_command(root), cwd=checkout) as server:
                server.initialize()
                server.call("symbols", {"path": str(root / "small.js")})
                before = peaks(server.pid)
                start = time.perf_counter()
                try:
                    text = server.call("symbols", arguments)
                    outcome = f"{len(text):,} characters"
                except RuntimeError as exc:
                    outcome = f"error: {str(exc)[:60]}"
                seconds = time.perf_counter() - start
                after = peaks(server.pid)
                # The server's and each worker's growth: a file is parsed in one of them.
                peak = max(after[pid] - before.get(pid, 0) for pid in after) / 1024
                where = os.path.abspath(checkout) if checkout else "."
                print(f"{label:<42}{seconds:8.2f}s{peak:7.0f} MiB  {where}  ({outcome})")
    print(f"load: {load_average()}")


if __name__ == "__main__":
    main()
