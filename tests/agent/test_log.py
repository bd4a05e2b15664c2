"""Logging: JSON lines to a file, readable lines with --verbose, secrets always masked."""

from __future__ import annotations

import io
import json

import structlog

from agent.log import DROPPED_NOTICE, configure_logging
from tests.agent.helpers import SECRET


def test_events_are_json_lines_with_timestamp_and_level() -> None:
    """One JSON object per event, with timestamp, level and the namespaced event."""
    file = io.StringIO()
    configure_logging(log_file=file)
    structlog.get_logger().warning("model.call_failed", developer_note="529 overloaded")
    event = json.loads(file.getvalue())
    assert event["event"] == "model.call_failed"
    assert event["level"] == "warning"
    assert event["timestamp"]


def test_secrets_are_masked_everywhere_in_an_event() -> None:
    """Keys in strings, nested mappings and lists never reach the file."""
    file = io.StringIO()
    configure_logging(log_file=file)
    structlog.get_logger().info(
        "x", note=f"Bearer {SECRET}", nested={"deep": [f"key={SECRET}"]}, plain=SECRET
    )
    assert SECRET not in file.getvalue()
    assert "[redacted]" in file.getvalue()


def test_bound_context_is_in_every_event() -> None:
    """turn, tool_use_id and attempt bound with contextvars appear on events."""
    file = io.StringIO()
    configure_logging(log_file=file)
    with structlog.contextvars.bound_contextvars(turn=2, tool_use_id="toolu_1", attempt=1):
        structlog.get_logger().info("tool.attempt_failed")
    event = json.loads(file.getvalue())
    assert (event["turn"], event["tool_use_id"], event["attempt"]) == (2, "toolu_1", 1)


def test_stderr_gets_readable_lines_only_when_verbose() -> None:
    """Without --verbose nothing is written to stderr; with it, one line per event."""
    quiet, loud = io.StringIO(), io.StringIO()
    configure_logging(console=quiet)
    structlog.get_logger().info("agent.turn_started")
    configure_logging(console=loud, verbose=True)
    structlog.get_logger().info("agent.turn_started", key=SECRET)
    assert quiet.getvalue() == ""
    assert "agent.turn_started" in loud.getvalue()
    assert SECRET not in loud.getvalue()


class _Full(io.StringIO):
    """A stream on a full disk: every write fails."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        raise OSError(28, "No space left on device")


def test_a_log_file_that_cannot_be_written_is_dropped_with_one_notice() -> None:
    """ENOSPC on the file: no exception reaches the caller, one notice on stderr, the file is
    not tried again, and the console (with --verbose) hears that the file was dropped."""
    full, stderr = _Full(), io.StringIO()
    configure_logging(log_file=full, console=stderr, verbose=True)
    log = structlog.get_logger()
    log.info("agent.turn_started")
    log.info("agent.turn_finished")
    assert full.writes == 1
    assert stderr.getvalue().count(DROPPED_NOTICE) == 1
    assert "agent.log_sink_dropped" in stderr.getvalue()
    assert "agent.turn_finished" in stderr.getvalue()


def test_a_closed_log_file_is_dropped_too() -> None:
    """ValueError (I/O on a closed file) is the same: dropped, one notice."""
    closed, stderr = io.StringIO(), io.StringIO()
    closed.close()
    configure_logging(log_file=closed, console=stderr)
    structlog.get_logger().info("x")
    structlog.get_logger().info("y")
    assert stderr.getvalue() == DROPPED_NOTICE + "\n"


def test_a_console_that_fails_is_dropped_silently_and_the_file_goes_on() -> None:
    """stderr gone: nothing to tell it with; the file keeps every event and notes the drop."""
    file = io.StringIO()
    configure_logging(log_file=file, console=_Full(), verbose=True)
    structlog.get_logger().info("first")
    structlog.get_logger().info("second")
    names = [json.loads(line)["event"] for line in file.getvalue().splitlines()]
    assert names == ["first", "agent.log_sink_dropped", "second"]
