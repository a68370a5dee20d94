"""Source files that real repositories hold and that are hard on a parser's user:
definitions nested thousands deep, minified one-line bundles, generated files of a
great many declarations, a notebook whose JSON nests deeper than Python's recursion.

Each is made from its size, so that a test and bench/symbols.py build the same file.
"""

from __future__ import annotations

import json

#: A nested definition in each language: its opening (``{n}`` its number) and what
#: closes it, one a line; the file's extension.
NESTING = {
    "js": ("function f{n}() {{", "}", "js"),
    "rust": ("mod m{n} {{", "}", "rs"),
    "cpp": ("namespace n{n} {{", "}", "cpp"),
    "csharp": ("namespace N{n} {{", "}", "cs"),
    "java": ("class C{n} {{", "}", "java"),
    "ruby": ("module M{n}", "end", "rb"),
}


def nested(language: str, depth: int) -> bytes:
    """``depth`` definitions, each inside the one before it, one line each (no
    indentation: the file grows with the depth, not its square)."""
    opening, closing, _ = NESTING[language]
    lines = [opening.format(n=n) for n in range(depth)]
    lines += [closing] * depth
    return ("\n".join(lines) + "\n").encode()


def minified(size: int) -> bytes:
    """A one-line JavaScript bundle of about ``size`` bytes: functions side by side,
    each with a body, as a minifier writes them."""
    parts = []
    total = 0
    n = 0
    while total < size:
        part = f"function a{n}(b,c){{var d=b+c;return d*{n}}}"
        parts.append(part)
        total += len(part)
        n += 1
    return "".join(parts).encode() + b"\n"


def declarations(size: int) -> bytes:
    """A generated C file of about ``size`` bytes: one declaration a line."""
    lines = []
    total = 0
    n = 0
    while total < size:
        line = f"int value_{n} = {n};"
        lines.append(line)
        total += len(line) + 1
        n += 1
    return ("\n".join(lines) + "\n").encode()


def python_module(size: int) -> bytes:
    """A generated Python module of about ``size`` bytes: functions and small classes."""
    block = (
        "def function_{n}(a, b):\n    return a + b\n\n\n"
        "class Holder{n}:\n    def method(self):\n        pass\n\n\n"
    )
    blocks = []
    total = 0
    n = 0
    while total < size:
        text = block.format(n=n)
        blocks.append(text)
        total += len(text)
        n += 1
    return "".join(blocks).encode()


def deep_notebook(depth: int) -> bytes:
    """A notebook with one code cell whose metadata nests ``depth`` lists deep: valid
    JSON that Python's json module cannot read without recursing that deep."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "source": "def f():\n    pass\n"}
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    deep = '"metadata": {"deep": ' + "[" * depth + "]" * depth + "}"
    return text.replace('"metadata": {}', deep, 1).encode()
