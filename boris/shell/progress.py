"""Live output of a running command as progress notifications, one per line, sent through
a callback the caller gives (the bash tool: MCP progress on the request).

Each complete line is sent as it arrives (``progress`` = lines so far, ``message`` =
the line). Lines are not batched: some clients drop notifications that reach them in
the same read as the final result. A command may print lines far faster than a client
reads notifications (``yes``), and every notification costs the server (and the client)
real work, so notifications go out at a bounded rate once a burst is spent, and the lines
waiting to be sent are bounded: when output outruns the rate, the oldest waiting lines are
skipped. Progress stays monotonic, and a flood never slows the command down.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable

from boris.text import LIMIT

log = logging.getLogger("boris.progress")

#: Characters of one line a notification carries: as many as a result shows of a stream.
MESSAGE_LIMIT = LIMIT

#: Characters of lines waiting to be sent; beyond this the oldest waiting lines are skipped.
QUEUE_BUDGET = 200_000

#: Lines of one read examined; older lines of the same read are counted and skipped
#: (they all arrive at once, so only the newest few could be sent before the next read).
#: Also the most lines waiting to be sent, and the notifications sent at once before
#: the rate limit applies.
BURST = 64

#: Notifications per second once a burst is spent.
RATE = 100.0


#: Sends one notification: lines so far, and the line.
Send = Callable[[int, str], Awaitable[None]]


class ProgressSender:
    """Sends lines as progress notifications from its own task, in order, never blocking."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._queue: deque[tuple[int, str]] = deque(maxlen=BURST)
        self._chars = 0
        self._count = 0
        self._closing = False
        self._wake = asyncio.Event()
        # Started with the first line: most commands print nothing worth a task. It runs
        # in the context of the request that made the sender: lines may arrive through
        # callbacks of another request (a background task's reader), whose context
        # would send them as that request's.
        self._task: asyncio.Task[None] | None = None
        self._context = contextvars.copy_context()

    def add(self, skipped: int, line: str) -> None:
        """Queue ``line``, the next after ``skipped`` lines that will not be sent."""
        self._count += skipped + 1
        if len(self._queue) == BURST:
            self._chars -= len(self._queue[0][1])
        self._queue.append((self._count, line))
        self._chars += len(line)
        while self._chars > QUEUE_BUDGET and len(self._queue) > 1:
            _, dropped = self._queue.popleft()
            self._chars -= len(dropped)
        self._wake.set()
        if self._task is None:
            loop = asyncio.get_running_loop()
            # A task starts in a copy of the context current at its creation (create_task's
            # context argument is 3.11+).
            self._task = self._context.run(loop.create_task, self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        tokens, refilled = float(BURST), loop.time()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                now = loop.time()
                tokens = min(float(BURST), tokens + (now - refilled) * RATE)
                refilled = now
                if tokens < 1 and not self._closing:
                    await asyncio.sleep((1 - tokens) / RATE)
                    continue
                tokens -= 1
                count, line = self._queue.popleft()
                self._chars -= len(line)
                try:
                    await self._send(count, line)
                except Exception as exc:  # the client went away: stop reporting, quietly
                    log.debug("progress notification failed: %s", exc)
                    self._queue.clear()
                    return
            if self._closing:
                return

    async def close(self) -> None:
        """Send what is queued, then stop."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()


class LineSplitter:
    """Cuts one stream's text into lines for ``emit(skipped, line)``."""

    def __init__(self, emit: Callable[[int, str], None]) -> None:
        self._emit = emit
        self._partial: list[str] = []
        self._partial_len = 0
        self._skipped = 0

    def feed(self, text: str) -> None:
        if "\n" not in text:
            self._grow_partial(text)
            return
        parts = text.rsplit("\n", BURST)
        first, lines, tail = parts[0], parts[1:-1], parts[-1]
        cut = first.rfind("\n") if len(parts) == BURST + 1 else -1
        if cut < 0:
            self._send(self._take_partial() + first)
        else:
            # More lines than one burst: count the older ones, look only at the newest.
            self._partial, self._partial_len = [], 0
            self._skipped += first.count("\n", 0, cut) + 1
            self._send(first[cut + 1 :])
        for line in lines:
            self._send(line)
        self._grow_partial(tail)

    def finish(self) -> None:
        """The stream ended: emit a last unterminated line."""
        partial = self._take_partial()
        if partial:
            self._send(partial)

    def _send(self, line: str) -> None:
        self._emit(self._skipped, line[:MESSAGE_LIMIT])
        self._skipped = 0

    def _grow_partial(self, text: str) -> None:
        if text and self._partial_len < MESSAGE_LIMIT:
            self._partial.append(text[: MESSAGE_LIMIT - self._partial_len])
        self._partial_len += len(text)

    def _take_partial(self) -> str:
        partial = "".join(self._partial)
        self._partial, self._partial_len = [], 0
        return partial
