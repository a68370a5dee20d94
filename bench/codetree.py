"""A generated tree of real-looking code where one name is common: ``Get``.

Go's own sources hold ``Get`` in many forms: methods of caches, clients, headers and
pools (``func (c *Client) Get(url string)``), interface methods, calls
(``resp, err := c.Get(url)``), doc comments ("Get returns ..."), strings, and longer
names that hold it (``os.Getenv``, ``GetValue``). No registry carries Go's sources, so
this module writes a tree like them: Go packages mostly, with Python modules and
JavaScript files beside them, each file a few kilobytes of functions, types and
comments, made from a fixed seed (the same tree every time).

    python bench/codetree.py DIR [--files N]

Used by bench/symbols.py and bench/search.py, which build it once under their corpus
directory.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

#: Files of the default tree, and of each language out of 20.
FILES = 12_000
SHARES = (("go", 14), ("py", 4), ("js", 2))
FILES_PER_DIRECTORY = 24

#: How often a file defines ``Get``, uses it (as code, in comments, in strings), or
#: holds only longer names with it (``Getenv``): out of 100.
DEFINES = 6
USES = 22
LONGER_ONLY = 30

WORDS = [
    "cache",
    "buffer",
    "client",
    "server",
    "header",
    "value",
    "entry",
    "record",
    "node",
    "tree",
    "queue",
    "stream",
    "token",
    "session",
    "request",
    "response",
    "config",
    "option",
    "filter",
    "handler",
    "reader",
    "writer",
    "parser",
    "packet",
    "frame",
    "block",
    "index",
    "table",
    "column",
    "schema",
    "module",
    "package",
    "source",
    "target",
    "result",
    "status",
    "event",
    "signal",
    "timer",
    "worker",
    "task",
    "job",
    "batch",
    "limit",
    "range",
]
VERBS = [
    "load",
    "store",
    "read",
    "write",
    "open",
    "close",
    "parse",
    "format",
    "check",
    "build",
    "apply",
    "merge",
]
GO_TYPES = ["string", "int", "int64", "bool", "[]byte", "error", "float64", "uint32"]


def capital(word: str) -> str:
    return word[:1].upper() + word[1:]


class Writer:
    """One file's lines, made from a random source."""

    def __init__(self, rng: random.Random, uses_get: bool, longer: bool) -> None:
        self.rng = rng
        self.uses_get = uses_get
        self.longer = longer
        self.lines: list[str] = []

    def word(self) -> str:
        return self.rng.choice(WORDS)

    def name(self) -> str:
        return self.word() + capital(self.word())

    def go_statement(self, indent: str) -> list[str]:
        rng, w = self.rng, self.word()
        roll = rng.random()
        if self.uses_get and roll < 0.18:
            return rng.choice(
                [
                    [
                        f'{indent}v, ok := {w}s.Get("{self.word()}")',
                        f"{indent}if !ok {{",
                        f'{indent}\treturn fmt.Errorf("{w}: no {self.word()}")',
                        f"{indent}}}",
                        f"{indent}_ = v",
                    ],
                    [
                        f"{indent}resp, err := http.Get({w}URL)",
                        f"{indent}if err != nil {{",
                        f"{indent}\treturn err",
                        f"{indent}}}",
                        f"{indent}defer resp.Body.Close()",
                    ],
                    [f"{indent}// Get the {w} before the lock is taken: Get may block."],
                    [f'{indent}log.Printf("Get %s: %v", {w}Name, err)'],
                    [f"{indent}{w} := pool.Get().(*{capital(w)})", f"{indent}defer pool.Put({w})"],
                    [
                        f'{indent}if h := req.Header.Get("X-{capital(w)}"); h != "" {{',
                        f"{indent}\t{w}Name = h",
                        f"{indent}}}",
                    ],
                ]
            )
        if self.longer and roll < 0.3:
            return rng.choice(
                [
                    [f'{indent}{w}Dir := os.Getenv("{w.upper()}_DIR")'],
                    [f"{indent}{w}Value := {w}s.GetValue({self.word()}Key)"],
                    [f"{indent}wd, _ := os.Getwd()", f"{indent}_ = wd"],
                    [f"{indent}// GetOrCreate would be simpler here, but {w}s are shared."],
                ]
            )
        if roll < 0.55:
            return [f"{indent}{self.name()} := {w}.{capital(rng.choice(VERBS))}({self.word()})"]
        if roll < 0.7:
            return [f"{indent}if {w} == nil {{", f'{indent}\treturn errors.New("no {w}")',
                    f"{indent}}}"]  # fmt: skip
        if roll < 0.85:
            return [f"{indent}for i, {w} := range {w}s {{",
                    f"{indent}\t{self.word()}[i] = {w}.{capital(self.word())}",
                    f"{indent}}}"]  # fmt: skip
        return [f"{indent}// {capital(w)}s are {rng.choice(VERBS)}ed once per {self.word()}."]

    def go_file(self, package: str, defines: bool) -> str:
        rng = self.rng
        kind = capital(self.name())
        lines = [
            "// Copyright 2026 The Example Authors. All rights reserved.",
            "// Use of this source code is governed by a BSD-style license.",
            "",
            f"package {package}",
            "",
            "import (",
            '\t"errors"',
            '\t"fmt"',
            '\t"log"',
            '\t"net/http"',
            '\t"os"',
            '\t"sync"',
            ")",
            "",
            f"// {kind} keeps {self.word()}s by {self.word()}.",
            f"type {kind} struct {{",
            "\tmu    sync.Mutex",
            f"\titems map[string]{rng.choice(GO_TYPES)}",
            f"\tname  {rng.choice(GO_TYPES)}",
            "}",
            "",
        ]
        if defines:
            lines += [
                f"// Get returns the {self.word()} stored under key, and whether there is one.",
                f"func (t *{kind}) Get(key string) (string, bool) {{",
                "\tt.mu.Lock()",
                "\tdefer t.mu.Unlock()",
                "\tv, ok := t.items[key]",
                "\treturn fmt.Sprint(v), ok",
                "}",
                "",
                f"// {kind}Getter is what can Get.",
                f"type {kind}Getter interface {{",
                "\tGet(key string) (string, bool)",
                "}",
                "",
            ]
        for _ in range(rng.randint(6, 14)):
            verb = capital(rng.choice(VERBS))
            func = f"{verb}{capital(self.name())}"
            args = ", ".join(
                f"{self.word()} {rng.choice(GO_TYPES)}" for _ in range(rng.randint(0, 3))
            )
            receiver = f"(t *{kind}) " if rng.random() < 0.6 else ""
            lines += [
                f"// {func} {rng.choice(VERBS)}s the {self.word()} of a {self.word()}.",
                f"func {receiver}{func}({args}) error {{",
            ]
            for _ in range(rng.randint(3, 9)):
                lines += self.go_statement("\t")
            lines += ["\treturn nil", "}", ""]
        return "\n".join(lines)

    def py_statement(self, indent: str) -> list[str]:
        rng, w = self.rng, self.word()
        roll = rng.random()
        if self.uses_get and roll < 0.15:
            return rng.choice(
                [
                    [f'{indent}{w} = self.{w}s.Get("{self.word()}")'],
                    [f"{indent}# Get the {w} first: Get is cheap."],
                    [f'{indent}value = options.get("{w}", None)'],
                    [f'{indent}log.debug("Get %s", {w})'],
                ]
            )
        if self.longer and roll < 0.25:
            return [f'{indent}{w}_dir = os.getenv("{w.upper()}_DIR") or GetDefault("{w}")']
        if roll < 0.6:
            return [f"{indent}{w}_{self.word()} = {w}.{rng.choice(VERBS)}({self.word()})"]
        if roll < 0.8:
            return [f"{indent}if {w} is None:", f'{indent}    raise ValueError("no {w}")']
        return [f"{indent}for {w} in {self.word()}s:", f"{indent}    {w}.{rng.choice(VERBS)}()"]

    def py_file(self, defines: bool) -> str:
        rng = self.rng
        kind = capital(self.name())
        lines = ['"""' + f"{capital(self.word())}s and their {self.word()}s." + '"""', "",
                 "import logging", "import os", "", "log = logging.getLogger(__name__)", "", "",
                 f"class {kind}:", f'    """A {self.word()} of {self.word()}s."""', "",
                 "    def __init__(self):", "        self.items = {}", ""]  # fmt: skip
        if defines:
            lines += ["    def Get(self, key):", '        """Get the item under key."""',
                      "        return self.items.get(key)", ""]  # fmt: skip
        for _ in range(rng.randint(4, 10)):
            lines.append(f"    def {rng.choice(VERBS)}_{self.word()}(self, {self.word()}):")
            for _ in range(rng.randint(2, 7)):
                lines += self.py_statement("        ")
            lines += ["        return None", ""]
        return "\n".join(lines)

    def js_file(self, defines: bool) -> str:
        rng = self.rng
        kind = capital(self.name())
        lines = ["'use strict';", "", f"class {kind} {{", "  constructor() {",
                 "    this.items = new Map();", "  }", ""]  # fmt: skip
        if defines:
            lines += ["  Get(key) {", "    // Get falls back to the parent's item.",
                      "    return this.items.get(key);", "  }", ""]  # fmt: skip
        for _ in range(rng.randint(4, 10)):
            lines.append(f"  {rng.choice(VERBS)}{capital(self.word())}({self.word()}) {{")
            for _ in range(rng.randint(2, 7)):
                w = self.word()
                roll = rng.random()
                if self.uses_get and roll < 0.15:
                    lines.append(f"    const {w} = this.store.Get('{self.word()}');")
                elif self.longer and roll < 0.25:
                    lines.append(f"    const {w} = registry.GetItem('{w}');")
                else:
                    lines.append(
                        f"    const {w}{capital(self.word())} = {w}.{rng.choice(VERBS)}();"
                    )
            lines += ["    return null;", "  }", ""]
        lines += ["}", "", f"module.exports = {{ {kind} }};", ""]
        return "\n".join(lines)


