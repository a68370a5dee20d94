"""universal-ctags as a differential oracle for definitions in the languages besides
Python (whose oracle is its own ast: test_python_ast_oracle.py).

For each file of tests/structure/fixtures/ the definitions ctags lists (name and line of
the name, and a coarse kind: callable, type, value, module) must be the definitions
the outline lists, but for the systematic differences README "Code structure" names:
what ctags lists and Boris does not define (fields, members, properties, enum members,
packages, Rust impl blocks: Boris qualifies their methods instead), and the few places
where ctags 5.9 misreads the code, each named below. ctags 5.9 has no Swift parser.

In JavaScript ctags 5.9 lists what no reader counts as a definition, left out by rules
on ctags' output alone (_javascript_junk): names it makes up, classes made of the
objects members are assigned to, and the variables of function bodies. The fixtures
reply.js, pool.js and socket.js are written in the manner of Node's HTTP libraries:
functions assigned to prototypes, exports and shared objects, classes bound to
module.exports, computed and private members, functions nested as constants.

Skipped, saying why, where ctags cannot be run (CI installs Debian's universal-ctags).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

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
    # ctags names the function after the object it is assigned to (junk, left out).
    ("reply.js", "get", 72),
    # A variable ctags takes for a class made of the members assigned to it later.
    ("reply.js", "reply", 12),
    # ctags 5.9 lists no function bound to a constant inside a function, and no named
    # function expression given as a property's value there.
    ("reply.js", "finish", 45),
    ("pool.js", "onSettled", 61),
    ("pool.js", "onRedirect", 90),
    ("socket.js", "finish", 68),
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
    lines = path.read_text().splitlines()
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
        if path.suffix == ".js":
            tag["kind"] = _javascript_kind(tag, lines[tag["line"] - 1])
            if _javascript_junk(tag, lines):
                continue
        if not name.startswith("["):  # a computed name holds a dot: [Symbol.iterator]
            for separator in ("::", ".", "\\"):
                name = name.rpartition(separator)[2]
        # A macro is a constant or a function to Boris, as it takes arguments or not.
        found[(name, tag["line"])] = GROUPS.get(tag["kind"], tag["kind"])
    return found


#: Where ctags 5.9's JavaScript parser lists what no reader counts as a definition:
#: a name it makes up for what has none, a local variable of a function.
_MADE_UP = re.compile(r"^(?:Anonymous(?:Function|Class|Object)[0-9a-f]+|exports|module)$")
_CLASS = re.compile(r"\bclass\b")
_FUNCTIONS = frozenset({"function", "method", "getter", "setter", "generator"})


def _javascript_junk(tag: dict[str, Any], lines: list[str]) -> bool:
    """What ctags lists in JavaScript that is not a definition, by rules that do not
    look at what Boris lists: a name it makes up (AnonymousFunction…, ``exports`` of
    ``module.exports = …``); a "class" on a line without the word class that does
    not declare it either (ctags makes a class of what members are assigned to:
    ``View.prototype.render = …`` makes View one, there); a function named after what
    it is assigned to, or a member assigned what is no function; a variable of a
    function's body or a block (a local)."""
    if _MADE_UP.match(tag["name"]):
        return True
    line = lines[tag["line"] - 1]
    if tag["kind"] == "class" and not _CLASS.search(line):
        return True  # neither a class nor what the line declares (see _javascript_kind)
    name = re.escape(tag["name"])
    if tag["kind"] in _FUNCTIONS and (
        re.match(rf"\s*{name}\s*(?:\.|\[).*=\s*(?:async\s+)?function\b", line)
        or re.search(rf"(?<![\w$.]){name}\s*=\s*function\s*\*?\s*(?!{name}\b)[\w$]", line)
        or re.search(r"=\s*[\w$.]+;?\s*$", line)
    ):
        # A function named after the object a member of which it is assigned to
        # (reply.get = function …), after the variable it is assigned to beside its own
        # name (wrapper = function onMessage …), or no function: a member assigned an
        # existing one (Socket.prototype.on = EventTarget.on).
        return True
    # Boris's variables are those at the top of a file: ctags also lists those of a
    # function's body, with their function or, often, with nothing to tell them by
    # but their indented line.
    return tag["kind"] in ("variable", "constant") and (
        tag.get("scopeKind") in _FUNCTIONS or line[:1].isspace()
    )


def _javascript_kind(tag: dict[str, Any], line: str) -> str:
    """ctags' kind of a JavaScript tag, but for a "class" on a line without the word
    class: a function (``function View(name)``, whose prototype is assigned to) or a
    variable (``const EventTarget = {``), as the line declares it, else "class" still
    (which is junk: a class made of the object assigned to, ``reply.get = …``)."""
    if tag["kind"] != "class" or _CLASS.search(line):
        return str(tag["kind"])
    name = re.escape(tag["name"])
    if re.search(rf"\bfunction\s*\*?\s*{name}\b", line):
        return "function"
    if re.search(rf"\b(?:var|let|const)\s+{name}\b", line):
        return "variable"
    return "class"


def boris_definitions(path: Path) -> dict[tuple[str, int], str]:
    language = language_of(path.name, str(path))
    assert language is not None
    tree = parse(language, path.read_bytes())
    # ctags names a private member without its #.
    return {(d.parts[-1].lstrip("#"), d.line): OURS[d.kind] for d in definitions(tree, language)}


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


#: The share of ctags' definitions (its junk left out, see above) that Boris lists at
#: the same name and line, in JavaScript's fixtures together (on express, undici and
#: ws: 2,203 of 2,214, 99.5%; 88.3% before functions bound by assignment were read).
AGREEMENT = 0.97


def test_javascript_agrees_with_ctags() -> None:
    theirs = ours = 0
    for path in sorted(FIXTURES.glob("*.js")):
        found = ctags_definitions(path)
        theirs += len(found)
        ours += len(found.keys() & boris_definitions(path).keys())
    assert theirs >= 60, "fixtures worth comparing"
    assert ours >= AGREEMENT * theirs, f"{ours} of {theirs}"
