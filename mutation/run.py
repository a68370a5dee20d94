"""Mutation score of the domain code, by hand (not in CI): ``python mutation/run.py``.

Each target is one area of the domain and the in-process test files that pin it. For
each, mutmut (the ``mutation`` extra) runs in a fresh copy of the repository under
``mutation/work/<target>/``, mutates only the target's modules, and runs only its test
files against every mutant (the CI hypothesis profile, one process per mutant, no xdist).
The table printed at the end gives, per module, the mutants, how many the tests killed,
how many survived, the rest (timeouts, no tests, suspicious), and the score
killed / (killed + survived). Survivors judged equivalent are listed in EQUIVALENT.md.

    .venv/bin/python mutation/run.py                  # every target, 1 mutant at a time
    .venv/bin/python mutation/run.py edit globs -j 2  # some targets, 2 at a time
    .venv/bin/python mutation/run.py --report         # the table of the last runs
    .venv/bin/python mutation/run.py --survivors edit # the survivors' names
    .venv/bin/python mutation/run.py --retest edit    # only the last run's survivors
    .venv/bin/python mutation/run.py --resume edit    # go on after an interruption (^C)
    .venv/bin/python mutation/run.py --tests-from REV globs  # the score of older tests

``--retest`` runs only the mutants the last run did not kill, and every mutant of a
function whose code changed since that run (mutants are numbered per function), against
the tests as they are now, and merges the verdicts into that run's. It assumes tests
were only added or made stricter: a mutant killed before stays killed.

``mutation/work/<target>/mutants/`` keeps each run (``cd`` there and ``mutmut show
<name>`` prints a mutant's diff).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "mutation" / "work"


@dataclass(frozen=True)
class Target:
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    #: Tests left out: each takes seconds normally and ten times that under mutmut's
    #: trampolines, for every mutant it covers, and what it pins is pinned by a cheaper
    #: test too (named beside it).
    deselect: tuple[str, ...] = ()
    #: Environment of the target's tests (e.g. smaller samples of an oracle's inputs).
    env: Mapping[str, str] = field(default_factory=dict)
    #: False: every search runs in the test's process, none in the search workers. The
    #: workers are started once, by mutmut's first (unmutated) run, and outlive its fork
    #: per mutant: the work sent to them would run unmutated code.
    workers: bool = True


#: The pytest plugin that keeps searches out of the workers (``Target.workers``),
#: written into a target's copy of the tests only.
IN_PROCESS_PLUGIN = (
    '"""Written by mutation/run.py: no search workers, so mutants run where tests see them."""\n'
    "import boris.search.pool\n\n\n"
    "def pytest_configure(config):\n"
    "    boris.search.pool.worker_count = lambda: 0\n"
)


TARGETS = {
    "edit": Target(
        ("boris/files/edit_bytes.py", "boris/files/near_miss.py", "boris/files/edit_files.py"),
        (
            "tests/files/test_edit_bytes.py",
            "tests/files/test_edit_identity.py",
            "tests/files/test_edit_machine.py",
            "tests/files/test_file_properties.py",
            "tests/files/test_file_faults.py",
            "tests/files/test_multi_edit_properties.py",
            "tests/tools/test_str_replace.py",
            "tests/tools/test_multi_edit.py",
            "tests/tools/test_str_replace_editor.py",
            "tests/tools/test_create_file.py",
            "tests/tools/test_view_before_edit.py",
        ),
    ),
    "scope": Target(
        ("boris/files/scope.py",),
        (
            "tests/files/test_scope.py",
            "tests/files/test_scope_races.py",
            "tests/search/test_walk.py",
            "tests/search/test_ignores.py",
        ),
    ),
    "globs": Target(
        ("boris/patterns/glob_syntax.py", "boris/patterns/glob_match.py"),
        (
            "tests/patterns/test_glob_syntax.py",
            "tests/patterns/test_glob_match.py",
            "tests/files/test_scope.py",
            "tests/search/test_glob_bombs.py",
            "tests/tools/test_glob.py",
        ),
    ),
    "shell": Target(
        ("boris/shell/capture.py", "boris/shell/wrapper.py"),
        (
            "tests/shell/test_capture.py",
            "tests/shell/test_bash_output.py",
            "tests/shell/test_bash_wrapper.py",
            "tests/tools/test_bash.py",
        ),
    ),
    "settings": Target(
        ("boris/settings.py", "boris/setting_values.py"),
        ("tests/test_settings.py", "tests/early/test_settings.py"),
    ),
    "ignores": Target(
        ("boris/search/ignores.py",),
        (
            "tests/search/test_ignores.py",
            "tests/search/test_walk.py",
            "tests/search/test_rg_agreement.py",
            "tests/tools/test_grep_files.py",
        ),
    ),
    "tasks": Target(
        ("boris/shell/tasks.py",),
        (
            "tests/shell/test_task_table.py",
            "tests/tools/test_background.py",
            "tests/tools/test_task_output.py",
            "tests/tools/test_task_stop.py",
            "tests/test_session.py",
        ),
    ),
    "patch": Target(
        (
            "boris/files/patch/format.py",
            "boris/files/patch/hunks.py",
            "boris/files/patch/line_search.py",
            "boris/files/patch/files.py",
        ),
        (
            "tests/files/patch/test_line_search.py",
            "tests/files/patch/test_hunks.py",
            "tests/files/patch/test_properties.py",
            "tests/files/patch/test_faults.py",
            "tests/files/test_edit_identity.py",
            "tests/tools/test_apply_patch.py",
            "tests/tools/test_apply_patch_messages.py",
        ),
        # test_10000_hunks_are_read pins the limit without applying them all.
        deselect=("tests/tools/test_apply_patch.py::test_at_most_10000_hunks",),
    ),
    "notebook": Target(
        (
            "boris/files/notebook/format.py",
            "boris/files/notebook/view.py",
            "boris/files/notebook/files.py",
        ),
        (
            "tests/files/notebook/test_format.py",
            "tests/files/notebook/test_properties.py",
            "tests/files/test_edit_identity.py",
            "tests/tools/test_notebook_view.py",
            "tests/tools/test_notebook_edit.py",
            "tests/tools/test_notebook_messages.py",
            "tests/tools/test_view_symbol.py",
        ),
    ),
    # Of tests/structure/test_structure_pool.py only the cases run in this process (see
    # Target.workers); the output in the workers is the same.
    "symbols": Target(
        (
            "boris/structure/definitions.py",
            "boris/structure/references.py",
            "boris/structure/symbols.py",
            "boris/structure/task.py",
            "boris/structure/locate.py",
            "boris/structure/source.py",
            "boris/structure/notebook_cells.py",
            "boris/structure/languages.py",
            "boris/structure/grammars.py",
        ),
        (
            "tests/structure/test_languages.py",
            "tests/structure/test_ctags_oracle.py",
            "tests/structure/test_references_oracle.py",
            "tests/structure/test_structure_properties.py",
            "tests/structure/test_name_search.py",
            "tests/structure/test_python_ast_oracle.py",
            "tests/structure/test_call_off.py",
            "tests/tools/test_symbols.py",
            "tests/tools/test_view_symbol.py",
            *(
                f"tests/structure/test_structure_pool.py::{case}"
                for case in (
                    "test_definitions_by_name_over_a_large_tree[False]",
                    "test_a_map_page_parsed_here_is_not_handed_to_the_workers",
                    "test_pages_of_references_fit_together[False]",
                    "test_the_map_pages_files_newest_first[False]",
                )
            ),
        ),
        # The standard library samples of the ast and tokenizer oracles, every 6th file.
        env={"STDLIB_SAMPLE_STEP": "6"},
        workers=False,
    ),
}

# mutmut's exit codes (mutmut.stats.status_by_exit_code): 1 and 3 are kills, 0 a survivor.
KILLED = {1, 3}
SURVIVED = {0}


def mutmut_config(target: Target, workdir: Path) -> str:
    # A test file, or one test of it (``file::name``).
    tests = [test for test in target.tests if (workdir / test.partition("::")[0]).exists()]
    deselect = [f"--deselect={test}" for test in target.deselect]
    plugins = [] if target.workers else ["-p", "tests.mutation_in_process"]
    pytest_args = ["-n", "0", "-p", "no:randomly", *plugins, *deselect]
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["boris"]\n'
        f"only_mutate = {json.dumps(list(target.modules))}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        # In this process, in file order: mutmut forks one child per mutant.
        f"pytest_add_cli_args = {json.dumps(pytest_args)}\n"
        # A mutant is stopped after (its tests' time + constant) x multiplier seconds of
        # wall time (twice that of CPU). mutmut's defaults (1 and 15) let a mutant that
        # loops forever burn minutes of a shared machine; a mutant that only slows its
        # tests down a little still finishes within these. The constant leaves room for a
        # test's own bound on a wait (10 s for what takes milliseconds, PROMPTLY in
        # tests/support/tasks.py) to fail the test first: a timeout then means a hang.
        # The multiplier allows for a machine shared with other work, where a mutant's
        # tests run up to about twice as slow as when mutmut timed them.
        "timeout_multiplier = 3.0\n"
        "timeout_constant = 6.0\n"
    )


def prepare(name: str, target: Target, tests_from: str | None = None) -> Path:
    """A fresh copy of the repository's code, tests and configuration for one target;
    the tests as they were at git revision ``tests_from`` if given (a score before
    tests were added)."""
    workdir = WORK / name
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "boris", workdir / "boris", ignore=ignore)
    if tests_from is None:
        shutil.copytree(REPO / "tests", workdir / "tests", ignore=ignore)
    else:
        archive = subprocess.run(
            ["git", "archive", tests_from, "tests"], cwd=REPO, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(workdir)], input=archive, check=True)
    if not target.workers:
        (workdir / "tests" / "mutation_in_process.py").write_text(IN_PROCESS_PLUGIN, "utf-8")
    pyproject = (REPO / "pyproject.toml").read_text("utf-8")
    config = mutmut_config(target, workdir)
    (workdir / "pyproject.toml").write_text(pyproject + config, "utf-8")
    return workdir


def functions(source: str) -> dict[str, str]:
    """Each function and method of a module by its name in mutmut's mutant names
    (``x_name``, ``xǁClassǁname``), with its code (comments and layout left out)."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[f"x_{node.name}"] = ast.dump(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"xǁ{node.name}ǁ{item.name}"] = ast.dump(item)
    return found


