"""Respx helpers: real response shapes for Paris, scripted side effects, what a model sees."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import respx

from tools import Tool, ToolResult
from tools.weather import Endpoints

END = Endpoints()
GEOCODING, FORECAST, WTTR_PARIS = END.geocoding_url, END.forecast_url, f"{END.wttr_url}/Paris"

PARIS_FRANCE = {
    "id": 2988507, "name": "Paris", "latitude": 48.85341, "longitude": 2.3488,
    "country_code": "FR", "timezone": "Europe/Paris", "country": "France",
    "admin1": "Île-de-France",
}  # fmt: skip
PARIS_GEO = {"results": [PARIS_FRANCE], "generationtime_ms": 0.78}
PARIS_TEXAS = {
    "id": 4717560, "name": "Paris", "latitude": 33.66094, "longitude": -95.55551,
    "country_code": "US", "timezone": "America/Chicago", "country": "United States",
    "admin1": "Texas",
}  # fmt: skip
TWO_PARISES = {"results": [PARIS_FRANCE, PARIS_TEXAS], "generationtime_ms": 0.8}
NO_MATCH = {"generationtime_ms": 0.31}
PARIS_FORECAST = {
    "latitude": 48.86, "longitude": 2.34, "generationtime_ms": 0.14,
    "current_units": {"time": "iso8601", "temperature_2m": "°C", "relative_humidity_2m": "%",
                      "weather_code": "wmo code", "wind_speed_10m": "km/h"},
    "current": {"time": "2025-02-25T15:45", "interval": 900, "temperature_2m": 8.8,
                "relative_humidity_2m": 87, "weather_code": 63, "wind_speed_10m": 28.8},
}  # fmt: skip
PARIS_J1 = {
    "current_condition": [
        {"FeelsLikeC": "8", "humidity": "58", "temp_C": "9", "temp_F": "48",
         "weatherCode": "122", "weatherDesc": [{"value": "Overcast"}],
         "windspeedKmph": "8", "observation_time": "08:37 PM"}
    ],
    "nearest_area": [{"areaName": [{"value": "Paris"}], "country": [{"value": "France"}]}],
    "request": [{"query": "Paris", "type": "City"}],
    "weather": [],
}  # fmt: skip

# Exactly what the model receives.
FROM_OPEN_METEO = (
    '{"city": "Paris, France", "temperature": "8.8°C", "condition": "moderate rain", '
    '"humidity": "87%", "source": "open-meteo"}'
)
FROM_WTTR = (
    '{"city": "Paris, France", "temperature": "9°C", "condition": "overcast", "humidity": "58%", '
    '"source": "wttr.in"}'
)
DEGRADED = (
    '{"city": "Paris", "degraded": true, "message": "Current weather for Paris is unavailable '
    "right now because the weather services are not answering; check a local weather service "
    'or try again in a few minutes."}'
)
ALL_DOWN = "the weather services are not answering"


def degraded(later: str = "in a few minutes", because: str = ALL_DOWN, city: str = "Paris") -> str:
    """The degraded answer for `city`: `because` what happened, "try again {later}"."""
    message = (
        f"Current weather for {city} is unavailable right now because {because}; check a local "
        f"weather service or try again {later}."
    )
    return json.dumps({"city": city, "degraded": True, "message": message}, ensure_ascii=False)


def because(main: str, backup: str) -> str:
    """The degraded answer's reason, from what each source did ("is not answering")."""
    if main == backup:
        return {
            "is not answering": ALL_DOWN,
            "is busy": "the weather services are busy",
            "turned down the request": "the weather services turned down the request",
        }[main]
    return f"the main weather service {main} and the backup one {backup}"


REFUSED = "turned down the request"  # what a 401/403 (or our own 400) is called


async def ask(tool: Tool, city: str) -> ToolResult:
    """Call `tool` as the registry would, with validated input."""
    return await tool.handler(tool.input_model.model_validate({"city": city}))


Step = Callable[[httpx.Request], httpx.Response]


def ok(body: Any) -> Step:
    return lambda _request: httpx.Response(200, json=body)


def status(code: int, retry_after: str | None = None, body: Any = None) -> Step:
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    payload = body if body is not None else {"error": True, "reason": "Simulated."}
    return lambda _request: httpx.Response(code, json=payload, headers=headers)


def raises(kind: type[httpx.TransportError], message: str) -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        raise kind(message, request=request)

    return step


def body(content: bytes, content_type: str) -> Step:
    return lambda _request: httpx.Response(
        200, content=content, headers={"Content-Type": content_type}
    )


def huge(size: int = 10_000_000) -> Step:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"padding": "'
        for _ in range(size // 65536):
            yield b"x" * 65536

    return lambda _request: httpx.Response(
        200, content=chunks(), headers={"Content-Type": "application/json"}
    )


class Script:
    """A respx side effect: its steps in order, the last one repeating."""

    def __init__(self, *steps: Step) -> None:
        self.steps = steps
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.steps[min(len(self.requests), len(self.steps)) - 1](request)


def mount(
    routes: respx.MockRouter,
    *,
    geocoding: Script | None = None,
    forecast: Script | None = None,
    wttr: Script | None = None,
) -> dict[str, respx.Route]:
    """Route the three endpoints, healthy unless a script is given."""
    return {
        "geocoding": routes.get(GEOCODING).mock(side_effect=geocoding or Script(ok(PARIS_GEO))),
        "forecast": routes.get(FORECAST).mock(side_effect=forecast or Script(ok(PARIS_FORECAST))),
        "wttr": routes.get(WTTR_PARIS).mock(side_effect=wttr or Script(ok(PARIS_J1))),
    }


def is_safe_for_a_model(text: str) -> bool:
    """No URL, status code, exception name, traceback or upstream body in `text`."""
    lowered = text.lower()
    banned = ("http", "://", "error:", "exception", "traceback", '{"error"', "<html")
    return not any(word in lowered for word in banned) and not any(
        code in text for code in ("401", "403", "404", "429", "500", "503")
    )


def parsed(content: str) -> dict[str, Any]:
    value = json.loads(content)
    assert isinstance(value, dict)
    return value
