"""grep's ``type`` filter: ripgrep 14.1's file types, as tests on names."""

from __future__ import annotations

from dataclasses import dataclass

#: File types for grep's ``type`` filter: name → the globs of ripgrep 14.1 for it
#: (``rg --type-list``). They match a file's name, case-sensitively; each is a
#: ``*`` and a suffix, or a whole name, with ``[...]`` for one of some characters.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "c": ("*.[chH]", "*.[chH].in", "*.cats"),
    "cpp": (
        "*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in",
        "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl",
    ),
    "css": ("*.css", "*.scss"),
    "go": ("*.go",),
    "html": ("*.ejs", "*.htm", "*.html"),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "js": ("*.cjs", "*.js", "*.jsx", "*.mjs", "*.vue"),
    "json": ("*.json", "*.sarif", "composer.lock"),
    "markdown": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mdx", "*.mkd", "*.mkdn"),
    "py": ("*.py", "*.pyi"),
    "rust": ("*.rs",),
    "ts": ("*.cts", "*.mts", "*.ts", "*.tsx"),
    "yaml": ("*.yaml", "*.yml"),
}  # fmt: skip

#: Other names accepted for a type.
TYPE_ALIASES = {"python": "py", "typescript": "ts", "md": "markdown"}


@dataclass(frozen=True)
class NameFilter:
    """A file type as a test on names: the walk asks it of every entry, so it is a
    suffix test and a set lookup rather than a glob."""

    suffixes: tuple[str, ...]
    names: frozenset[str]

    def __call__(self, name: str) -> bool:
        return name.endswith(self.suffixes) or name in self.names


def file_type_filter(name: str) -> NameFilter | None:
    """The filter of a ``type`` name or alias, None when unknown."""
    globs = FILE_TYPES.get(TYPE_ALIASES.get(name, name))
    if globs is None:
        return None
    suffixes = [suffix for glob in globs if glob.startswith("*") for suffix in _spelled(glob[1:])]
    names = [whole for glob in globs if not glob.startswith("*") for whole in _spelled(glob)]
    return NameFilter(tuple(suffixes), frozenset(names))


def _spelled(text: str) -> list[str]:
    """Every spelling of ``text`` with each ``[...]`` replaced by one of its characters."""
    start = text.find("[")
    if start < 0:
        return [text]
    end = text.index("]", start)
    return [
        spelling
        for choice in text[start + 1 : end]
        for spelling in _spelled(text[:start] + choice + text[end + 1 :])
    ]


def type_names() -> str:
    aliases = ", ".join(f"{alias} ({name})" for alias, name in TYPE_ALIASES.items())
    return f"{', '.join(FILE_TYPES)}; aliases: {aliases}"
