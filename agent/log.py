"""structlog, configured once at the entry points: JSON lines to a file, readable lines on stderr.

Every event passes the redaction processor before any renderer sees it, so no API key, bearer
token or `key=` value is ever written. What is written is escaped: a value may quote an
upstream body, so control characters (C0, DEL, C1), bidi controls, zero-width characters, the
byte order mark and the line and paragraph separators are written as `\\uXXXX` — in the JSON
line a JSON escape (the value reads back unchanged), on stderr the same six characters. A log
line cannot reorder, hide or split what a person or a program reads of it
(`errors._redact.escape_invisible`: in JSON text its escapes are JSON escapes).

Context (turn, tool_use_id, attempt) comes from `structlog.contextvars`, bound per call by
the loop. A failure's event carries `ErrorAction.log_fields()`: error_type, action, retryable
and developer_note.

Logging is best effort: a sink whose write fails (a full disk, a closed stream) is dropped
with one notice on stderr and one `agent.log_sink_dropped` event to the sinks still working;
the turn goes on. A log must never cost an answer.

The log file is opened by `open_log`, through `tools.files.open_private`: never through a
symbolic link, never waiting on a FIFO, and only when it is a regular file of ours that no one
else may write (created 0600). Any other file is left alone, with one notice on stderr.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any

import structlog

from errors import redact
from errors._redact import escape_invisible
from tools.files import NotPrivate, open_private

if TYPE_CHECKING:
    from structlog.typing import EventDict, Processor, WrappedLogger

__all__ = [
    "DROPPED_NOTICE",
    "UNOPENED_NOTICE",
    "UNUSABLE_NOTICE",
    "LogSinks",
    "configure_logging",
    "open_log",
    "redact_event",
    "redact_value",
    "shared_processors",
]

DROPPED_NOTICE = "The log file in AGENT_LOG_FILE can't be written; logging to it is off."
UNOPENED_NOTICE = "The log file in AGENT_LOG_FILE can't be opened; logging to it is off."
UNUSABLE_NOTICE = (
    "The log file in AGENT_LOG_FILE is left alone because {why} "
    "(it must be a regular file that only you can write); logging to it is off."
)


def open_log(path: str, notice: IO[str]) -> IO[str] | None:
    """The log file at `path`, appended to; created readable by its owner only, since it
    records what was asked. None, with one notice to `notice`, when it can't be opened or is
    not a regular file of ours that no one else may write."""
    try:
        descriptor = open_private(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    except NotPrivate as refused:
        _write_quietly(notice, UNUSABLE_NOTICE.format(why=refused.strerror) + "\n")
        return None
    except OSError:
        _write_quietly(notice, UNOPENED_NOTICE + "\n")
        return None
    return os.fdopen(descriptor, "a", encoding="utf-8")


def redact_event(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """Mask secrets in every string value of an event, however deeply nested."""
    return {key: redact_value(value) for key, value in event.items()}


def redact_value(value: Any) -> Any:
    """`value` with every string masked (`errors.redact`), keys and structure kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
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
    """The last processor: writes each event as JSON to `file` and readable to `console`.

    A sink whose write raises `OSError` or `ValueError` (a closed file) is dropped: the file
    with `DROPPED_NOTICE` written once to `notice` (stderr), the console silently (it is
    stderr). What was dropped is then logged, once, to the sink still working, if any.
    """

    def __init__(
        self, file: IO[str] | None, console: IO[str] | None, notice: IO[str] | None = None
    ) -> None:
        self._file = file
        self._console = console
        self._notice = notice
        self._render = structlog.dev.ConsoleRenderer(colors=False)

    def __call__(self, logger: WrappedLogger, method: str, event: EventDict) -> str:
        self._emit(logger, method, event)
        raise structlog.DropEvent

    def _emit(self, logger: WrappedLogger, method: str, event: EventDict) -> None:
        dropped = []
        if self._file is not None and not _wrote(self._file, lambda: _json_line(event)):
            dropped.append("file")
            with contextlib.suppress(OSError, ValueError):  # its buffer is lost with it
                self._file.close()
            self._file = None
            _write_quietly(self._notice, DROPPED_NOTICE + "\n")
        if self._console is not None and not _wrote(
            self._console,
            lambda: escape_invisible(str(self._render(logger, method, dict(event)))) + "\n",
        ):
            dropped.append("console")
            self._console = None
        for sink in dropped:
            if self._file is not None or self._console is not None:
                notice = {
                    "event": "agent.log_sink_dropped",
                    "sink": sink,
                    "level": "warning",
                    "timestamp": event.get("timestamp"),
                }
                self._emit(logger, "warning", notice)


def _json_line(event: EventDict) -> str:
    return escape_invisible(json.dumps(event, default=str, ensure_ascii=False)) + "\n"


def _wrote(stream: IO[str], line: Callable[[], str]) -> bool:
    """Write and flush one line; False if the stream refused it."""
    try:
        stream.write(line())
        stream.flush()
    except (OSError, ValueError):
        return False
    return True


def _write_quietly(stream: IO[str] | None, text: str) -> None:
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):
            stream.write(text)
            stream.flush()


def configure_logging(
    *, log_file: IO[str] | None = None, console: IO[str] | None = None, verbose: bool = False
) -> None:
    """Configure structlog for the whole process; call once, from an entry point. `console`
    (stderr) gets readable events with `verbose`, and the notice of a dropped log file."""
    level = logging.DEBUG if verbose else logging.INFO
    sinks = LogSinks(log_file, console if verbose else None, notice=console)
    structlog.configure(
        processors=[*shared_processors(), sinks],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.ReturnLoggerFactory(),
        cache_logger_on_first_use=False,
    )
