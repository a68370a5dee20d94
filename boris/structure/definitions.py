"""The definitions of a parsed file, nested as in the source: kind, name, qualified name,
line range and the line of the name (the signature).

A language's query (boris/structure/queries/) names each definition's node
(``@definition.<kind>``) and its name (``@name``, or a C declarator ``@declarator`` whose
name lies inside it); ``@scope`` marks what qualifies the names inside it without being
a definition itself (a Rust impl block, a Swift extension), ``@receiver`` a Go
method's receiver type, ``@prefix`` the words written before a name that belong to it
(C#'s ``operator +``, ``~Money``), and ``@qualifier`` the object a JavaScript function
is assigned to (``View.prototype`` of ``View.prototype.render = function``). The code
here does what a query cannot say: nesting by byte ranges, a function inside a
class-like definition made a method, qualified names, names written qualified
(``void A::f()``, ``namespace App.Core``), names as a reader points at them (operators
as written, a name over several lines joined), what only looks like a function left out.

Nothing of the syntax tree outlives :func:`definitions`: the result is plain values.

What a definition costs does not grow with how deep it lies: it points at the name
that qualifies it (a :class:`Qualifier`, shared with what lies beside it) instead of
holding every part. :func:`each_definition` makes each definition as it is read, so
that a reader that stops early (a full page) stops the work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from boris.stop import CHECK_EVERY, Stop, check
from boris.structure.grammars import grammar
from boris.structure.languages import KINDS, Language

if TYPE_CHECKING:
    import tree_sitter


class Qualifier:
    """A qualified name as a link to the one it is written in and the parts it adds:
    the definitions and scopes nested in one another share what qualifies them, so a
    name's cost does not grow with its depth (a tuple of every part per definition
    grows with the square of the nesting)."""

    __slots__ = ("count", "length", "own", "up")

    def __init__(self, up: Qualifier | None, own: tuple[str, ...]) -> None:
        self.up = up
        self.own = own
        #: How many parts, and the characters of the name joined with dots.
        above = up.count if up is not None else 0
        self.count: int = above + len(own)
        joined = sum(map(len, own)) + len(own) - 1 if own else 0
        if up is None or not above:
            self.length: int = joined
        else:
            self.length = up.length + (1 + joined if own else 0)

    def parts(self, stop: Qualifier | None = None) -> tuple[str, ...]:
        """The parts outermost first; with ``stop``, only those after its own."""
        found: list[tuple[str, ...]] = []
        node: Qualifier | None = self
        while node is not None and node is not stop:
            found.append(node.own)
            node = node.up
        return tuple(part for own in reversed(found) for part in own)

    def tail(self, count: int) -> tuple[str, ...]:
        """The last ``count`` parts (all of them where there are fewer)."""
        found: list[str] = []
        node: Qualifier | None = self
        while node is not None and len(found) < count:
            found[:0] = node.own
            node = node.up
        return tuple(found[-count:]) if count else ()

    def __eq__(self, other: object) -> bool:
        """Equal qualified names, compared a link at a time (never by recursion)."""
        if not isinstance(other, Qualifier):
            return NotImplemented
        return self is other or (
            self.count == other.count
            and self.length == other.length
            and self.parts() == other.parts()
        )

    def __hash__(self) -> int:
        return hash(self.parts())

    def __repr__(self) -> str:
        return f"Qualifier({'.'.join(self.parts())!r})"


class Definition(NamedTuple):
    """A definition as plain values (a named tuple: many thousands are made for a large
    file's outline, and a tuple is made fastest)."""

    kind: str
    #: As an outline shows it below its parent: the name, with what qualifies it that
    #: is not shown as a parent (a Go receiver, a Rust impl's type: ``Server.start``).
    name: str
    #: Its qualified name (see :attr:`parts`).
    qualifier: Qualifier
    #: Lines, 1-based, inclusive; ``line`` is the line of its name (the signature; of
    #: a name written over lines, ``Stack<T>::\npush``, its last).
    start: int
    end: int
    line: int
    #: How many definitions it lies in.
    depth: int
    #: Bytes of the definition and of its name.
    start_byte: int
    end_byte: int
    name_start: int
    name_end: int

    @property
    def parts(self) -> tuple[str, ...]:
        """The parts of its qualified name, outermost first (as many steps as parts)."""
        return self.qualifier.parts()

    @property
    def qualified(self) -> str:
        return ".".join(self.qualifier.parts())


@dataclass(slots=True)
class _Found:
    index: int  # the query pattern: of two that name one name node, the first wins
    start_byte: int
    end_byte: int
    start: int
    end: int
    kind: str  # "" for a scope
    own: tuple[str, ...]  # the name's parts as written (with a receiver's type first)
    name_line: int
    name_start: int
    name_end: int


#: Node types that are the name a declarator declares.
_DECLARED = frozenset(
    {
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "operator_name",
        "destructor_name",
        "template_function",
        "primitive_type",
    }
)

_GENERICS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
_QUALIFIED = re.compile(r"^[\w$~]+(?:(?:::|\.|\\)[\w$~]+)+$")
_SEPARATOR = re.compile(r"::|\.|\\")
_SPACED_SEPARATOR = re.compile(r"\s*(::|\.|\\)\s*")
_SPACE = re.compile(r"\s+")
#: Names taken as written: an operator (Ruby's ``[]=`` and ``<=>``, Swift's ``==``), a
#: computed member name (JavaScript's ``[Symbol.iterator]``).
_AS_WRITTEN = re.compile(r"^(?:[^\w$]+|\[.*\])$")
#: Where a C++ operator's name starts, after what qualifies it.
_OPERATOR = re.compile(r"(?:^|(?<=::))operator(?![\w$])")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_CAPITALS = re.compile(r"^_*[A-Z][A-Z0-9_]*$")


def definitions(
    tree: tree_sitter.Tree,
    language: Language,
    around: list[tuple[int, int]] | None = None,
    source: bytes | None = None,
) -> list[Definition]:
    """Every definition of ``tree``, in source order (a parent before what it holds).

    With ``around`` (byte spans), only the definitions that meet one of the spans: those
    whose names may lie there, and those holding them, which qualify them. Where a name
    is looked for, the query then visits a few branches of the tree, not all of it.
    ``source`` is the text parsed, where the tree was read from it in pieces (its
    nodes' text is then the parser's to read again, slowly)."""
    return list(each_definition(tree, language, around, source=source))


def each_definition(
    tree: tree_sitter.Tree,
    language: Language,
    around: list[tuple[int, int]] | None = None,
    stop: Stop | None = None,
    source: bytes | None = None,
) -> Iterator[Definition]:
    """:func:`definitions` one at a time, each made as it is read: a reader that stops
    early (a full page) stops the work. The query's matches are read first (the
    binding gives them as one list), and let go of once their definitions are found;
    ``stop`` is looked at every :data:`~boris.stop.CHECK_EVERY` of them."""
    import tree_sitter

    found: dict[tuple[int, int], _Found] = {}
    cursor = tree_sitter.QueryCursor(grammar(language).definitions)
    for start, end in [(0, tree.root_node.end_byte)] if around is None else _merged(around):
        if around is not None:
            cursor.set_byte_range(start, end)
        for count, (index, captures) in enumerate(cursor.matches(tree.root_node)):
            if stop is not None and count and not count % CHECK_EVERY:
                check(stop)
            _collect(index, captures, found, source)
    # Two that start together (see _nest) in the order of their names.
    ordered = sorted(found.values(), key=lambda f: (f.start_byte, f.name_start))
    found.clear()
    return _nest(ordered, language)


#: Spans closer than this are looked at in one run of the query.
_NEAR = 4096


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start - merged[-1][1] <= _NEAR:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _collect(
    index: int,
    captures: dict[str, list[tree_sitter.Node]],
    found: dict[tuple[int, int], _Found],
    source: bytes | None,
) -> None:
    # Each pattern of a query captures one definition or scope.
    kind, node = next((_ROLES[c], nodes[0]) for c, nodes in captures.items() if c in _ROLES)
    if kind == "variable" and node.type == "declaration" and _is_extern(node):
        return
    names = captures.get("name", [])
    declarators = captures.get("declarator")
    if declarators and _in_a_body(node):
        return
    if declarators:
        names = names + [name for d in declarators if (name := _declared(d)) is not None]
    receiver = captures.get("receiver")
    prefix: tuple[str, ...] = (_last_identifier(_text(receiver[0], source)),) if receiver else ()
    prefixes = [_text(word, source) for word in captures.get("prefix", [])]
    qualifier = captures.get("qualifier")
    if qualifier:
        prefix = _assigned_to(_text(qualifier[0], source))
    lines: tuple[int, int] | None = None
    for name in names:
        key = name.byte_range
        have = found.get(key)
        if have is not None and have.index <= index:
            continue
        text = _text(name, source)
        own: tuple[str, ...]
        if kind:
            if prefixes:
                own = (_prefixed(prefixes, text),)
            elif not name.is_named:  # a keyword or an operator's token, as written
                own = (text,)
            else:
                own = _name_parts(text)
            if not own[-1]:
                continue
        else:
            # A scope of a type without a name of its own (``impl Sorted for [T]``)
            # qualifies nothing, yet makes the functions it holds methods.
            scope = _last_identifier(text)
            own = (scope,) if scope else ()
        if lines is None:
            start_row = node.start_point[0]
            end_row, end_column = _content_end(node)
            if end_column == 0 and end_row > start_row:
                end_row -= 1  # the node ends with the newline of its last line
            lines = (start_row + 1, end_row + 1)
        found[key] = _Found(
            index,
            node.start_byte,
            node.end_byte,
            lines[0],
            lines[1],
            kind,
            (*prefix, *own),
            name.end_point[0] + 1,  # a name written over lines: where it ends
            key[0],
            key[1],
        )


#: What a capture of a query is: the kind of a definition (``definition.<kind>``,
#: one of the kinds the tool takes), "" for a scope; the rest (a name, a declarator,
#: a receiver) are none.
_ROLES = {"scope": "", **{f"definition.{kind}": kind for kind in KINDS}}


def _nest(ordered: Iterable[_Found], language: Language) -> Iterator[Definition]:
    """Definitions with their nesting: a definition lies in the last one before it
    whose bytes hold it and that starts before it. Two that start together are side by
    side: the names of one declaration (``int a, b;``), a struct and the variable
    declared with it (``struct S {…} s;``). Scopes qualify, but are not shown."""
    # Each entry: the found item, its qualified name, its definition (None: a scope).
    stack: list[tuple[_Found, Qualifier | None, Definition | None]] = []
    shown_at: list[int] = []  # the places in the stack of its definitions
    for item in ordered:
        while stack and (
            stack[-1][0].end_byte <= item.start_byte or stack[-1][0].start_byte == item.start_byte
        ):
            stack.pop()
            if shown_at and shown_at[-1] == len(stack):
                shown_at.pop()
        parent = stack[-1] if stack else None
        above = parent[1] if parent is not None else None
        qualifier = Qualifier(above, item.own) if item.own or above is None else above
        if not item.kind:  # a scope
            stack.append((item, qualifier, None))
            continue
        shown = stack[shown_at[-1]] if shown_at else None
        shown_definition = shown[2] if shown is not None else None
        depth = shown_definition.depth + 1 if shown_definition is not None else 0
        name = ".".join(qualifier.parts(shown[1] if shown is not None else None))
        kind = item.kind
        if kind == "function" and (
            len(item.own) > 1
            or (parent is not None and (parent[2] is None or parent[2].kind in language.class_like))
        ):
            kind = "method"
        elif kind == "variable" and language.capital_constants and _CAPITALS.match(item.own[-1]):
            kind = "constant"
        definition = Definition(
            kind,
            name,
            qualifier,
            item.start,
            item.end,
            item.name_line,
            depth,
            item.start_byte,
            item.end_byte,
            item.name_start,
            item.name_end,
        )
        yield definition
        if kind != "type":  # a C typedef holds its struct; the struct is not its member
            shown_at.append(len(stack))
            stack.append((item, qualifier, definition))


def _content_end(node: tree_sitter.Node) -> tuple[int, int]:
    """Where a definition's code ends: its last descendant that is not a comment. A
    grammar may count comments after its last statement as part of its body (Python's
    does, for comments indented as the body); as Python's ast has it, they are not part
    of the definition. One step down the last branch at a time, never a list of
    children."""
    end = node.end_byte  # past its name: never 0
    last_leaf = node.descendant_for_byte_range(end - 1, end)
    if last_leaf is not None and not last_leaf.is_extra:
        point = node.end_point  # most definitions: no comment at their end
        return point.row, point.column
    while True:
        count = node.child_count
        last = node.child(count - 1) if count else None
        while last is not None and last.is_extra:
            last = last.prev_sibling
        if last is None:  # a leaf
            break
        node = last
    point = node.end_point
    return point.row, point.column


def _text(node: tree_sitter.Node, source: bytes | None) -> str:
    data = node.text if source is None else source[node.start_byte : node.end_byte]
    return data.decode("utf-8", "replace") if data is not None else ""


def _name_parts(text: str) -> tuple[str, ...]:
    """The parts of a name as written: ``A::B::f`` and ``App.Core`` are qualified, type
    arguments are dropped (``Box<int>::get``)."""
    if text.isidentifier():
        return (text,)
    text = _one_line(text)
    if _AS_WRITTEN.match(text):
        return (text,)
    operator = _OPERATOR.search(text)
    if operator is not None:  # C++: A::operator[], whose brackets are no type arguments
        head = text[: operator.start()].removesuffix("::")
        return (*(_name_parts(head) if head else ()), text[operator.start() :])
    while True:
        plain = _GENERICS.sub("", text)
        if plain == text:
            break
        text = plain
    if _QUALIFIED.match(text):
        return tuple(_SEPARATOR.split(text))
    return (text,)


#: Parts of what a function is assigned to that a reader does not count in its name:
#: ``View.prototype.render`` is View's render, ``this.close`` the enclosing one's close,
#: ``exports.json`` and ``module.exports.json`` the module's json.
_NOT_QUALIFYING = frozenset({"prototype", "this"})
_MODULE_OBJECTS = (("module", "exports"), ("exports",))


def _assigned_to(text: str) -> tuple[str, ...]:
    """What qualifies a function assigned to a member of ``text`` (a dotted name): its
    parts but those a reader does not count; nothing for another expression
    (``handlers[key].run = function``)."""
    parts = text.split(".")
    if not all(_IDENTIFIER.fullmatch(part) for part in parts):
        return ()
    for module in _MODULE_OBJECTS:
        if tuple(parts[: len(module)]) == module:
            parts = parts[len(module) :]
            break
    return tuple(part for part in parts if part not in _NOT_QUALIFYING)


def _prefixed(prefixes: list[str], name: str) -> str:
    """A name with the words written before it, one space after a word
    (``operator +``, ``implicit operator decimal``), none after a sign (``~Money``)."""
    text = ""
    for word in (*prefixes, name):
        text += " " + word if text and (text[-1].isalnum() or text[-1] == "_") else word
    return text


def _one_line(text: str) -> str:
    """A name written over several lines (``Stack<T>::\npush``) as one line: no space
    beside a separator, one space for each other run of spaces."""
    return _SPACE.sub(" ", _SPACED_SEPARATOR.sub(r"\1", text.strip()))


def _last_identifier(text: str) -> str:
    """The type a receiver or an impl block names: its last identifier once type
    arguments are dropped (``*Server[T]`` and ``&'a mut Server<T>`` name Server)."""
    while True:
        plain = _GENERICS.sub("", text)
        if plain == text:
            break
        text = plain
    found = _IDENTIFIER.findall(text)
    return found[-1] if found else ""


def _declared(declarator: tree_sitter.Node) -> tree_sitter.Node | None:
    """The name a C or C++ declarator declares (through pointers, references,
    parentheses, arrays and function declarators, past the qualifiers, attributes and
    calling conventions beside them)."""
    node: tree_sitter.Node | None = declarator
    while node is not None and node.type not in _DECLARED:
        inner = _misread(node)
        if inner is None:
            inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if _is_declarator(c.type)), None)
        node = inner
    if node is not None and node.has_error:
        # A name the parser put together from what it misread (a type after a macro it
        # does not know, joined to the name by a :: it made up): its own name is the
        # part named so.
        return node.child_by_field_name("name")
    return node


