"""Definitions and references as a reader of each language points at them (SPEC
"symbols": what counts as a definition), through a real client, exact texts: the
outline, definitions by name, references and view's symbol, for each form the
language writes (JavaScript functions bound by assignment, computed member names,
operators, a C++ name written over lines, macros and preprocessor branches misread as
functions, Kotlin companion objects, a file that does not parse).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.support import ok_text
from tests.support.inprocess import app_client
from tests.support.trees import write_tree

pytestmark = pytest.mark.anyio

QUEUE_JS = """\
'use strict';

module.exports = class FixedQueue {
  push(item) {
    this.items.push(item);
  }

  [Symbol.iterator]() {
    return this.items.values();
  }

  get [kSize]() {
    return this.items.length;
  }
};
"""

VIEW_JS = """\
function View(name) {
  this.name = name;
}

View.prototype.render = function render(options) {
  const { parse } = options;
  const format = (text) => parse(text);
  return format(this.name);
};

exports.json = function json(body) {
  return JSON.stringify(body);
};

res.redirect = function () {
  return this;
};

app.use(function logger(req, res, next) {
  next();
});

function load({ parse }) {
  return parse;
}

new View('index').render({});
"""

RUNNER_MJS = """\
export default class {
  run() {}
}
"""

VEC_RB = """\
class Vec
  def [](i)
    @items[i]
  end

  def []=(i, v)
    @items[i] = v
  end

  def <=>(other)
    size <=> other.size
  end
end
"""

POINT_SWIFT = """\
struct Point {
    static func == (a: Point, b: Point) -> Bool { a.x == b.x }
}

func + (a: Point, b: Point) -> Point { a }
"""

MONEY_CS = """\
class Money
{
    public static Money operator +(Money a, Money b) => a;
    public static implicit operator decimal(Money m) => 0;
    ~Money() { }
}
"""

STACK_CPP = """\
template <class T>
class Stack {
  public:
    void push(T v);
    virtual void clear() = 0;
};

template <class T>
void
Stack<T>::
push(T v)
{
}

void lock() _GLIBCXX_NOEXCEPT {
}

void guarded() {
  __try {
  } __catch(...) {
  }
}
"""

OLD_C = """\
static int
count(void)
{
    return 0;
}
"""

TAGS_KT = """\
@Retention(AnnotationRetention.RUNTIME)
annotation class Required

class Task {
    companion object {
        fun urgent() = Task()
    }
}
"""

OPS_RS = """\
trait Add {
    type Output;
    fn add(self) -> Self::Output;
}
"""

CONN_GO = """\
package conn

func closeWrite(c any) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
"""

STORE_CJS = """\
module.exports = class {
  open(path) {
    return path;
  }
};
"""

HANDLER_MJS = """\
export default async function () {
  return 204;
}
"""

ALGO_H = """\
template <typename It>
  CONSTEXPR_IF_CXX20
  It
  find_next(It first)
  {
    return first;
  }
"""

GUARD_C = """\
int main(void)
{
	__try {
		run(1);
	} __catch(err) {
		return 1;
	}
	return 0;
}
"""

BROKEN_GO = """\
package broken

func good() string { return "ok" }

func first() string { return good() }

func bad() {
	help := `usage: run [flags]
	` + "
	what good is it
	"
}
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(
        tmp_path_factory.mktemp("readers").resolve(),
        {
            "queue.js": QUEUE_JS,
            "view.js": VIEW_JS,
            "runner.mjs": RUNNER_MJS,
            "vec.rb": VEC_RB,
            "point.swift": POINT_SWIFT,
            "Money.cs": MONEY_CS,
            "stack.cpp": STACK_CPP,
            "old.c": OLD_C,
            "Tags.kt": TAGS_KT,
            "ops.rs": OPS_RS,
            "conn.go": CONN_GO,
            "broken.go": BROKEN_GO,
            "guard.c": GUARD_C,
            "algo.h": ALGO_H,
            "store.cjs": STORE_CJS,
            "handler.mjs": HANDLER_MJS,
        },
    )


@pytest.fixture(scope="module")
async def client(workdir: Path) -> AsyncIterator[Client[Any]]:
    async with app_client("--allow-dir", str(workdir), workdir=workdir) as connected:
        yield connected


