"""The `get_weather` tool: Open-Meteo first, wttr.in as the fallback, then a degraded answer."""

from tools.weather._endpoints import Endpoints
from tools.weather._tool import weather_tool

__all__ = ["Endpoints", "weather_tool"]
