r"""symbols speed on a large tree, through one real Boris session, side by side with grep.

Usage: python bench/symbols.py [--runs N] [--corpus-dir DIR] [--copies N]
                               [--checkout DIR ...] [--only TEXT] [--pages N]
                               [--hostile]

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

- ``common/``: bench/codetree.py's 12,000 files of generated Go, Python and
  JavaScript in which ``Get`` is a common name (defined in a few hundred files, used
  in thousands, held by longer names in thousands more).

Output, one line each, with the project's target:
- definitions of a name across ``tree/`` beside grep for the same literal
  (files_with_matches): a rare name, a common one, and the very common ``get``;
  definitions of a qualified name; references of a name beside grep; target: at most
  2x grep's time (grep finds the candidate files in both);
- the outline of ``big.py`` and of ``dense.py``: at most 100 ms;
- the map of ``map/`` (its first page): at most 3 s;
- on ``common/``: definitions of ``Get`` beside grep for ``\bGet\b`` (at most 2x); the
  first page of its references beside grep's first page (grep's default mode, as a
  call without output_mode gives it, and content mode, for comparison; at most 3x);
  then every page after it, one call after another as a client reads them (each at
  most 1.5x the first page: the median and the slowest, and all of them together;
  ``--pages N`` reads only the first N);
- the first symbols call in a fresh server (definitions of ``Get`` in ``common/``)
  beside the same call warm: at most 0.5 s more (median of --runs fresh servers);
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

from codetree import built_once
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
    #: Its target: at most this many times grep's time.
    factor: float = 2


def calls(root: str) -> list[Call]:
    tree = f"{root}/tree"
    common = f"{root}/common"
    return [
        Call(
            "common: definitions 'Get'",
            {"path": common, "name": "Get"},
            grep={"path": common, "pattern": r"\bGet\b"},
        ),
        Call(
            "common: references 'Get', first page",
            {"path": common, "name": "Get", "references": True},
            grep={"path": common, "pattern": r"\bGet\b"},
            factor=3,
        ),
        Call(
            "common: references 'Get', beside content",
            {"path": common, "name": "Get", "references": True},
            grep={"path": common, "pattern": r"\bGet\b", "output_mode": "content"},
            factor=3,
        ),
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


def build_common_tree(target: Path) -> Path:
    """bench/codetree.py's tree under ``target/common``, built once."""
    return built_once(target / "common", target / ".boris-bench-common-complete")


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
        "--pages", type=int, default=0, help="read only this many pages of references (0: all)"
    )
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
    common = build_common_tree(root)
    print(
        f"corpus: {root}/tree ({count_files(root / 'tree'):,} files), map/ "
        f"({count_files(root / 'map'):,} files), big.py "
        f"({len((root / 'big.py').read_bytes().splitlines()):,} lines), common/ "
        f"({count_files(common):,} files)"
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
        if args.only in PAGES_LABEL:
            time_pages(servers, str(common), args.runs, args.pages)
        for server in servers:
            if server.label:
                print(f"\n{server.label}:", end="")
            print_memory(server.session.pid, server.idle_rss, "calls")
    if args.only in FIRST_LABEL:
        time_first_call(checkouts, root, args.runs)
    print(f"after: {load_average()}")


PAGES_LABEL = "common: references 'Get', every page"
FIRST_LABEL = "common: the first call in a fresh server"
#: The offset a page's last line gives to go on from.
NEXT_OFFSET = re.compile(r"call again with offset: (\d+)\.\]$")


def read_pages(server: Server, tree: str, most: int) -> list[float]:
    """Each page's time, read one after another as a client goes through them."""
    times = []
    offset = 0
    while True:
        arguments = {"path": tree, "name": "Get", "references": True, "offset": offset}
        start = time.perf_counter()
        text = server.session.call("symbols", arguments)
        times.append(time.perf_counter() - start)
        found = NEXT_OFFSET.search(text)
        if found is None or len(times) == most:
            return times
        offset = int(found.group(1))


def time_pages(servers: list[Server], tree: str, runs: int, most: int) -> None:
    """Every page of the references of Get, read in turn, ``runs`` times (taking turns
    between the servers): the first page's median, the later pages' median and slowest
    (each run's own, then the median of the runs), all pages together."""
    read: dict[int, list[list[float]]] = {index: [] for index in range(len(servers))}
    for _ in range(runs):
        for index, server in enumerate(servers):
            read[index].append(read_pages(server, tree, most))
    print(PAGES_LABEL)
    for index, server in enumerate(servers):
        runs_read = read[index]
        first = statistics.median(times[0] for times in runs_read)
        later = [times[1:] for times in runs_read if len(times) > 1]
        if not later:
            print(f"  {server.label or 'pages'}: one page only")
            continue
        typical = statistics.median(statistics.median(times) for times in later)
        slowest = statistics.median(max(times) for times in later)
        total = statistics.median(sum(times) for times in runs_read)
        verdict = "ok" if slowest <= 1.5 * first else "MISSED"
        print(
            f"  {server.label or 'pages'}: {len(runs_read[0])} pages; first {first:.2f}s, "
            f"later median {typical:.2f}s, slowest {slowest:.2f}s ({slowest / first:.2f}x; "
            f"<= 1.5x the first  {verdict}); all pages {total:.1f}s"
        )


def time_first_call(checkouts: list[str | None], root: Path, runs: int) -> None:
    """The first symbols call of a fresh server beside the same call warm: the median
    of ``runs`` fresh servers (of each checkout, in turn)."""
    arguments = {"path": str(root / "common"), "name": "Get"}
    first: dict[int, list[float]] = {index: [] for index in range(len(checkouts))}
    warm: dict[int, list[float]] = {index: [] for index in range(len(checkouts))}
    # The CPU time of the server and its workers, which a loaded machine moves less.
    first_cpu: dict[int, list[float]] = {index: [] for index in range(len(checkouts))}
    warm_cpu: dict[int, list[float]] = {index: [] for index in range(len(checkouts))}
    for _ in range(runs):
        for index, checkout in enumerate(checkouts):
            with RawServer(boris_command(root), cwd=checkout) as session:
                session.initialize()
                # Over STDIO the first answers come while the app loads: a call waits
                # for it, so that the symbols call's time is its own.
                session.call("bash", {"command": "true"})
                for times, cpu in ((first, first_cpu), (warm, warm_cpu), (warm, warm_cpu)):
                    used = process_cpu(session.pid)
                    start = time.perf_counter()
                    session.call("symbols", arguments)
                    times[index].append(time.perf_counter() - start)
                    cpu[index].append(process_cpu(session.pid) - used)
    print(FIRST_LABEL)
    for index, checkout in enumerate(checkouts):
        cold, hot = statistics.median(first[index]), statistics.median(warm[index])
        extra_cpu = statistics.median(first_cpu[index]) - statistics.median(warm_cpu[index])
        verdict = "ok" if cold - hot <= 0.5 else "MISSED"
        label = os.path.abspath(checkout) if checkout else "definitions 'Get'"
        print(
            f"  {label}: first {cold:.2f}s, warm {hot:.2f}s: {cold - hot:+.2f}s  "
            f"<= +0.5 s  {verdict}  (CPU {extra_cpu:+.2f} s)"
        )


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
        verdict = "ok" if ratio <= call.factor else "MISSED"
        print(
            f"{label:<42}{ours.seconds:8.2f}s{theirs.seconds:7.2f}s{ratio:7.2f}x  "
            f"<= {call.factor:g}x grep  {verdict}  (CPU {ours.cpu:.2f} s, grep {theirs.cpu:.2f} s: "
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
