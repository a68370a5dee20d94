"""STDIO served at once: the app loads in a thread while this one answers what it can
(boris.early.responder), then the server takes over the same pipes
(boris.transport.stdio), with what was read and not yet answered.

Until the server has taken over, a signal (SIGTERM, SIGINT, SIGHUP) ends the process at
once with 128 + its number, as the server ends after its cleanup: nothing has run that
needs one. A failure to load (a setting the full settings refuse) ends it as it would
have without the early answers, its message already on stderr.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from boris.early.answers import Answers
from boris.early.responder import Responder
from boris.early.settings import EarlySettings
from boris.transport.lines import Pipes, Woken
from boris.transport.prescan import max_message_size

if TYPE_CHECKING:
    from logging import Logger

_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

#: Seconds this thread waits at most for the interpreter's lock while the app loads.
_SWITCH_INTERVAL = 0.0005

#: What loading gives: the full settings and the app built for them.
Load = Callable[[], tuple[Any, Any]]


class Loading(threading.Thread):
    """Runs ``load`` (the full settings, logging, the app; then the STDIO transport's own
    modules, so that taking over imports nothing), and wakes the reader when done."""

    def __init__(self, load: Load, wake: int) -> None:
        super().__init__(name="boris-load", daemon=True)
        self._load = load
        self._wake = wake
        self.result: tuple[Any, Any] | None = None
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self._load()
            import boris.transport.stdio  # noqa: F401
        except BaseException as exc:  # SystemExit too: the main thread raises it
            self.failure = exc
        finally:
            os.write(self._wake, b"!")


def serve_early(settings: EarlySettings, answers: Answers, load: Load) -> None:
    """Serve one client on stdin/stdout: answer what can be answered while ``load`` runs,
    then serve everything else once it has."""
    started = time.monotonic()
    pipes = Pipes(max_message_size(settings.max_file_size))
    wake_read, wake_write = os.pipe()
    pipes.lines.wake_fd = wake_read
    handlers = {signum: signal.signal(signum, _exit_at_once) for signum in _SIGNALS}
    loading = Loading(load, wake_write)
    responder = Responder(answers, settings)
    # The loading thread holds the interpreter's lock most of the time; this one asks for
    # it back sooner than the default 5 ms, to answer at once.
    switching = sys.getswitchinterval()
    sys.setswitchinterval(_SWITCH_INTERVAL)
    while True:
        # What the client sent already is answered before the loading starts (its first
        # answers then wait for nothing), unless it needs the app.
        if loading.ident is None and (responder.keeping or not pipes.lines.waiting()):
            loading.start()
        line = pipes.lines.next()
        if isinstance(line, Woken) or line is None:
            break  # loaded, or the client closed its side: the server takes over
        reply = responder.take(line)
        if reply is None:
            continue
        try:
            pipes.write_line(reply)
        except OSError:
            pipes.stop_input()  # the client is gone: the server ends at once
            break
    if loading.ident is None:
        loading.start()
    loading.join()
    sys.setswitchinterval(switching)
    pipes.lines.wake_fd = None
    os.close(wake_read)
    os.close(wake_write)
    if loading.failure is not None:
        raise loading.failure
    assert loading.result is not None
    full, app = loading.result
    import logging  # loaded by then (logging is configured): not before the early answers

    log = logging.getLogger("boris.early")
    _compare(settings, full, log)
    log.debug(
        "answered before the app was ready (%.0f ms to load): %s",
        (time.monotonic() - started) * 1000,
        ", ".join(responder.answered) or "nothing",
    )
    import anyio

    from boris.transport.stdio import serve_stdio

    handover = responder.handover()
    answers.release()
    # The server's own signal handling takes over from here, as it starts.
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    anyio.run(serve_stdio, app, full, pipes, handover)


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    sys.stderr.flush()
    os._exit(128 + signum)


def _compare(early: EarlySettings, full: Any, log: Logger) -> None:
    """Log an error for each setting read early that the full settings hold otherwise
    (tests/early/test_settings.py checks that none can)."""
    for name, value in early._asdict().items():
        if getattr(full, name) != value:
            log.error(
                "the setting %s was read as %r before the app was ready, as %r after",
                name,
                value,
                getattr(full, name),
            )
