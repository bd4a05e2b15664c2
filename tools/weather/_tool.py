"""`get_weather`: Open-Meteo, then wttr.in, then an honest "unavailable"."""

from __future__ import annotations

import unicodedata

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from errors import classify
from tools._tool import Tool
from tools._types import Observer, ToolResult
from tools.middleware import Outcome, Policy, Resilience, Source
from tools.weather import _open_meteo, _wttr
from tools.weather._endpoints import Endpoints
from tools.weather._report import Report, degraded_json

__all__ = ["WeatherInput", "to_result", "weather_tool"]

DESCRIPTION = (
    "Get the current weather for a city: temperature, conditions and, when known, humidity. "
    "Use it when the user asks about weather, temperature or rain somewhere. "
    'If every weather service is down, the answer has "degraded": true and no numbers; '
    "tell the user the weather is unavailable rather than guessing."
)


class WeatherInput(BaseModel):
    """The tool's input, validated before any request is made."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")

    city: str = Field(
        min_length=1,
        max_length=100,
        description="The city's name, e.g. 'Paris' or 'New York'.",
    )

    @field_validator("city")
    @classmethod
    def _looks_like_a_name(cls, value: str) -> str:
        if any(unicodedata.category(ch).startswith("C") for ch in value):
            raise ValueError("contains control characters")
        if not any(ch.isalpha() for ch in value):
            raise ValueError("contains no letters")
        return value


def weather_tool(
    client: httpx.AsyncClient,
    *,
    endpoints: Endpoints | None = None,
    policy: Policy | None = None,
    observer: Observer | None = None,
) -> Tool:
    """The `get_weather` tool, with its own circuit breakers (one per source)."""
    service = _Weather(
        client, endpoints or Endpoints(), Resilience("get_weather", policy, observer)
    )
    return Tool(
        name="get_weather",
        description=DESCRIPTION,
        input_model=WeatherInput,
        handler=service.answer,
        activity="getting the weather",
    )


class _Weather:
    """The tool's state: the client, the endpoints and the middleware (breakers, budget)."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, resilience: Resilience):
        self._client = client
        self._endpoints = endpoints
        self._resilience = resilience

    async def answer(self, args: WeatherInput) -> ToolResult:
        operation = f"getting the weather for {args.city}"
        outcome = await self._resilience.run(operation, self._sources(args.city))
        return to_result(outcome, args.city, operation)

    def _sources(self, city: str) -> list[Source[Report]]:
        """Open-Meteo, then wttr.in, each fresh for this call; only Open-Meteo's "no such
        place" is believed (wttr.in's answers for unknown places have changed too often)."""
        primary = _open_meteo.OpenMeteo(self._client, self._endpoints, city)
        fallback = _wttr.Wttr(self._client, self._endpoints, city)
        return [
            Source(_open_meteo.SOURCE, primary.fetch),
            Source(_wttr.SOURCE, fallback.fetch, trusted_not_found=False),
        ]


def to_result(outcome: Outcome[Report], city: str, operation: str) -> ToolResult:
    """The one `ToolResult` for a call: a report, a place to correct, or a degraded answer."""
    if outcome.value is not None:
        return ToolResult(outcome.value.to_json(), attempts=outcome.attempts)
    if outcome.fix is not None:
        return ToolResult.failed(classify(outcome.fix, operation).result, outcome.attempts)
    return ToolResult(degraded_json(city, outcome.retry_after_s), attempts=outcome.attempts)