def build(target: Path, files: int = FILES, seed: int = 38) -> None:
    """Write the tree under ``target`` (which is made)."""
    rng = random.Random(seed)
    kinds = [kind for kind, share in SHARES for _ in range(share)]
    for index in range(files):
        kind = kinds[index % len(kinds)]
        directory = index // FILES_PER_DIRECTORY
        group = f"{WORDS[directory % len(WORDS)]}{directory // len(WORDS)}"
        package = f"{WORDS[(directory * 7) % len(WORDS)]}{directory}"
        roll = rng.randrange(100)
        defines = roll < DEFINES
        writer = Writer(rng, defines or roll < DEFINES + USES, roll < DEFINES + USES + LONGER_ONLY)
        stem = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{index}"
        if kind == "go":
            text = writer.go_file(package, defines)
        elif kind == "py":
            text = writer.py_file(defines)
        else:
            text = writer.js_file(defines)
        place = target / group / package / f"{stem}.{kind}"
        place.parent.mkdir(parents=True, exist_ok=True)
        place.write_text(text)


def built_once(target: Path, marker: Path) -> Path:
    """The tree at ``target``, written (anew) unless ``marker`` says an earlier run
    finished writing it."""
    if not marker.exists():
        if target.exists():
            shutil.rmtree(target)
        print("writing the generated tree ...", file=sys.stderr)
        build(target)
        marker.write_text("")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target")
    parser.add_argument("--files", type=int, default=FILES)
    args = parser.parse_args()
    target = Path(args.target)
    if target.exists():
        sys.exit(f"{target} exists")
    build(target, args.files)


if __name__ == "__main__":
    main()
