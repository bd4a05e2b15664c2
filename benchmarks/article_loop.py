"""BASELINE: a Python port of the article's "Full working example" (weather-tool-robust.js).

Ported line for line, flaws kept, because they are what the bench measures:

- only the first tool_use of a reply is answered (several cities → the API's 400);
- an exception's message (JS `err.message`, here `str(err)`) is sent to the model, and so is
  "Weather API: HTTP 503";
- `withRetry` retries every failure three times (500 ms, 1 s), ignoring Retry-After;
- no fallback in the full example (Open-Meteo only), no loop bound, the SDK's default settings.

JS `fetch` becomes a shared `httpx.AsyncClient` (fetch shares one pool per process too).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from anthropic import AsyncAnthropic
from anthropic.types import ToolParam

__all__ = ["TOOLS", "ArticleAgent", "with_retry"]

Result = dict[str, Any]
Sleep = Callable[[float], Awaitable[None]]

# --- Error handling utilities ---


async def with_retry(
    fn: Callable[[], Awaitable[Result]],
    max_attempts: int = 3,
    base_delay_s: float = 0.5,
    sleep: Sleep = asyncio.sleep,
) -> Result:
    """The article's `withRetry`: retry on any exception or a `retryable` error object."""
    last_error: Exception | None = None
    for attempt in range(1, max_attempts + 1):
        try:
            result = await fn()
            if result.get("error") and result.get("retryable"):
                raise Exception(result["error"])  # JS: throw new Error(result.error)
            return result
        except Exception as err:
            last_error = err
            if attempt < max_attempts:
                await sleep(base_delay_s * 2 ** (attempt - 1))
    return {"error": f"Failed after {max_attempts} attempts: {last_error}"}


# --- Tool implementation ---

_CODES = {
    0: "Clear sky",
    1: "Mainly clear",
    2: "Partly cloudy",
    3: "Overcast",
    61: "Light rain",
    63: "Moderate rain",
    65: "Heavy rain",
    95: "Thunderstorm",
}

# --- Agent loop ---

TOOLS: list[ToolParam] = [
    {
        "name": "get_weather",
        "description": (
            "Get current weather for a city. "
            "Use when the user asks about weather, temperature, or rain."
        ),
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    }
]
MODEL = "claude-sonnet-4-6"


@dataclass
class ArticleAgent:
    """The article's module: its `client`, its `fetch`, its `get_weather` and its `chat`."""

    client: AsyncAnthropic
    fetch: httpx.AsyncClient
    geocoding_url: str = "https://geocoding-api.open-meteo.com/v1/search"
    forecast_url: str = "https://api.open-meteo.com/v1/forecast"
    sleep: Sleep = field(default=asyncio.sleep)

    async def get_weather(self, tool_input: dict[str, Any]) -> Result:
        """The article's `get_weather({ city })`."""
        city = tool_input.get("city")
        if not city or not isinstance(city, str):
            return {"error": "City name is required and must be a string."}
        return await with_retry(lambda: self._attempt(city), sleep=self.sleep)

    async def _attempt(self, city: str) -> Result:
        geo = await self.fetch.get(f"{self.geocoding_url}?name={quote(city)}&count=1")
        if geo.status_code == 429:
            return {"error": "Rate limited", "retryable": True}
        if not geo.is_success:
            raise Exception(f"Geocoding API: HTTP {geo.status_code}")
        geo_data = geo.json()
        if not geo_data.get("results"):
            return {"error": f'No location found for "{city}". Check the spelling and try again.'}
        first = geo_data["results"][0]
        weather = await self.fetch.get(
            f"{self.forecast_url}?latitude={first['latitude']}&longitude={first['longitude']}"
            "&current_weather=true&hourly=relativehumidity_2m"
        )
        if not weather.is_success:
            raise Exception(f"Weather API: HTTP {weather.status_code}")
        w_data = weather.json()
        current = w_data["current_weather"]
        return {
            "city": f"{first['name']}, {first.get('country')}",
            "temperature": f"{current['temperature']}°C",
            "condition": _CODES.get(current["weathercode"], "Unknown"),
            "humidity": f"{w_data['hourly']['relativehumidity_2m'][0]}%",
        }

    async def chat(self, user_message: str) -> str:
        """The article's `chat(userMessage)`: loop while the model asks for a tool."""
        messages: list[Any] = [{"role": "user", "content": user_message}]
        response = await self._create(messages)
        while response.stop_reason == "tool_use":
            tool_block = next(b for b in response.content if b.type == "tool_use")
            result = await self.get_weather(tool_block.input)
            messages.append({"role": "assistant", "content": response.content})
            content = json.dumps(result, ensure_ascii=False)  # JSON.stringify keeps "°"
            block = {"type": "tool_result", "tool_use_id": tool_block.id, "content": content}
            messages.append({"role": "user", "content": [block]})
            response = await self._create(messages)
        return getattr(response.content[0], "text", "undefined")

    async def _create(self, messages: list[Any]) -> Any:
        return await self.client.messages.create(
            model=MODEL, max_tokens=1024, tools=TOOLS, messages=messages
        )
