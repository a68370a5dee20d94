"""How view shows a notebook: its cells with their sources and outputs, as text an agent
reads, and the images of its outputs.

The text, line by line (README, "Notebooks"):

- ``[notebook] 3 cells, nbformat 4.5, python``: the count, the version, the language;
- per cell, a header ``[cell 2] code id=4f1a execution_count=3`` (the number is what
  notebook_edit's ``cell`` takes; ``id=`` only where cells have ids;
  ``execution_count=`` for code cells, ``none`` when never run), then the source in the
  view line format, numbered from 1 within the cell;
- per output of a code cell, a header ``[output] <output_type> ...`` naming what it
  holds, then its text with each line after ``| ``. Stream text, ``text/markdown`` (or
  else ``text/plain``) and error tracebacks are shown, without ANSI colour codes and
  with carriage-return overwrites settled; each output's text is cut to
  ``OUTPUT_CHARS`` characters, its head and tail kept, with a line saying how much was
  cut. Images are attached after the text (``image/png (image 1)``); HTML, widgets and
  any other type are named under ``not shown:``.

Source lines start with a number and a tab, output lines with ``|``, every other line
with ``[``: no line can be taken for another kind.

One answer holds at most ``MAX_VIEW_LINES`` lines after its first, with ``view_range`` or
without: cells are shown whole while they fit, and the first cell shown is cut inside
when it alone does not fit, with a last line naming the cell and the line (or output)
it goes on from. A cell's lines are made one at a time and only as far as they are
shown: a cell of millions of lines costs the lines shown.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from boris.errors import BorisError, Code
from boris.files.lines import MAX_VIEW_LINES, Image, LongLine, format_lines, text_line
from boris.files.notebook.format import Notebook, multiline_text
from boris.files.sniff import SNIFF_BYTES, image_type

#: The most characters of one output's text shown; beyond, its head and tail are kept.
OUTPUT_CHARS = 2000

#: Which text of a result is shown, the first found: markdown is what a display of
#: Markdown means (its text/plain is a placeholder such as ``<Markdown object>``).
_TEXT_TYPES = ("text/markdown", "text/plain")
#: Images attached, the first found of an output; SVG is text, the others base64.
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/svg+xml")

# ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, links; ended by BEL or
# ST, or by nothing when cut), and the two-character ones. Linear: no nested repetition.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


@dataclass
class NotebookView:
    """What view returns for a notebook: the text, then the images it names, in order."""

    text: str
    images: list[Image] = field(default_factory=list)


@dataclass
class _Images:
    """The images of the outputs shown, in the order their headers name them.

    They need no cap of their own: an image decodes to fewer bytes than its base64 (or
    escaped SVG) text takes in the file, which is within --max-file-size, the cap of an
    image view result.
    """

    attached: list[Image] = field(default_factory=list)

    def attach(self, mime: str, value: Any) -> str:
        """Attach an output's image; what its header says of it."""
        raw = multiline_text(value)
        if mime == "image/svg+xml":
            data = raw.encode("utf-8", "replace")
        else:
            try:
                data = base64.b64decode(raw)
            except (binascii.Error, ValueError):
                return f"{mime} (not attached: not valid base64)"
            sniffed = image_type(data[:SNIFF_BYTES])
            if sniffed is None:
                return f"{mime} (not attached: not an image)"
            mime = sniffed
        self.attached.append(Image(data, mime))
        return f"{mime} (image {len(self.attached)})"


