"""Where a search by name stopped, kept for the next page (:class:`Pages`, one per
session), so that a later page goes on from there instead of searching from the start.

A page of definitions or references is full long before the search is over. What it
keeps (:class:`Resume`): the lines found from the page's offset on (the page's own, and
those the workers had already found for the files they were given), the files taken
from the walk and not yet searched, and the walk itself, suspended where it was. A call
for a later page of the same search (an offset past 0, at or past the page's) goes on
from there; any other call, a first page too, searches from the start, as without it.

Bounded: a few searches per session (the least recently made is dropped), each holding
at most ``MAX_CHARS`` characters of lines (past them, the files the workers were given
are searched again for the next page), all sessions' together at most
``MAX_TOTAL_CHARS`` (the oldest search of any session is dropped), for ``MAX_AGE``
seconds.

Dropped when the tree may have changed, told cheaply:
- a write through this server since (any tool call that is not read-only, bash
  included: :mod:`boris.changes`), which is how an agent changes its tree;
- a file whose lines are kept has changed since (its device, inode, size or modification
  time, as an edit's fresh look compares them: one ``stat`` each, a few hundred at most).
A change made elsewhere to a file the search has passed (the lines before the page) or
a file added to a directory the walk has listed is not seen: those are the pages
already shown, or the few files beside where the walk stands.

Plain data, the standard library and a file's identity (boris.files.access): nothing here
is loaded before a search by name.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field

from boris.changes import writes
from boris.files.access import Identity, identity
from boris.stop import Stop

#: Searches kept per session, the characters of lines each may hold, those every
#: session's may hold together, and for how long.
MAX_SEARCHES = 4
MAX_CHARS = 1_000_000
MAX_TOTAL_CHARS = 16_000_000
MAX_AGE = 600.0


class Relay:
    """The stop of the call a suspended walk is going on for (each call has its own,
    the walk was made with this one)."""

    def __init__(self) -> None:
        self.current: Stop | None = None

    def is_set(self) -> bool:
        return self.current is not None and self.current.is_set()


@dataclass
class Resume:
    """A search by name from one of its pages on."""

    #: The output line that ``lines`` start at (0-based: the page's offset), the lines
    #: found from there on and the file of each (one string per file).
    start: int
    lines: list[str]
    paths: list[str]
    #: Files taken from the walk and not searched yet, then the rest of the walk
    #: (None once it is over), and the stop the walk looks at.
    files: list[tuple[str, str]]
    walk: Iterator[tuple[str, str]] | None
    relay: Relay
    #: The files whose lines are kept, as they were when kept; the writes then.
    signatures: dict[str, Identity | None] = field(default_factory=dict)
    writes: int = 0
    made: float = 0.0
    #: The characters of its lines.
    chars: int = 0

    def stamp(self) -> Resume:
        """Note the state of what it keeps, now, and its size."""
        self.chars = sum(len(line) + 1 for line in self.lines)
        self.signatures = {path: signature(path) for path in set(self.paths)}
        self.writes = writes()
        self.made = time.monotonic()
        return self

    def current(self) -> bool:
        """Whether nothing it keeps may have changed (see the module's docstring)."""
        if self.writes != writes() or time.monotonic() - self.made > MAX_AGE:
            return False
        return all(signature(path) == kept for path, kept in self.signatures.items())


class Gate:
    """The files a search takes, in walk order: those left from an earlier page, then
    the walk. Once ``closed`` it gives no more. It remembers the files taken since the
    last one known searched, to be searched again if their lines are not kept."""

    def __init__(self, files: list[tuple[str, str]], walk: Iterator[tuple[str, str]] | None):
        self._ahead = deque(files)
        self.walk = walk
        self.closed = False
        self._taken: deque[tuple[str, str]] = deque()

    def __iter__(self) -> Gate:
        return self

    def __next__(self) -> tuple[str, str]:
        if self.closed:
            raise StopIteration
        if self._ahead:
            item = self._ahead.popleft()
        elif self.walk is None:
            raise StopIteration
        else:
            try:
                item = next(self.walk)
            except StopIteration:
                self.walk = None
                raise
        self._taken.append(item)
        return item

    def searched(self, label: str, path: str) -> None:
        """The file ``path`` and every one taken before it have been searched (those
        in between gave nothing)."""
        while self._taken and self._taken.popleft() != (label, path):
            pass

    def searched_all(self) -> None:
        self._taken.clear()

    def left(self) -> list[tuple[str, str]]:
        """The files taken and not known searched, then those not taken yet, of what
        was left from before (the walk goes on after them)."""
        return [*self._taken, *self._ahead]


def signature(path: str) -> Identity | None:
    """What a kept file's state is compared by: its identity as an edit sees it."""
    try:
        return identity(os.stat(path))
    except OSError:
        return None


class Pages:
    """The searches of one session that a next page may go on from."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Hashable, Resume] = OrderedDict()
        self._lock = threading.Lock()
        with _every_lock:
            _every.add(self)

    def take(self, key: Hashable, offset: int) -> Resume | None:
        """The search ``key`` to go on from for a page at ``offset``, if one is kept
        that can (it is then no longer kept: one call at a time goes on with it)."""
        with self._lock:
            resume = self._kept.get(key)
            if resume is None or resume.start > offset:
                return None
            del self._kept[key]
        return resume if resume.current() else None

    def keep(self, key: Hashable, resume: Resume) -> None:
        with _every_lock, self._lock:
            self._kept[key] = resume
            self._kept.move_to_end(key)
            while len(self._kept) > MAX_SEARCHES:
                self._kept.popitem(last=False)
        _within_total()

    def sizes(self) -> list[tuple[float, Hashable, int]]:
        """When each search it keeps was made, its key, its characters of lines."""
        with self._lock:
            return [(resume.made, key, resume.chars) for key, resume in self._kept.items()]

    def drop(self, key: Hashable) -> None:
        with self._lock:
            self._kept.pop(key, None)

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


#: Every session's pages, for the bound on them all.
_every: weakref.WeakSet[Pages] = weakref.WeakSet()
_every_lock = threading.Lock()


def _within_total() -> None:
    """Drop the oldest searches of any session until all of them hold at most
    MAX_TOTAL_CHARS characters of lines."""
    with _every_lock:
        kept = [(made, pages, key, chars) for pages in _every for made, key, chars in pages.sizes()]
        total = sum(chars for *_, chars in kept)
        for _, pages, key, chars in sorted(kept, key=lambda entry: entry[0]):
            if total <= MAX_TOTAL_CHARS:
                return
            pages.drop(key)
            total -= chars
