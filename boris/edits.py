"""Replace and insert on a file's bytes, so nothing outside the edited region changes.

The file is never decoded for the edit itself: ``old_str`` and ``new_str`` are encoded to
UTF-8 and matched against the raw bytes. Because UTF-8 is self-synchronising, a byte match
of valid UTF-8 is exactly a text match, and invalid bytes, a BOM, CR characters and a
missing final newline anywhere else in the file survive untouched.

These functions do no I/O; the tools read and write around them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from boris.errors import Code, ToolFailure
from boris.fileio import count_lines
from boris.sniff import UTF8_BOM

# How many occurrences an ambiguity message lists by line number.
_LISTED_OCCURRENCES = 10
# Bounds on the work spent looking for a near miss in a large file.
_MAX_PARTIAL_CANDIDATES = 1000
_MAX_FUZZY_CANDIDATES = 20_000
_SIMILARITY = 0.8
_QUOTED_CHARS = 300


@dataclass(frozen=True)
class Edit:
    """The whole new content, where the new text sits in it, and how many places changed."""

    data: bytes
    begin: int
    end: int
    count: int


def encode_argument(name: str, value: str) -> bytes:
    """A text argument as UTF-8; a lone surrogate (possible in JSON) is the caller's error."""
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(
            Code.INVALID_INPUT,
            f"{name}: contains a lone UTF-16 surrogate, which is not valid Unicode text",
        ) from None


def uses_crlf(data: bytes) -> bool:
    """Whether every line break in ``data`` is CRLF (and there is at least one)."""
    crlf = data.count(b"\r\n")
    return crlf > 0 and crlf == data.count(b"\n")


