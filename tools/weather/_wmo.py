"""WMO weather interpretation codes (Open-Meteo's `weather_code`) in words."""

from __future__ import annotations

import math

__all__ = ["describe_wmo"]

_WORDS = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "depositing rime fog",
    51: "light drizzle",
    53: "moderate drizzle",
    55: "dense drizzle",
    56: "light freezing drizzle",
    57: "dense freezing drizzle",
    61: "slight rain",
    63: "moderate rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "heavy freezing rain",
    71: "slight snow",
    73: "moderate snow",
    75: "heavy snow",
    77: "snow grains",
    80: "slight rain showers",
    81: "moderate rain showers",
    82: "violent rain showers",
    85: "slight snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with slight hail",
    99: "thunderstorm with heavy hail",
}


def describe_wmo(code: object) -> str:
    """Words for a WMO code; anything unknown or missing is "conditions not reported"."""
    if isinstance(code, bool) or not isinstance(code, int | float):
        return "conditions not reported"
    if not math.isfinite(code) or code != int(code):  # int(inf) would raise, not describe
        return "conditions not reported"
    return _WORDS.get(int(code), "conditions not reported")
