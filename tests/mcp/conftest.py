"""A real MCP server (tests/mcp/flaky_server.py), started by the tests, failing on command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from resilience import Policy
from tools.mcp import McpServer

SERVER = Path(__file__).with_name("flaky_server.py")
SECRET = "sk-ant-api03-MCPSECRET-0123456789abcdefghij"  # the server's fake secret


class Plan:
    """The failure plan the server reads on every call (a file, so it survives restarts)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.set()

    def set(self, **steps: list[str]) -> None:
        """Tool name → steps, one per call: "crash", "hang", "is_error:TEXT", …"""
        self.path.write_text(json.dumps(steps))

    def left(self, tool: str) -> list[str]:
        """The steps no call has taken yet."""
        steps: dict[str, list[str]] = json.loads(self.path.read_text())
        return steps.get(tool, [])


def flaky(plan: Plan, *flags: str, name: str = "flaky", **options: Any) -> McpServer:
    """The flaky server run with this Python, acting on `plan`."""
    args = [str(SERVER), "--plan", str(plan.path), *flags]
    return McpServer.stdio(sys.executable, args, name=name, **options)


def quick(**changes: Any) -> Policy:
    """Short backoffs; per-attempt and per-call deadlines long enough for a restart on a
    loaded machine unless a test shortens them."""
    knobs: dict[str, Any] = {
        "attempt_timeout_s": 15.0,
        "deadline_s": 30.0,
        "base_backoff_s": 0.01,
        "max_backoff_s": 0.02,
    }
    return Policy(**(knobs | changes))


@pytest.fixture
def plan(tmp_path: Path) -> Plan:
    return Plan(tmp_path / "plan.json")
