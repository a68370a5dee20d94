"""Plain models of what the file tools show and do, written from the README's rules and
not from Boris's code: the oracles the tests compare the tools with."""

from __future__ import annotations

from pathlib import Path

#: The UTF-8 byte order mark.
BOM = b"\xef\xbb\xbf"


def uses_crlf(data: bytes) -> bool:
    return b"\r\n" in data and data.count(b"\r\n") == data.count(b"\n")


def as_written(before: bytes, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """The rule: exact bytes, except LF strings in a CRLF file mean CRLF (unless either has a
    CRLF of its own)."""
    if (
        uses_crlf(before)
        and b"\r\n" not in old
        and b"\r\n" not in new
        and (b"\n" in old or b"\n" in new)
    ):
        return old.replace(b"\n", b"\r\n"), new.replace(b"\n", b"\r\n")
    return old, new


def occurrences(before: bytes, old: bytes) -> int:
    """Places where ``old`` starts in ``before``, overlapping ones included."""
    return sum(before.startswith(old, i) for i in range(len(before)))


def oracle_view(data: bytes, start: int, end: int, path: Path) -> str:
    if end == -1:  # -1 means the last line
        end = 10**9
    if start < 1:
        return f"[INVALID_INPUT] view_range start must be 1 or more, got {start}"
    if start > end:
        return (
            f"[INVALID_INPUT] view_range start {start} is greater than end {end}; "
            "give [start, end] with start <= end"
        )
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    if start > len(lines):
        return f"[INVALID_INPUT] start {start} exceeds total lines {len(lines)} in {path}"
    shown = lines[start - 1 : end]
    width = len(str(start + len(shown) - 1))
    out = []
    for number, raw in enumerate(shown, start):
        if number == 1:
            raw = raw.removeprefix(BOM)
        text = raw.removesuffix(b"\r").decode("utf-8", "replace")
        if len(text) > 2000:
            text = f"{text[:2000]}... [truncated, {len(text)} chars total]"
        out.append(f"{number:>{width}}\t{text}\n")
    return "".join(out)


Line = tuple[bytes, bytes]  # text, ending


def lines_of(data: bytes) -> tuple[bytes, list[Line], bool]:
    """The model's reading of a file: BOM, lines with their endings, whether it ends in
    a newline (an empty file does)."""
    bom = BOM if data.startswith(BOM) else b""
    pieces = data[len(bom) :].split(b"\n")
    tail = pieces.pop()
    lines = [(p[:-1], b"\r\n") if p.endswith(b"\r") else (p, b"\n") for p in pieces]
    if tail:
        lines.append((tail, b""))
    return bom, lines, not tail


def tree(top: str, entries: dict[str, list[str] | None]) -> tuple[str, list[str]]:
    """The header and entry lines of a full two-level listing; ``entries`` maps each
    name to its children's names (a directory) or None (a file)."""
    lines = []
    names = sorted(entries)
    for index, name in enumerate(names):
        last = index == len(names) - 1
        children = entries[name]
        lines.append(("└── " if last else "├── ") + name + ("/" if children is not None else ""))
        for child_index, child in enumerate(sorted(children or [])):
            connector = "└── " if child_index == len(children or []) - 1 else "├── "
            lines.append(("    " if last else "│   ") + connector + child)
    return f"{top}/\n", [line + "\n" for line in lines]


def cut_listing(header: str, lines: list[str]) -> str:
    """The rule for long listings: whole entry lines while the text (header included)
    stays within 30,000 characters; if any line is left out, a last line tells how many
    entries were not shown, counting those of both levels: N is the number of entry
    lines of the full listing that are missing."""
    shown, size = [], len(header)
    for line in lines:
        size += len(line)
        if size > 30_000:
            break
        shown.append(line)
    text = header + "".join(shown)
    if len(shown) == len(lines):
        return text
    missing = len(lines) - len(shown)
    return text + (
        f"\n[Truncated: {missing} more entries not shown. View a subdirectory, or use glob.]"
    )


def reference_lines(data: bytes) -> list[bytes]:
    """Lines as Go's bufio.ScanLines gives them: split at "\\n", a final "\\r" dropped."""
    if not data:
        return []
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    return [piece[:-1] if piece.endswith(b"\r") else piece for piece in pieces]