async def call(client: Client[Any], tool: str, **arguments: Any) -> str:
    return ok_text(await client.call_tool(tool, arguments, raise_on_error=False))


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # A class bound by assignment keeps its methods; computed names as written.
        ("queue.js", "queue.js (JavaScript, 15 lines)\n"
                     "class FixedQueue  3-15  module.exports = class FixedQueue {\n"
                     "  method push  4-6  push(item) {\n"
                     "  method [Symbol.iterator]  8-10  [Symbol.iterator]() {\n"
                     "  method [kSize]  12-14  get [kSize]() {"),
        # Functions bound to a prototype, to exports, to an object; a nested arrow
        # function; a named function expression given as an argument.
        ("view.js", "view.js (JavaScript, 27 lines)\n"
                    "function View  1-3  function View(name) {\n"
                    "method View.render  5-9  View.prototype.render = function render(options) {\n"
                    "  function format  7-7  const format = (text) => parse(text);\n"
                    "function json  11-13  exports.json = function json(body) {\n"
                    "method res.redirect  15-17  res.redirect = function () {\n"
                    "function logger  19-21  app.use(function logger(req, res, next) {\n"
                    "function load  23-25  function load({ parse }) {"),
        # A default export without a name holds its methods under "default".
        ("runner.mjs", "runner.mjs (JavaScript, 3 lines)\n"
                       "class default  1-3  export default class {\n"
                       "  method run  2-2  run() {}"),
        # A class without a name bound to module.exports is named so.
        ("store.cjs", "store.cjs (JavaScript, 5 lines)\n"
                      "class module.exports  1-5  module.exports = class {\n"
                      "  method open  2-4  open(path) {"),
        ("handler.mjs", "handler.mjs (JavaScript, 3 lines)\n"
                        "function default  1-3  export default async function () {"),
        ("vec.rb", "vec.rb (Ruby, 13 lines)\n"
                   "class Vec  1-13  class Vec\n"
                   "  method []  2-4  def [](i)\n"
                   "  method []=  6-8  def []=(i, v)\n"
                   "  method <=>  10-12  def <=>(other)"),
        ("point.swift", "point.swift (Swift, 5 lines)\n"
                        "struct Point  1-3  struct Point {\n"
                        "  method ==  2-2  static func == (a: Point, b: Point) -> Bool "
                        "{ a.x == b.x }\n"
                        "function +  5-5  func + (a: Point, b: Point) -> Point { a }"),
        ("Money.cs", "Money.cs (C#, 6 lines)\n"
                     "class Money  1-6  class Money\n"
                     "  method operator +  3-3  public static Money operator +(Money a, "
                     "Money b) => a;\n"
                     "  method implicit operator decimal  4-4  public static implicit "
                     "operator decimal(Money m) => 0;\n"
                     "  method ~Money  5-5  ~Money() { }"),
        # A name over three lines is one name, its signature the line it ends on; a
        # pure virtual member is listed; a macro after the parameters is not the name,
        # and what a macro makes look like a function in a body is none.
        ("stack.cpp", "stack.cpp (C++, 22 lines)\n"
                      "[Syntax errors, the first at line 15: definitions near them may be "
                      "missing or cut short.]\n"
                      "class Stack  1-6  class Stack {\n"
                      "  method clear  5-5  virtual void clear() = 0;\n"
                      "method Stack.push  8-13  push(T v)\n"
                      "function lock  15-16  void lock() _GLIBCXX_NOEXCEPT {\n"
                      "function guarded  18-22  void guarded() {"),
        # A macro before the return type: the parser joins type and name by a :: it
        # makes up; the name is the function's own.
        ("algo.h", "algo.h (C++, 7 lines)\n"
                   "[Syntax errors, the first at line 3: definitions near them may be "
                   "missing or cut short.]\n"
                   "function find_next  1-7  find_next(It first)"),
        # A C function starts at its return type's line; its signature is its name's.
        ("old.c", "old.c (C, 5 lines)\n"
                  "function count  1-5  count(void)"),
        # A macro's call with a block after it reads as a function in a body: none.
        ("guard.c", "guard.c (C, 9 lines)\n"
                    "[Syntax errors, the first at line 3: definitions near them may be "
                    "missing or cut short.]\n"
                    "function main  1-9  int main(void)"),
        ("Tags.kt", "Tags.kt (Kotlin, 8 lines)\n"
                    "class Required  1-2  annotation class Required\n"
                    "class Task  4-8  class Task {\n"
                    "  class companion  5-7  companion object {\n"
                    "    method urgent  6-6  fun urgent() = Task()"),
        ("ops.rs", "ops.rs (Rust, 4 lines)\n"
                   "trait Add  1-4  trait Add {\n"
                   "  type Output  2-2  type Output;\n"
                   "  method add  3-3  fn add(self) -> Self::Output;"),
        # An interface written in place is no type: its methods are nobody's.
        ("conn.go", "conn.go (Go, 8 lines)\n"
                    "function closeWrite  3-8  func closeWrite(c any) error {"),
    ],
)  # fmt: skip
async def test_the_outline_shows_what_a_reader_points_at(
    client: Client[Any], path: str, expected: str
) -> None:
    assert await call(client, "symbols", path=path) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("render", "view.js:5-9  method View.render  "
                   "View.prototype.render = function render(options) {"),
        ("redirect", "res.redirect = function () {"),
        ("json", "view.js:11-13  function json  exports.json = function json(body) {"),
        ("format", "view.js:7-7  function View.render.format  "
                   "const format = (text) => parse(text);"),
        ("logger", "view.js:19-21  function logger  app.use(function logger(req, res, next) {"),
        ("push", "queue.js:4-6  method FixedQueue.push  push(item) {\n"
                 "stack.cpp:8-13  method Stack.push  push(T v)"),
        ("Stack::push", "stack.cpp:8-13  method Stack.push  push(T v)"),
        ("[Symbol.iterator]", "queue.js:8-10  method FixedQueue.[Symbol.iterator]  "
                              "[Symbol.iterator]() {"),
        ("FixedQueue.[kSize]", "queue.js:12-14  method FixedQueue.[kSize]  get [kSize]() {"),
        ("Vec.[]=", "vec.rb:6-8  method Vec.[]=  def []=(i, v)"),
        ("<=>", "vec.rb:10-12  method Vec.<=>  def <=>(other)"),
        ("Point.==", "point.swift:2-2  method Point.==  static func == (a: Point, b: Point) "
                     "-> Bool { a.x == b.x }"),
        ("operator +", "Money.cs:3-3  method Money.operator +  public static Money operator "
                       "+(Money a, Money b) => a;"),
        ("~Money", "Money.cs:5-5  method Money.~Money  ~Money() { }"),
        ("Required", "Tags.kt:1-2  class Required  annotation class Required"),
        ("companion.urgent", "Tags.kt:6-6  method Task.companion.urgent  fun urgent() = Task()"),
        ("Output", "ops.rs:2-2  type Add.Output  type Output;"),
        ("CloseWrite", "No definitions found"),
        ("_GLIBCXX_NOEXCEPT", "No definitions found"),
        ("__catch", "No definitions found"),
    ],
)  # fmt: skip
async def test_a_search_by_name_finds_them(client: Client[Any], name: str, expected: str) -> None:
    found = await call(client, "symbols", name=name)
    if name == "redirect":
        assert found == f"view.js:15-17  method res.redirect  {expected}"
    else:
        assert found == expected


