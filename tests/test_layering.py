"""The package's layers (docs/ARCHITECTURE.md): the domain loads nothing of MCP, the grep
workers load nothing of the server, no module imports from a layer above its own, no
two of Boris's packages import each other (however indirectly), the imports named in
SIDEWAYS are not made, and only the seam modules name a private part of fastmcp, the
MCP SDK or Starlette."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import TypeGuard

import pytest

import boris

PACKAGE = Path(boris.__file__).parent

#: Bottom to top; a module may import from its own layer and the ones below.
LAYERS = [
    (
        "base",
        [
            "boris",
            "boris.errors",
            "boris.text",
            "boris.toolset",
            "boris.descriptions",
            "boris.logs",
            "boris.arguments",
            "boris.stop",
            "boris.prctl",
            "boris.secret_names",
        ],
    ),
    ("patterns", ["boris.patterns"]),
    ("domain", ["boris.files", "boris.search", "boris.shell", "boris.structure"]),
    ("settings", ["boris.settings", "boris.setting_values"]),
    ("seams", ["boris.seams"]),
    ("session", ["boris.session"]),
    ("tools", ["boris.tools"]),
    ("app", ["boris.app", "boris.edge"]),
    ("transport", ["boris.transport"]),
    ("early answers", ["boris.early"]),
    ("entry point", ["boris.__main__"]),
]


def modules() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def layer_of(module: str) -> int:
    """The index of the layer ``module`` belongs to: the longest prefix that names one."""
    best, best_length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best >= 0, f"{module} belongs to no layer"
    return best


def boris_imports(module: str) -> set[str]:
    """The Boris modules ``module`` imports, wherever in it (functions included)."""
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = PACKAGE.parent / module.replace(".", "/") / "__init__.py"
    known = set(modules())
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names if alias.name.startswith("boris")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("boris"):
            assert node.level == 0, f"{module}: relative import"
            for alias in node.names:
                # "from boris.search import engine" imports a module; "from boris.x import
                # name" imports from one.
                candidate = f"{node.module}.{alias.name}"
                imported.add(candidate if candidate in known else node.module)
    return imported


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def test_no_module_imports_from_a_layer_above() -> None:
    upward = []
    for module in modules():
        for imported in sorted(boris_imports(module)):
            if layer_of(imported) > layer_of(module):
                upward.append(
                    f"{module} ({LAYERS[layer_of(module)][0]}) imports {imported} "
                    f"({LAYERS[layer_of(imported)][0]})"
                )
    assert upward == []


def loaded_after(*imports: str) -> set[str]:
    """The modules loaded in a fresh interpreter after importing ``imports``."""
    code = "import sys\n" + "".join(f"import {name}\n" for name in imports)
    code += "print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return set(done.stdout.split())


def unit_of(module: str) -> str:
    """What a package-level cycle is counted between: the subpackage of boris a module is
    in (``boris.files``), or the module itself for a top-level one (``boris.edge``)."""
    parts = module.split(".")
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def import_graph() -> dict[str, set[str]]:
    """Every Boris module and the Boris modules it imports."""
    return {module: boris_imports(module) for module in modules()}


def package_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles among units (see :func:`unit_of`) that ``graph``'s imports make, each
    as the path of units around it, the first repeated at the end; one cycle per
    strongly connected group of units."""
    edges: dict[str, set[str]] = {}
    for module, imported in graph.items():
        source = unit_of(module)
        edges.setdefault(source, set())
        for target in imported:
            if unit_of(target) != source and target != "boris":
                edges[source].add(unit_of(target))
    cycles = []
    done: set[str] = set()
    for start in sorted(edges):
        if start in done:
            continue
        # A path back to start, found breadth first, is one cycle through it.
        previous: dict[str, str] = {}
        queue = [start]
        while queue and start not in previous:
            unit = queue.pop(0)
            for target in sorted(edges.get(unit, ())):
                if target not in previous:
                    previous[target] = unit
                    queue.append(target)
        if start in previous:
            path = [start]
            while (step := previous[path[-1]]) != start:
                path.append(step)
            cycle = [start, *reversed(path[1:]), start]
            cycles.append(cycle)
            done.update(cycle)
    return cycles


def test_no_two_packages_import_each_other() -> None:
    assert package_cycles(import_graph()) == []


def test_a_files_search_cycle_is_found_either_way() -> None:
    """The check above fails on one import between files/ and search/ against the
    direction search/ -> files/ that exists, and on a longer way round."""
    graph = import_graph()
    assert "boris.files.scope" in graph["boris.search.walk"]  # search/ uses files/
    back = {**graph, "boris.files.scope": graph["boris.files.scope"] | {"boris.search.walk"}}
    assert package_cycles(back) == [["boris.files", "boris.search", "boris.files"]]
    through = {**graph, "boris.patterns.glob_match": {"boris.search.walk"}}
    assert package_cycles(through) == [
        ["boris.files", "boris.patterns", "boris.search", "boris.files"]
    ]


