"""Open-Meteo and wttr.in answers in the shapes the real services send (fields, units, errors)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx

from offline._world import Place, Weather, find, search, weather_at, wwo_of

__all__ = [
    "Area",
    "Reading",
    "current_payload",
    "forecast",
    "geocoding",
    "j1",
    "j1_payload",
    "no_match",
    "wttr",
]


_BAD_COUNT = {"error": True, "reason": "Parameter count must be between 1 and 100."}


def geocoding(request: httpx.Request) -> httpx.Response:
    """`GET …/v1/search?name=…&count=…`: matches the name only, at most `count` of them (10
    unless asked; outside 1–100 is a 400); no match is a 200 without a `results` key."""
    params = request.url.params
    count = _count(params.get("count", "10"))
    if count is None:
        return httpx.Response(400, json=_BAD_COUNT)
    places = search(params.get("name", ""), count)
    body: dict[str, Any] = no_match()
    if places:
        body["results"] = [_geocoding_result(place) for place in places]
    return httpx.Response(200, json=body)


def _count(text: str) -> int | None:
    """The `count` parameter when it is a whole number from 1 to 100."""
    return int(text) if text.isdigit() and 1 <= int(text) <= 100 else None


def _geocoding_result(place: Place) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": place.id,
        "name": place.name,
        "latitude": place.latitude,
        "longitude": place.longitude,
        "feature_code": "PPL",
        "country_code": place.country_code,
        "timezone": place.timezone,
        "population": place.population,
        "country": place.country,
    }
    if place.admin1:  # Open-Meteo leaves out the fields it has no value for
        result["admin1"] = place.admin1
    return result


_UNITS = {"celsius": "°C", "fahrenheit": "°F"}


def forecast(request: httpx.Request) -> httpx.Response:
    """`GET …/v1/forecast?latitude=…&longitude=…&current=a,b,c[&temperature_unit=…]`: echoes
    what was asked for, in the unit asked for (celsius unless told); weather for anywhere. An
    unknown variable or unit is Open-Meteo's own 400."""
    params = request.url.params
    try:
        latitude, longitude = float(params["latitude"]), float(params["longitude"])
    except (KeyError, ValueError):
        return httpx.Response(400, json={"error": True, "reason": "Latitude is required."})
    wanted = [v for v in params.get("current", "").split(",") if v]
    unit = params.get("temperature_unit", "celsius")
    unknown = [v for v in wanted if v not in _VARIABLES] or ([] if unit in _UNITS else [unit])
    if unknown:
        reason = f"Cannot initialize WeatherVariable from invalid String value {unknown[0]}"
        return httpx.Response(400, json={"error": True, "reason": reason})
    weather = weather_at(latitude, longitude)
    body = _forecast_body(latitude, longitude, weather, wanted, _UNITS[unit])
    return httpx.Response(200, json=body)


_VARIABLES = frozenset({"temperature_2m", "relative_humidity_2m", "weather_code", "wind_speed_10m"})


def _forecast_body(
    latitude: float, longitude: float, weather: Weather, wanted: list[str], unit: str = "°C"
) -> dict[str, Any]:
    temperature = weather.temperature_c
    if unit == "°F":
        temperature = round(temperature * 9 / 5 + 32, 1)
    values = {
        "temperature_2m": (temperature, unit),
        "relative_humidity_2m": (weather.humidity_pct, "%"),
        "weather_code": (weather.wmo_code, "wmo code"),
        "wind_speed_10m": (weather.wind_kmh, "km/h"),
    }
    chosen = {name: values[name] for name in wanted if name in values}
    return current_payload(latitude, longitude, chosen)


def current_payload(
    latitude: float,
    longitude: float,
    readings: dict[str, tuple[float | int, str]],
    *,
    time: str = "2025-02-25T15:45",
) -> dict[str, Any]:
    """A forecast answer with a `current` block: each variable asked for, its value and unit
    (`{"temperature_2m": (8.8, "°C")}`), echoed in `current` and `current_units`."""
    return {
        "latitude": round(latitude, 2),
        "longitude": round(longitude, 2),
        "generationtime_ms": 0.14,
        "utc_offset_seconds": 0,
        "timezone": "GMT",
        "current_units": {"time": "iso8601", "interval": "seconds"}
        | {name: unit for name, (_, unit) in readings.items()},
        "current": {"time": time, "interval": 900}
        | {name: value for name, (value, _) in readings.items()},
    }


def no_match() -> dict[str, Any]:
    """Geocoding's answer for a name it does not know: a 200 without a `results` key."""
    return {"generationtime_ms": 0.31}


def wttr(request: httpx.Request) -> httpx.Response:
    """`GET {WTTR}/{city}?format=j1`: every value a string; unknown places get today's 500."""
    segment = request.url.raw_path.split(b"?")[0].rsplit(b"/", 1)[-1]
    city = unquote(segment.decode("ascii", "replace"))
    place = find(city)
    if place is None:
        return httpx.Response(500, text=f"location not found: {city}")
    return httpx.Response(200, json=j1(place))


def j1(place: Place) -> dict[str, Any]:
    """wttr.in's `format=j1` answer for `place`."""
    weather = place.weather
    code, words = wwo_of(weather.wmo_code)
    reading = Reading(weather.temperature_c, weather.humidity_pct, code, words, weather.wind_kmh)
    area = Area(place.name, place.country, place.admin1, place.latitude, place.longitude)
    return j1_payload(reading, area)


@dataclass(frozen=True, slots=True)
class Reading:
    """What wttr.in reports of the current weather (it sends every value as a string)."""

    temperature_c: float
    humidity_pct: int
    wwo_code: int  # WorldWeatherOnline's code, not WMO's
    words: str  # "Overcast"
    wind_kmh: float
    observed: str = "08:37 PM"


@dataclass(frozen=True, slots=True)
class Area:
    """wttr.in's `nearest_area`: the place it says the weather is for."""

    name: str
    country: str
    region: str
    latitude: float
    longitude: float


def j1_payload(reading: Reading, area: Area) -> dict[str, Any]:
    """A `format=j1` answer, every value a string, text fields as `[{"value": …}]` lists."""
    current = {
        "FeelsLikeC": str(round(reading.temperature_c - 1)),
        "humidity": str(reading.humidity_pct),
        "temp_C": str(round(reading.temperature_c)),
        "temp_F": str(round(reading.temperature_c * 9 / 5 + 32)),
        "weatherCode": str(reading.wwo_code),
        "weatherDesc": [{"value": reading.words}],
        "windspeedKmph": str(round(reading.wind_kmh)),
        "observation_time": reading.observed,
    }
    nearest = {
        "areaName": [{"value": area.name}],
        "country": [{"value": area.country}],
        "region": [{"value": area.region}],
        "latitude": f"{area.latitude:.3f}",
        "longitude": f"{area.longitude:.3f}",
    }
    return {
        "current_condition": [current],
        "nearest_area": [nearest],
        "request": [{"query": area.name, "type": "City"}],
        "weather": [],
    }
