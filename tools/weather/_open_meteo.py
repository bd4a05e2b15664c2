"""Open-Meteo, the primary source: geocode the name, then ask for the current weather.

Geocoding matches a place name only, so "Paris, France" is searched as "Paris"; the rest,
split at commas, picks among the few matches by country, country code or region.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from errors import BadUpstreamData, NotFound
from resilience import AttemptInfo
from tools.http import get_json
from tools.weather._endpoints import Endpoints
from tools.weather._report import Report, as_number, celsius, humidity, label
from tools.weather._wmo import describe_wmo

__all__ = [
    "FULL_VARIABLES",
    "GEOCODING_COUNT",
    "LIGHT_VARIABLES",
    "SOURCE",
    "OpenMeteo",
    "Place",
    "parse_current",
    "parse_place",
    "preferred",
    "split_query",
]

SOURCE = "open-meteo"
FULL_VARIABLES = "temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m"
LIGHT_VARIABLES = "temperature_2m,weather_code"  # after a timeout: ask for less
GEOCODING_COUNT = 5  # enough matches to choose "Paris, United States" over Paris, France
_REGION_FIELDS = ("country", "country_code", "admin1")


@dataclass(frozen=True, slots=True)
class Place:
    """A geocoding match."""

    name: str
    latitude: float
    longitude: float


class OpenMeteo:
    """One call's use of Open-Meteo; a place found once is not looked up again on retry."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, city: str) -> None:
        self._client = client
        self._endpoints = endpoints
        self._city = city
        self._place: Place | None = None

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt: geocode (unless done already), then the current weather."""
        if self._place is None:
            self._place = await self._geocode()
        return await self._current(self._place, light=attempt.after_timeout)

    async def _geocode(self) -> Place:
        name, hints = split_query(self._city)
        params: dict[str, str | int | float] = {
            "name": name,
            "count": GEOCODING_COUNT,
            "language": "en",
            "format": "json",
        }
        body = await get_json(
            self._client, self._endpoints.geocoding_url, source=SOURCE, params=params
        )
        return parse_place(body, self._city, hints)

    async def _current(self, place: Place, *, light: bool) -> Report:
        params: dict[str, str | int | float] = {
            "latitude": place.latitude,
            "longitude": place.longitude,
            "current": LIGHT_VARIABLES if light else FULL_VARIABLES,
        }
        body = await get_json(
            self._client, self._endpoints.forecast_url, source=SOURCE, params=params
        )
        return parse_current(body, place.name)


def split_query(city: str) -> tuple[str, tuple[str, ...]]:
    """ "Paris, France" → ("Paris", ("france",)): the name to search, and folded hints."""
    head, _, rest = city.partition(",")
    name = " ".join(head.split()) or city
    return name, tuple(hint for part in rest.split(",") if (hint := _fold(part)))


def _fold(text: str) -> str:
    """Text to compare names by: case, accents and spacing ignored."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.split()).casefold()


def parse_place(body: Any, city: str, hints: Sequence[str] = ()) -> Place:
    """The match that fits `hints` best; no `results` at all means no such place."""
    if not isinstance(body, dict):
        raise BadUpstreamData(f"{SOURCE} geocoding sent {type(body).__name__}, not an object")
    results = body.get("results")
    if results is None or results == []:
        raise NotFound(city, what="place", source=SOURCE)
    if not isinstance(results, list) or not all(isinstance(match, dict) for match in results):
        raise BadUpstreamData(f"{SOURCE} geocoding results are not a list of places", source=SOURCE)
    return _place(preferred(results, hints), city)


def preferred(matches: Sequence[dict[str, Any]], hints: Sequence[str]) -> dict[str, Any]:
    """The first match whose country, country code or region is a hint; else the first."""
    wanted = set(hints)
    return next((match for match in matches if _regions(match) & wanted), matches[0])


def _regions(match: dict[str, Any]) -> set[str]:
    return {_fold(value) for key in _REGION_FIELDS if isinstance(value := match.get(key), str)}


def _place(match: dict[str, Any], city: str) -> Place:
    latitude, longitude = as_number(match.get("latitude")), as_number(match.get("longitude"))
    if latitude is None or longitude is None or abs(latitude) > 90 or abs(longitude) > 180:
        raise BadUpstreamData(f"{SOURCE} geocoding match has no usable coordinates", source=SOURCE)
    name = label(match.get("name")) or split_query(city)[0]
    country = label(match.get("country"))
    return Place(f"{name}, {country}" if country else name, latitude, longitude)


def parse_current(body: Any, city: str) -> Report:
    """A report from the forecast's `current` block; a missing or null temperature is bad data."""
    current = body.get("current") if isinstance(body, dict) else None
    if not isinstance(current, dict):
        raise BadUpstreamData(f"{SOURCE} forecast has no `current` block", source=SOURCE)
    return Report(
        city=city,
        temperature_c=celsius(current.get("temperature_2m"), SOURCE),
        condition=describe_wmo(current.get("weather_code")),
        source=SOURCE,
        humidity_pct=humidity(current.get("relative_humidity_2m")),
    )
