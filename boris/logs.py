"""Logging for the whole process (Boris, fastmcp, the MCP SDK, uvicorn), always on stderr.

stdout belongs to the protocol over STDIO, so nothing here may ever write to it.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Literal

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"


class TextFormatter(JsonFormatter):
    def format(self, record: logging.LogRecord) -> str:
        line = (
            f"{self.formatTime(record)} {record.levelname:<7} {record.name}: {record.getMessage()}"
        )
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure(level: str, fmt: Literal["text", "json"]) -> None:
    """Route every logger in the process through one stderr handler."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(_LEVELS[level])
    # fastmcp and uvicorn install their own (rich, stdout-capable) handlers; send
    # their records to ours instead so --log-level/--log-format govern all output.
    for name in ("fastmcp", "mcp", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        for old in logger.handlers[:]:
            logger.removeHandler(old)
        logger.propagate = True
        logger.setLevel(logging.NOTSET)
    if _LEVELS[level] > logging.DEBUG:
        # A line per HTTP request drowns everything else; keep it for debugging.
        logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
