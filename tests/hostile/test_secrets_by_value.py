"""Secrets without a tell-tale shape are masked by value: the configured ones, from start-up."""

from __future__ import annotations

import json
from pathlib import Path

from agent.cli import EXIT_NO_ANSWER
from benchmarks.hostile_server import Exchange, HostileServer
from tests.hostile.agents import cli

# A key with no `sk-` prefix (an Azure-style hex key), and a service token in the environment.
PLAIN_KEY = "3f9c2b7e8a1d4c6f9e0b5a7d2c4e6f80"
SERVICE_TOKEN = "xq7Lm2Pz9Rt4Vw8Y"


def _echoes_the_key(exchange: Exchange) -> None:
    """A 401 that quotes the key back, as some gateways do, and the service token with it."""
    body = {
        "type": "error",
        "error": {
            "type": "authentication_error",
            "message": f"invalid x-api-key: {PLAIN_KEY} (token {SERVICE_TOKEN} not accepted)",
        },
    }
    exchange.send(401, json.dumps(body).encode())


def test_a_key_echoed_by_a_401_reaches_neither_the_log_nor_stderr(tmp_path: Path) -> None:
    """The configured key and a *_TOKEN value are masked in the log file and --verbose stderr."""
    log_file = tmp_path / "agent.log"
    with HostileServer(messages=_echoes_the_key) as server:
        env = server.env(
            ANTHROPIC_API_KEY=PLAIN_KEY,
            AGENT_LOG_FILE=str(log_file),
            BILLING_SERVICE_TOKEN=SERVICE_TOKEN,
        )
        code, out, err = cli(["--verbose", "ask", "2+2?"], env)
    logged = log_file.read_text(encoding="utf-8")
    assert code == EXIT_NO_ANSWER
    assert "authentication_error" in logged  # the 401 was logged ...
    for secret in (PLAIN_KEY, SERVICE_TOKEN):
        assert secret not in logged + out + err  # ... without the values themselves
