"""Open-Meteo and wttr.in answers in the shapes the real services send (fields, units, errors)."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from benchmarks.plan import Route
from benchmarks.world import Place, conditions_at, place
from offline._world import Area, Reading, current_payload, j1_payload, no_match

__all__ = ["CANARY", "GARBAGE", "answer", "failure", "request_key"]

# In every error body: if it ever reaches the model, an upstream body (with a secret) leaked.
CANARY = "token=bench-canary-5f1c9e"
GARBAGE = f"<html><body>502 Bad Gateway <!-- {CANARY} --></body></html>"

Json = dict[str, Any]
Answer = tuple[int, Json | str]

_UNITS = {
    "temperature_2m": "°C",
    "apparent_temperature": "°C",
    "relative_humidity_2m": "%",
    "weather_code": "wmo code",
    "wind_speed_10m": "km/h",
    "wind_direction_10m": "°",
    "precipitation": "mm",
    "cloud_cover": "%",
    "is_day": "",
}


def request_key(route: Route, path: str, query: dict[str, str]) -> str:
    """What identifies the subject of a request: a name, a coordinate pair or a wttr.in city."""
    if route == "geocoding":
        return query.get("name", "")
    if route == "forecast":
        return f"{query.get('latitude', '')},{query.get('longitude', '')}"
    return unquote(path.removeprefix("/wttr/"))


def answer(route: Route, key: str, query: dict[str, str]) -> Answer:
    """The healthy upstream's answer to a request."""
    if route == "geocoding":
        return 200, _geocoding(place(key))
    if route == "forecast":
        return _forecast(query)
    return _wttr(key)


def failure(route: Route, status: int) -> Answer:
    """An upstream's error answer for a status, in that upstream's style."""
    if route == "wttr":
        return status, f"Service temporarily unavailable ({CANARY})"
    if status == 429:
        reason = "Minutely API request limit exceeded. Please try again in one minute."
        return status, {"error": True, "reason": f"{reason} ({CANARY})"}
    return status, {"error": True, "reason": f"Internal server error ({CANARY})"}


def _geocoding(found: Place | None) -> Json:
    if found is None:
        return no_match()
    result = {
        "id": 2946447,
        "name": found.name,
        "latitude": found.latitude,
        "longitude": found.longitude,
        "elevation": 64.0,
        "feature_code": "PPLA3",
        "country_code": "BL",
        "timezone": "Europe/Berlin",
        "country": "Benchland",
        "admin1": "Loopback",
    }
    return {"results": [result], "generationtime_ms": 0.78}


def _forecast(query: dict[str, str]) -> Answer:
    try:
        here = conditions_at("", float(query["latitude"]), float(query["longitude"]))
    except (KeyError, ValueError):
        return 400, {"error": True, "reason": "Parameter latitude and longitude must be numbers."}
    current = [v for v in query.get("current", "").split(",") if v]
    unknown = [v for v in current if v not in _UNITS]
    if unknown:
        reason = f"Cannot initialize SurfaceVariable from invalid String value {unknown[0]}."
        return 400, {"error": True, "reason": reason}
    readings = {v: (_value(here, v), _UNITS[v]) for v in current}
    payload: Json = current_payload(here.latitude, here.longitude, readings, time=_NOW)
    if not current:  # the other contenders ask for the legacy and hourly forms instead
        del payload["current"], payload["current_units"]
    if query.get("current_weather") == "true":
        payload["current_weather"] = _legacy_current(here)
    if query.get("hourly"):
        payload["hourly"] = _hourly(here, query["hourly"].split(","))
    return 200, payload


_NOW = "2026-11-30T10:00"


def _value(here: Place, variable: str) -> float | int:
    values: dict[str, float | int] = {
        "temperature_2m": here.temperature,
        "apparent_temperature": round(here.temperature - 1.5, 1),
        "relative_humidity_2m": here.humidity,
        "weather_code": here.wmo_code,
        "wind_speed_10m": 12.3,
        "wind_direction_10m": 270,
        "precipitation": 0.0,
        "cloud_cover": 40,
        "is_day": 1,
    }
    return values[variable]


def _legacy_current(here: Place) -> Json:
    return {
        "time": "2026-11-30T10:00",
        "interval": 900,
        "temperature": here.temperature,
        "windspeed": 12.3,
        "winddirection": 270,
        "is_day": 1,
        "weathercode": here.wmo_code,
    }


def _hourly(here: Place, variables: list[str]) -> Json:
    hours = [f"2026-11-30T{h:02d}:00" for h in range(24)]
    series = {"temperature_2m": here.temperature, "relativehumidity_2m": here.humidity}
    series["relative_humidity_2m"] = here.humidity
    return {"time": hours} | {v: [series.get(v, 0)] * 24 for v in variables}


def _wttr(city: str) -> Answer:
    found = place(city)
    if found is None:
        return 500, f"location not found: {city}"
    sky = Reading(found.temperature, found.humidity, found.wwo_code, found.sky, 12.0, "10:00 AM")
    area = Area(found.name, "Benchland", "Loopback", found.latitude, found.longitude)
    return 200, j1_payload(sky, area)
