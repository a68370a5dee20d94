"""A search by name looks at less than the whole file, and must find what the whole
file's outline holds:

- where a name stands (RE2 on the bytes) against a plain regular expression of
  Python's ``re``, as a model: the same spans, the same sites and more;
- a file parsed only as far as the last place a name may be defined
  (boris.structure.grammars.parse with ``through``) reads as the whole file does there:
  over the standard library sample, every cut gives the whole file's definitions
  before it, with ranges, kinds and qualified names; where the rest of the file could
  change how its start reads, the file is parsed whole;
- definitions by a qualified name (only files holding each part are parsed) are the
  outline's, over the standard library sample.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from boris.structure.definitions import definitions
from boris.structure.grammars import parse, prefix_end
from boris.structure.languages import JAVASCRIPT, PYTHON
from boris.structure.references import definition_sites, occurrences
from boris.structure.source import source_of
from boris.structure.task import DEFINITIONS, NameQuery, StructureTask, definition_line
from tests.structure.test_python_ast_oracle import SAMPLE_STEP, stdlib_sample

# --- where a name stands ---------------------------------------------------------------

PIECES = ["get", "ge", "t", "_", "$", "x1", " ", "\t", "\n", ".", ";", ":", "=", "(", "é", "\xff"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map(
    lambda pieces: "".join(pieces).encode("utf-8", "surrogateescape")
)
names = st.sampled_from(["get", "t", "_", "$x", "é", "get get", "a.b", "getget"])


def model_occurrences(name: str, text: bytes) -> list[tuple[int, int]]:
    pattern = re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
    return [match.span() for match in pattern.finditer(text)]


@given(names, texts)
@example("get", b"get get;get(get)")
@example("t", b"t.t$t_t")
@example("é", "éé é".encode())
def test_occurrences_are_the_words_the_model_finds(name: str, text: bytes) -> None:
    assert occurrences(name, text) == model_occurrences(name, text)


PYTHON_PIECES = ["def ", "async ", "class ", "type ", "get", "getx", "x", " ", "\t", "\n", ";"]
PYTHON_PIECES += [":", "=", "==", "(", ")", ".", "é", "$", "#"]
python_texts = st.lists(st.sampled_from(PYTHON_PIECES), max_size=40).map(
    lambda pieces: "".join(pieces).encode()
)


def model_sites(name: str, text: bytes) -> set[tuple[int, int]]:
    """Where a definition may name ``name`` in Python, as a plain regular expression:
    after def, class or type; at the start of a statement that binds it."""
    word = rb"(" + re.escape(name.encode()) + rb")(?![\w$])"
    pattern = re.compile(
        rb"(?m)(?:^[ \t]*(?:(?:async[ \t]+)?def|class|type)[ \t]+" + word + rb")"
        rb"|(?:(?:^|[;:])[ \t]*" + word + rb"[ \t]*(?::|=(?!=)))"
    )
    return {
        match.span(group)
        for match in pattern.finditer(text)
        for group in (1, 2)
        if match[group] is not None
    }


@given(st.sampled_from(["get", "é", "x"]), python_texts)
@example("get", b"class A: get = 1; get: int\ndef get(): pass\n  async def get\n")
@example("é", "def é():\nclass é: pass\n".encode())
def test_python_sites_hold_every_site_of_the_model(name: str, text: bytes) -> None:
    assert model_sites(name, text) <= set(definition_sites(name, text, PYTHON))


MEMBER_PIECES = ["get", "x", "X", " ", "\t", "\n", ".", "..", "-", ">", "->", "(", ";"]
member_texts = st.lists(st.sampled_from(MEMBER_PIECES), max_size=40).map(
    lambda pieces: "".join(pieces).encode()
)


def model_sites_not_after_a_member_access(name: str, text: bytes) -> list[tuple[int, int]]:
    """Where a definition may name ``name`` in a language without a pattern of its own:
    every occurrence but one after ``.`` (not ``..``) or ``->`` and blanks, in the 64
    bytes before it."""
    access = re.compile(rb"(?:(?<!\.)\.|->)[ \t]*\Z")
    spans = model_occurrences(name, text)
    return [(s, e) for s, e in spans if not access.search(text[max(s - 64, 0) : s])]


@given(st.sampled_from(["get", "x"]), member_texts)
@example("get", b".get")
@example("get", b"..get p->get a.X get o . get a\t.\tget")
def test_sites_leave_out_a_name_after_a_member_access(name: str, text: bytes) -> None:
    """``obj.get`` and ``p->next`` are uses, so no definition is looked for there."""
    assert definition_sites(name, text, JAVASCRIPT) == model_sites_not_after_a_member_access(
        name, text
    )


# --- a file parsed as far as a search needs ----------------------------------------------


def test_a_cut_file_reads_as_the_whole_file_before_the_cut() -> None:
    """For files of the standard library and places in them (the end of a definition's
    name), the definitions of the file parsed through that place are the whole file's
    that start before where it was cut, identical in every field."""
    cuts = whole_reads = 0
    for path in stdlib_sample()[::4]:
        text = path.read_bytes()
        whole = definitions(parse(PYTHON, text), PYTHON)
        places = random.Random(str(path.name)).sample(whole, min(len(whole), 6))
        for place in places:
            tree = parse(PYTHON, text, place.name_end)
            end = tree.root_node.end_byte
            if end >= len(text.rstrip()):
                whole_reads += 1
                continue
            cuts += 1
            assert end == prefix_end(PYTHON, text, place.name_end), path
            found = definitions(tree, PYTHON)
            assert found == [d for d in whole if d.start_byte < end], (path, place.qualified)
    assert cuts > 100 // SAMPLE_STEP
    assert whole_reads > 10 // SAMPLE_STEP


@pytest.mark.parametrize(
    ("source", "whole"),
    [
        # The next line at the top continues a string, a bracket or a backslash's line:
        # read to there the file has a syntax error, and is parsed whole.
        ('def get():\n    """Doc\nx = 1\n    """\n\ndef after(): pass\n', True),
        ("def get(): return (1,\nx)\n\ndef after(): pass\n", True),
        ("def get(): return 1 + \\\nx\n\ndef after(): pass\n", True),
        # A clause of the statement before it is no place to cut.
        ("try:\n    def get(): pass\nexcept E:\n    pass\n\ndef after(): pass\n", False),
    ],
)
def test_a_cut_is_made_only_between_statements(source: str, whole: bool) -> None:
    text = source.encode()
    every = definitions(parse(PYTHON, text), PYTHON)
    tree = parse(PYTHON, text, text.index(b"get") + 3)
    end = tree.root_node.end_byte
    assert definitions(tree, PYTHON) == [d for d in every if d.start_byte < end]
    assert (end == len(text)) == whole
    if not whole:
        assert end == text.index(b"def after")


def test_no_cut_after_a_block_without_its_body() -> None:
    """A block's first line just before the cut (its body missing) reads as a block
    with no body, which the rest of the file makes an error: there is no cut there."""
    openers = [
        "def get():",
        "class get:  # note",
        "class get:# note",
        'def get(s="#"):',
        "# a comment first\ndef get():",
        "import os\n# helpers\ndef get():",
        # Blank lines and comments after it are passed by.
        "def get():\n\n    # to do\n",
    ]
    for opener in openers:
        text = f"{opener}\nx = 1\n".encode()
        assert prefix_end(PYTHON, text, text.index(b"get") + 3) is None, opener
    text = b"def get(): pass\nx = 1\n"
    assert prefix_end(PYTHON, text, 7) == text.index(b"x = 1")
    # Only comments and blank lines before the next statement: the cut is made there,
    # whatever the file's last line is.
    for text in (b"# get\nx = 1\n", b"# get\n\nx = 1\nclass C:\n"):
        assert prefix_end(PYTHON, text, 5) == text.index(b"x = 1"), text


# --- definitions by a qualified name -----------------------------------------------------


def test_a_search_by_qualified_name_finds_what_the_whole_outline_holds() -> None:
    """A qualified name's search parses a file only if it holds each part, and only as
    far as the last place the name may be defined: it must find every definition the
    whole file's outline has, line for line."""
    checked = 0
    for path in stdlib_sample()[::5]:
        source = source_of(path.name, path.read_bytes(), PYTHON)
        assert source is not None
        text = source.parts[0].text
        whole = definitions(parse(PYTHON, text), PYTHON)
        lines = text.split(b"\n")
        qualified = sorted({".".join(d.parts[-2:]) for d in whole if len(d.parts) > 1})
        plain = sorted({d.parts[-1] for d in whole})
        chosen = random.Random(path.name).sample(qualified, min(len(qualified), 6))
        chosen += random.Random(path.name).sample(plain, min(len(plain), 6))
        for name in chosen:
            query = NameQuery(parts=tuple(name.split(".")))
            found = StructureTask(DEFINITIONS, 1 << 30, query).lines("f", source)
            expected = [definition_line("f", source.parts[0], d, lines) for d in whole]
            wanted = [line for d, line in zip(whole, expected, strict=True) if query.wants(d)]
            assert found == wanted, (path, name)
            checked += 1
    assert checked > 300 // SAMPLE_STEP


