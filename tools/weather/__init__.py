"""The `get_weather` tool: Open-Meteo first, wttr.in as the fallback, then a degraded answer."""

from tools.weather._endpoints import Endpoints
from tools.weather._open_meteo import FULL_VARIABLES, LIGHT_VARIABLES
from tools.weather._report import Report
from tools.weather._tool import WeatherInput, to_result, weather_tool
from tools.weather._wttr import path_segment

__all__ = [
    "FULL_VARIABLES",
    "LIGHT_VARIABLES",
    "Endpoints",
    "Report",
    "WeatherInput",
    "path_segment",
    "to_result",
    "weather_tool",
]
