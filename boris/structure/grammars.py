"""The grammars, parsers and definition queries of the languages, loaded on first use.

tree-sitter and a language's grammar are imported when a file of that language is
first parsed in a process (the server, or a search worker), never at start-up. A
grammar and its compiled query serve every thread; a parser is not safe to share
between threads, so each thread has its own.
"""

from __future__ import annotations

import functools
import importlib
import threading
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from boris.structure.languages import Language

if TYPE_CHECKING:
    import tree_sitter


@dataclass(frozen=True)
class Grammar:
    """A language loaded: tree-sitter's Language and the query of its definitions."""

    language: tree_sitter.Language
    definitions: tree_sitter.Query


@functools.cache
def grammar(language: Language) -> Grammar:
    import tree_sitter

    module = importlib.import_module(language.module)
    loaded = tree_sitter.Language(getattr(module, language.function)())
    own = language.query or language.key
    source = "\n".join(query_text(key) for key in (*language.based_on, own))
    return Grammar(loaded, tree_sitter.Query(loaded, source))


def query_text(key: str) -> str:
    """The text of a query file of boris/structure/queries/."""
    return resources.files("boris.structure").joinpath("queries").joinpath(f"{key}.scm").read_text()


_parsers = threading.local()


def parse(language: Language, source: bytes) -> tree_sitter.Tree:
    """The syntax tree of ``source`` (UTF-8 bytes)."""
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_parsers, "by_key", None)
    if parsers is None:
        parsers = _parsers.by_key = {}
    parser = parsers.get(language.key)
    if parser is None:
        import tree_sitter

        parser = parsers[language.key] = tree_sitter.Parser(grammar(language).language)
    return parser.parse(source)
