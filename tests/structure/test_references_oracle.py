"""References checked against a grep for the identifier less what lies in comments and
strings, with oracles nobody here wrote.

Python: the standard library's tokenizer finds every NAME token (names outside comments
and strings), less the names definitions bind, as ``ast`` reports them: a class's or a
def's name, and the first target of an assignment at the top of a module or a class.
Other languages: a fixture's occurrences of a name found by ripgrep as a word, less
those a line's marker comment says are in a comment, a string or a definition's name.
"""

from __future__ import annotations

import ast
import io
import itertools
import json
import keyword
import re
import shutil
import subprocess
import sys
import sysconfig
import tokenize
from collections import Counter
from pathlib import Path

import pytest

from boris.structure.source import language_of, source_of
from boris.structure.task import REFERENCES, NameQuery, StructureTask
from tests.structure.test_python_ast_oracle import SAMPLE_STEP

#: Names that are keywords in some places only: the tokenizer cannot tell which.
SOFT = {"match", "case", "type", "_", "print", "exec"}

Position = tuple[int, int]


def boris_references(path: Path, name: str) -> set[Position]:
    language = language_of(path.name, str(path))
    assert language is not None
    source = source_of(path.name, path.read_bytes(), language)
    assert source is not None
    task = StructureTask(REFERENCES, 1 << 30, NameQuery(parts=(name,)))
    found = set()
    for line in task.lines("f", source):
        where = line.split("  ", 1)[0]
        _, number, column = where.split(":")
        found.add((int(number), int(column)))
    return found


def bound_names(tree: ast.Module) -> set[Position]:
    """Where definitions name what they define (1-based columns, in characters)."""
    bound = set()
    for node in ast.walk(tree):
        bodies = []
        if isinstance(node, ast.Module | ast.ClassDef):
            bodies = node.body
        for statement in bodies:
            target = None
            if isinstance(statement, ast.Assign):
                target = statement.targets[0]
            elif isinstance(statement, ast.AnnAssign):
                target = statement.target
            if isinstance(target, ast.Name):
                bound.add((target.lineno, target.col_offset + 1))
    return bound


def python_expectation(source: bytes, name: str) -> tuple[set[Position], list[range]] | None:
    """The NAME tokens spelling ``name``, less the names definitions bind; and the
    lines of f-strings (whose insides the tokenizer of this Python may not split)."""
    tokens = list(tokenize.tokenize(io.BytesIO(source).readline))
    definition_names = set()
    fstrings = []
    for before, token in itertools.pairwise(tokens):
        if before.type == tokenize.NAME and before.string in ("def", "class"):
            definition_names.add((token.start[0], token.start[1] + 1))
        if token.type == tokenize.STRING and token.string.lstrip("rRbBuU")[:1] in "fF":
            fstrings.append(range(token.start[0], token.end[0] + 1))
        if getattr(tokenize, "FSTRING_START", None) == token.type:
            fstrings.append(range(token.start[0], token.end[0] + 1))
    found = {
        (token.start[0], token.start[1] + 1)
        for token in tokens
        if token.type == tokenize.NAME and token.string == name
    }
    return found - definition_names - bound_names(ast.parse(source)), fstrings


def stdlib_sample() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.glob("*.py") if p.is_file())
    return files[:: 8 * SAMPLE_STEP]


@pytest.mark.parametrize("path", stdlib_sample(), ids=lambda p: p.name)
def test_python_references_agree_with_the_tokenizer(path: Path) -> None:
    source = path.read_bytes()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        pytest.skip("not Python this interpreter reads")
    del tree
    tokens = list(tokenize.tokenize(io.BytesIO(source).readline))
    counts = Counter(
        t.string
        for t in tokens
        if t.type == tokenize.NAME and not keyword.iskeyword(t.string) and t.string not in SOFT
    )
    definitions = [
        b.string
        for a, b in itertools.pairwise(tokens)
        if a.string in ("def", "class") and b.type == tokenize.NAME
    ]
    names = [name for name, _ in counts.most_common(3)] + definitions[:2]
    for name in names:
        expectation = python_expectation(source, name)
        assert expectation is not None
        expected, fstrings = expectation
        found = boris_references(path, name)
        in_fstrings = {p for p in found if any(p[0] in lines for lines in fstrings)}
        assert found - in_fstrings == expected - in_fstrings, name


#: The fixture and a name in it, for each language but Python.
FIXTURE_NAMES = [
    ("inventory.go", "Store"),
    ("shapes.rs", "Point"),
    ("Library.java", "Member"),
    ("buffer.c", "grow"),
    ("matrix.cpp", "Matrix"),
    ("Orders.cs", "Order"),
    ("app.js", "Hub"),
    ("socket.js", "kListener"),
    ("service.ts", "Handler"),
    ("store.rb", "Entry"),
    ("users.php", "User"),
    ("Tasks.kt", "Task"),
    ("Geometry.swift", "Circle"),
    ("deploy.sh", "log"),
]

FIXTURES = Path(__file__).parent / "fixtures"
#: ripgrep, from the test dependencies.
RG = Path(sys.executable).parent / "rg"


def rg_words(path: Path, name: str) -> set[Position]:
    """ripgrep's occurrences of ``name`` as a word: (line, 1-based column in bytes)."""
    done = subprocess.run(
        [str(RG), "--no-config", "--column", "-n", "-o", "-w", "-F", name, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = set()
    for line in done.stdout.splitlines():
        number, column, _ = line.split(":", 2)
        found.add((int(number), int(column)))
    return found


def comments_and_strings(path: Path) -> set[Position]:
    """Every (line, column) that Pygments' lexer for the file puts in a comment or a
    string (the fixtures are ASCII: columns in characters are columns in bytes)."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.token import Comment, String

    text = path.read_text()
    inside = set()
    line, column = 1, 1
    for kind, value in get_lexer_for_filename(path.name, stripnl=False).get_tokens(text):
        quoted = kind in Comment or kind in String
        for character in value:
            if quoted:
                inside.add((line, column))
            if character == "\n":
                line, column = line + 1, 1
            else:
                column += 1
    return inside


def ctags_names(path: Path, name: str) -> set[Position]:
    """Where ctags says a definition of ``name`` names it: its line, and the column of
    the name's first occurrence as a word on that line."""
    done = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+nK", "-f", "-", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = path.read_text().splitlines()
    found = set()
    for entry in done.stdout.splitlines():
        tag = json.loads(entry)
        # A Rust impl block is a definition to ctags; its type is a use of the type.
        if tag.get("_type") == "tag" and tag["name"] == name and tag["kind"] != "implementation":
            text = lines[tag["line"] - 1]
            column = next(
                m.start() + 1 for m in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text)
            )
            found.add((tag["line"], column))
    return found


@pytest.mark.skipif(shutil.which("ctags") is None, reason="universal-ctags is not installed")
@pytest.mark.parametrize(("fixture", "name"), FIXTURE_NAMES)
def test_references_are_the_code_occurrences(fixture: str, name: str) -> None:
    path = FIXTURES / fixture
    occurrences = rg_words(path, name)
    not_code = comments_and_strings(path)
    in_text = {p for p in occurrences if p in not_code}
    assert in_text, "the fixture names it in a comment or a string"
    expected = occurrences - in_text - ctags_names(path, name)
    if fixture == "Geometry.swift":  # ctags 5.9 reads no Swift: its one definition
        expected.discard((13, 8))
    assert boris_references(path, name) == expected