def test_the_file_tools_use_nothing_of_search() -> None:
    """The direction between the two: search/ may use files/ (the scope, the access),
    never the other way, even where no cycle would show it."""
    importers = {
        module
        for module, imported in import_graph().items()
        if unit_of(module) == "boris.files" and any(unit_of(m) == "boris.search" for m in imported)
    }
    assert importers == set()


def test_files_and_search_use_nothing_of_structure() -> None:
    """Code structure (boris.structure) uses the search and the file tools' domain; they
    never use it: view's symbol is put together by the tool (boris.tools.view)."""
    importers = {
        module
        for module, imported in import_graph().items()
        if unit_of(module) in ("boris.files", "boris.search")
        and any(unit_of(m) == "boris.structure" for m in imported)
    }
    assert importers == set()


#: files/' features with a package of their own, and the modules of files/ outside them
#: that may use each (view shows a notebook; nothing else reaches into a feature).
FILE_FEATURES = {
    "boris.files.patch": set(),
    "boris.files.notebook": {"boris.files.view_path"},
}


def feature_of(module: str) -> str | None:
    return next((f for f in FILE_FEATURES if module == f or module.startswith(f + ".")), None)


def test_file_features_keep_to_their_packages() -> None:
    """apply_patch's and notebooks' modules use files/' shared modules, never each other;
    of the rest of files/, only the modules named in FILE_FEATURES use a feature."""
    crossings = []
    for module, imported in import_graph().items():
        if unit_of(module) != "boris.files":
            continue
        for target in imported:
            feature = feature_of(target)
            if feature is None or feature_of(module) == feature:
                continue
            if module not in FILE_FEATURES[feature]:
                crossings.append(f"{module} imports {target}")
    assert crossings == []
    assert "boris.files.notebook.view" in import_graph()["boris.files.view_path"]


#: Imports that must not be made although the layers allow them: each tool's engine
#: keeps to itself (what grep and glob share lives in a module both import; what grep
#: and symbols share, in boris.search.selection and boris.search.pool).
SIDEWAYS = [
    ("boris.search.glob", "boris.search.grep"),
    ("boris.search.grep", "boris.search.glob"),
    ("boris.structure.symbols", "boris.search.grep"),
    ("boris.structure.task", "boris.search.grep"),
]


@pytest.mark.parametrize(("importer", "imported"), SIDEWAYS)
def test_no_sideways_import(importer: str, imported: str) -> None:
    assert {importer, imported} <= set(modules())
    assert imported not in boris_imports(importer)


def test_the_domain_loads_nothing_of_mcp() -> None:
    domain = [
        m
        for m in modules()
        if m.split(".")[:2]
        in (["boris", p] for p in ("files", "patterns", "search", "shell", "structure"))
    ]
    loaded = loaded_after(*domain)
    assert set(domain) <= loaded
    server = {m for m in loaded if m.split(".")[0] in ("fastmcp", "mcp", "mcp_types", "starlette")}
    assert server == set()


def test_the_early_answers_load_no_library() -> None:
    """What answers a STDIO client before the app has loaded (the entry point and
    boris.early but its generator) loads no library: neither fastmcp, the SDK, pydantic
    nor anyio, and not the logging or dataclasses modules either."""
    early = [m for m in modules() if m.startswith("boris.early") and m != "boris.early.generate"]
    loaded = loaded_after("boris.__main__", *early)
    libraries = {
        m.split(".")[0]
        for m in loaded
        if m.split(".")[0]
        in ("fastmcp", "mcp", "mcp_types", "pydantic", "pydantic_core", "pydantic_settings")
        or m.split(".")[0] in ("anyio", "starlette", "logging", "dataclasses", "asyncio")
    }
    assert libraries == set()


def test_grep_workers_load_only_the_per_file_search() -> None:
    """A worker process (boris.search.worker) imports, once a grep task (a FileTask) comes,
    the per-file search (reading a file, matching it, its content lines), the pattern
    matcher, what it needs of the file sniffing and the stop check, and nothing else
    of Boris."""
    loaded = loaded_after("boris.search.worker", "boris.search.file_search")
    ours = {m for m in loaded if m == "boris" or m.startswith("boris.")}
    assert ours == {
        "boris",
        "boris.stop",
        "boris.files",
        "boris.files.sniff",
        "boris.patterns",
        "boris.patterns.line_regex",
        "boris.patterns.re2_raw",
        "boris.patterns.regex_text",
        "boris.search",
        "boris.search.content_lines",
        "boris.search.file_search",
        "boris.search.file_text",
        "boris.search.frames",
        "boris.search.worker",
    }


def test_a_worker_loads_nothing_before_a_task_comes() -> None:
    """A worker's loop alone loads nothing of either kind of task: a worker loads grep's
    per-file search or the structure's when a task of that kind first arrives."""
    loaded = loaded_after("boris.search.worker")
    ours = {m for m in loaded if m == "boris" or m.startswith("boris.")}
    assert ours == {"boris", "boris.search", "boris.search.frames", "boris.search.worker"}
    assert "tree_sitter" not in loaded


