r"""grep and glob speed on a large tree, through one real Boris session, against ripgrep.

Usage: python bench/search.py [CORPUS] [--runs N] [--corpus-dir DIR] [--common]

Without CORPUS it builds (once, then reuses) a copy of the running Python's standard
library and site-packages under --corpus-dir; its size (files and GB of regular files)
is printed first, as it depends on what the interpreter has installed. ``--common``
searches bench/codetree.py's generated tree instead (built once under --corpus-dir),
where ``Get``, looked for by two of the searches, is a common name. It starts Boris
over STDIO with the corpus as its workdir and, in that one session, times each search: a
warm-up call, then the median of --runs calls, measured from sending the request to
reading the reply.

When ``rg`` (PyPI ``ripgrep`` wheel) is next to this interpreter or on PATH, each search
is also run with it, with the flags that make it walk the tree as Boris does:

    every search  --hidden --no-require-git      dotfiles searched; .gitignore files apply
                                                 outside a git repository too
                  --no-ignore-global             git's global excludes file is not read
                  -g '!node_modules'             skipped at any depth (.git rg skips itself)
    grep          --follow                       symlinked directories are searched
                  --max-filesize 10M             files over --max-file-size (10 MiB) skipped
                  -l / -c / -n -C 2 / -l -i      files_with_matches / count / content with
                                                 context 2 / case-insensitive
    glob          --files -g PATTERN             the same pattern (in both, '*.txt' matches
                                                 the name at any depth and '**/*.py' any path)

The glob comparison is close but not exact: Boris also lists directories that match,
stats every hit to sort the paths newest first and cuts its output at 30,000 characters;
``rg --files`` lists files only, unsorted, in parallel. A content search with head_limit
100 is compared with ripgrep stopped after 100 lines (as under ``| head``).

Output: one line per search with Boris's and ripgrep's median, their ratio, and the
project's target (a grep within 1.3x ripgrep's time, a glob within 1.2x ``rg --files``);
then the server's VmRSS idle (after the handshake) and its VmHWM after the searches, and
the same for the search worker processes Boris starts for large greps (their memory is
not in the server's).
Both Boris (the server and its workers) and ripgrep use every core, so on a busy machine
the ratios move: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
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
from procs import exit_cleanly_on_sigterm, load_average, memory_kib, print_memory
from rawrpc import RawServer, boris_command

#: The project's targets: a grep takes at most this many times ripgrep's time, and a
#: glob this many times `rg --files -g`.
RG_FACTOR = {"grep": 1.3, "glob": 1.2}

#: ripgrep flags for walking the tree as Boris does (see the module's docstring).
RG_WALK = [
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "-g",
    "!node_modules",
]
RG_GREP = [*RG_WALK, "--follow", "--max-filesize", "10M"]
RG_FILES = [*RG_WALK, "--files", "-g"]  # the glob pattern follows


@dataclass(frozen=True)
class Search:
    label: str
    tool: str
    arguments: dict[str, Any]
    rg: list[str]  # ripgrep arguments for the same search
    rg_lines: int | None = None  # stop reading ripgrep's output after this many lines


SEARCHES = [
    Search(
        "grep 'import os' files_with_matches",
        "grep",
        {"pattern": "import os"},
        [*RG_GREP, "-l", "import os"],
    ),
    Search(
        r"grep 'def \w+\(self' count",
        "grep",
        {"pattern": r"def \w+\(self", "output_mode": "count"},
        [*RG_GREP, "-c", r"def \w+\(self"],
    ),
    Search(
        "grep 'import os' content -C2 head 100",
        "grep",
        {"pattern": "import os", "output_mode": "content", "context": 2, "head_limit": 100},
        [*RG_GREP, "-n", "-C", "2", "import os"],
        rg_lines=100,
    ),
    Search(
        "grep 'import os' case-insensitive",
        "grep",
        {"pattern": "import os", "case_insensitive": True},
        [*RG_GREP, "-l", "-i", "import os"],
    ),
    Search(
        r"grep '\bGet\b' files_with_matches",
        "grep",
        {"pattern": r"\bGet\b"},
        [*RG_GREP, "-l", r"\bGet\b"],
    ),
    Search(
        r"grep '\bGet\b' content head 300",
        "grep",
        {"pattern": r"\bGet\b", "output_mode": "content", "head_limit": 300},
        [*RG_GREP, "-n", r"\bGet\b"],
        rg_lines=300,
    ),
    Search("glob '**/*.py'", "glob", {"pattern": "**/*.py"}, [*RG_FILES, "**/*.py"]),
    Search("glob '*.txt'", "glob", {"pattern": "*.txt"}, [*RG_FILES, "*.txt"]),
]


# --- the corpus --------------------------------------------------------------------


def source_trees() -> list[Path]:
    """The standard library and every site-packages of this interpreter, without
    nesting one in another."""
    paths = sysconfig.get_paths()
    candidates = [Path(paths["stdlib"]), Path(paths["purelib"]), Path(paths["platlib"])]
    trees: list[Path] = []
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_dir() and not any(
            resolved == t or resolved.is_relative_to(t) for t in trees
        ):
            trees.append(resolved)
    return trees


def build_corpus(target: Path) -> Path:
    marker = target / ".boris-bench-complete"
    if marker.exists():
        return target
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for index, tree in enumerate(source_trees()):
        print(f"copying {tree} ...", file=sys.stderr)
        shutil.copytree(
            tree, target / f"{index}-{tree.name}", symlinks=True, ignore_dangling_symlinks=True
        )
    marker.write_text("")
    return target


def corpus_size(root: Path) -> tuple[int, int]:
    files = size = 0
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files += 1
                size += os.path.getsize(path)
    return files, size


# --- timing ------------------------------------------------------------------------


def median_seconds(run: Callable[[], object], runs: int) -> float:
    run()  # warm-up: page cache, lazy imports, compiled patterns
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def find_rg() -> str | None:
    beside = Path(sys.executable).parent / "rg"
    if beside.exists():
        return str(beside)
    return shutil.which("rg")


def run_rg(rg: str, arguments: Sequence[str], corpus: Path, lines: int | None) -> None:
    command = [rg, *arguments, str(corpus)]
    if lines is None:
        subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
        return
    with subprocess.Popen(command, stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        for _ in range(lines):
            if not proc.stdout.readline():
                break
        proc.stdout.close()  # ripgrep stops at the broken pipe, as under `| head`
        proc.wait()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", help="search this tree instead of the default")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--corpus-dir",
        default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "boris-search-corpus"),
        help="where the default corpus is built and kept",
    )
    parser.add_argument(
        "--common", action="store_true", help="search bench/codetree.py's generated tree"
    )
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.corpus:
        corpus = Path(args.corpus).resolve()
    elif args.common:
        corpus = built_once(
            Path(args.corpus_dir) / "common", Path(args.corpus_dir) / ".boris-bench-common-complete"
        )
    else:
        corpus = build_corpus(Path(args.corpus_dir))
    files, size = corpus_size(corpus)
    print(f"corpus: {corpus} ({files:,} files, {size / 1024**3:.2f} GB of regular files)")
    rg = find_rg()
    print(f"ripgrep: {rg or 'not found'}; median of {args.runs} runs after a warm-up")
    print(f"before: {load_average()}")
    print()
    print(f"{'search':<40}{'boris':>7}{'rg':>7}{'boris/rg':>10}  target")
    with RawServer(boris_command(corpus)) as session:
        session.initialize()
        idle_rss = memory_kib(session.pid, "VmRSS")
        for search in SEARCHES:
            ours = median_seconds(partial(session.call, search.tool, search.arguments), args.runs)
            factor = RG_FACTOR[search.tool]
            target = f"<= {factor}x rg"
            if rg is None:
                print(f"{search.label:<40}{ours:6.2f}s{'-':>7}{'-':>10}  {target}")
                continue
            rg_run = partial(run_rg, rg, search.rg, corpus, search.rg_lines)
            theirs = median_seconds(rg_run, args.runs)
            ratio = ours / theirs
            target += "  ok" if ratio <= factor else "  MISSED"
            print(f"{search.label:<40}{ours:6.2f}s{theirs:6.2f}s{ratio:9.2f}x  {target}")
        print_memory(session.pid, idle_rss, "searches")
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
