"""Logging: JSON lines to a file, readable lines with --verbose, secrets always masked."""

from __future__ import annotations

import io
import json

import structlog

from agent.log import configure_logging
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