def render(notebook: Notebook, cell_range: tuple[int, int] | None, resolved: str) -> NotebookView:
    """The view of ``notebook``: its cells ``cell_range`` (1-based, inclusive; the end
    clamped), else all of them, up to MAX_VIEW_LINES lines: cut after a whole cell, or
    inside the first cell shown when it alone is longer."""
    cells = notebook.cells
    total = len(cells)
    first, last = (1, total) if cell_range is None else cell_range
    if cell_range is not None and first > total:
        raise BorisError(
            Code.INVALID_INPUT, f"start {first} exceeds total cells {total} in {resolved}"
        )
    last = min(last, total)
    images = _Images()
    lines: list[str] = []
    shown = first - 1
    inside = ""  # where the first cell was cut, if it was
    for number in range(first, last + 1):
        attached = len(images.attached)
        room = MAX_VIEW_LINES - len(lines)
        cell = CellLines(number, cells[number - 1], images)
        cell_lines = cell.lines(room + 1)
        if len(cell_lines) > room:
            del images.attached[attached:]  # the cell is not shown whole, nor its images
            if lines:
                break
            cell_lines = cell.lines(room)  # the first cell alone is too long: cut inside
            inside = cell.going_on()
        lines += cell_lines
        shown = number
        if inside:
            break
    head = f"[notebook] {total} {'cell' if total == 1 else 'cells'}"
    if cell_range is not None:
        shown_range = f"cells {first} to {last}" if first < last else f"cell {first}"
        head += f" (showing {shown_range})"
    head += f", nbformat 4.{notebook.minor}"
    language = _language(notebook.content.get("metadata"))
    if language:
        head += f", {language}"
    text = head + "\n" + "".join(line + "\n" for line in lines)
    rest = f"cells {shown + 1} to {last}" if shown + 1 < last else f"cell {last}"
    if inside:
        text += f"[Truncated: cell {shown} {inside}."
        if shown < last:
            text += f" Use view_range [{shown + 1}, {last}] to see {rest}."
        text += "]\n"
    elif shown < last:
        text += (
            f"[Truncated: cells {shown + 1} to {last} not shown. Use view_range "
            f"[{shown + 1}, {last}] to see them.]\n"
        )
    return NotebookView(text, images.attached)


def cell_view(number: int, cell: dict[str, Any]) -> str:
    """A cell as view shows it (without images), at most MAX_VIEW_LINES lines and a
    last line saying where it was cut, if it was."""
    view = CellLines(number, cell, None)
    cut = len(view.lines(MAX_VIEW_LINES + 1)) > MAX_VIEW_LINES
    text = "".join(line + "\n" for line in view.lines(MAX_VIEW_LINES))
    if cut:
        text += f"[Truncated: cell {number} {view.going_on()}.]\n"
    return text


class CellLines:
    """A cell's lines: its header, its numbered source, its outputs (images into
    ``images``; none attached without it), made up to a number of lines at a time."""

    def __init__(self, number: int, cell: dict[str, Any], images: _Images | None) -> None:
        self._number = number
        self._cell = cell
        self._images = images
        # The source as the notebook holds it (a string, or a list of lines): not joined,
        # which would copy the whole of it to show its first lines.
        source = cell["source"]
        self._pieces: list[str] = [source] if isinstance(source, str) else list(source)
        last = next((piece for piece in reversed(self._pieces) if piece), "")
        self._source_lines = sum(piece.count("\n") for piece in self._pieces) + (
            1 if last and not last.endswith("\n") else 0
        )
        self._cut = 0  # the lines last made

    def lines(self, most: int) -> list[str]:
        """The cell's first ``most`` lines (or all of them)."""
        cell = self._cell
        kind = cell["cell_type"]  # what nbformat's schema requires is there
        header = f"[cell {self._number}] {kind}"
        if "id" in cell:
            header += f" id={cell['id']}"
        if kind == "code":
            count = cell["execution_count"]
            header += f" execution_count={'none' if count is None else count}"
        made = [header][:most]
        made += self._numbered(most - len(made))
        if len(made) < most and kind == "code":
            images = _Images() if self._images is None else self._images
            for output in cell["outputs"]:
                made += _output(output, images)
                if len(made) >= most:
                    break
            del made[most:]
        self._cut = len(made)
        return made

    def _numbered(self, most: int) -> list[str]:
        """The source's first ``most`` lines in the view line format."""
        count = min(most, self._source_lines)
        raw: list[bytes | LongLine] = []
        begun: list[str] = []  # a line's parts in the pieces before this one
        for piece in self._pieces:
            if len(raw) == count:
                break
            at = 0
            while len(raw) < count:
                newline = piece.find("\n", at)
                if newline < 0:
                    if at < len(piece):
                        begun.append(piece[at:])
                    break
                # Not splitlines(): a lone CR or a line separator is part of a line, as
                # in view; a long line is not copied, only what is shown of it.
                if begun:
                    whole = "".join([*begun, piece[at:newline]])
                    begun = []
                    raw.append(text_line(whole, 0, len(whole)))
                else:
                    raw.append(text_line(piece, at, newline))
                at = newline + 1
        if len(raw) < count:  # the last line, without a newline
            whole = "".join(begun)
            raw.append(text_line(whole, 0, len(whole)))
        return format_lines(raw, 1).split("\n")[:-1]

    def going_on(self) -> str:
        """Where the cell goes on after the lines last made (at least its header, and
        not all its lines): ``goes on from line N of its M source lines`` or ``goes on
        in its output K of M``."""
        shown_source = min(self._cut - 1, self._source_lines)
        if shown_source < self._source_lines:
            return f"goes on from line {shown_source + 1} of its {self._source_lines} source lines"
        outputs = self._cell["outputs"]  # the source was shown whole: outputs were cut
        made = 1 + self._source_lines
        images = _Images()
        number = 0
        while made <= self._cut:
            made += len(_output(outputs[number], images))
            number += 1
        return f"goes on in its output {number} of {len(outputs)}"