def _misread(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The function declarator the parser put in an error inside ``node``: where a
    macro it does not know follows the parameters (``_Rep& _S_empty_rep()
    _GLIBCXX_NOEXCEPT``), it takes the macro for the name declared."""
    for child in node.named_children:
        if child.type == "ERROR":
            found = next((c for c in child.named_children if c.type == "function_declarator"), None)
            if found is not None:
                return found
    return None


def _is_declarator(node_type: str) -> bool:
    """Whether a child of a declarator is what it wraps (a declarator, or the name)."""
    return node_type in _DECLARED or node_type.endswith("declarator")


#: What holds a C or C++ function's statements: a function defined in one is a
#: preprocessor branch or a macro the parser misread (``__catch(...) {}``,
#: ``if (x) {`` under ``#if``), never a definition.
_BODIES = frozenset({"compound_statement"})


def _in_a_body(node: tree_sitter.Node) -> bool:
    """Whether a C or C++ function's node lies in a body, past the errors the parser
    wrapped around it."""
    if node.type != "function_definition":
        return False
    parent = node.parent
    while parent is not None and parent.type == "ERROR":
        parent = parent.parent
    return parent is not None and parent.type in _BODIES


def _is_extern(node: tree_sitter.Node) -> bool:
    return any(
        child.type == "storage_class_specifier" and child.text == b"extern"
        for child in node.children
    )
