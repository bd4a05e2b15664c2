"""Every fault at every source, through respx: attempts, waits, who answered, what the model reads.

Open-Meteo is two requests (geocoding, then forecast); a fault at either is a fault of the
"open-meteo" source. For wttr.in the primary is put out of action first with a 401, which is
never retried and costs no sleep, so the sleeps seen are wttr.in's own.

A failure to connect (refused, DNS, connect timeout) is retried at once, with no sleep: no
request left, so there is no server to spare. Every other retry backs off first.

Only one row depends on the source: a 500 "location not found" text is wttr.in's own way of
saying "no such place" (not retried there), but from Open-Meteo it is just a server error.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import respx
from structlog.testing import capture_logs

from tests.tools.fakes import FakeClock
from tests.tools.upstream import (
    FROM_OPEN_METEO,
    FROM_WTTR,
    PARIS_FORECAST,
    PARIS_GEO,
    PARIS_J1,
    REFUSED,
    Script,
    Step,
    ask,
    because,
    body,
    degraded,
    huge,
    mount,
    ok,
    raises,
    status,
)
from tools import Tool

FIELDS = {"tool", "source", "attempt", "error_type", "action", "retryable", "developer_note"}
HTML = b"<!DOCTYPE html><html><body>Bad gateway</body></html>"
NOT_REPEATED = {"developer_note", "action", "retryable", "attempt"}


@dataclass(frozen=True)
class Fault:
    """A fault, and what the middleware must make of it at whichever source it hits."""

    name: str
    steps: tuple[Step, ...]  # the faulty route's answers, the last one repeating
    calls: int  # requests the faulty route receives
    sleeps: tuple[float, ...]  # waits requested before retries (rand pinned to 0.5)
    recovers: bool  # whether the faulty source answers in the end
    error_type: str  # error-to-action's verdict on the first failure…
    action: str  # …and its action


def drifted(source: str) -> Step:
    shapes = {
        "geocoding": {"results": [{"name": "Paris", "lat": 48.85, "lon": 2.35}]},
        "forecast": {"current_weather": {"temperature": 8.8, "weathercode": 63}},
        "wttr": {"current_condition": [{"tempC": "9", "weatherDesc": [{"value": "Overcast"}]}]},
    }
    return ok(shapes[source])


def nulled(source: str) -> Step:
    shapes = {
        "geocoding": {"results": [{"name": "Paris", "latitude": None, "longitude": None}]},
        "forecast": {"current": {"temperature_2m": None, "weather_code": None}},
        "wttr": {"current_condition": [{"temp_C": None, "humidity": None}]},
    }
    return ok(shapes[source])


def healthy(source: str) -> Step:
    return ok({"geocoding": PARIS_GEO, "forecast": PARIS_FORECAST, "wttr": PARIS_J1}[source])


def location_not_found(source: str) -> Fault:
    """wttr.in's "no such place" (today: a 500 in text): a not_found there, a 5xx elsewhere."""
    steps = (lambda _r: httpx.Response(500, text="location not found: Paris"),)
    if source == "wttr":
        return Fault("location not found", steps, 1, (), False, "not_found", "fix_input")
    return Fault("location not found", steps, 2, (0.25,), False, "server_error", "retry")


def faults(source: str) -> list[Fault]:
    """The fault table; `source` changes the healthy answer, the drifted shapes and how a
    "location not found" text is read."""
    good = healthy(source)
    return [
        Fault("503 once", (status(503), good), 2, (0.25,), True, "server_error", "retry"),
        Fault("503 always", (status(503),), 2, (0.25,), False, "server_error", "retry"),
        Fault("500 always", (status(500),), 2, (0.25,), False, "server_error", "retry"),
        Fault("503 + Retry-After 1", (status(503, "1"), good), 2, (1.0,), True,
              "service_unavailable", "wait"),
        Fault("429 Retry-After 2", (status(429, "2"), good), 2, (2.0,), True, "rate_limit", "wait"),
        Fault("429 Retry-After 30", (status(429, "30"),), 1, (), False, "rate_limit", "wait"),
        Fault("429 Retry-After 0", (status(429, "0"), good), 2, (1.0,), True, "rate_limit", "wait"),
        Fault("429 no hint", (status(429),), 3, (0.25, 0.5), False, "rate_limit", "wait"),
        Fault("401", (status(401),), 1, (), False, "auth_invalid_credentials", "fix_input"),
        Fault("403", (status(403),), 1, (), False, "auth_permission_denied", "escalate"),
        Fault("404", (status(404),), 1, (), False, "not_found", "fix_input"),
        # Connect-phase failures never reached a server: their one retry goes at once.
        Fault("refused once", (raises(httpx.ConnectError, "[Errno 111] Connection refused"), good),
              2, (), True, "network", "retry"),
        Fault("refused", (raises(httpx.ConnectError, "[Errno 111] Connection refused"),),
              2, (), False, "network", "retry"),
        Fault("DNS failure", (raises(httpx.ConnectError, "[Errno -2] Name or service not known"),),
              2, (), False, "network", "retry"),
        Fault("connect timeout", (raises(httpx.ConnectTimeout, "timed out"),),
              2, (), False, "timeout", "retry"),
        # The request was sent, and may have reached a struggling server: back off first.
        Fault("reset", (raises(httpx.ReadError, "[Errno 104] Connection reset by peer"),),
              2, (0.25,), False, "network", "retry"),
        Fault("dropped mid-answer", (raises(httpx.RemoteProtocolError,
              "Server disconnected without sending a response."),),
              2, (0.25,), False, "network", "retry"),
        Fault("timeout once", (raises(httpx.ReadTimeout, "timed out"), good),
              2, (0.25,), True, "timeout", "retry"),
        Fault("read timeout", (raises(httpx.ReadTimeout, "timed out"),),
              2, (0.25,), False, "timeout", "retry"),
        Fault("HTML with 200", (body(HTML, "text/html"),), 2, (0.25,), False, "bad_data", "retry"),
        Fault("text labelled JSON", (body(b"Unknown location; please try ~lat,lon",
              "application/json"),), 2, (0.25,), False, "bad_data", "retry"),
        Fault("schema drift", (drifted(source),), 2, (0.25,), False, "bad_data", "retry"),
        Fault("null values", (nulled(source),), 2, (0.25,), False, "bad_data", "retry"),
        Fault("huge body", (huge(),), 2, (0.25,), False, "bad_data", "retry"),
        location_not_found(source),
    ]  # fmt: skip