def match_line_endings(data: bytes, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """The CRLF convenience: in a CRLF file, strings written with bare LF mean CRLF.

    Applies only when the file uses CRLF throughout and neither string contains a CRLF
    of its own; then both are matched and written with CRLF, keeping the file CRLF.
    """
    if b"\r\n" in old or b"\r\n" in new or (b"\n" not in old and b"\n" not in new):
        return old, new
    if not uses_crlf(data):
        return old, new
    return old.replace(b"\n", b"\r\n"), new.replace(b"\n", b"\r\n")


def replace(data: bytes, old: bytes, new: bytes, replace_all: bool, path: str) -> Edit:
    """Replace the one occurrence of ``old`` (or every one, with ``replace_all``).

    Raises STR_REPLACE_NOT_FOUND (with a near-miss hint when a line resembles
    ``old``) or STR_REPLACE_AMBIGUOUS (with the count and where the occurrences are).
    Occurrences that overlap count as distinct: ``aa`` in ``aaa`` is ambiguous.
    """
    old, new = match_line_endings(data, old, new)
    first = data.find(old)
    if first < 0:
        raise ToolFailure(Code.STR_REPLACE_NOT_FOUND, not_found_message(data, old, path))
    if replace_all:
        return Edit(data.replace(old, new), first, first + len(new), data.count(old))
    if data.find(old, first + 1) >= 0:
        raise ToolFailure(Code.STR_REPLACE_AMBIGUOUS, _ambiguous_message(data, old, first, path))
    edited = b"".join((data[:first], new, data[first + len(old) :]))
    return Edit(edited, first, first + len(new), 1)


def insert(data: bytes, line: int, text: bytes, path: str) -> Edit:
    """Insert ``text`` as whole lines after line ``line`` (0 = before the first line).

    The inserted lines take the file's line ending (bare LF in ``text`` becomes CRLF in a
    CRLF file). A BOM stays first, and a file without a final newline still has none.
    """
    total = count_lines(data)
    if line > total:
        raise ToolFailure(
            Code.INVALID_INPUT,
            f"insert_line {line} exceeds total lines {total} in {path}; "
            f"use 0 to {total} (0 inserts before the first line)",
        )
    crlf = uses_crlf(data)
    eol = b"\r\n" if crlf else b"\n"
    if crlf and b"\r\n" not in text:
        text = text.replace(b"\n", b"\r\n")
    terminated = text if text.endswith(b"\n") else text + eol
    if line == 0:
        offset = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    elif line == total and not data.endswith(b"\n"):
        # After an unterminated last line: break that line, and leave the inserted
        # last line unterminated so the file still ends without a newline.
        own_eol = b"\r\n" if terminated.endswith(b"\r\n") else b"\n"
        body = terminated[: -len(own_eol)]
        edited = data + eol + body
        return Edit(edited, len(data) + len(eol), len(edited), 1)
    else:
        offset = _offset_after_line(data, line)
    edited = b"".join((data[:offset], terminated, data[offset:]))
    return Edit(edited, offset, offset + len(terminated), 1)


def _offset_after_line(data: bytes, line: int) -> int:
    """The offset just past the newline that ends line ``line`` (which has one)."""
    offset = -1
    for _ in range(line):
        offset = data.find(b"\n", offset + 1)
    return offset + 1


# --- messages ------------------------------------------------------------------------


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _ambiguous_message(data: bytes, old: bytes, first: int, path: str) -> str:
    positions = [first]
    while len(positions) <= _LISTED_OCCURRENCES:
        following = data.find(old, positions[-1] + 1)
        if following < 0:
            break
        positions.append(following)
    # Non-overlapping count as replace_all would see it; overlaps only matter when
    # they are all there is, and then they are few (fewer than len(old)).
    count = data.count(old)
    if count < 2:
        count = len(positions)
    lines = sorted({_line_of(data, p) for p in positions[:_LISTED_OCCURRENCES]})
    where = ", ".join(str(n) for n in lines)
    if count > _LISTED_OCCURRENCES:
        where += ", …"
    label = "line" if len(lines) == 1 else "lines"
    return (
        f"old_str occurs {count} times in {path} ({label} {where}); add surrounding lines "
        "to make it unique, or set replace_all to replace every occurrence"
    )


def not_found_message(data: bytes, old: bytes, path: str) -> str:
    message = (
        f"old_str was not found in {path}. It must match the file exactly, "
        "whitespace and line breaks included."
    )
    hint = near_miss(data, old)
    return f"{message}\n{hint}" if hint else message


def near_miss(data: bytes, old: bytes) -> str | None:
    """Where the file nearly contains ``old``, told so the caller can correct itself.

    Either the first lines of ``old`` match somewhere and a later line differs, or a
    line of the file resembles the first (non-blank) line of ``old`` up to whitespace or
    a few characters. Lines are compared without their CR.
    """
    file_lines = [line.removesuffix("\r") for line in data.decode("utf-8", "replace").split("\n")]
    if file_lines[-1] == "":
        file_lines.pop()
    old_lines = [line.removesuffix("\r") for line in old.decode("utf-8", "replace").split("\n")]
    return _partial_match(file_lines, old_lines) or _similar_line(file_lines, old_lines)


def _quote(text: str) -> str:
    """A line with tabs, CRs and trailing spaces visible: as a JSON string."""
    if len(text) > _QUOTED_CHARS:
        return json.dumps(text[:_QUOTED_CHARS], ensure_ascii=False) + " (cut)"
    return json.dumps(text, ensure_ascii=False)


def _partial_match(file_lines: list[str], old_lines: list[str]) -> str | None:
    """Where the most leading lines of a multi-line ``old`` match, and what differs next."""
    first = old_lines[0]
    if len(old_lines) < 2 or not first.strip():
        return None
    best_index, best_matched = -1, 0
    candidates = 0
    for index, line in enumerate(file_lines):
        if not line.endswith(first):
            continue
        matched = 1
        while (
            matched < len(old_lines)
            and index + matched < len(file_lines)
            and _agrees(file_lines[index + matched], old_lines[matched], matched, len(old_lines))
        ):
            matched += 1
        if matched > best_matched:
            best_index, best_matched = index, matched
        candidates += 1
        if candidates >= _MAX_PARTIAL_CANDIDATES:
            break
    if best_index < 0:
        return None
    start = best_index + 1
    if best_matched == len(old_lines):
        return (
            f"Lines {start}-{start + best_matched - 1} match old_str apart from line endings: "
            "the file mixes LF and CRLF there; copy the line endings exactly."
        )
    if best_matched == 1:
        matched_text = f"Line {start} matches the first line of old_str"
    else:
        matched_text = (
            f"Lines {start}-{start + best_matched - 1} match the first {best_matched} "
            "lines of old_str"
        )
    differing = best_index + best_matched
    if differing >= len(file_lines):
        return f"{matched_text}, but old_str continues past the end of the file."
    return (
        f"{matched_text}, but line {differing + 1} differs (both shown as JSON strings):\n"
        f"  line {differing + 1}: {_quote(file_lines[differing])}\n"
        f"  old_str: {_quote(old_lines[best_matched])}"
    )


def _agrees(file_line: str, old_line: str, position: int, length: int) -> bool:
    # The last line of old_str may end mid-line; the ones before it are whole lines.
    return file_line.startswith(old_line) if position == length - 1 else file_line == old_line


def _similar_line(file_lines: list[str], old_lines: list[str]) -> str | None:
    """The file line most like the first non-blank line of ``old``, if any is close."""
    position = next((i for i, line in enumerate(old_lines) if line.strip()), None)
    if position is None:
        return None
    target = old_lines[position]
    wanted = " ".join(target.split())
    if len(wanted) < 3:
        return None
    from difflib import SequenceMatcher  # only needed on this error path

    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    slack = max(3, len(wanted) // 5)
    best_ratio, best_index = 0.0, -1
    checked = 0
    for index, line in enumerate(file_lines):
        if line == target:
            continue  # identical: the difference lies elsewhere
        normalized = " ".join(line.split())
        if normalized == wanted:
            best_ratio, best_index = 1.0, index
            break
        if not normalized or abs(len(normalized) - len(wanted)) > slack:
            continue
        if checked >= _MAX_FUZZY_CANDIDATES:
            continue
        checked += 1
        matcher.set_seq1(normalized)
        if matcher.real_quick_ratio() < _SIMILARITY or matcher.quick_ratio() < _SIMILARITY:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_ratio, best_index = ratio, index
    if best_ratio < _SIMILARITY:
        return None
    which = "the first line" if position == 0 else "the first non-blank line"
    number = best_index + 1
    return (
        f"Line {number} resembles {which} of old_str (both shown as JSON strings):\n"
        f"  line {number}: {_quote(file_lines[best_index])}\n"
        f"  old_str: {_quote(target)}"
    )
