"""The README's snippets, as a reader copies them: a section's fenced code blocks, each
under the bold label of the paragraph before it (``**Cursor**, ...``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.support import REPO

README = REPO / "README.md"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
_LABEL = re.compile(r"^\*\*([^*]+)\*\*", re.M)


@dataclass(frozen=True)
class Snippet:
    label: str  # the bold words before it, "" if none
    language: str
    text: str


def section(title: str) -> str:
    """The text of the ``## title`` section, up to the next section of that level."""
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def snippets(title: str) -> list[Snippet]:
    """The code blocks of a section, in order, each with its label."""
    text = section(title)
    found = []
    for fence in _FENCE.finditer(text):
        labels = _LABEL.findall(text, 0, fence.start())
        found.append(Snippet(labels[-1] if labels else "", fence.group(1), fence.group(2)))
    return found
