"""structlog, configured once at the entry points: JSON lines to a file, readable lines on stderr.

Every event passes the redaction processor before any renderer sees it, so no API key, bearer
token or `key=` value is ever written. Context (turn, tool_use_id, attempt) comes from
`structlog.contextvars`, bound per call by the loop. A failure's event carries
`ErrorAction.log_fields()`: error_type, action, retryable and developer_note.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import IO, Any

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from errors import redact

__all__ = ["LogSinks", "configure_logging", "redact_event", "shared_processors"]


def redact_event(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """Mask secrets in every string value of an event, however deeply nested."""
    return {key: _redact_value(value) for key, value in event.items()}


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: _redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(v) for v in value]
    return value


def shared_processors() -> list[Processor]:
    """The processors every event goes through before it is rendered (or captured)."""
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
        structlog.processors.format_exc_info,
        redact_event,
    ]


class LogSinks:
    """The last processor: writes each event as JSON to `file` and readable to `console`."""

    def __init__(self, file: IO[str] | None, console: IO[str] | None) -> None:
        self._file = file
        self._console = console
        self._render = structlog.dev.ConsoleRenderer(colors=False)

    def __call__(self, logger: WrappedLogger, method: str, event: EventDict) -> str:
        if self._file is not None:
            self._file.write(json.dumps(event, default=str, ensure_ascii=False) + "\n")
            self._file.flush()
        if self._console is not None:
            self._console.write(str(self._render(logger, method, dict(event))) + "\n")
            self._console.flush()
        raise structlog.DropEvent


def configure_logging(
    *, log_file: IO[str] | None = None, console: IO[str] | None = None, verbose: bool = False
) -> None:
    """Configure structlog for the whole process; call once, from an entry point."""
    level = logging.DEBUG if verbose else logging.INFO
    structlog.configure(
        processors=[*shared_processors(), LogSinks(log_file, console if verbose else None)],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.ReturnLoggerFactory(),
        cache_logger_on_first_use=False,
    )
