r"""RE2's search without google-re2's re-like wrapper: the one module of Boris that
names a private part of the library (``re2._re2``, the compiled extension).

Grep's hot loops (count and content modes, the whitespace-blind line search of the
near-miss hint) search once per match line and only need the match's span. The public
``re2.compile(...).search`` wraps every call in a generator and a match object; the
extension's ``RE2.Match`` takes any buffer and returns plain spans. Measured on the
benchmark corpus (17,288 .py files, 204 MB, one core): counting the 162,568 lines that
match ``def \w+\(self`` takes 183 ms this way and 412 ms through the public API
(2.25 times as long; 3.0 times for a pattern matching on most lines). Everything
else in Boris (options, sets, compiling for analysis, the glob matcher) uses the
public API.

What this relies on (``tests/patterns/test_re2_raw.py`` checks each against the public
API, so an upgrade that changes one fails there, by name; docs/DEVELOPING.md "Upgrading
google-re2"): ``re2._re2.RE2(pattern: bytes, options)`` with ``ok()`` and ``error()``
(bytes), ``RE2.Anchor.UNANCHORED``, and ``Match(anchor, text, pos, endpos)`` returning
a list of ``(start, end)`` spans, ``(-1, -1)`` for no match.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

#: ``search(data, pos, endpos)``: the spans of the leftmost match in ``data[pos:endpos]``
#: (offsets into ``data``; only the whole match when compiled with ``never_capture``),
#: ``(-1, -1)`` first when there is none.
SpanSearch = Callable[[Any, int, int], Sequence[tuple[int, int]]]


class Re2Error(ValueError):
    """RE2 cannot compile the pattern; the message is RE2's."""


def span_search(pattern: bytes, options: Any) -> SpanSearch:
    """The unanchored search of ``pattern`` compiled with ``options`` (an ``re2.Options``);
    raises :class:`Re2Error` for a pattern RE2 refuses."""
    from re2 import _re2

    regex = _re2.RE2(pattern, options)
    if not regex.ok():
        raise Re2Error(regex.error().decode("utf-8", "replace"))
    return functools.partial(regex.Match, _re2.RE2.Anchor.UNANCHORED)
