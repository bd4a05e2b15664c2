"""`get_weather`: Open-Meteo, then wttr.in, then an honest "unavailable".

The tool is light: its description and input schema, and an engine (breakers, budget). Its
work (`tools.weather._service`: the HTTP stack, the gazetteer, the country names) is imported
on its first call, and the HTTP client may be given as a function that makes it then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from resilience import Engine, Observer, Policy
from tools._tool import Tool
from tools._types import ToolResult
from tools.weather._endpoints import Endpoints
from tools.weather._input import DESCRIPTION, WeatherInput

if TYPE_CHECKING:
    import httpx

    from tools.weather._service import Weather

__all__ = ["DESCRIPTION", "WeatherInput", "weather_tool"]


def weather_tool(
    client: httpx.AsyncClient | Callable[[], httpx.AsyncClient],
    *,
    endpoints: Endpoints | None = None,
    policy: Policy | None = None,
    observer: Observer | None = None,
) -> Tool:
    """The `get_weather` tool, with its own circuit breakers (one per source). `client` is
    the HTTP client, or a function that makes it on the first call."""
    endpoints = endpoints or Endpoints()
    engine = Engine("get_weather", policy, observer)
    service: Weather | None = None

    async def answer(args: WeatherInput) -> ToolResult:
        nonlocal service
        if service is None:
            from tools.weather._service import Weather

            service = Weather(client if not callable(client) else client(), endpoints, engine)
        return await service.answer(args)

    return Tool(
        name="get_weather",
        description=DESCRIPTION,
        input_model=WeatherInput,
        handler=answer,
        activity="getting the weather",
        rebind=lambda policy, observer: weather_tool(
            client, endpoints=endpoints, policy=policy, observer=observer
        ),
    )
