"""Where a name is used as code in a parsed source: each occurrence of the name's text
that is a whole name node of the syntax tree (so not in a comment or a string, which
are nodes of their own), and not the name of a definition, with the definition it lies
in. Syntax only: which definition a use refers to is not resolved. In a file that does
not parse, what the parser could not read is left out: a string's words may stand there
as names.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from boris.patterns.re2_raw import SpanSearch, span_search
from boris.structure.definitions import Definition
from boris.structure.languages import Language

if TYPE_CHECKING:
    import tree_sitter


@dataclass(frozen=True, slots=True)
class Reference:
    #: Its line (1-based) and the byte of it where the name starts.
    line: int
    byte: int
    #: The innermost definition it lies in (None at the top of the file).
    enclosing: Definition | None


def occurrences(name: str, text: bytes) -> list[tuple[int, int]]:
    """Byte spans of ``name`` in ``text`` not inside a longer word (a cheap first cut:
    the syntax tree decides)."""
    return _spans(_word_search(name), text)


def holds(name: str, text: bytes) -> bool:
    """Whether ``name`` stands in ``text`` outside a longer word (as :func:`occurrences`
    finds it): a file that does not is neither parsed nor searched further."""
    return name.encode() in text and _word_search(name)(text, 0, len(text))[0][0] >= 0


def definition_sites(name: str, text: bytes, language: Language) -> list[tuple[int, int]]:
    """The occurrences of ``name`` where a definition may name it (a superset: the
    syntax tree decides): where the language's ``definition_sites`` says, else wherever
    it stands but after ``.`` or ``->`` (``obj.get``, ``p->next`` are uses)."""
    if language.definition_sites is not None:
        return _spans(_site_search(language.definition_sites, name), text)
    spans = occurrences(name, text)
    if language.dotted_definitions:
        return spans
    return [
        (start, end)
        for start, end in spans
        if not _after_member_access(text, start)
        or (language.assigned_definitions and _assigned(text, end))
    ]


def _spans(search: SpanSearch, text: bytes) -> list[tuple[int, int]]:
    """The spans of the name (the one group that took part) in each match of
    ``search``. A search goes on from the name's last byte, not the match's end: the
    byte a match read after the name may be the one before the next name, and so may
    the name's own last byte when it is not a word's (``éé`` holds ``é`` twice)."""
    spans: list[tuple[int, int]] = []
    position, end = 0, len(text)
    while True:
        found = search(text, position, end)
        if found[0][0] < 0:
            return spans
        span = next(group for group in found[1:] if group[0] >= 0)
        spans.append(span)
        position = max(span[1] - 1, span[0] + 1)


#: Bytes that continue a name: a name is found where none stands before or after it.
_WORD = rb"\w$"


@functools.lru_cache(maxsize=32)
def _word_search(name: str) -> SpanSearch:
    word = _literal(name)
    return _compiled(rb"(?:\A|[^" + _WORD + rb"])(" + word + rb")(?:[^" + _WORD + rb"]|\z)")


@functools.lru_cache(maxsize=32)
def _site_search(template: str, name: str) -> SpanSearch:
    return _compiled(template.encode().replace(b"{name}", b"(" + _literal(name) + b")"))


def _literal(name: str) -> bytes:
    """``name`` as an RE2 pattern of its UTF-8 bytes, each one escaped."""
    return b"".join(b"\\x%02x" % byte for byte in name.encode())


def _compiled(pattern: bytes) -> SpanSearch:
    """RE2 on bytes as they are (Latin-1: one byte, one character, whatever the
    encoding): a site's pattern, the byte before and after a name."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.encoding = re2.Options.Encoding.LATIN1
    return span_search(pattern, options)


def _after_member_access(text: bytes, start: int) -> bool:
    before = text[max(start - 64, 0) : start].rstrip(b" \t")
    return (before.endswith(b".") and not before.endswith(b"..")) or before.endswith(b"->")


def _assigned(text: bytes, end: int) -> bool:
    """Whether ``=`` (not ``==`` or ``=>``) follows the name ending at ``end``."""
    after = text[end : end + 64].lstrip(b" \t")
    return after.startswith(b"=") and not after.startswith((b"==", b"=>"))


def references(
    tree: tree_sitter.Tree,
    text: bytes,
    name: str,
    language: Language,
    definitions: list[Definition],
) -> list[Reference]:
    """The uses of ``name`` in the source ``text`` parsed as ``tree``, in order."""
    spans = occurrences(name, text)
    if not spans:
        return []
    named = {(d.name_start, d.name_end) for d in definitions}
    root = tree.root_node
    partial = root.has_error
    found: list[Reference] = []
    # Definitions in source order, parents first: a sweep keeps those that hold the
    # current position on a stack.
    stack: list[Definition] = []
    following = iter(definitions)
    upcoming = next(following, None)
    for start, end in spans:
        if (start, end) in named:
            continue
        node = root.descendant_for_byte_range(start, end)
        if node is None or node.start_byte != start or node.end_byte != end:
            continue
        if not _is_name(node, language) or (partial and _unread(node)):
            continue
        while upcoming is not None and upcoming.start_byte <= start:
            while stack and stack[-1].end_byte <= upcoming.start_byte:
                stack.pop()
            stack.append(upcoming)
            upcoming = next(following, None)
        while stack and stack[-1].end_byte <= start:
            stack.pop()
        found.append(Reference(node.start_point[0] + 1, start, stack[-1] if stack else None))
    return found


def _own_name(node: tree_sitter.Node) -> bool:
    parent = node.parent
    return (
        parent is not None
        and parent.type in _OWN_NAMES
        and parent.child_by_field_name("name") == node
    )


def _unread(node: tree_sitter.Node) -> bool:
    """Whether ``node`` lies in what the parser could not read (an error node): there a
    word of a string or a comment may stand as a name."""
    parent = node.parent
    while parent is not None:
        if parent.is_error:
            return True
        parent = parent.parent
    return False


#: Nodes whose name field names what they are, never a use: a JavaScript function or
#: class expression (``View.prototype.render = function render(…)``, its definition
#: named by what it is assigned to), where the name is the expression's own.
_OWN_NAMES = frozenset({"function_expression", "generator_function", "class"})


def _is_name(node: tree_sitter.Node, language: Language) -> bool:
    kind = node.type
    if kind.endswith("identifier") or kind in language.identifiers:
        return node.is_named and not _own_name(node)
    if kind == "word" and language.word_parents:
        parent = node.parent
        return parent is not None and parent.type in language.word_parents
    return False
