"""What each language's queries and the nesting make of its definitions: kinds, methods
told from functions, and qualified names (Go receivers, Rust impl blocks, Swift
extensions, C++ members defined out of their class, namespaces), on the fixtures of
tests/structure/fixtures/. Their names and lines are checked against ctags in
test_ctags_oracle.py; Swift, which ctags 5.9 does not read, whole here."""

from __future__ import annotations

from pathlib import Path

import pytest

from boris.structure.definitions import definitions
from boris.structure.grammars import load, parse
from boris.structure.languages import KINDS, LANGUAGES
from boris.structure.source import language_of

FIXTURES = Path(__file__).parent / "fixtures"


def outline(fixture: str) -> list[tuple[int, str, str, int, int]]:
    path = FIXTURES / fixture
    language = language_of(path.name, str(path))
    assert language is not None
    tree = parse(language, path.read_bytes())
    return [(d.depth, d.kind, d.qualified, d.start, d.end) for d in definitions(tree, language)]


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("inventory.go", {("method", "Store.Add"), ("method", "Stores.Largest"),
                          ("method", "Counter.Total"), ("struct", "Store"),
                          ("interface", "Counter"), ("function", "price"),
                          ("struct", "Stack"), ("method", "Stack.Push")}),
        ("shapes.rs", {("method", "Point.new"), ("method", "Shape.area"),
                       ("method", "Point.fmt"), ("method", "Area.describe"),
                       ("trait", "Area"), ("function", "units.to_meters"),
                       ("function", "shoelace"), ("trait", "Sorted"),
                       ("method", "Sorted.is_sorted_asc"), ("method", "is_sorted_asc"),
                       ("method", "Labeled.inner")}),
        ("matrix.cpp", {("class", "linalg.Matrix"), ("method", "linalg.Matrix.transpose"),
                        ("method", "linalg.Gauss.solve"), ("function", "linalg.trace"),
                        ("module", "linalg"), ("type", "linalg.Index")}),
        ("Orders.cs", {("method", "Shop.Orders.Order.Pay"), ("type", "Shop.Orders.OrderPlaced"),
                       ("interface", "Shop.Orders.IRepository"),
                       ("method", "Shop.Orders.Money.Money")}),
        ("store.rb", {("method", "Storage.Store.open"), ("method", "Storage.Helpers.slug"),
                      ("method", "Storage.Store.default"), ("function", "log_line"),
                      ("constant", "Storage.VERSION")}),
        ("Tasks.kt", {("method", "Task.companion.urgent"), ("method", "QueueScheduler.Stats.size"),
                      ("function", "runAll.log"), ("enum", "Priority"),
                      ("interface", "Scheduler"), ("constant", "MAX_TASKS")}),
        ("users.php", {("method", "User.guest"), ("trait", "Timestamps"),
                       ("function", "slugify"), ("constant", "User.TABLE")}),
        ("service.ts", {("method", "HttpService.use"), ("function", "Metrics.count"),
                        ("interface", "Request"), ("method", "Request.send"),
                        ("function", "withRetry"), ("constant", "MAX_RETRIES")}),
        ("app.js", {("method", "Hub.create"), ("method", "Logger.log"), ("function", "ids"),
                    ("function", "format"), ("variable", "listeners")}),
        ("Library.java", {("method", "Library.Genre.label"), ("method", "Library.Library"),
                          ("interface", "Reviewed"), ("method", "Reviewed.by")}),
        ("buffer.c", {("function", "buffer_new"), ("type", "buffer_t"), ("struct", "buffer"),
                      ("constant", "BUFFER_DEFAULT"), ("function", "MAX"),
                      ("variable", "buffer_count"), ("variable", "buffer_greeting"),
                      ("variable", "buffer_rows"), ("function", "buffer_compare"),
                      ("struct", "pair"), ("type", "pair_t")}),
        ("deploy.sh", {("function", "log"), ("function", "build"), ("function", "main")}),
    ],
)  # fmt: skip
def test_kinds_and_qualified_names(fixture: str, expected: set[tuple[str, str]]) -> None:
    found = {(kind, qualified) for _, kind, qualified, _, _ in outline(fixture)}
    assert expected <= found


