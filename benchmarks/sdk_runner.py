"""The anthropic SDK's own tool runner, with `get_weather` written the way a typical user writes it.

An idiomatic `@beta_async_tool` over httpx and Open-Meteo only: `raise_for_status()`, a
`ValueError` for an unknown place, no retry and no fallback, because the runner offers neither.
The runner sends `repr(exc)` of a failing tool to the model and runs tool calls one at a time.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from anthropic import AsyncAnthropic
from anthropic.lib.tools import BetaAsyncFunctionTool, beta_async_tool

__all__ = ["MODEL", "ask", "weather_tool"]

MODEL = "claude-sonnet-4-6"
WeatherTool = BetaAsyncFunctionTool[Any]
_CURRENT = "temperature_2m,relative_humidity_2m,weather_code"


def weather_tool(http: httpx.AsyncClient, geocoding_url: str, forecast_url: str) -> WeatherTool:
    """A `get_weather` tool bound to an HTTP client and the Open-Meteo endpoints."""

    @beta_async_tool
    async def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: The city name, e.g. "Bonn".
        """
        geo = await http.get(geocoding_url, params={"name": city, "count": 1})
        geo.raise_for_status()
        results = geo.json().get("results")
        if not results:
            raise ValueError(f"City not found: {city}")
        place = results[0]
        params = {"latitude": place["latitude"], "longitude": place["longitude"]}
        forecast = await http.get(forecast_url, params={**params, "current": _CURRENT})
        forecast.raise_for_status()
        current = forecast.json()["current"]
        return json.dumps(
            {
                "city": place["name"],
                "temperature": f"{current['temperature_2m']}°C",
                "humidity": f"{current['relative_humidity_2m']}%",
            }
        )

    return get_weather


async def ask(client: AsyncAnthropic, question: str, tool: WeatherTool) -> str:
    """Run the tool runner to the end and return the final text."""
    runner = client.beta.messages.tool_runner(
        model=MODEL,
        max_tokens=1024,
        tools=[tool],
        messages=[{"role": "user", "content": question}],
        thread=False,
    )
    final = await runner.until_done()
    return "".join(block.text for block in final.content if block.type == "text")
