"""`get_weather`: Open-Meteo, then wttr.in, then an honest "unavailable"."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from resilience import Engine, Observer, Outcome, Policy, Source
from tools._result import to_result
from tools._tool import Tool
from tools._types import ToolResult
from tools.weather import _open_meteo, _wttr
from tools.weather._endpoints import Endpoints
from tools.weather._report import Report, degraded_json

__all__ = ["WeatherInput", "weather_tool"]

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
    endpoints = endpoints or Endpoints()
    service = _Weather(client, endpoints, Engine("get_weather", policy, observer))
    return Tool(
        name="get_weather",
        description=DESCRIPTION,
        input_model=WeatherInput,
        handler=service.answer,
        activity="getting the weather",
        rebind=lambda policy, observer: weather_tool(
            client, endpoints=endpoints, policy=policy, observer=observer
        ),
    )


class _Weather:
    """The tool's state: the client, the endpoints and the engine (breakers, budget)."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, engine: Engine):
        self._client = client
        self._endpoints = endpoints
        self._engine = engine

    async def answer(self, args: WeatherInput) -> ToolResult:
        operation = f"getting the weather for {args.city}"
        sources = self._sources(args.city)
        outcome = await self._engine.run(operation, sources, subject=args.city)
        return to_result(outcome, operation, Report.to_json, no_answer=_degraded(args.city))

    def _sources(self, city: str) -> list[Source[Report]]:
        """Open-Meteo, then wttr.in, each fresh for this call; only Open-Meteo's "no such
        place" is believed (wttr.in's answers for unknown places have changed too often)."""
        primary = _open_meteo.OpenMeteo(self._client, self._endpoints, city)
        fallback = _wttr.Wttr(self._client, self._endpoints, city)
        return [
            Source(_open_meteo.SOURCE, primary.fetch),
            Source(_wttr.SOURCE, fallback.fetch, trusted_not_found=False),
        ]


def _degraded(city: str) -> Callable[[Outcome[Report]], ToolResult]:
    """No source answered: an honest "unavailable", with the wait a source asked for."""

    def answer(outcome: Outcome[Report]) -> ToolResult:
        return ToolResult(degraded_json(city, outcome.retry_after_s), attempts=outcome.attempts)

    return answer