def changed_functions(name: str, target: Target) -> list[str]:
    """Patterns of the mutants of every function changed since the last run's copy."""
    patterns = []
    for module in target.modules:
        dotted = module.removesuffix(".py").replace("/", ".")
        before = functions((WORK / name / module).read_text("utf-8"))
        now = functions((REPO / module).read_text("utf-8"))
        patterns += [f"{dotted}.{f}__mutmut_*" for f in now if before.get(f) != now[f]]
    return patterns


def run(
    name: str,
    target: Target,
    children: int,
    retest: bool = False,
    resume: bool = False,
    tests_from: str | None = None,
) -> None:
    previous: dict[str, int | None] = {}
    selection: list[str] = []
    if retest:
        for module in target.modules:
            previous.update(results(name, module))
        if not previous:
            raise SystemExit(f"{name}: no previous run to retest")
        selection = changed_functions(name, target)
        selection += sorted(key for key, code in previous.items() if code not in KILLED)
    workdir = WORK / name if resume else prepare(name, target, tests_from)
    env = dict(os.environ, HYPOTHESIS_PROFILE="ci", **target.env)
    mutmut = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)]
    if retest:
        (workdir / "previous.json").write_text(json.dumps(previous), "utf-8")
        mutmut += selection
    log = workdir / "mutmut.log"
    print(f"== {name}: {' '.join(target.modules)} (output in {log.relative_to(REPO)})", flush=True)
    with log.open("wb") as output:
        subprocess.run(mutmut, cwd=workdir, env=env, stdout=output, stderr=output, check=False)