def _output(output: dict[str, Any], images: _Images) -> list[str]:
    """An output's lines; it is one of the four kinds nbformat's schema allows, with what
    the schema requires of its kind."""
    kind = output["output_type"]
    if kind == "stream":
        return [_one_line(f"[output] stream {output['name']}"), *_text_lines(output["text"])]
    if kind == "error":
        evalue = output["evalue"].strip().partition("\n")[0]
        head = f"[output] error {output['ename']}" + (f": {evalue}" if evalue else "")
        return [_one_line(head), *_text_lines("\n".join(output["traceback"]))]
    data: dict[str, Any] = output["data"]  # an execute_result or a display_data
    parts = []
    image = next((mime for mime in _IMAGE_TYPES if mime in data), None)
    if image is not None:
        parts.append(images.attach(image, data[image]))
    text = next((mime for mime in _TEXT_TYPES if mime in data), None)
    if text is not None:
        parts.append(text)
    head = f"[output] {kind} " + (", ".join(parts) if parts else "(no data)")
    hidden = [mime for mime in data if mime not in (image, text)]
    if hidden:
        head += f"; not shown: {', '.join(hidden)}"
    body = _text_lines(data[text]) if text is not None else []
    return [_one_line(head), *body]


def _text_lines(value: Any) -> list[str]:
    """An output's text (a string, or a list of lines) as ``| `` lines, cleaned and cut."""
    text = _ANSI.sub("", multiline_text(value))
    if "\r" in text:
        text = "\n".join(_settled(line) for line in text.split("\n"))
    if text.endswith("\n"):
        text = text[:-1]
    if not text:
        return []
    if len(text) > OUTPUT_CHARS:
        half = OUTPUT_CHARS // 2
        head, tail = text[:half], text[-half:]
        # Whole lines where the output has them.
        if "\n" in head:
            head = head[: head.rindex("\n")]
        if "\n" in tail:
            tail = tail[tail.index("\n") + 1 :]
        cut = f"[... {len(text) - len(head) - len(tail):,} characters of this output not shown ...]"
        return [*_prefixed(head), cut, *_prefixed(tail)]
    return _prefixed(text)


def _prefixed(text: str) -> list[str]:
    return [f"| {line}" if line else "|" for line in text.split("\n")]


def _settled(line: str) -> str:
    """A line as a terminal leaves it after carriage returns: its last written part
    (progress bars redraw themselves this way)."""
    for part in reversed(line.split("\r")):
        if part:
            return part
    return ""


def _one_line(text: str) -> str:
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def _language(metadata: Any) -> str:
    if not isinstance(metadata, dict):
        return ""
    for holder, key in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(holder)
        if isinstance(value, dict) and isinstance(value.get(key), str):
            return _one_line(value[key])[:40]
    return ""
