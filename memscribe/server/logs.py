"""JSON-lines logging for the server. Records carry fields, never memory content."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO

__all__ = ["JsonFormatter", "configure_logging"]

_FIELDS = ("method", "route", "status", "ms", "tenant", "event")


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", ...fields}`` on one line; only whitelisted extra fields are kept."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name in _FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(level: str = "INFO", stream: IO[str] | None = None) -> None:
    """Send memscribe's and uvicorn's logs to ``stream`` (stderr) as JSON lines. Called by ``serve``."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("memscribe", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    # uvicorn's access log prints paths and queries; ours (memscribe.server.access) prints route templates.
    logging.getLogger("uvicorn.access").disabled = True
