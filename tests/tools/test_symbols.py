"""symbols through a real client, exact texts (SPEC "symbols", README "Code structure").

One app serves the module (``--allow-dir`` its workdir, ``--deny-dir **/secrets``); each
test looks at its own subdirectory. The oracles for definitions and references over
real code are in tests/structure/.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import error_text, ok_text
from tests.support.inprocess import app_client
from tests.support.trees import set_mtimes, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("symbols").resolve()


@pytest.fixture(scope="module")
async def client(workdir: Path) -> AsyncIterator[Client[Any]]:
    flags = ["--allow-dir", str(workdir), "--deny-dir", "**/secrets", "--max-file-size", "64KB"]
    async with app_client(*flags, workdir=workdir) as connected:
        yield connected


async def symbols(client: Client[Any], **arguments: Any) -> str:
    return ok_text(await client.call_tool("symbols", arguments, raise_on_error=False))


async def symbols_error(client: Client[Any], **arguments: Any) -> str:
    return error_text(await client.call_tool("symbols", arguments, raise_on_error=False))


SERVER = """\
import os

LIMIT = 10
name = "server"


@decorated
def start(port):
    def inner():
        return port
    return inner


class Server:
    retries = 3

    class Config:
        def load(self):
            return start(1)

    def run(self):
        # start is mentioned here, in a comment
        return start(self.retries)  # and "start" in a string
"""

CLIENT_GO = """\
package client

type Client struct{ addr string }

func New(addr string) *Client { return &Client{addr} }

func (c *Client) Run() error { return nil }
"""


async def test_outline_of_a_file(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "outline", {"server.py": SERVER})
    assert await symbols(client, path="outline/server.py") == (
        "outline/server.py (Python, 23 lines)\n"
        "constant LIMIT  3-3  LIMIT = 10\n"
        'variable name  4-4  name = "server"\n'
        "function start  7-11  def start(port):\n"
        "  function inner  9-10  def inner():\n"
        "class Server  14-23  class Server:\n"
        "  variable retries  15-15  retries = 3\n"
        "  class Config  17-19  class Config:\n"
        "    method load  18-19  def load(self):\n"
        "  method run  21-23  def run(self):"
    )


RUST = """\
pub struct Point {
    x: f64,
}

impl Point {
    pub fn new(x: f64) -> Point {
        Point { x }
    }
}

pub mod units {
    pub struct Meters(f64);