def test_structure_workers_load_the_per_file_parse_and_no_more() -> None:
    """A structure task (boris.structure.task) loads, besides what a grep task loads,
    the reading of a file's source, its definitions and references, the language
    table and the grammars' loader; not the walk, the selection or the server.
    tree-sitter itself is imported only when a file is parsed."""
    loaded = loaded_after("boris.search.worker", "boris.structure.task")
    ours = {m for m in loaded if m == "boris" or m.startswith("boris.")}
    grep_worker = loaded_after("boris.search.worker", "boris.search.file_search")
    assert ours - grep_worker == {
        "boris.text",
        "boris.structure",
        "boris.structure.definitions",
        "boris.structure.grammars",
        "boris.structure.languages",
        "boris.structure.notebook_cells",
        "boris.structure.references",
        "boris.structure.source",
        "boris.structure.task",
    }
    assert "tree_sitter" not in loaded


def test_the_message_layer_knows_nothing_of_the_app() -> None:
    """What one JSON-RPC message is (jsonrpc, prescan) depends on nothing above the base:
    the transports use the app, not the other way round."""
    for module in ("boris.transport.jsonrpc", "boris.transport.prescan"):
        for imported in boris_imports(module):
            assert imported == "boris.transport.prescan" or layer_of(imported) == 0, (
                f"{module} imports {imported}"
            )


# --- private parts of the libraries ----------------------------------------------------

#: The libraries Boris meets at its edge, and the package of the one module per library
#: that may name their private parts (boris/seams/).
LIBRARIES = ("fastmcp", "mcp", "mcp_types", "starlette")
SEAMS = "boris.seams"

_DEFINED = [
    re.compile(r"\bdef (_[a-z]\w*)"),  # a method or function
    re.compile(r"\bself\.(_[a-z]\w*)\s*(?::[^=\n]*)?="),  # an attribute set
    re.compile(r"^[ \t]+(_[a-z]\w*)\s*(?::[^=\n]*)?=", re.MULTILINE),  # in a class (or body)
]


@cache
def library_private_names() -> frozenset[str]:
    """The private names (``_x``, not dunder) the libraries' sources define."""
    names: set[str] = set()
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        assert spec is not None, library
        assert spec.submodule_search_locations is not None, library
        for root in spec.submodule_search_locations:
            for path in Path(root).rglob("*.py"):
                text = path.read_text(encoding="utf-8", errors="replace")
                for pattern in _DEFINED:
                    names.update(pattern.findall(text))
    return frozenset(names)


def _library_bound(tree: ast.Module) -> set[str]:
    """Names a module binds by importing from the libraries."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in LIBRARIES:
            bound |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    bound.add((alias.asname or alias.name).split(".")[0])
    return bound


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Subscript):  # FastMCP[Any]
        base = base.value
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def private_uses(source: str, private: frozenset[str]) -> list[tuple[int, str]]:
    """Where ``source`` names one of ``private``: an attribute of anything but ``self``
    (``mcp._mcp_server``, ``super()._run``), and in a class derived from a library's,
    a method it defines or an attribute of ``self`` (overrides and inherited state)."""
    tree = ast.parse(source)
    from_libraries = _library_bound(tree)
    found = []

    def of_self_private(node: ast.AST) -> TypeGuard[ast.Attribute]:
        return isinstance(node, ast.Attribute) and node.attr in private and _is_self(node.value)

    for node in ast.walk(tree):
        of_self = isinstance(node, ast.Attribute) and _is_self(node.value)
        if isinstance(node, ast.Attribute) and node.attr in private and not of_self:
            found.append((node.lineno, node.attr))
        if isinstance(node, ast.ClassDef) and {_base_name(b) for b in node.bases} & from_libraries:
            for item in ast.walk(node):
                if (
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and item.name in private
                ):
                    found.append((item.lineno, item.name))
                elif of_self_private(item):
                    found.append((item.lineno, item.attr))
    return sorted(set(found))


def test_only_the_seams_name_private_parts_of_the_libraries() -> None:
    private = library_private_names()
    assert {"_mcp_server", "_admit_session", "_connection", "_state_store"} <= private
    outside = []
    for module in modules():
        if module == SEAMS or module.startswith(SEAMS + "."):
            continue
        path = PACKAGE.parent / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = PACKAGE.parent / module.replace(".", "/") / "__init__.py"
        outside += [
            f"{module}:{line} {name}" for line, name in private_uses(path.read_text(), private)
        ]
    assert outside == [], "private parts of a library outside boris/seams/"


def test_the_check_finds_what_it_looks_for() -> None:
    private = frozenset({"_mcp_server", "_run", "_state_store", "_connection"})
    source = """
from fastmcp.tools.function_tool import FunctionTool
from fastmcp import FastMCP

class Tool(FunctionTool):
    async def _run(self, arguments): ...

class App(FastMCP[int]):
    @property
    def _state_store(self): ...

class Mine:
    def _run(self): return self._connection

def serve(mcp, ctx):
    return mcp._mcp_server, ctx.session._connection, super()._run()
"""
    assert private_uses(source, private) == [
        (6, "_run"),
        (10, "_state_store"),
        (16, "_connection"),
        (16, "_mcp_server"),
        (16, "_run"),
    ]