async def test_a_name_bound_by_destructuring_shorthand_is_a_reference(
    client: Client[Any],
) -> None:
    assert await call(client, "symbols", name="parse", references=True) == (
        "view.js:6:11  in View.render  const { parse } = options;\n"
        "view.js:7:28  in View.render.format  const format = (text) => parse(text);\n"
        "view.js:23:17  in load  function load({ parse }) {\n"
        "view.js:24:10  in load  return parse;"
    )


async def test_the_name_of_a_function_assigned_is_no_use_of_it(client: Client[Any]) -> None:
    """View.prototype.render = function render(…): both names are the definition's."""
    assert await call(client, "symbols", name="render", references=True) == (
        "view.js:27:19  in (top level)  new View('index').render({});"
    )


async def test_a_file_read_in_part_leaves_out_what_could_not_be_read(
    client: Client[Any],
) -> None:
    """The words of the string the parser lost (line 10) are no uses; the note says the
    file was read in part."""
    assert await call(client, "symbols", path="broken.go", name="good", references=True) == (
        "broken.go:5:30  in first  func first() string { return good() }\n"
        "[broken.go: read in part, syntax errors from line 9: uses in what could not be "
        "read are left out]"
    )


@pytest.mark.parametrize(
    ("path", "symbol", "expected"),
    [
        ("vec.rb", "Vec.[]=", "6\t  def []=(i, v)\n7\t    @items[i] = v\n8\t  end\n"),
        (".", "View.render", "5\tView.prototype.render = function render(options) {\n"
                             "6\t  const { parse } = options;\n"
                             "7\t  const format = (text) => parse(text);\n"
                             "8\t  return format(this.name);\n9\t};\n"),
        # (view pads line numbers to the width of the last one)
        (".", "Stack.push", " 8\ttemplate <class T>\n 9\tvoid\n10\tStack<T>::\n11\tpush(T v)\n"
                            "12\t{\n13\t}\n"),
        (".", "FixedQueue.[kSize]", "12\t  get [kSize]() {\n13\t    return this.items.length;\n"
                                    "14\t  }\n"),
        (".", "Money.operator +", "3\t    public static Money operator +(Money a, Money b) "
                                  "=> a;\n"),
        (".", "default.run", "2\t  run() {}\n"),
    ],
)  # fmt: skip
async def test_view_shows_them_by_symbol(
    client: Client[Any], path: str, symbol: str, expected: str
) -> None:
    assert await call(client, "view", path=path, symbol=symbol) == expected