    impl Meters {
        pub fn value(&self) -> f64 {
            self.0
        }
    }
}
"""


async def test_an_outline_shows_names_below_what_holds_them(
    client: Client[Any], workdir: Path
) -> None:
    """A method of an impl block shows its type (the block is no definition of its
    own), below the module that holds the block; definitions side by side with
    nothing between them (minified code) are not nested."""
    minified = "function a(){return 1}function b(){return a()}\n"
    write_tree(workdir / "held", {"shapes.rs": RUST, "min.js": minified})
    assert await symbols(client, path="held/shapes.rs") == (
        "held/shapes.rs (Rust, 19 lines)\n"
        "struct Point  1-3  pub struct Point {\n"
        "method Point.new  6-8  pub fn new(x: f64) -> Point {\n"
        "module units  11-19  pub mod units {\n"
        "  struct Meters  12-12  pub struct Meters(f64);\n"
        "  method Meters.value  15-17  pub fn value(&self) -> f64 {"
    )
    assert await symbols(client, path="held/min.js") == (
        "held/min.js (JavaScript, 1 line)\n"
        f"function a  1-1  {minified.strip()}\n"
        f"function b  1-1  {minified.strip()}"
    )


async def test_comments_after_a_definitions_last_line_are_not_part_of_it(
    client: Client[Any], workdir: Path
) -> None:
    """As Python's ast has it: a comment indented as the body, after its last statement
    (even a lone ``#``), is outside the definition's range."""
    source = (
        "class A:\n    def f(self):\n        return 1\n    #\n\n\ndef g():\n    pass\n    # end\n"
    )
    write_tree(workdir / "trailing", {"t.py": source})
    assert await symbols(client, path="trailing/t.py") == (
        "trailing/t.py (Python, 9 lines)\n"
        "class A  1-3  class A:\n"
        "  method f  2-3  def f(self):\n"
        "function g  7-8  def g():"
    )


async def test_a_c_macro_is_its_line_and_an_extern_declaration_no_definition(
    client: Client[Any], workdir: Path
) -> None:
    """A macro's node holds the newline that ends it: its range is its one line. An
    extern variable is declared, not defined; an extern function with a body is
    defined."""
    source = (
        "#define LIMIT 64\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\n"
        "extern int counter;\nextern int next_id(void) { return ++counter; }\n"
    )
    write_tree(workdir / "macros", {"macros.c": source})
    assert await symbols(client, path="macros/macros.c") == (
        "macros/macros.c (C, 5 lines)\n"
        "constant LIMIT  1-1  #define LIMIT 64\n"
        "function MAX  2-2  #define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
        "function next_id  5-5  extern int next_id(void) { return ++counter; }"
    )


async def test_a_struct_and_the_variable_declared_with_it_are_side_by_side(
    client: Client[Any], workdir: Path
) -> None:
    """Neither holds the other, as the names of one declaration do not."""
    source = "struct point { int x; } origin;\nint width, height;\n"
    write_tree(workdir / "side", {"shapes.c": source})
    assert await symbols(client, path="side/shapes.c") == (
        "side/shapes.c (C, 2 lines)\n"
        "struct point  1-1  struct point { int x; } origin;\n"
        "variable origin  1-1  struct point { int x; } origin;\n"
        "variable width  2-2  int width, height;\n"
        "variable height  2-2  int width, height;"
    )


async def test_outline_with_a_kind_lists_qualified_names(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "kinds", {"server.py": SERVER})
    assert await symbols(client, path="kinds/server.py", kind="method") == (
        "kinds/server.py (Python, 23 lines)\n"
        "method Server.Config.load  18-19  def load(self):\n"
        "method Server.run  21-23  def run(self):"
    )


async def test_map_of_a_directory_newest_first(client: Client[Any], workdir: Path) -> None:
    root = write_tree(
        workdir / "map",
        {"a/server.py": SERVER, "b/client.go": CLIENT_GO, "README.md": "# notes\n"},
    )
    set_mtimes(root, ["a/server.py", "b/client.go"])
    assert await symbols(client, path="map") == (
        "b/client.go (Go, 7 lines)\n"
        "  struct Client  3-3  type Client struct{ addr string }\n"
        "  function New  5-5  func New(addr string) *Client { return &Client{addr} }\n"
        "  method Client.Run  7-7  func (c *Client) Run() error { return nil }\n"
        "a/server.py (Python, 23 lines)\n"
        "  constant LIMIT  3-3  LIMIT = 10\n"
        '  variable name  4-4  name = "server"\n'
        "  function start  7-11  def start(port):\n"
        "  class Server  14-23  class Server:"
    )
    # Paged by files, as grep pages its files.
    assert await symbols(client, path="map", offset=1, head_limit=1) == (
        "a/server.py (Python, 23 lines)\n"
        "  constant LIMIT  3-3  LIMIT = 10\n"
        '  variable name  4-4  name = "server"\n'
        "  function start  7-11  def start(port):\n"
        "  class Server  14-23  class Server:"
    )
    assert await symbols(client, path="map", type="go", kind="method") == (
        "b/client.go (Go, 7 lines)\n"
        "  method Client.Run  7-7  func (c *Client) Run() error { return nil }"
    )


async def test_definitions_by_name(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "names", {"a/server.py": SERVER, "b/client.go": CLIENT_GO})
    assert await symbols(client, path="names", name="start") == (
        "a/server.py:7-11  function start  def start(port):"
    )
    assert await symbols(client, path="names", name="Server.Config.load") == (
        "a/server.py:18-19  method Server.Config.load  def load(self):"
    )
    assert await symbols(client, path="names", name="Config::load") == (
        "a/server.py:18-19  method Server.Config.load  def load(self):"
    )
    assert await symbols(client, path="names", name="Client.Run") == (
        "b/client.go:7-7  method Client.Run  func (c *Client) Run() error { return nil }"
    )
    assert await symbols(client, path="names", name="^(Server|Client)$", regex=True) == (
        "a/server.py:14-23  class Server  class Server:\n"
        "b/client.go:3-3  struct Client  type Client struct{ addr string }"
    )
    assert await symbols(client, path="names", name="R.n", regex=True, kind="method") == (
        "b/client.go:7-7  method Client.Run  func (c *Client) Run() error { return nil }"
    )
    assert await symbols(
        client, path="names", name="^(start|Server)$", regex=True, kind="class"
    ) == ("a/server.py:14-23  class Server  class Server:")
    assert await symbols(client, path="names", name="nothing_here") == "No definitions found"
    assert await symbols(client, path="names", name="start", kind="class") == (
        "No definitions found"
    )


async def test_a_search_by_name_in_one_file(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "one", {"server.py": SERVER})
    assert await symbols(client, path="one/server.py", name="Config.load") == (
        "one/server.py:18-19  method Server.Config.load  def load(self):"
    )
    assert await symbols(client, path="one/server.py", name="start", references=True) == (
        "one/server.py:19:20  in Server.Config.load  return start(1)\n"
        'one/server.py:23:16  in Server.run  return start(self.retries)  # and "start" in a string'
    )
    assert await symbols(client, path="one/server.py", name="stop") == "No definitions found"
    assert (
        await symbols(client, path="one/server.py", name="stop", references=True)
        == "No references found"
    )


async def test_a_map_with_a_kind_shows_the_files_that_hold_one(
    client: Client[Any], workdir: Path
) -> None:
    """Without a kind, a file that defines nothing is shown by its header alone."""
    root = write_tree(
        workdir / "mapkind",
        {"a.py": "class A:\n    def run(self): pass\n", "b.py": "def b(): pass\n", "c.py": "b()\n"},
    )
    set_mtimes(root, ["c.py", "b.py", "a.py"])
    assert await symbols(client, path="mapkind", kind="method") == (
        "a.py (Python, 2 lines)\n  method A.run  2-2  def run(self): pass"
    )
    assert await symbols(client, path="mapkind") == (
        "a.py (Python, 2 lines)\n  class A  1-2  class A:\n"
        "b.py (Python, 1 line)\n  function b  1-1  def b(): pass\n"
        "c.py (Python, 1 line)"
    )


async def test_a_search_by_name_finds_what_the_outline_shows(
    client: Client[Any], workdir: Path
) -> None:
    """Names bound on a class's own line, and names that end in a letter outside ASCII,
    are found by name as the outline shows them."""
    source = "class Int(int): __slots__ = ()\nclass Point: x = 0; y = 0\ndef café():\n    pass\n"
    write_tree(workdir / "sites", {"shapes.py": source})
    assert await symbols(client, path="sites/shapes.py") == (
        "sites/shapes.py (Python, 4 lines)\n"
        "class Int  1-1  class Int(int): __slots__ = ()\n"
        "  variable __slots__  1-1  class Int(int): __slots__ = ()\n"
        "class Point  2-2  class Point: x = 0; y = 0\n"
        "  variable x  2-2  class Point: x = 0; y = 0\n"
        "  variable y  2-2  class Point: x = 0; y = 0\n"
        "function café  3-4  def café():"
    )
    assert await symbols(client, path="sites", name="__slots__") == (
        "shapes.py:1-1  variable Int.__slots__  class Int(int): __slots__ = ()"
    )
    assert await symbols(client, path="sites", name="Point.x") == (
        "shapes.py:2-2  variable Point.x  class Point: x = 0; y = 0"
    )
    assert await symbols(client, path="sites", name="café") == (
        "shapes.py:3-4  function café  def café():"
    )


async def test_references_are_code_only(client: Client[Any], workdir: Path) -> None:
    write_tree(workdir / "refs", {"server.py": SERVER, "notes.txt": "start start\n"})
    assert await symbols(client, path="refs", name="start", references=True) == (
        "server.py:19:20  in Server.Config.load  return start(1)\n"
        'server.py:23:16  in Server.run  return start(self.retries)  # and "start" in a string'
    )
    assert await symbols(client, path="refs", name="retries", references=True) == (
        'server.py:23:27  in Server.run  return start(self.retries)  # and "start" in a string'
    )
    assert await symbols(client, path="refs", name="os", references=True) == (
        "server.py:1:8  in (top level)  import os"
    )
    assert (
        await symbols(client, path="refs", name="comment", references=True) == "No references found"
    )


@pytest.mark.parametrize(
    ("name", "source", "expected"),
    [
        # A name within a longer one is no use of it: Ruby's valid?, a private #count.
        ("valid", "def valid\n  true\nend\n\ndef valid?\n  valid\nend\n\nputs valid?\n",
         "f.rb:6:3  in valid?  valid"),
        ("count", "class Counter {\n  #count = 0;\n  count() {\n    return this.#count;\n  }\n}\n",
         None),
        # A definition holds what it starts with (a C function's return type), not
        # what follows its end at once (minified code).
        ("node_t", "typedef struct node node_t;\n\nnode_t *node_new(void) {\n    return 0;\n}\n",
         "f.c:3:1  in node_new  node_t *node_new(void) {"),
        ("a", "function a(){return 1}a();\n",
         "f.js:1:23  in (top level)  function a(){return 1}a();"),
        # In Bash a name is used as a command, not as a word given to one.
        ("build", "build() { make; }\necho build\nbuild\n", "f.sh:3:1  in (top level)  build"),
    ],
)  # fmt: skip
async def test_a_reference_is_a_whole_name_in_what_holds_it(
    client: Client[Any], workdir: Path, name: str, source: str, expected: str | None
) -> None:
    suffix = expected.split(":")[0].partition(".")[2] if expected else "js"
    root = workdir / f"whole_{name}"
    write_tree(root, {f"f.{suffix}": source})
    found = await symbols(client, path=root.name, name=name, references=True)
    assert found == (expected or "No references found")


async def test_a_notebook_is_read_as_its_code_cells(client: Client[Any], workdir: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# def not_code():\n"]},
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {},
                "outputs": [],
                "source": ["%matplotlib inline\n", "def plot(x):\n", "    return x\n"],
            },
            {
                "cell_type": "code",
                "execution_count": 2,
                "metadata": {},
                "outputs": [],
                "source": "class Model:\n    def fit(self):\n        return plot(1)\n",
            },
            {
                "cell_type": "code",
                "execution_count": 3,
                "metadata": {},
                "outputs": [],
                "source": "Model().fit()\n",
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write_tree(workdir / "nb", {"work.ipynb": json.dumps(notebook)})
    assert await symbols(client, path="nb/work.ipynb") == (
        "nb/work.ipynb (Python notebook, 4 cells)\n"
        "function plot  cell 2:2-3  def plot(x):\n"
        "class Model  cell 3:1-3  class Model:\n"
        "  method fit  cell 3:2-3  def fit(self):"
    )
    assert await symbols(client, path="nb", name="fit") == (
        "work.ipynb:cell 3:2-3  method Model.fit  def fit(self):"
    )
    assert await symbols(client, path="nb", name="plot", references=True) == (
        "work.ipynb:cell 3:3:16  in Model.fit  return plot(1)"
    )
    # Cells without the name are passed by.
    assert await symbols(client, path="nb", name="Model", references=True) == (
        "work.ipynb:cell 4:1:1  in (top level)  Model().fit()"
    )


async def test_an_ipython_line_is_a_statement(client: Client[Any], workdir: Path) -> None:
    """A magic or a shell command is a statement of the block it stands in, as IPython
    runs it: a function's range holds its last line; the lines keep their numbers."""
    code: dict[str, Any] = {"cell_type": "code", "execution_count": None, "metadata": {}}
    source = "%load_ext autoreload\ndef run():\n    total = 1\n    %timeit total\n"
    notebook = {
        "cells": [{**code, "outputs": [], "source": source}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write_tree(workdir / "nbmagic", {"timed.ipynb": json.dumps(notebook)})
    assert await symbols(client, path="nbmagic/timed.ipynb") == (
        "nbmagic/timed.ipynb (Python notebook, 1 cell)\nfunction run  cell 1:2-4  def run():"
    )


async def test_the_header_of_a_notebook_counts_its_cells(
    client: Client[Any], workdir: Path
) -> None:
    cell = {"cell_type": "markdown", "metadata": {}, "source": "# title"}
    for cells in ([], [cell]):
        notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        write_tree(workdir / "nbcount", {"n.ipynb": json.dumps(notebook)})
        count = "1 cell" if cells else "0 cells"
        assert await symbols(client, path="nbcount/n.ipynb") == (
            f"nbcount/n.ipynb (Python notebook, {count})"
        )


async def test_syntax_errors_of_notebook_cells_are_noted_by_cell(
    client: Client[Any], workdir: Path
) -> None:
    code: dict[str, Any] = {"cell_type": "code", "execution_count": None, "metadata": {}}
    notebook = {
        "cells": [
            {**code, "outputs": [], "source": "def ok():\n    pass\n"},
            {**code, "outputs": [], "source": "\ndef broken(:\n    pass\n"},
            {"cell_type": "markdown", "metadata": {}, "source": "# notes"},
            {**code, "outputs": [], "source": "class Also(:\n"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write_tree(workdir / "nberr", {"bad.ipynb": json.dumps(notebook)})
    lines = (await symbols(client, path="nberr/bad.ipynb")).split("\n")
    assert lines[:3] == [
        "nberr/bad.ipynb (Python notebook, 4 cells)",
        "[Syntax errors, the first at cell 2, line 2; cell 4, line 1: definitions near them "
        "may be missing or cut short.]",
        "function ok  cell 1:1-2  def ok():",
    ]
    assert (await symbols(client, path="nberr")).split("\n")[0] == (
        "bad.ipynb (Python notebook, 4 cells) [syntax errors: first at cell 2, line 2; "
        "cell 4, line 1]"
    )


async def test_a_file_with_syntax_errors_is_outlined_as_far_as_it_parses(
    client: Client[Any], workdir: Path
) -> None:
    broken = "def good():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n"
    write_tree(workdir / "broken", {"broken.py": broken})
    text = await symbols(client, path="broken/broken.py")
    lines = text.splitlines()
    assert lines[0] == "broken/broken.py (Python, 8 lines)"
    assert lines[1] == (
        "[Syntax errors, the first at line 4: definitions near them may be missing or cut short.]"
    )
    assert "function good  1-2  def good():" in lines
    assert "class After  7-8  class After:" in lines


async def test_a_syntax_error_is_placed_where_its_broken_statement_starts(
    client: Client[Any], workdir: Path
) -> None:
    """A bracket left open: the error is the statement that opens it, not a line the
    parser stumbled on later."""
    write_tree(workdir / "open", {"open.py": "x = [1,\n  2,\n  3\n\ndef g(): pass\n"})
    lines = (await symbols(client, path="open/open.py")).splitlines()
    assert lines[:2] == [
        "open/open.py (Python, 5 lines)",
        "[Syntax errors, the first at line 1: definitions near them may be missing or cut short.]",
    ]


async def test_a_signature_not_in_utf8_shows_a_replacement_character(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(workdir / "latin", {"latin.py": b"def caf\xe9():\n    return 1\n"})
    outline = await symbols(client, path="latin/latin.py")
    assert outline.split("\n")[-1].endswith("  1-2  def caf\ufffd():")


async def test_files_it_cannot_read_get_a_note(client: Client[Any], workdir: Path) -> None:
    write_tree(
        workdir / "notes",
        {
            "README.md": "# title\n",
            # An extension no language has: its #! line is not looked at.
            "setup.txt": "#!/bin/sh\nship() { echo; }\n",
            "lib.py": b"def f():\n\0\n",
            "empty.py": "",
        },
    )
    for name in ("README.md", "setup.txt"):
        assert await symbols(client, path=f"notes/{name}") == (
            f"notes/{name}: not read: not a language symbols knows (Python, JavaScript, "
            "TypeScript, TSX, Go, Rust, Java, C, C++, C#, Ruby, PHP, Kotlin, Swift, Bash)"
        )
    assert await symbols(client, path="notes/lib.py") == (
        "notes/lib.py: not read: a binary file, or a notebook that is not valid JSON"
    )
    assert await symbols(client, path="notes/empty.py") == "notes/empty.py (Python, 0 lines)"
    for name, content in (("list.ipynb", "[1]"), ("broken.ipynb", '{"cells": ')):
        write_tree(workdir / "notes", {name: content})
        assert await symbols(client, path=f"notes/{name}") == (
            f"notes/{name}: not read: a binary file, or a notebook that is not valid JSON"
        )
    # In a walk they are skipped, as grep skips them.
    assert await symbols(client, path="notes") == "No files of a known language found"


async def test_a_file_without_an_extension_is_told_by_its_first_line(
    client: Client[Any], workdir: Path
) -> None:
    write_tree(
        workdir / "shebang",
        {
            "deploy": "#!/usr/bin/env bash\nship() { echo; }\n",
            "data": "ship() {}\n",
        },
    )
    assert await symbols(client, path="shebang", name="ship") == (
        "deploy:2-2  function ship  ship() { echo; }"
    )


async def test_a_shell_startup_file_is_told_by_its_name(client: Client[Any], workdir: Path) -> None:
    write_tree(
        workdir / "startup", {"etc/profile": "ship() { echo; }\n", "etc/data": "ship() {}\n"}
    )
    assert await symbols(client, path="startup", name="ship") == (
        "etc/profile:1-1  function ship  ship() { echo; }"
    )


async def test_a_name_after_a_line_ending_in_a_dot_is_a_definition(
    client: Client[Any], workdir: Path
) -> None:
    """A name just after a dot is a member (``obj.usage``), passed by in a search for
    definitions; not one at the start of a line after a sentence's full stop."""
    script = (
        '#!/bin/sh\n# Prints how to call this script.\nusage() {\n  echo "Usage: run.sh FILE"\n}\n'
    )
    write_tree(workdir / "sentence", {"run.sh": script})
    assert await symbols(client, path="sentence", name="usage") == (
        "run.sh:3-5  function usage  usage() {"
    )


async def test_a_pattern_re2_refuses_writes_nothing_to_stderr(
    client: Client[Any], capfd: pytest.CaptureFixture[str]
) -> None:
    """The server's stderr is its log: RE2's own report of a bad pattern stays out."""
    assert (await symbols_error(client, name="a(", regex=True)).startswith("[INVALID_INPUT] ")
    assert capfd.readouterr().err == ""


async def test_files_are_chosen_as_grep_chooses_them(client: Client[Any], workdir: Path) -> None:
    write_tree(
        workdir / "chosen",
        {
            ".gitignore": "build/\n",
            "build/gen.py": "def target(): pass\n",
            "secrets/key.py": "def target(): pass\n",
            "src/app.py": "def target(): pass\n",
            "src/app.ts": "function target() {}\n",
            "big.py": "def target(): pass\n" + "#" * 70_000 + "\n",
        },
    )
    assert await symbols(client, path="chosen", name="target") == (
        "src/app.py:1-1  function target  def target(): pass\n"
        "src/app.ts:1-1  function target  function target() {}"
    )
    assert await symbols(client, path="chosen", name="target", include="*.ts") == (
        "src/app.ts:1-1  function target  function target() {}"
    )
    assert await symbols(client, path="chosen", name="target", type="py") == (
        "src/app.py:1-1  function target  def target(): pass"
    )
    assert await symbols(client, path="chosen/src/app.py", type="go") == (
        "chosen/src/app.py: not read: include or type leaves it out"
    )
    assert (await symbols_error(client, path="chosen/big.py")).startswith("[FILE_TOO_LARGE] ")
    assert (await symbols_error(client, path="chosen/secrets/key.py")).startswith(
        "[ACCESS_DENIED] "
    )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"kind": "klass"},
            '[INVALID_INPUT] unknown kind "klass"; use one of: class, function, method, '
            "interface, struct, enum, trait, type, module, constant, variable",
        ),
        ({"name": ""}, "[INVALID_INPUT] name: must not be empty"),
        ({"name": "  "}, "[INVALID_INPUT] name: must not be empty"),
        (
            {"name": "a..b"},
            '[INVALID_INPUT] name: "a..b" has an empty part; give Name or Outer.inner',
        ),
        (
            {"name": "(", "regex": True},
            '[INVALID_INPUT] name: invalid regular expression "(": missing ): (',
        ),
        (
            {"references": True},
            "[INVALID_INPUT] references: give the name to look for in name",
        ),
        (
            {"name": "a.*", "regex": True, "references": True},
            "[INVALID_INPUT] references: takes a name, not a pattern (regex: false)",
        ),
        (
            {"type": "cobol"},
            '[INVALID_INPUT] unknown type "cobol"; valid types: c, cpp, css, go, html, java, '
            "js, json, markdown, py, rust, ts, yaml; aliases: python (py), typescript (ts), "
            "md (markdown)",
        ),
        ({"include": "[oops"}, "[INVALID_INPUT] include: unclosed '[' at position 0 in \"[oops\""),
        ({"path": "missing"}, None),
    ],
)
async def test_bad_input(
    client: Client[Any], workdir: Path, arguments: dict[str, Any], expected: str | None
) -> None:
    text = await symbols_error(client, **arguments)
    if expected is None:
        assert text == f"[PATH_NOT_FOUND] path does not exist: {workdir}/missing"
    else:
        assert text == expected


async def test_bad_input_is_reported_before_the_path(client: Client[Any]) -> None:
    assert await symbols_error(client, path="missing", name="") == (
        "[INVALID_INPUT] name: must not be empty"
    )


async def test_long_output_is_paged_and_capped(client: Client[Any], workdir: Path) -> None:
    many = "".join(f"def function_number_{n:04}():\n    pass\n" for n in range(1000))
    write_tree(workdir / "long", {"many.py": many})
    page = await symbols(client, path="long/many.py", offset=10, head_limit=3)
    assert page == (
        "function function_number_0009  19-20  def function_number_0009():\n"
        "function function_number_0010  21-22  def function_number_0010():\n"
        "function function_number_0011  23-24  def function_number_0011():"
    )
    whole = await symbols(client, path="long/many.py")
    body, _, last = whole.rpartition("\n\n")
    assert len(body) <= 30_000
    shown = len(body.splitlines())
    assert last == (
        f"[Truncated at 30000 characters: showing lines 1-{shown} of 1001. To see more, "
        f"call again with offset: {shown}.]"
    )


async def test_a_map_skips_what_grep_skips(client: Client[Any], workdir: Path) -> None:
    """A map lists only files grep would read: of a known language by name or #! line,
    regular, not empty, at most --max-file-size (64 KiB here) bytes; the rest are passed
    by wherever they come in the walk."""
    limit = 64 * 1024
    exact = "def exact(): pass\n"
    root = write_tree(
        workdir / "skipped",
        {
            "a_notes.txt": "def not_code(): pass\n",
            "b_data": "def no_first_line(): pass\n",
            "c_empty.py": "",
            "d_exact.py": exact + "#" * (limit - len(exact) - 1) + "\n",
            "e_over.py": exact + "#" * (limit - len(exact)) + "\n",
            "f_run": "#!/bin/sh\nrun() { :; }\n",
            "g_last.py": "def last(): pass\n",
        },
    )
    set_mtimes(root, ["g_last.py", "f_run", "e_over.py", "d_exact.py", "c_empty.py"])
    assert (root / "d_exact.py").stat().st_size == limit
    shown = [
        "d_exact.py (Python, 2 lines)\n  function exact  1-1  def exact(): pass",
        "f_run (Bash, 2 lines)\n  function run  2-2  run() { :; }",
        "g_last.py (Python, 1 line)\n  function last  1-1  def last(): pass",
    ]
    assert await symbols(client, path="skipped") == "\n".join(shown)
    # Pages count only those files.
    for offset, block in enumerate(shown):
        assert await symbols(client, path="skipped", offset=offset, head_limit=1) == block
    assert (
        await symbols(client, path="skipped", offset=len(shown))
        == "No files of a known language found"
    )
    # A #! line tells the language of a file without an extension only.
    write_tree(
        workdir / "nothing",
        {"notes.txt": "x\n", "data": "def f(): pass\n", "run.txt": "#!/bin/sh\nrun() { :; }\n"},
    )
    assert await symbols(client, path="nothing") == "No files of a known language found"


async def test_a_map_is_cut_after_the_last_file_that_fits(
    client: Client[Any], workdir: Path
) -> None:
    """A map shows whole files while their text fits in 30,000 characters: exactly
    30,000 is shown whole, one character more ends the page before the file that does
    not fit, saying where to go on."""
    filler = "".join(f"def filler_number_{n:04}():\n    pass\n" for n in range(450))
    for extra, cut in ((0, False), (1, True)):
        root = workdir / f"cut{extra}"
        write_tree(root, {"first.py": filler, "second.py": "def f(): pass\n"})
        set_mtimes(root, ["second.py", "first.py"])
        first = await symbols(client, path=root.name, head_limit=1)
        second = await symbols(client, path=root.name, offset=1)
        # Lengthen the second file's one definition (its name shows twice, a parameter
        # once) so that the two files' text is 30,000 + extra characters.
        missing = 30_000 + extra - len(first) - 1 - len(second)
        name, parameter = "f" + "x" * (missing // 2), "a" * (missing % 2)
        (root / "second.py").write_text(f"def {name}({parameter}): pass\n")
        set_mtimes(root, ["second.py", "first.py"])
        second = await symbols(client, path=root.name, offset=1)
        whole = await symbols(client, path=root.name)
        if not cut:
            assert len(first) + 1 + len(second) == 30_000
            assert whole == first + "\n" + second
        else:
            assert len(first) + 1 + len(second) == 30_001
            assert whole == (
                f"{first}\n\n[Truncated at 30000 characters: showing files 1-1 of 2. "
                "To see more, call again with offset: 1.]"
            )


def map_block(label: str, names: list[str], last_parameter: str = "") -> str:
    """A map's part for a file of one-line functions ``def <name>(): pass``, the last
    one with ``last_parameter``: its header and each function (SPEC "symbols")."""
    count = len(names)
    lines = [f"{label} (Python, {count} line{'s' if count != 1 else ''})"]
    for number, name in enumerate(names, 1):
        parameter = last_parameter if number == count else ""
        lines.append(f"  function {name}  {number}-{number}  def {name}({parameter}): pass")
    return "\n".join(lines)


def functions_of_length(label: str, length: int) -> tuple[str, str]:
    """A file of one-line functions whose map part is exactly ``length`` characters:
    its source and its map part."""
    names = [f"f{n:04}" for n in range(length // 50)]
    while len(map_block(label, [*names, "f9999"])) < length:
        names.append(f"f{len(names):04}")
    missing = length - len(map_block(label, names))
    names[-1] += "x" * (missing // 2)  # a name shows twice, a parameter once
    parameter = "a" * (missing % 2)
    source = "".join(
        f"def {name}({parameter if n == len(names) - 1 else ''}): pass\n"
        for n, name in enumerate(names)
    )
    block = map_block(label, names, parameter)
    assert len(block) == length
    return source, block


async def test_a_map_page_ends_with_the_last_whole_file_that_fits(
    client: Client[Any], workdir: Path
) -> None:
    """Files after an offset are shown while they fit in 30,000 characters; the note
    names the files shown, of all, and the offset of the first one left out."""
    big, _ = functions_of_length("d.py", 29_950)
    root = write_tree(
        workdir / "fits",
        {
            "a.py": "def a(): pass\n",
            "b.py": "def b(): pass\n",
            "c.py": "def c(): pass\n",
            "d.py": big,
        },
    )
    set_mtimes(root, ["d.py", "c.py", "b.py", "a.py"])
    assert await symbols(client, path="fits", offset=1) == (
        f"{map_block('b.py', ['b'])}\n{map_block('c.py', ['c'])}\n\n"
        "[Truncated at 30000 characters: showing files 2-3 of 4. "
        "To see more, call again with offset: 3.]"
    )


async def test_a_map_cuts_a_file_longer_than_a_page(client: Client[Any], workdir: Path) -> None:
    """One file's part of the map of exactly 30,000 characters is a page of its own; one
    character more, and it is cut to its first 30,000."""
    for extra in (0, 1):
        source, block = functions_of_length("big.py", 30_000 + extra)
        root = write_tree(workdir / f"alone{extra}", {"big.py": source, "small.py": "x = 1\n"})
        set_mtimes(root, ["small.py", "big.py"])
        shown = (
            "files 1-1 of 2" if not extra else ("file 1 of 2, cut to its first 30000 characters")
        )
        assert await symbols(client, path=root.name) == (
            f"{block[:30_000]}\n\n[Truncated at 30000 characters: showing {shown}. "
            "To see more, call again with offset: 1.]"
        )


async def test_pages_of_a_search_by_name_are_slices_of_the_whole(
    client: Client[Any], workdir: Path
) -> None:
    """Files of 0 to 3 definitions of a name: every page (offset, head_limit) of the
    search is the same slice of the whole list, whichever file it starts or ends in."""
    files = {
        f"f{n}.py": "".join(f"class C{n}{k}:\n    def get(self): pass\n" for k in range(n % 4))
        for n in range(7)
    }
    write_tree(workdir / "paged", files)
    whole = (await symbols(client, path="paged", name="get")).split("\n")
    assert len(whole) == sum(n % 4 for n in range(7))
    for offset in range(len(whole) + 1):
        for head_limit in range(1, 5):
            page = await symbols(
                client, path="paged", name="get", offset=offset, head_limit=head_limit
            )
            part = whole[offset : offset + head_limit]
            assert page == "\n".join(part), (
                offset,
                head_limit,
            )


async def test_a_search_by_name_stops_at_30000_characters(
    client: Client[Any], workdir: Path
) -> None:
    """Lines whose text is exactly 30,000 characters, then more files: the page shows
    those lines and says that more follow (their number is not counted)."""
    root = workdir / "capped"
    klass = "K" * 100
    write_tree(
        root, {f"f{n:03}.py": f"class {klass}:\n    def get(self): pass\n" for n in range(220)}
    )
    one = await symbols(client, path="capped", name="get", head_limit=1)
    # Every line is as long as the first; the last that fits gets a longer class name.
    fitting = 30_001 // (len(one) + 1)
    longer = 30_001 - fitting * (len(one) + 1)
    last = f"f{fitting - 1:03}.py"
    (root / last).write_text(f"class {klass}{'k' * longer}:\n    def get(self): pass\n")
    page = await symbols(client, path="capped", name="get")
    text, _, note = page.rpartition("\n\n")
    assert len(text) == 30_000
    assert text.count("\n") + 1 == fitting
    assert text.endswith(f"{last}:2-2  method {klass}{'k' * longer}.get  def get(self): pass")
    assert note == (
        f"[Truncated at 30000 characters: showing lines 1-{fitting}; more follow. "
        f"To see more, call again with offset: {fitting}.]"
    )


async def test_a_notebook_cell_that_is_not_code_text_is_passed_by(
    client: Client[Any], workdir: Path
) -> None:
    """Cells that are not objects, not code, or whose source is not text are left out
    (numbering goes on over them); a source list's parts that are not text are dropped;
    a lone surrogate in JSON does not stop the cell from being read."""
    code: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
    }
    notebook = {
        "cells": [
            "not a cell",
            {"cell_type": "raw", "metadata": {}, "source": "def raw(): pass\n"},
            dict(code),
            {**code, "source": 42},
            {**code, "source": ["def listed():\n", 7, "    pass\n"]},
            {**code, "source": 'def odd():\n    return "\ud800"\n'},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write_tree(workdir / "nbodd", {"odd.ipynb": json.dumps(notebook)})
    assert await symbols(client, path="nbodd/odd.ipynb") == (
        "nbodd/odd.ipynb (Python notebook, 6 cells)\n"
        "function listed  cell 5:1-2  def listed():\n"
        "function odd  cell 6:1-2  def odd():"
    )


@pytest.mark.parametrize(
    ("text", "header"),
    [
        ("def f(): pass", "(Python, 1 line)"),
        ("def f(): pass\n", "(Python, 1 line)"),
        ("def f(): pass\n\nx = 1", "(Python, 3 lines)"),
        ("def f(): pass\n\nx = 1\n", "(Python, 3 lines)"),
    ],
)
async def test_the_header_counts_lines_as_wc_and_a_last_unended_line(
    client: Client[Any], workdir: Path, text: str, header: str
) -> None:
    write_tree(workdir / "counted", {"f.py": text})
    assert (await symbols(client, path="counted/f.py")).split("\n")[0] == f"counted/f.py {header}"


async def test_the_first_line_names_the_interpreter_as_a_shell_runs_it(
    client: Client[Any], workdir: Path
) -> None:
    """The program of a #! line, or the one env runs (after env's options), with a
    version number left off: what the kernel and env would run."""
    lines = {
        "plain": "#!/bin/bash",
        "bare": "#!python3",
        "spaced": "#! /usr/bin/python3",
        "versioned": "#!/usr/local/bin/python3.12",
        "env": "#!/usr/bin/env ruby",
        "env_options": "#!/usr/bin/env -S -i node",
        "env_path": "#!/usr/bin/env /opt/bin/php",
        "not_env": "#!/usr/bin/python3 /usr/bin/env",
        "unknown": "#!/usr/bin/env awk",
        "later": "\n#!/bin/bash",
        "odd_bytes": "#!/usr/bin/pyth\udcffon",
    }
    root = workdir / "interpreters"
    for name, line in lines.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(line.encode("utf-8", "surrogateescape") + b"\n")
    found = {}
    for name in lines:
        answer = await symbols(client, path=f"interpreters/{name}")
        header = f"interpreters/{name} ("
        found[name] = answer[len(header) :].split(",")[0] if answer.startswith(header) else None
    assert found == {
        "plain": "Bash",
        "bare": "Python",
        "spaced": "Python",
        "versioned": "Python",
        "env": "Ruby",
        "env_options": "JavaScript",
        "env_path": "PHP",
        "not_env": "Python",
        "unknown": None,
        "later": None,
        "odd_bytes": None,
    }
