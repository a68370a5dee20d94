r"""symbols speed on a large tree, through one real Boris session, side by side with grep.

Usage: python bench/symbols.py [--runs N] [--corpus-dir DIR] [--copies N]

Builds (once, then reuses) under --corpus-dir:
- ``tree/``: --copies copies of the running Python's standard library (site-packages
  and __pycache__ left out), 30,000 files and more with the default 13;
- ``map/``: 5,000 files: the standard library, then as many of its files again as that
  takes, in walk order;
- ``big.py``: 10,000 lines of the standard library's largest modules (outside its
  tests), one after another: code as dense as most; ``dense.py``: 10,000 lines of its
  smallest modules, dense with definitions (module constants, small classes).
Their sizes are printed first. It starts Boris over STDIO with the corpus as its
workdir and, in that one session, times each call: a warm-up, then the median of
--runs calls, measured from sending the request to reading the reply.

Output, one line each, with the project's target:
- definitions of a name across ``tree/`` beside grep for the same literal
  (files_with_matches): a rare name, a common one, and the very common ``get``;
  definitions of a qualified name; references of a name beside grep; target: at most
  2x grep's time (grep finds the candidate files in both);
- the outline of ``big.py`` and of ``dense.py``: at most 100 ms;
- the map of ``map/`` (its first page): at most 3 s;
then the server's VmRSS idle and its VmHWM after the calls, and its search workers'.
The server and its workers use every core: on a busy machine the figures move, and the
load average is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import exit_cleanly_on_sigterm, load_average, memory_kib, print_memory
from rawrpc import RawServer, boris_command
from search import median_seconds

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
    marker = target / f".boris-bench-complete-{copies}-{MAP_FILES}-2"
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
    for name, chosen in (("big.py", reversed(by_size)), ("dense.py", by_size)):
        lines: list[str] = []
        for path in chosen:
            if len(lines) >= BIG_LINES:
                break
            lines += path.read_text(errors="replace").splitlines()
        (target / name).write_text("\n".join(lines[:BIG_LINES]) + "\n")
    marker.write_text("")


def count_files(root: Path) -> int:
    return sum(len(names) for _, _, names in os.walk(root))


# --- timing ------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--copies", type=int, default=13)
    parser.add_argument(
        "--corpus-dir",
        default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "boris-symbols-corpus"),
        help="where the corpus is built and kept",
    )
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    root = Path(args.corpus_dir).resolve()
    build_corpus(root, args.copies)
    print(
        f"corpus: {root}/tree ({count_files(root / 'tree'):,} files), map/ "
        f"({count_files(root / 'map'):,} files), big.py "
        f"({len((root / 'big.py').read_bytes().splitlines()):,} lines)"
    )
    print(f"median of {args.runs} runs after a warm-up; before: {load_average()}")
    print()
    print(f"{'call':<42}{'symbols':>9}{'grep':>8}{'ratio':>8}  target")
    with RawServer(boris_command(root)) as session:
        session.initialize()
        idle_rss = memory_kib(session.pid, "VmRSS")
        for call in calls(str(root)):
            ours = median_seconds(partial(session.call, "symbols", call.arguments), args.runs)
            if call.grep is None:
                assert call.seconds is not None
                verdict = "ok" if ours <= call.seconds else "MISSED"
                limit = (
                    f"<= {call.seconds * 1000:.0f} ms"
                    if call.seconds < 1
                    else f"<= {call.seconds:.0f} s"
                )
                print(f"{call.label:<42}{ours * 1000:7.0f}ms{'-':>8}{'-':>8}  {limit}  {verdict}")
                continue
            theirs = median_seconds(partial(session.call, "grep", call.grep), args.runs)
            ratio = ours / theirs
            verdict = "ok" if ratio <= 2 else "MISSED"
            print(f"{call.label:<42}{ours:8.2f}s{theirs:7.2f}s{ratio:7.2f}x  <= 2x grep  {verdict}")
        print_memory(session.pid, idle_rss, "calls")
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
