"""The package's layers (docs/ARCHITECTURE.md): the domain loads nothing of MCP, the grep
workers load nothing of the server, and no module imports from a layer above its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import boris

PACKAGE = Path(boris.__file__).parent

#: Bottom to top; a module may import from its own layer and the ones below.
LAYERS = [
    (
        "base",
        ["boris", "boris.errors", "boris.text", "boris.toolset", "boris.logs", "boris.arguments"],
    ),
    ("domain", ["boris.files", "boris.search", "boris.shell"]),
    ("settings", ["boris.settings"]),
    ("session", ["boris.session"]),
    ("tools", ["boris.tools"]),
    ("app", ["boris.app", "boris.edge"]),
    ("transport", ["boris.transport"]),
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


def test_the_domain_loads_nothing_of_mcp() -> None:
    domain = [
        m
        for m in modules()
        if m.split(".")[:2] in (["boris", p] for p in ("files", "search", "shell"))
    ]
    loaded = loaded_after(*domain)
    assert set(domain) <= loaded
    server = {m for m in loaded if m.split(".")[0] in ("fastmcp", "mcp", "mcp_types", "starlette")}
    assert server == set()


def test_grep_workers_load_only_the_matching_code() -> None:
    """A worker process (boris.search.pool) imports the per-file search and what it needs
    of the file sniffing, and nothing else of Boris."""
    loaded = loaded_after("boris.search.pool")
    ours = {m for m in loaded if m == "boris" or m.startswith("boris.")}
    assert ours == {
        "boris",
        "boris.files",
        "boris.files.sniff",
        "boris.search",
        "boris.search.matching",
        "boris.search.pool",
    }
