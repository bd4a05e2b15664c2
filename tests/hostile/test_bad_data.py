"""Finding 2 and 3: bad data falls back instead of crashing a tool; error-to-action decides for
every exception a source raises; a bug's sentence promises nothing.

Before: `"weather_code": 1e999` (json gives inf, `int(inf)` raises OverflowError) and 100 KB
of nested arrays (RecursionError) ended as "a problem in this app" and wttr.in was never
asked; a hard-coded list of exception types kept a `ConnectionRefusedError` from another
client from being retried or passed to the fallback; a crashed tool's result said "it will
be tried once more". Now parsing rejects non-finite numbers and deep nesting as bad data.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from agent.cli import EXIT_OK
from benchmarks.hostile_server import HostileServer, Route, echo_tool_results, raw_json
from offline._messages_wire import message_body, tool_use_block
from resilience import Policy
from tests.agent.helpers import assert_error_sentence
from tests.hostile.agents import cli
from tests.tools.upstream import PARIS_FORECAST, PARIS_GEO, PARIS_J1
from tools import Endpoints, Registry, make_client, tool, weather_tool

INFINITE_CODE = (
    b'{"current": {"time": "2025-02-25T15:45", "temperature_2m": 8.8, '
    b'"relative_humidity_2m": 87, "weather_code": 1e999}}'
)
NESTED = b"[" * 50_000 + b"]" * 50_000  # 100 KB of nested arrays
HOSTILE_FORECASTS = {
    "weather_code 1e999": INFINITE_CODE,
    "100 KB of nested arrays": NESTED,
    "NaN temperature": b'{"current": {"temperature_2m": NaN, "weather_code": 3}}',
    "-Infinity humidity": b'{"current": {"temperature_2m": 8, "relative_humidity_2m": -Infinity}}',
}
FAST = Policy(base_backoff_s=0.001, max_backoff_s=0.001)


def weather_server(forecast: Route) -> HostileServer:
    """Open-Meteo whose geocoding works and whose forecast is `forecast`; wttr.in healthy."""
    return HostileServer(
        messages=echo_tool_results(
            message_body(
                tool_use_block("toolu_w", "get_weather", {"city": "Paris"}),
                stop_reason="tool_use",
            )
        ),
        weather={
            "/geocoding": raw_json(json.dumps(PARIS_GEO).encode()),
            "/forecast": forecast,
            "/wttr": raw_json(json.dumps(PARIS_J1).encode()),
        },
    )


def endpoints(server: HostileServer) -> Endpoints:
    env = server.env()
    return Endpoints(
        env["OPEN_METEO_GEOCODING_URL"], env["OPEN_METEO_FORECAST_URL"], env["WTTR_URL"]
    )


@pytest.mark.parametrize("body", HOSTILE_FORECASTS.values(), ids=HOSTILE_FORECASTS.keys())
async def test_a_hostile_forecast_is_bad_data_and_wttr_answers(body: bytes) -> None:
    """Open-Meteo's forecast is unusable: bad data, retried once, then wttr.in answers."""
    with weather_server(raw_json(body)) as server:
        async with make_client() as client:
            tool_ = weather_tool(client, endpoints=endpoints(server), policy=FAST)
            with capture_logs() as logs:
                result = await Registry([tool_]).dispatch("get_weather", {"city": "Paris"})
    assert result.is_error is False
    assert json.loads(result.content)["source"] == "wttr.in"
    assert [(a.source, a.outcome) for a in result.attempts] == [
        ("open-meteo", "bad_data"),
        ("open-meteo", "bad_data"),
        ("wttr.in", "ok"),
    ]
    assert not [e for e in logs if e.get("error_type") == "internal_error"]


def test_agent_ask_falls_back_end_to_end(tmp_path: Path) -> None:
    """The CLI against the loopback model and weather: 1e999 from Open-Meteo, the answer
    from wttr.in, the bad data in the log file — and no "problem in this app"."""
    log = tmp_path / "agent.jsonl"
    with weather_server(raw_json(INFINITE_CODE)) as server:
        code, out, _ = cli(["ask", "weather in Paris?"], server.env(AGENT_LOG_FILE=str(log)))
    assert code == EXIT_OK
    assert json.loads(out)["source"] == "wttr.in"  # the model echoes what it was told
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    failed = [e for e in logged if e["event"] == "tool.attempt_failed"]
    assert [(e["source"], e["error_type"]) for e in failed] == [("open-meteo", "bad_data")] * 2


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_from_any_client_is_retried_then_falls_back() -> None:
    """A plain socket (not httpx) refused: error-to-action calls it network, it is retried
    once at once, and the fallback answers."""
    port = _closed_port()
    tried: list[int] = []

    def primary(city: str) -> str:
        tried.append(port)
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return "never"

    def backup(city: str) -> str:
        return f"{city}: 9°C"

    weather = tool(primary, name="weather", fallbacks=[backup], policy=FAST)
    result = await Registry([weather]).dispatch("weather", {"city": "Paris"})
    assert result.content == "Paris: 9°C"
    assert len(tried) == 2
    assert [(a.source, a.outcome) for a in result.attempts] == [
        ("primary", "network"),
        ("primary", "network"),
        ("backup", "ok"),
    ]


async def test_a_crashed_tool_says_so_and_promises_no_retry() -> None:
    """A bug: internal_error, escalate, tried once; its sentence says it was logged and does
    not promise another try; a fallback, if any, would still be asked."""

    def broken(city: str) -> str:
        raise KeyError("current")

    result = await Registry([tool(broken, policy=FAST)]).dispatch("broken", {"city": "Paris"})
    assert result.is_error is True
    assert result.error is not None
    assert (result.error.error_type, result.error.action.value) == ("internal_error", "escalate")
    assert len(result.attempts) == 1
    assert_error_sentence(result.content)
    assert "once more" not in result.content
    assert "again" not in result.content
    assert "problem in this app" in result.content


async def test_a_good_forecast_still_answers_from_open_meteo() -> None:
    """The control: the same server with a well-formed forecast answers from Open-Meteo."""
    with weather_server(raw_json(json.dumps(PARIS_FORECAST).encode())) as server:
        async with make_client() as client:
            tool_ = weather_tool(client, endpoints=endpoints(server), policy=FAST)
            result = await Registry([tool_]).dispatch("get_weather", {"city": "Paris"})
    assert json.loads(result.content)["source"] == "open-meteo"
