"""Properties of outlines against a model: Python sources made of nested classes and
defs with bodies of statements, comments and blank lines, whose every definition's
qualified name and line range the generator knows.

- The outline's classes, functions and methods are exactly the model's; their ranges
  nest (a definition lies within its parent's range, siblings do not overlap) and
  cover their names' lines.
- view of a symbol shows exactly what view shows of its outline range.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import given
from hypothesis import strategies as st

from boris.structure.definitions import Definition, definitions
from boris.structure.grammars import parse
from boris.structure.languages import PYTHON
from boris.tools import symbols as symbols_tool
from tests.support.sessions import in_loop, session_in_tempdir, view

symbols = in_loop(symbols_tool.symbols)

STATEMENTS = ["pass", "x = 1", "return None", "# a comment", "", "value = [\n    1,\n]"]


@dataclass
class Block:
    kind: str  # "class" or "def"
    decorated: bool
    body: list[Block | str] = field(default_factory=list)


@st.composite
def blocks(draw: st.DrawFn, depth: int = 0) -> Block:
    kind = draw(st.sampled_from(["class", "def"]))
    body: list[Block | str] = [draw(st.sampled_from(STATEMENTS[:3]))]
    children = draw(st.integers(0, 3 if depth < 3 else 0))
    for _ in range(children):
        if draw(st.booleans()):
            body.append(draw(st.sampled_from(STATEMENTS)))
        body.append(draw(blocks(depth + 1)))
    if draw(st.booleans()):
        body.append(draw(st.sampled_from(STATEMENTS[3:5])))  # trailing comment or blank
    return Block(kind, draw(st.booleans()), body)


def render(top: list[Block]) -> tuple[str, set[tuple[str, str, int, int]]]:
    """The source and the model's (qualified name, class/function, start, end)."""
    lines: list[str] = []
    model: set[tuple[str, str, int, int]] = set()
    names = itertools.count()

    def emit(block: Block, indent: str, outer: tuple[str, ...]) -> int:
        """Write ``block``; the number of its last line of code."""
        name = f"{'C' if block.kind == 'class' else 'f'}{next(names)}"
        start = len(lines) + 1
        if block.decorated:
            lines.append(f"{indent}@decorator")
        signature = f"class {name}:" if block.kind == "class" else f"def {name}(a):"
        lines.append(indent + signature)
        last_code = len(lines)
        for item in block.body:
            if isinstance(item, Block):
                last_code = emit(item, indent + "    ", (*outer, name))
            else:
                for part in item.split("\n"):
                    lines.append(indent + "    " + part if part else "")
                if item and not item.startswith("#"):
                    last_code = len(lines)
        kind = "class" if block.kind == "class" else "function"
        model.add((".".join((*outer, name)), kind, start, last_code))
        return last_code

    for block in top:
        emit(block, "", ())
        lines.append("")
    return "\n".join(lines) + "\n", model


def outline_of(source: str) -> list[Definition]:
    return definitions(parse(PYTHON, source.encode()), PYTHON)


@given(st.lists(blocks(), min_size=1, max_size=3))
def test_outline_ranges_are_the_models_and_nest(top: list[Block]) -> None:
    source, model = render(top)
    found = outline_of(source)
    callable_or_class = [d for d in found if d.kind in ("class", "function", "method")]
    assert {
        (d.qualified, "class" if d.kind == "class" else "function", d.start, d.end)
        for d in callable_or_class
    } == model
    by_name = {d.qualified: d for d in found}
    for d in found:
        assert d.start <= d.line <= d.end
        parent = by_name.get(".".join(d.parts[:-1]))
        if parent is not None:
            assert parent.start <= d.start
            assert d.end <= parent.end
            assert d.depth == parent.depth + 1
        else:
            assert d.depth == 0
    for a, b in itertools.combinations(found, 2):
        if a.parts[:-1] == b.parts[:-1]:  # siblings
            assert a.end < b.start or b.end < a.start


@given(st.lists(blocks(), min_size=1, max_size=3), st.data())
def test_view_of_a_symbol_is_the_view_of_its_outline_range(
    top: list[Block], data: st.DataObject
) -> None:
    source, _ = render(top)
    with session_in_tempdir() as (session, root):
        (root / "m.py").write_text(source)
        # Classes and defs have names of their own; a body's "x = 1" may recur.
        found = [d for d in outline_of(source) if d.kind in ("class", "function", "method")]
        chosen = data.draw(st.sampled_from(found))
        outline = symbols(path="m.py", session=session)
        entry = f"{chosen.kind} {chosen.name}  {chosen.start}-{chosen.end}  "
        assert any(line.strip().startswith(entry) for line in outline.splitlines()), outline
        by_symbol = view(path="m.py", symbol=chosen.qualified, session=session)
        by_range = view(path="m.py", view_range=[chosen.start, chosen.end], session=session)
        assert by_symbol == by_range
