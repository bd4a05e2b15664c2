"""The tools the agent has built in: `get_weather` and `calculate`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from resilience import Observer, Policy
from tools._tool import Tool
from tools.calculator import calculate_tool
from tools.weather import Endpoints, weather_tool

if TYPE_CHECKING:
    import httpx

__all__ = ["builtin_tools"]


def builtin_tools(
    client: httpx.AsyncClient | Callable[[], httpx.AsyncClient],
    *,
    endpoints: Endpoints | None = None,
    policy: Policy | None = None,
    observer: Observer | None = None,
) -> list[Tool]:
    """Both tools, sharing `policy` (and so its retry budget, if it carries one); `client`
    may be a function that makes the HTTP client, called on the first weather question."""
    weather = weather_tool(client, endpoints=endpoints, policy=policy, observer=observer)
    return [weather, calculate_tool().bound(policy, observer)]
