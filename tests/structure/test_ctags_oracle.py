"""universal-ctags as a differential oracle for definitions in the languages besides
Python (whose oracle is its own ast: test_python_ast_oracle.py).

For each file of tests/structure/fixtures/ the definitions ctags lists (name and line of
the name, and a coarse kind: callable, type, value, module) must be the definitions
the outline lists, but for the systematic differences README "Code structure" names:
what ctags lists and Boris does not define (fields, members, properties, enum members,
packages, Rust impl blocks: Boris qualifies their methods instead), and the few places
where ctags 5.9 misreads the code, each named below. ctags 5.9 has no Swift parser.

Skipped, saying why, where ctags cannot be run (CI installs Debian's universal-ctags).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from boris.structure.definitions import definitions
from boris.structure.grammars import parse
from boris.structure.source import language_of

FIXTURES = Path(__file__).parent / "fixtures"
CTAGS = shutil.which("ctags")

pytestmark = pytest.mark.skipif(
    CTAGS is None, reason="universal-ctags is not installed (apt-get install universal-ctags)"
)

#: What ctags lists that Boris does not count as definitions.
NOT_DEFINITIONS = frozenset(
    {
        "member",
        "field",
        "property",
        "enumerator",
        "enumConstant",
        "accessor",
        "package",
        "implementation",  # a Rust impl block: Boris qualifies its methods with its type
    }
)

#: ctags' kinds, by what they define.
GROUPS = {
    **dict.fromkeys(
        ["function", "func", "method", "singletonMethod", "getter", "setter", "generator",
         "methodSpec"],
        "callable",
    ),
    **dict.fromkeys(
        ["class", "struct", "interface", "enum", "trait", "typedef", "talias", "type", "alias",
         "union", "object", "annotation", "record", "typealias"],
        "type",
    ),
    **dict.fromkeys(["variable", "var", "const", "constant", "define"], "value"),
    **dict.fromkeys(["namespace", "module"], "module"),
}  # fmt: skip

OURS = {
    **dict.fromkeys(["function", "method"], "callable"),
    **dict.fromkeys(["class", "struct", "interface", "enum", "trait", "type"], "type"),
    **dict.fromkeys(["constant", "variable"], "value"),
    "module": "module",
}

#: (file, name, line): where ctags 5.9 and Boris disagree, and why.
CTAGS_ONLY = {
    # A for loop's variable, which ctags' Kotlin parser takes for a method.
    ("Tasks.kt", "task", 54),
    # A conversion operator: Boris names no definition after a type.
    ("matrix.cpp", "operator bool", 78),
}
BORIS_ONLY = {
    # A member function defaulted in its class (= default) is defined there; ctags
    # takes it for a prototype.
    ("matrix.cpp", "~Solver", 45),
    # A pure virtual member function, declared in its class and defined in none: ctags
    # takes it for a prototype, which it lists only when asked.
    ("matrix.cpp", "solve", 46),
    # ctags' TypeScript parser loses the method after an abstract method signature.
    ("service.ts", "start", 24),
    # ctags' Rust parser lists no const items.
    ("shapes.rs", "SIDES_MAX", 5),
    # ctags 5.9 loses a function whose name follows a calling convention.
    ("buffer.c", "buffer_compare", 81),
}
#: (file, name, line): the same definition, of another kind.
KIND_DIFFERENCES = {
    # A C# delegate is a type to Boris, a method to ctags.
    ("Orders.cs", "OrderPlaced", 6),
    # An async function bound to a constant: ctags 5.9 calls it a constant.
    ("app.js", "retry", 44),
    ("service.ts", "withRetry", 57),
}


def ctags_definitions(path: Path) -> dict[tuple[str, int], str]:
    assert CTAGS is not None
    done = subprocess.run(
        [CTAGS, "--output-format=json", "--fields=+neKZ", "-f", "-", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = {}
    for line in done.stdout.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag["kind"] in NOT_DEFINITIONS:
            continue
        name = tag["name"]
        if name.startswith("__anon"):
            continue  # an unnamed enum or struct, to which ctags gives a name
        scope_kind = tag.get("scopeKind", "")
        if path.suffix == ".kt" and tag["kind"] == "constant" and scope_kind in ("class", "object"):
            continue  # a class's properties
        if path.suffix == ".kt" and name == "Companion":
            name = "companion"  # an unnamed companion object: Boris names it as written
        if path.suffix == ".php" and tag["kind"] == "variable" and scope_kind == "class":
            continue  # a class's properties
        for separator in ("::", ".", "\\"):
            name = name.rpartition(separator)[2]
        # A macro is a constant or a function to Boris, as it takes arguments or not.
        found[(name, tag["line"])] = GROUPS.get(tag["kind"], tag["kind"])
    return found


def boris_definitions(path: Path) -> dict[tuple[str, int], str]:
    language = language_of(path.name, str(path))
    assert language is not None
    tree = parse(language, path.read_bytes())
    return {(d.parts[-1], d.line): OURS[d.kind] for d in definitions(tree, language)}


@pytest.mark.parametrize(
    "fixture", sorted(p.name for p in FIXTURES.iterdir() if p.suffix != ".swift")
)
def test_definitions_agree_with_ctags(fixture: str) -> None:
    path = FIXTURES / fixture
    theirs = ctags_definitions(path)
    ours = boris_definitions(path)
    assert len(theirs) >= 4, "a fixture worth comparing"
    only_theirs = {(fixture, *key) for key in theirs.keys() - ours.keys()}
    only_ours = {(fixture, *key) for key in ours.keys() - theirs.keys()}
    assert only_theirs == {item for item in CTAGS_ONLY if item[0] == fixture}
    assert only_ours == {item for item in BORIS_ONLY if item[0] == fixture}
    kinds = {
        (fixture, *key)
        for key in theirs.keys() & ours.keys()
        if theirs[key] not in (ours[key], "macro")
    }
    assert kinds == {item for item in KIND_DIFFERENCES if item[0] == fixture}
