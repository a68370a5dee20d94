"""Where a name is used as code in a parsed source: each occurrence of the name's text
that is a whole name node of the syntax tree (so not in a comment or a string, which
are nodes of their own), and not the name of a definition, with the definition it lies
in. Syntax only: which definition a use refers to is not resolved.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    needle = re.escape(name.encode())
    pattern = re.compile(rb"(?<![\w$])" + needle + rb"(?![\w$])")
    return [match.span() for match in pattern.finditer(text)]


def definition_sites(name: str, text: bytes, language: Language) -> list[tuple[int, int]]:
    """The occurrences of ``name`` where a definition may name it (a superset: the
    syntax tree decides): where the language's ``definition_sites`` says, else wherever
    it stands but after ``.`` or ``->`` (``obj.get``, ``p->next`` are uses)."""
    if language.definition_sites is not None:
        pattern = _sites(language.definition_sites, name)
        return [
            next(match.span(group) for group in range(1, pattern.groups + 1) if match[group])
            for match in pattern.finditer(text)
        ]
    spans = occurrences(name, text)
    if language.dotted_definitions:
        return spans
    return [(start, end) for start, end in spans if not _after_member_access(text, start)]


@functools.lru_cache(maxsize=32)
def _sites(template: str, name: str) -> re.Pattern[bytes]:
    word = rb"(" + re.escape(name.encode()) + rb")(?![\w$])"
    return re.compile(template.encode().replace(b"{name}", word))


def _after_member_access(text: bytes, start: int) -> bool:
    before = text[max(start - 64, 0) : start].rstrip(b" \t")
    return (before.endswith(b".") and not before.endswith(b"..")) or before.endswith(b"->")


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
        if not _is_name(node, language):
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


def _is_name(node: tree_sitter.Node, language: Language) -> bool:
    kind = node.type
    if kind.endswith("identifier") or kind in language.identifiers:
        return node.is_named
    if kind == "word" and language.word_parents:
        parent = node.parent
        return parent is not None and parent.type in language.word_parents
    return False
