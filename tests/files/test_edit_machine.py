"""Sequences of view, create, str_replace and insert through a real client, checked
after every step against a plain model of the file's bytes.

The model is written from the rules the tools document, not from their code: a unique
match is replaced with ``bytes.replace(old, new, 1)``, an insert splits the file into
lines, and a failing step (not found, ambiguous, refused) leaves the bytes as they
were. Files include CRLF line ends, no final newline, a BOM and bytes that are not
UTF-8; between steps the file may also be rewritten or removed behind the server's
back, as an editor or a build would (after which create may not overwrite it before a
view: FILE_CHANGED).
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from fastmcp import Client
from hypothesis import note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tests.support import text_of
from tests.support.inprocess import app_client
from tests.support.models import oracle_view

BOM = b"\xef\xbb\xbf"
NAME = "f.txt"

# --- files ---------------------------------------------------------------------------------

WORDS = [b"alpha", b"beta", b"gamma", b"x", b"0", b"1", "é".encode(), "€".encode()]
PIECES = [*WORDS, b" ", b"\t", b"\n", b"\n", b"\r\n", b"\r", b"\xff", b"\xe9", BOM]

any_bytes = st.lists(st.sampled_from(PIECES), max_size=30).map(b"".join)


@st.composite
def line_files(draw: st.DrawFn) -> bytes:
    """Lines of words with one line ending throughout, maybe a BOM, maybe no final one."""
    lines = draw(st.lists(st.lists(st.sampled_from(WORDS), max_size=4), max_size=8))
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    body = ending.join(b" ".join(words) for words in lines)
    final_ending = draw(st.booleans())
    if lines and final_ending:
        body += ending
    return (BOM if draw(st.booleans()) else b"") + body


# A file in a legacy encoding: not valid UTF-8 once it has a Cyrillic letter. It starts
# with ASCII so its first bytes never look like an image's.
legacy_files = st.lists(
    st.sampled_from(["привет", "мир", "x", " ", "\n", "\r\n", "= 1"]), max_size=10
).map(lambda parts: ("head " + "".join(parts)).encode("cp1251"))

files = st.one_of(any_bytes, line_files(), legacy_files)

# Texts the agent sends: characters that make edits awkward.
texts = st.text(alphabet=st.sampled_from(["a", "b", "x", "é", "€", "и", " ", "\t", "\n", "\r"]))


# --- the model -------------------------------------------------------------------------------


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def crlf_throughout(data: bytes) -> bool:
    return b"\r\n" in data and data.count(b"\r\n") == data.count(b"\n")


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their newline; a last line without one counts, nothing after a last
    newline does."""
    pieces = data.split(b"\n")
    return [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def model_replace(data: bytes, old: str, new: str, replace_all: bool) -> bytes | str:
    """The bytes after str_replace, or the start of the error it gets (the file is
    known to exist and to have been viewed)."""
    old_bytes, new_bytes = old.encode(), new.encode()
    if not new.isascii() and not is_utf8(data):
        return "[INVALID_INPUT] new_str has non-ASCII characters, "
    # In a CRLF file, strings written with LF mean CRLF (unless either has a CRLF of its
    # own: "\r" followed by "\n" across the two strings is not one).
    has_crlf = b"\r\n" in old_bytes or b"\r\n" in new_bytes
    if crlf_throughout(data) and not has_crlf and b"\n" in old_bytes + new_bytes:
        old_bytes = old_bytes.replace(b"\n", b"\r\n")
        new_bytes = new_bytes.replace(b"\n", b"\r\n")
    occurrences = sum(data.startswith(old_bytes, i) for i in range(len(data)))
    if occurrences == 0:
        return "[STR_REPLACE_NOT_FOUND] "
    if replace_all:
        return data.replace(old_bytes, new_bytes)
    if occurrences > 1:
        return "[STR_REPLACE_AMBIGUOUS] "
    return data.replace(old_bytes, new_bytes, 1)


def model_insert(data: bytes, line: int, text: str, path: Path) -> bytes | str:
    """The bytes after inserting ``text`` after line ``line``, or the error text."""
    lines = split_lines(data)
    if line > len(lines):
        return (
            f"[INVALID_INPUT] insert_line {line} exceeds total lines {len(lines)} in {path}; "
            f"use 0 to {len(lines)} (0 inserts before the first line)"
        )
    if not text.isascii() and not is_utf8(data):
        return "[INVALID_INPUT] new_str has non-ASCII characters, "
    ending = b"\r\n" if crlf_throughout(data) else b"\n"
    block = text.encode()
    if ending == b"\r\n" and b"\r\n" not in block:
        block = block.replace(b"\n", b"\r\n")
    if line == len(lines) and lines and not data.endswith(b"\n"):
        # After a last line without a newline: that line gets one, and the inserted
        # text becomes the new last line, still without one.
        if block.endswith(b"\r\n"):
            block = block[:-2]
        elif block.endswith(b"\n"):
            block = block[:-1]
        return data + ending + block
    if not block.endswith(b"\n"):
        block += ending
    if line == 0:
        bom = BOM if data.startswith(BOM) else b""
        return bom + block + data[len(bom) :]
    return b"".join(lines[:line]) + block + b"".join(lines[line:])


# --- the machine -----------------------------------------------------------------------------


class EditSession(RuleBasedStateMachine):
    """One file, one client session; ``content`` is None while the file does not exist."""

    client: ClassVar[Client[Any]]
    portal: ClassVar[BlockingPortal]
    root: ClassVar[Path]
    runs: ClassVar[int] = 0

    def __init__(self) -> None:
        super().__init__()
        # A fresh path per run: the server remembers which paths the session viewed.
        type(self).runs += 1
        directory = self.root / f"run{self.runs}"
        directory.mkdir()
        self.directory = directory
        self.path = directory / NAME
        self.content: bytes | None = None
        self.viewed = False
        #: Whether the file is as the session last saw it (create overwrites only then).
        self.fresh = True

    def call(self, command: str, **arguments: Any) -> tuple[bool, str]:
        arguments = {"command": command, "path": str(self.path), **arguments}
        note(f"str_replace_editor {arguments!r}")
        tool = partial(self.client.call_tool, "str_replace_editor", arguments, raise_on_error=False)
        result = self.portal.call(tool)
        note(f"-> {text_of(result)!r}")
        return bool(result.is_error), text_of(result)

    def refused_before_editing(self, error: bool, text: str, action: str) -> bool:
        """Check the errors that come before the edit itself; whether there was one."""
        if self.content is None:
            assert (error, text) == (True, f"[PATH_NOT_FOUND] {self.path} does not exist")
            return True
        if not self.viewed:
            assert (error, text) == (
                True,
                f"[FILE_NOT_VIEWED] file {self.path} must be viewed before {action}. "
                "Use the view tool first.",
            )
            return True
        return False

    @initialize(content=files, view_first=st.sampled_from([True, True, True, False]))
    def start_with_a_file(self, content: bytes, view_first: bool) -> None:
        self.path.write_bytes(content)
        self.content = content
        if view_first:
            self.view()

    # --- changes made behind the server's back

    @rule(content=st.one_of(files, files, st.none()))
    def write_outside(self, content: bytes | None) -> None:
        """Rewrite the file, or remove it (None)."""
        if content is None:
            self.path.unlink(missing_ok=True)
        else:
            self.path.write_bytes(content)
            # A time of its own: two writes within one tick of the kernel's clock would
            # otherwise leave the same size and time (what the session compares).
            type(self).runs += 1
            os.utime(self.path, ns=(self.runs * 1000, self.runs * 1000))
        self.content = content
        self.fresh = False

    # --- tool calls

    @rule()
    def view(self) -> None:
        error, text = self.call("view")
        if self.content is None:
            assert (error, text) == (True, f"[PATH_NOT_FOUND] {self.path} does not exist")
            return
        expected = oracle_view(self.content, 1, -1, self.path) if self.content else ""
        assert (error, text) == (False, expected)
        self.viewed = True
        self.fresh = True

    @rule(text=texts)
    def create(self, text: str) -> None:
        error, result = self.call("create", file_text=text)
        if self.content is not None and not self.viewed:
            self.refused_before_editing(error, result, "overwriting")
            return
        if self.content is not None and not self.fresh:
            changed = f"[FILE_CHANGED] {self.path} changed since this session last viewed it ("
            assert error
            assert result.startswith(changed)
            return
        data = text.encode()
        assert (error, result) == (False, f"Created {self.path} ({len(data)} bytes)")
        self.content = data
        self.viewed = True
        self.fresh = True

    @rule(data=st.data(), replace_all=st.booleans())
    def str_replace(self, data: st.DataObject, replace_all: bool) -> None:
        old = data.draw(self.old_strings(), label="old_str")
        new = data.draw(texts, label="new_str")
        error, result = self.call("str_replace", old_str=old, new_str=new, replace_all=replace_all)
        if old == new:
            assert (error, result) == (
                True,
                "[INVALID_INPUT] old_str and new_str are identical: nothing to replace",
            )
            return
        if self.refused_before_editing(error, result, "editing"):
            return
        assert self.content is not None
        expected = model_replace(self.content, old, new, replace_all)
        if isinstance(expected, str):
            assert error
            assert result.startswith(expected), result
            return
        assert not error, result
        if replace_all:
            assert result.startswith("Replaced ")
            assert result.endswith(f" occurrences in {self.path}")
        else:
            assert result.startswith(f"Replaced in {self.path}\n\n")
        self.content = expected
        self.fresh = True  # what the session wrote is what it saw

    def old_strings(self) -> st.SearchStrategy[str]:
        """Mostly a piece of the file as it is (when that piece is text), else any text."""
        content = self.content or b""
        pieces = []
        for start in range(len(content)):
            for end in range(start + 1, min(len(content), start + 12) + 1):
                try:
                    pieces.append(content[start:end].decode("utf-8"))
                except UnicodeDecodeError:
                    continue
        some_text = texts.filter(bool)
        if not pieces:
            return some_text
        return st.one_of(st.sampled_from(pieces), st.sampled_from(pieces), some_text)

    @rule(data=st.data(), text=texts)
    def insert(self, data: st.DataObject, text: str) -> None:
        total = len(split_lines(self.content or b""))
        line = data.draw(st.integers(0, total + 1), label="insert_line")
        error, result = self.call("insert", insert_line=line, new_str=text)
        if self.refused_before_editing(error, result, "editing"):
            return
        assert self.content is not None
        expected = model_insert(self.content, line, text, self.path)
        if isinstance(expected, str):
            assert error
            assert result.startswith(expected), result
            return
        assert (error, result[: len(f"Inserted in {self.path}\n\n")]) == (
            False,
            f"Inserted in {self.path}\n\n",
        )
        self.content = expected
        self.fresh = True

    # --- after every step

    @invariant()
    def bytes_match_the_model(self) -> None:
        names = sorted(os.listdir(self.directory))  # no temporary file left behind either
        if self.content is None:
            assert names == []
        else:
            assert names == [NAME]
            assert self.path.read_bytes() == self.content


# Bounded for CI: a run is a few hundred calls to one server.
MACHINE_SETTINGS = settings(
    max_examples=max(10, settings().max_examples // 2), stateful_step_count=25
)


def test_edit_tools_follow_the_model(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("machine")
    with start_blocking_portal(backend="asyncio") as portal:
        server = app_client("--anthropic-compat", workdir=root)
        with portal.wrap_async_context_manager(server) as client:
            bound = type(
                "BoundEditSession",
                (EditSession,),
                {"client": client, "portal": portal, "root": root},
            )
            run_state_machine_as_test(bound, settings=MACHINE_SETTINGS)