def cases(*sources: str) -> list[object]:
    return [
        pytest.param(source, fault, id=f"{source}: {fault.name}")
        for source in sources
        for fault in faults(source)
    ]


def backup_says(fault: Fault) -> str:
    """How the degraded answer words what wttr.in did (Open-Meteo turned the key down)."""
    if fault.error_type in {"rate_limit", "service_unavailable"}:
        return "is busy"
    if fault.error_type.startswith("auth_"):
        return REFUSED
    if fault.error_type == "not_found" and fault.action == "fix_input":
        return "did not know the place"
    return "is not answering"


def failed_events(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [event for event in logs if event["event"] == "tool.attempt_failed"]


@pytest.mark.parametrize(("source", "fault"), cases("geocoding", "forecast"))
async def test_open_meteo_fault(
    source: str, fault: Fault, routes: respx.MockRouter, weather: Tool, clock: FakeClock
) -> None:
    """A fault at Open-Meteo is retried as error-to-action says; wttr.in answers if it must."""
    mounted = mount(routes, **{source: Script(*fault.steps)})
    with capture_logs() as logs:
        result = await ask(weather, "Paris")
    assert mounted[source].call_count == fault.calls
    assert clock.sleeps == list(fault.sleeps)
    assert mounted["wttr"].call_count == (0 if fault.recovers else 1)
    assert result.content == (FROM_OPEN_METEO if fault.recovers else FROM_WTTR)
    assert not result.is_error
    failures = failed_events(logs)
    assert len(failures) == fault.calls - fault.recovers
    assert (failures[0]["error_type"], failures[0]["action"]) == (fault.error_type, fault.action)
    assert {event["source"] for event in failures} == {"open-meteo"}


@pytest.mark.parametrize(("source", "fault"), cases("wttr"))
async def test_wttr_fault(
    source: str, fault: Fault, routes: respx.MockRouter, weather: Tool, clock: FakeClock
) -> None:
    """With Open-Meteo refusing the key, a wttr.in fault is handled alike, else degraded."""
    mounted = mount(routes, geocoding=Script(status(401)), wttr=Script(*fault.steps))
    with capture_logs() as logs:
        result = await ask(weather, "Paris")
    assert mounted[source].call_count == fault.calls
    assert clock.sleeps == list(fault.sleeps)
    long_wait = fault.name == "429 Retry-After 30"
    later = "in about 30 seconds" if long_wait else "in a few minutes"
    expected = degraded(later, because(REFUSED, backup_says(fault)))
    assert result.content == (FROM_WTTR if fault.recovers else expected)
    assert not result.is_error
    failures = [event for event in failed_events(logs) if event["source"] == "wttr.in"]
    assert len(failures) == fault.calls - fault.recovers
    assert (failures[0]["error_type"], failures[0]["action"]) == (fault.error_type, fault.action)
    degraded_events = [e for e in logs if e["event"] == "tool.degraded"]
    assert len(degraded_events) == (0 if fault.recovers else 1)
    for event in degraded_events:  # the failure that ended the chain: wttr.in's last
        assert (event["last_source"], event["error_type"]) == (
            "wttr.in",
            failures[-1]["error_type"],
        )
        assert not NOT_REPEATED & event.keys()  # logged once, with that attempt


@pytest.mark.parametrize(("source", "fault"), cases("forecast", "wttr"))
async def test_every_failed_attempt_is_logged_once_with_its_fields(
    source: str, fault: Fault, routes: respx.MockRouter, weather: Tool
) -> None:
    """Each failed attempt is one tool.attempt_failed event carrying error-to-action's fields."""
    primary = {"geocoding": Script(status(401))} if source == "wttr" else {}
    mount(routes, **primary, **{source: Script(*fault.steps)})
    with capture_logs() as logs:
        result = await ask(weather, "Paris")
    failures = failed_events(logs)
    failed_attempts = [a for a in result.attempts if a.outcome != "ok"]
    assert len(failures) == len(failed_attempts)
    for event, attempt in zip(failures, failed_attempts, strict=True):
        assert event.keys() >= FIELDS
        assert (event["source"], event["attempt"]) == (attempt.source, attempt.number)
        assert (event["error_type"], event["action"]) == (attempt.outcome, attempt.action)
        assert event["retryable"] is (event["action"] in {"retry", "wait"})
        assert event["tool"] == "get_weather"