def test_an_extern_declaration_defines_nothing() -> None:
    assert "buffer_debug" not in {q for _, _, q, _, _ in outline("buffer.c")}


def test_swift_whole() -> None:
    assert outline("Geometry.swift") == [
        (0, "constant", "defaultScale", 3, 3),
        (0, "variable", "drawCount", 4, 4),
        (0, "type", "Angle", 6, 6),
        (0, "interface", "Shape", 8, 11),
        (1, "method", "Shape.area", 9, 9),
        (0, "struct", "Circle", 13, 24),
        (1, "method", "Circle.init", 17, 19),
        (1, "method", "Circle.area", 21, 23),
        (0, "enum", "Direction", 26, 32),
        (1, "method", "Direction.turned", 29, 31),
        (0, "class", "Canvas", 34, 45),
        (1, "method", "Canvas.add", 37, 40),
        (1, "method", "Canvas.blank", 42, 44),
        (0, "method", "Circle.scaled", 48, 50),
        (0, "function", "totalArea", 53, 55),
        (0, "constant", "circleLabel", 58, 58),
    ]


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir()))
def test_a_search_by_name_finds_what_the_whole_outline_holds(fixture: str) -> None:
    """Where a definition may name something (definition_sites) is a superset of where
    the query finds one: a search for each name finds every definition of it."""
    from boris.structure.source import source_of
    from boris.structure.task import DEFINITIONS, NameQuery, StructureTask

    path = FIXTURES / fixture
    language = language_of(path.name, str(path))
    assert language is not None
    source = source_of(path.name, path.read_bytes(), language)
    assert source is not None
    whole = definitions(parse(language, source.parts[0].text), language)
    for name in {d.parts[-1] for d in whole}:
        task = StructureTask(DEFINITIONS, 1 << 30, NameQuery(parts=(name,)))
        found = [line.split("  ", 2)[1] for line in task.lines("f", source)]
        assert found == [f"{d.kind} {d.qualified}" for d in whole if d.parts[-1] == name], name


def test_tsx_reads_typescript_and_jsx() -> None:
    from boris.structure.languages import TSX

    source = b"""\
interface Props { label: string }

export function Button({ label }: Props) {
  return <button onClick={() => alert(label)}>{label}</button>;
}

export const Panel = (props: Props) => <div>{props.label}</div>;
"""
    found = [(d.kind, d.qualified, d.start, d.end) for d in definitions(parse(TSX, source), TSX)]
    assert found == [
        ("interface", "Props", 1, 1),
        ("function", "Button", 3, 5),
        ("function", "Panel", 7, 7),
    ]


def test_every_language_loads_with_a_query_the_outline_reads() -> None:
    """Each language's grammar loads (it reads an empty file) with its query (after
    those it is based on); a definition's capture names a kind the symbols tool takes
    (``kind``), the other captures are a definition's name, a C declarator, a scope, a
    Go receiver, the object a JavaScript function is assigned to and the words before a
    C# operator's name."""
    import tree_sitter

    known = {f"definition.{kind}" for kind in KINDS} | {
        "name", "declarator", "scope", "receiver", "qualifier", "prefix"
    }  # fmt: skip
    for language in LANGUAGES:
        loaded = load(language)
        assert not tree_sitter.Parser(loaded.language).parse(b"\n").root_node.has_error
        query = loaded.definitions
        # A capture whose name starts with _ is a predicate's operand, nothing else.
        captures = {
            name
            for index in range(query.capture_count)
            if not (name := query.capture_name(index)).startswith("_")
        }
        assert "name" in captures, language.name
        assert captures <= known, language.name