# --- Go: where a definition may name something, how far a file is parsed ----------------

GO_FORMS = """\
package shapes

import "fmt"

// Get is named in a doc comment; c.Get and Get() below are uses.
type Get struct{ n int }

type (
\tKey   string
\tValue = int
)

type Getter interface{ Get(k Key) Value; Len() int }

type Store interface {
\tGet(k Key) (Value, bool)
\tPut(k Key, v Value)
}

const Limit, Other = 10, 11

const (
\tFirst = iota
\tA, B
)

var cache, hits = map[Key]Value{}, 0

var (
\tloaded bool
\tx, y   int
)

func Len() int { return len(cache) }

func (s *Store[K, V]) Put(k K, v V) {}

func (
\ts *Get,
) Reset() {
\ts.n = 0
}

func (g Get) Value(h func(int) (int, error)) int { v, _ := h(g.n); return v }

func use(c Store) {
\tv, ok := c.Get("k")
\tfmt.Println(v, ok, Get{}, Len())
}

func Generic[T any](t T) T { return t }
"""


def test_go_sites_hold_every_definition_a_search_by_name_finds() -> None:
    """Each name Go's outline defines is found by a search by its name, with exactly
    the outline's definitions of it: its sites hold each one, and a file parsed only
    as far as they need reads as the whole file."""
    from boris.structure.languages import GO

    text = GO_FORMS.encode()
    source = source_of("shapes.go", text, GO)
    assert source is not None
    whole = definitions(parse(GO, text), GO)
    assert len({d.parts[-1] for d in whole}) >= 18
    for name in {d.parts[-1] for d in whole}:
        task = StructureTask(DEFINITIONS, 1 << 20, NameQuery(parts=(name,)))
        found = [line.split("  ", 2)[1] for line in task.lines("f", source)]
        assert found == [f"{d.kind} {d.qualified}" for d in whole if d.parts[-1] == name], name


def test_go_uses_and_comments_are_not_sites() -> None:
    from boris.structure.languages import GO

    text = b"// Get returns it.\nfunc f(c C) {\n\tv := c.Get(k)\n\tw := Get(v)\n}\n"
    assert definition_sites("Get", text, GO) == []
    assert prefix_end(GO, text + b"\nfunc g() {}\n", text.index(b"w :=")) == len(text) + 1
