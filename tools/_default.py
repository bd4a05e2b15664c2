"""The registry the agent uses: `get_weather` and `calculate`."""

from __future__ import annotations

import httpx

from tools._types import Observer
from tools.calculator import calculate_tool
from tools.middleware import Policy
from tools.registry import Registry
from tools.weather import Endpoints, weather_tool

__all__ = ["default_registry"]


def default_registry(
    client: httpx.AsyncClient,
    *,
    endpoints: Endpoints | None = None,
    policy: Policy | None = None,
    observer: Observer | None = None,
) -> Registry:
    """Both tools, sharing `policy` (and so its retry budget, if it carries one)."""
    weather = weather_tool(client, endpoints=endpoints, policy=policy, observer=observer)
    return Registry([weather, calculate_tool()])
