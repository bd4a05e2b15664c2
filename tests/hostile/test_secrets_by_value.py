"""Secrets without a tell-tale shape are masked by value: the configured ones, from start-up."""

from __future__ import annotations

import json
from pathlib import Path

from agent.cli import EXIT_NO_ANSWER, EXIT_OK
from benchmarks.hostile_server import Exchange, HostileServer, echo_tool_results, raw_json
from offline._messages_wire import message_body, tool_use_block
from tests.hostile.agents import cli
from tests.tools.upstream import PARIS_GEO

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


# Neither has a shape the patterns know: a bare hex key with no `x-api-key:` before it, and an
# endpoint's query value under a name (`client=`) that no pattern treats as secret.
BARE_KEY = "8b1e4d7a2c9f3e6b0a5d8c1f4e7b2a9d"
CLIENT_CODE = "Kq4Rz8Wm2Tn6Yv"


def _echoes_the_bare_key(exchange: Exchange) -> None:
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": f"{BARE_KEY} is not valid"},
    }
    exchange.send(401, json.dumps(body).encode())


def _echoes_the_request(exchange: Exchange) -> None:
    """A weather service that refuses, quoting the request line: the endpoint's query too."""
    exchange.send(500, json.dumps({"error": f"cannot serve {exchange.path}"}).encode())


def test_a_bare_key_echoed_by_a_401_is_masked_by_value(tmp_path: Path) -> None:
    """A key with no prefix and no label beside it: only its value gives it away."""
    log_file = tmp_path / "agent.log"
    with HostileServer(messages=_echoes_the_bare_key) as server:
        env = server.env(ANTHROPIC_API_KEY=BARE_KEY, AGENT_LOG_FILE=str(log_file))
        code, out, err = cli(["--verbose", "ask", "2+2?"], env)
    logged = log_file.read_text(encoding="utf-8")
    assert code == EXIT_NO_ANSWER
    assert "is not valid" in logged  # the 401's message was logged ...
    assert BARE_KEY not in logged + out + err  # ... without the key


def test_an_endpoints_query_value_and_password_are_masked_by_value(tmp_path: Path) -> None:
    """The forecast URL's `?client=` value and wttr.in's URL password, quoted back by failing
    services, reach neither the log file, nor --verbose stderr, nor the model."""
    log_file = tmp_path / "agent.log"
    ask_weather = echo_tool_results(
        message_body(
            tool_use_block("toolu_w", "get_weather", {"city": "Paris"}), stop_reason="tool_use"
        )
    )
    weather = {
        "/geocoding": raw_json(json.dumps(PARIS_GEO).encode()),
        "/forecast": _echoes_the_request,
        "/wttr": _echoes_the_request,
    }
    with HostileServer(messages=ask_weather, weather=weather) as server:
        env = server.env(AGENT_LOG_FILE=str(log_file))
        env["OPEN_METEO_FORECAST_URL"] += f"?client={CLIENT_CODE}"
        env["WTTR_URL"] = env["WTTR_URL"].replace("http://", f"http://me:{CLIENT_CODE}pw@")
        code, out, err = cli(["--verbose", "ask", "weather in Paris?"], env)
        sent = json.dumps(server.model_requests())
    logged = log_file.read_text(encoding="utf-8")
    assert code == EXIT_OK
    assert "cannot serve /forecast" in logged  # the refusal was logged ...
    for secret in (CLIENT_CODE, f"{CLIENT_CODE}pw"):
        assert secret not in logged + out + err + sent  # ... without the values
