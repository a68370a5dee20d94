"""Code structure without a language server: the definitions a file holds (kind, name,
line range, signature, nesting) and where a name is used as code, found by parsing
with tree-sitter's grammars (the symbols tool, and view's ``symbol``).

Plain Python: it takes plain values (a FileAccess, a PathScope, a stop Event) and
raises BorisError. It selects and walks files as grep does (boris.search.selection)
and runs its per-file work in grep's worker processes (boris.search.pool).
"""