def results(name: str, module: str) -> dict[str, int | None]:
    """The verdict (mutmut's exit code) of each mutant of ``module`` in the last run,
    over those of the run it retested."""
    meta = WORK / name / "mutants" / f"{module}.meta"
    if not meta.exists():
        return {}
    data: dict[str, int | None] = json.loads(meta.read_text("utf-8"))["exit_code_by_key"]
    previous_file = WORK / name / "previous.json"
    if not previous_file.exists():
        return data
    previous: dict[str, int | None] = json.loads(previous_file.read_text("utf-8"))
    merged = {key: code for key, code in previous.items() if key in data}
    merged.update({key: code for key, code in data.items() if code is not None})
    return merged


def report(names: list[str]) -> None:
    print("| module | mutants | killed | survived | other | score |")
    print("|---|---|---|---|---|---|")
    for name in names:
        for module in TARGETS[name].modules:
            codes = results(name, module)
            if not codes:
                print(f"| `{module}` | not run | | | | |")
                continue
            killed = sum(code in KILLED for code in codes.values())
            survived = sum(code in SURVIVED for code in codes.values())
            other = len(codes) - killed - survived
            checked = killed + survived
            score = f"{100 * killed / checked:.1f}%" if checked else "-"
            print(f"| `{module}` | {len(codes)} | {killed} | {survived} | {other} | {score} |")


def survivors(names: list[str]) -> None:
    for name in names:
        for module in TARGETS[name].modules:
            for key, code in sorted(results(name, module).items()):
                if code not in KILLED:
                    print(f"{name}\t{code}\t{key}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("targets", nargs="*", choices=[[], *TARGETS], metavar="target")
    parser.add_argument("-j", "--max-children", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="print the last runs' table")
    parser.add_argument("--survivors", action="store_true", help="list the last runs' survivors")
    parser.add_argument("--retest", action="store_true", help="run the last runs' survivors")
    parser.add_argument(
        "--resume", action="store_true", help="go on with an interrupted run, where it stopped"
    )
    parser.add_argument(
        "--tests-from", metavar="REV", help="run the tests as they were at this git revision"
    )
    args = parser.parse_args()
    names = args.targets or list(TARGETS)
    if args.survivors:
        survivors(names)
        return
    if not args.report:
        for name in names:
            run(name, TARGETS[name], args.max_children, args.retest, args.resume, args.tests_from)
    report(names)


if __name__ == "__main__":
    main()
