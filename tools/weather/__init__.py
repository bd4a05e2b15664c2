"""The `get_weather` tool: Open-Meteo first, wttr.in as the fallback, then a degraded answer.

`Endpoints` is light (the settings read it); `weather_tool` loads the HTTP stack and the
gazetteer, so it is imported on first use (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.weather._endpoints import Endpoints

if TYPE_CHECKING:
    from tools.weather._tool import weather_tool

__all__ = ["Endpoints", "weather_tool"]


def __getattr__(name: str) -> Any:
    if name != "weather_tool":
        raise AttributeError(f"module 'tools.weather' has no attribute {name!r}")
    from tools.weather._tool import weather_tool

    return weather_tool
