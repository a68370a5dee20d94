"""The languages Boris knows the structure of: how a file is recognised (its name, else
the interpreter of its ``#!`` line), which grammar parses it, and what in its syntax
tree counts as a use of a name.

Plain data, loading nothing: the grammars are loaded by boris.structure.grammars on
first use.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

#: The kinds of definition, as the symbols tool's ``kind`` takes them.
KINDS = (
    "class",
    "function",
    "method",
    "interface",
    "struct",
    "enum",
    "trait",
    "type",
    "module",
    "constant",
    "variable",
)

#: Kinds whose functions are methods.
CLASS_LIKE = frozenset({"class", "struct", "interface", "enum", "trait"})


@dataclass(frozen=True)
class Language:
    """A language: its name as output shows it, its grammar and how files are told."""

    #: As output shows it: "Python".
    name: str
    #: The query file (boris/structure/queries/<key>.scm) and the key of the grammar.
    key: str
    #: The grammar's package and the function of it that gives the language.
    module: str
    function: str
    #: Name endings (case-sensitive) and whole names of its files.
    suffixes: tuple[str, ...]
    names: tuple[str, ...] = ()
    #: Interpreters of a ``#!`` line that run it (for a file without an extension),
    #: without a version (python3.12 is python).
    interpreters: tuple[str, ...] = ()
    #: Definition kinds whose functions are methods (Ruby's modules hold methods too).
    class_like: frozenset[str] = CLASS_LIKE
    #: Node types, besides those whose type ends in "identifier", that are names.
    identifiers: frozenset[str] = frozenset()
    #: Parents under which a ``word`` node is a name (Bash: a command's name).
    word_parents: frozenset[str] = frozenset()
    #: Whether a variable spelled in capitals (MAX_SIZE) is a constant.
    capital_constants: bool = False
    #: The query files read before its own (TypeScript's start from JavaScript's).
    based_on: tuple[str, ...] = ()
    #: Its own query file, if not named after its key (TSX's is TypeScript's).
    query: str = ""
    #: Whether a definition's name may follow a dot: Kotlin's ``fun String.shout()``,
    #: Ruby's ``def self.build``, C#'s ``void IDisposable.Dispose()``. Elsewhere a name
    #: after ``.`` or ``->`` is a use, and a search for definitions passes it by.
    dotted_definitions: bool = False
    #: Whether a name after a dot is defined where something is assigned to it:
    #: JavaScript's ``View.prototype.render = function``.
    assigned_definitions: bool = False
    #: Where a definition may name something, as an RE2 pattern on the bytes (each one
    #: a character) around ``{name}``, which stands for the name's bytes (a superset of
    #: what the query finds): a search for definitions parses a file only if the name
    #: stands there. None: wherever the name stands, but after a dot.
    definition_sites: str | None = None
    #: Where a line starts a statement at the top of a file that nothing before it can
    #: continue, as a Python regular expression on bytes (``(?m)^`` and what follows):
    #: a search for definitions may parse a file only as far as the first such line
    #: after the last place the name may be defined (boris.structure.grammars). None:
    #: files are parsed whole.
    top_level_start: re.Pattern[bytes] | None = None


#: JavaScript's names bound by destructuring shorthand (``const { parse } = s``,
#: ``function f({ parse })``): a use of the property and a name bound, in one word.
_DESTRUCTURED = frozenset({"shorthand_property_identifier_pattern"})

PYTHON = Language(
    "Python",
    "python",
    "tree_sitter_python",
    "language",
    (".py", ".pyi", ".pyw"),
    interpreters=("python",),
    capital_constants=True,
    # def, class, a type statement; a name bound at the start of a statement (also
    # after a colon: "class Point: x = 0").
    definition_sites=(
        r"(?m)^[ \t]*(?:(?:async[ \t]+)?def|class|type)[ \t]+{name}(?:[^\w$]|\z)"
        r"|(?:^|[;:])[ \t]*{name}[ \t]*[:=]"
    ),
    # Code at the start of a line, not a clause that continues an if or a try, not a
    # closing bracket (the rest of an expression), not a comment.
    top_level_start=re.compile(rb"(?m)^(?![\s#)\]}]|(?:else|elif|except|finally)\b)"),
)
JAVASCRIPT = Language(
    "JavaScript",
    "javascript",
    "tree_sitter_javascript",
    "language",
    (".js", ".mjs", ".cjs", ".jsx"),
    interpreters=("node", "nodejs"),
    assigned_definitions=True,
    identifiers=_DESTRUCTURED,
)
TYPESCRIPT = Language(
    "TypeScript",
    "typescript",
    "tree_sitter_typescript",
    "language_typescript",
    (".ts", ".mts", ".cts"),
    interpreters=("ts-node", "deno", "bun"),
    based_on=("javascript",),
    assigned_definitions=True,
    identifiers=_DESTRUCTURED,
)
TSX = Language(
    "TSX",
    "tsx",
    "tree_sitter_typescript",
    "language_tsx",
    (".tsx",),
    based_on=("javascript",),
    query="typescript",
    assigned_definitions=True,
    identifiers=_DESTRUCTURED,
)
GO = Language(
    "Go",
    "go",
    "tree_sitter_go",
    "language",
    (".go",),
    # A function, or a method after its receiver; else a name first on a line, after
    # type, var or const, or after other names and a comma (a group's specs, an
    # interface's methods, "var a, b int"), there or after ";" or "{" (one-line
    # interfaces). Never after "//": a doc comment names the definition it precedes.
    definition_sites=(
        r"(?m)func[ \t]*(?:\((?:[^()]|\([^()]*\))*\)[ \t]*)?{name}(?:[^\w$]|\z)"
        r"|(?:^|[;{])[ \t]*(?:(?:type|var|const)[ \t]+)?(?:[\w$]+[ \t]*,[ \t]*)*{name}"
        r"(?:[^\w$]|\z)"
    ),
    # A declaration at the start of a line: nothing before it continues into it.
    top_level_start=re.compile(rb"(?m)^(?:func|type|var|const|import)\b"),
)
RUST = Language("Rust", "rust", "tree_sitter_rust", "language", (".rs",))
JAVA = Language("Java", "java", "tree_sitter_java", "language", (".java",))
C = Language("C", "c", "tree_sitter_c", "language", (".c",))
CPP = Language(
    "C++",
    "cpp",
    "tree_sitter_cpp",
    "language",
    # .h as C++, as universal-ctags has it: the C++ grammar reads C headers too, while
    # the C grammar stops at the first class of a C++ header.
    (
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".C",
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".h++",
        ".H",
        ".inl",
        ".ipp",
        ".tpp",
    ),
)
CSHARP = Language(
    "C#", "c_sharp", "tree_sitter_c_sharp", "language", (".cs", ".csx"), dotted_definitions=True
)
RUBY = Language(
    "Ruby",
    "ruby",
    "tree_sitter_ruby",
    "language",
    (".rb", ".rake", ".gemspec", ".ru"),
    names=("Rakefile", "Gemfile", "Guardfile", "Vagrantfile"),
    interpreters=("ruby",),
    class_like=CLASS_LIKE | {"module"},
    identifiers=frozenset({"constant"}),
    dotted_definitions=True,
)
PHP = Language(
    "PHP",
    "php",
    "tree_sitter_php",
    "language_php",
    (".php", ".phtml", ".php5", ".php7", ".php8"),
    interpreters=("php",),
    identifiers=frozenset({"name"}),
)
KOTLIN = Language(
    "Kotlin", "kotlin", "tree_sitter_kotlin", "language", (".kt", ".kts"), dotted_definitions=True
)
SWIFT = Language("Swift", "swift", "tree_sitter_swift", "language", (".swift",))
BASH = Language(
    "Bash",
    "bash",
    "tree_sitter_bash",
    "language",
    (".sh", ".bash", ".bashrc", ".bash_profile", ".zsh", ".ksh"),
    names=(".bashrc", ".bash_profile", ".profile", "bashrc", "profile"),
    interpreters=("sh", "bash", "dash", "ksh", "zsh", "ash"),
    identifiers=frozenset({"variable_name"}),
    word_parents=frozenset({"command_name"}),
)

#: Every language, in the order the tool's description names them.
LANGUAGES = (
    PYTHON, JAVASCRIPT, TYPESCRIPT, TSX, GO, RUST, JAVA, C, CPP, CSHARP, RUBY, PHP,
    KOTLIN, SWIFT, BASH,
)  # fmt: skip

_BY_SUFFIX = {suffix: language for language in LANGUAGES for suffix in language.suffixes}
_BY_NAME = {name: language for language in LANGUAGES for name in language.names}
_BY_INTERPRETER = {
    interpreter.encode(): language
    for language in LANGUAGES
    for interpreter in language.interpreters
}
#: The suffix of a name: from its last dot (a leading dot alone is no suffix).
_SUFFIX = re.compile(r"(?<=[^/])(\.[^./]+)$")
#: The interpreter of a #! line: "#!/usr/bin/env -S python3 -u" → python3; versions dropped.
_SHEBANG = re.compile(rb"#![ \t]*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*(\S+))?")
_VERSION = re.compile(rb"[\d.]+$")

#: Notebooks are read as their code cells, in Python.
NOTEBOOK_SUFFIX = ".ipynb"


_BY_KEY = {language.key: language for language in LANGUAGES}


def by_key(key: str) -> Language:
    """The language whose :attr:`~Language.key` is ``key`` (as plain data names it)."""
    return _BY_KEY[key]


def by_name(name: str) -> Language | None:
    """The language of a file by its name (the last component of a path); None when the
    name alone does not tell (see :func:`needs_first_line`)."""
    language = _BY_NAME.get(name)
    if language is not None:
        return language
    found = _SUFFIX.search(name)
    return _BY_SUFFIX.get(found.group(1)) if found else None


def is_notebook(name: str) -> bool:
    return name.lower().endswith(NOTEBOOK_SUFFIX)


def needs_first_line(name: str) -> bool:
    """Whether a file's language is told by its ``#!`` line: it has no extension."""
    return _SUFFIX.search(name) is None and name not in _BY_NAME


def by_first_line(head: bytes) -> Language | None:
    """The language of the interpreter a ``#!`` line at the start of ``head`` names."""
    found = _SHEBANG.match(head)  # which reads no further than the line's end
    if found is None:
        return None
    program = os.path.basename(found.group(1))
    if program == b"env" and found.group(2):
        program = os.path.basename(found.group(2))
    return _BY_INTERPRETER.get(_VERSION.sub(b"", program))


def language_names() -> str:
    return ", ".join(language.name for language in LANGUAGES)
