"""The `get_weather` tool: Open-Meteo first, wttr.in as the fallback, then a degraded answer.

`_tool.py` is the tool (its input, the call through the engine, the degraded answer);
`_sources.py` the two services and what their answers must be to be believed; `places.py`
the names, regions and the gazetteer both use.
"""

from tools.weather._sources import OPEN_METEO, WTTR, Endpoints, Report
from tools.weather._tool import DESCRIPTION, WeatherInput, degraded_json, weather_tool

__all__ = [
    "DESCRIPTION",
    "OPEN_METEO",
    "WTTR",
    "Endpoints",
    "Report",
    "WeatherInput",
    "degraded_json",
    "weather_tool",
]
