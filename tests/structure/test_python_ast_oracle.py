"""Python's own parser as the oracle for Python definitions: every class and def of the
standard library (a fixed sample of it: every sixth file, and the ten largest) with
its qualified name and line range as ``ast`` gives them (a decorated definition starts
at its first decorator) must be exactly the outline's classes, functions and methods.

A file ``ast`` cannot parse is left out (the standard library holds a few on purpose);
a file tree-sitter's grammar reads with a syntax error where ``ast`` reads none is
counted, and there must be very few (README "Code structure": the grammar's known
misreadings).
"""

from __future__ import annotations

import ast
import os
import sysconfig
from pathlib import Path

from boris.structure.definitions import definitions
from boris.structure.grammars import parse
from boris.structure.languages import PYTHON

Entry = tuple[str, str, int, int]


def stdlib_sample() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(
        Path(directory) / name
        for directory, dirs, names in os.walk(root)
        if not dirs.__setitem__(slice(None), [d for d in dirs if d not in SKIPPED])
        for name in names
        if name.endswith(".py")
    )
    largest = sorted(files, key=lambda path: path.stat().st_size)[-10:]
    return sorted({*files[::6], *largest})[::SAMPLE_STEP]


#: Every how many files of the sample are read: 1 in the test run; the mutation target
#: (mutation/run.py) reads fewer, as these tests run again for every mutant.
SAMPLE_STEP = int(os.environ.get("STDLIB_SAMPLE_STEP", "1"))


SKIPPED = {"site-packages", "dist-packages", "__pycache__"}


def ast_definitions(tree: ast.Module) -> set[Entry]:
    found: set[Entry] = set()

    def visit(node: ast.AST, outer: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                name = (*outer, child.name)
                assert child.end_lineno is not None
                found.add((".".join(name), kind, start, child.end_lineno))
                visit(child, name)
            else:
                visit(child, outer)

    visit(tree, ())
    return found


def outline_definitions(source: bytes) -> tuple[set[Entry], bool]:
    tree = parse(PYTHON, source)
    found = {
        (d.qualified, "class" if d.kind == "class" else "function", d.start, d.end)
        for d in definitions(tree, PYTHON)
        if d.kind in ("class", "function", "method")
    }
    return found, tree.root_node.has_error


def test_every_class_and_def_of_the_standard_library_sample() -> None:
    files = stdlib_sample()
    assert len(files) > 250 // SAMPLE_STEP
    compared = misread = 0
    wrong: list[str] = []
    for path in files:
        source = path.read_bytes()
        try:
            expected = ast_definitions(ast.parse(source))
        except (SyntaxError, ValueError):
            continue  # the library's deliberately broken test files
        found, has_error = outline_definitions(source)
        if has_error:
            misread += 1
            continue
        compared += 1
        if found != expected:
            missing, extra = sorted(expected - found)[:3], sorted(found - expected)[:3]
            wrong.append(f"{path}: missing {missing}, extra {extra}")
    assert wrong == []
    assert compared > 250 // SAMPLE_STEP
    assert misread <= compared // 100, f"{misread} files misread by the grammar"


def test_the_methods_are_the_defs_directly_in_a_class() -> None:
    source = b"""\
class A:
    def m(self):
        def local():
            pass
    class B:
        async def n(self):
            pass
def f():
    class C:
        def o(self):
            pass
"""
    kinds = {d.qualified: d.kind for d in definitions(parse(PYTHON, source), PYTHON)}
    assert kinds == {
        "A": "class",
        "A.m": "method",
        "A.m.local": "function",
        "A.B": "class",
        "A.B.n": "method",
        "f": "function",
        "f.C": "class",
        "f.C.o": "method",
    }


def test_a_search_by_name_finds_what_the_whole_outline_holds() -> None:
    """A search for a name parses only the files, and queries only the places, where a
    definition may name it (boris.structure.references.definition_sites): what it finds
    must be every definition of that name the whole file's outline holds."""
    from boris.structure.source import source_of
    from boris.structure.task import DEFINITIONS, NameQuery, StructureTask

    for path in stdlib_sample()[::8]:
        source = source_of(path.name, path.read_bytes(), PYTHON)
        assert source is not None
        whole = definitions(parse(PYTHON, source.parts[0].text), PYTHON)
        for name in sorted({d.parts[-1] for d in whole})[:12]:
            task = StructureTask(DEFINITIONS, 1 << 30, NameQuery(parts=(name,)))
            found = [line.split("  ", 2)[1] for line in task.lines("f", source)]
            expected = [f"{d.kind} {d.qualified}" for d in whole if d.parts[-1] == name]
            assert found == expected, (path, name)
