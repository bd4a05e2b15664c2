"""Open-Meteo, the primary source: geocode the name, then ask for the current weather.

Geocoding matches a place name only, so "Paris, TX" is searched as "Paris"; the rest, split
at commas, picks among the matches by country or region, read with ISO 3166 ("TX", "Texas",
"USA", "United States", "US-TX" all pick Paris, Texas). When no match fits, the first is used
and the answer says so in a `note`.

Temperatures are asked for in celsius (our parameter wins over a configured URL's query) and
`current_units` is checked: °F is converted, any other unit is refused. A 400 for a request
this tool built is the tool's own problem, not the caller's input: it is raised as
`RequestRefused`, which error-to-action reads as an internal error (no retry; the fallback
answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from errors import BadUpstreamData, NotFound, OwnFault, UpstreamStatus
from resilience import AttemptInfo
from tools.http import get_json
from tools.weather._endpoints import Endpoints
from tools.weather._names import fold, split_query
from tools.weather._regions import hint_fits
from tools.weather._report import Report, as_number, celsius, humidity, label
from tools.weather._wmo import describe_wmo

__all__ = [
    "FULL_VARIABLES",
    "GEOCODING_COUNT",
    "LIGHT_VARIABLES",
    "SOURCE",
    "OpenMeteo",
    "Place",
    "RequestRefused",
    "UnexpectedUnit",
    "parse_current",
    "parse_place",
    "preferred",
    "split_query",
]

SOURCE = "open-meteo"
FULL_VARIABLES = "temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m"
LIGHT_VARIABLES = "temperature_2m,weather_code"  # after a timeout: ask for less
GEOCODING_COUNT = 5  # enough matches to choose "Paris, United States" over Paris, France
_ADMIN_FIELDS = ("admin1", "admin2", "admin3", "admin4")
_REFUSED_OURS = frozenset({400, 422})  # the request we built was refused: a developer's problem


class RequestRefused(OwnFault):
    """Open-Meteo refused a request this tool built (a 400 naming a parameter): retrying or a
    different city cannot help, a developer must, so error-to-action reads it as the app's own
    problem (internal_error, escalate) and wttr.in is asked."""


class UnexpectedUnit(BadUpstreamData):
    """The forecast reports temperatures in a unit this tool does not convert."""


@dataclass(frozen=True, slots=True)
class Place:
    """A geocoding match: its label ("Paris, Texas, United States"), coordinates, country,
    and a note when the question's region fitted none of the matches."""

    name: str
    latitude: float
    longitude: float
    country_code: str = ""
    note: str | None = None


class OpenMeteo:
    """One call's use of Open-Meteo; a place found once is not looked up again on retry."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, city: str) -> None:
        self._client = client
        self._endpoints = endpoints
        self._city = city
        self.place: Place | None = None  # known once geocoding answered (wttr.in checks it)

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt: geocode (unless done already), then the current weather."""
        if self.place is None:
            self.place = await self._geocode()
        return await self._current(self.place, light=attempt.after_timeout)

    async def _geocode(self) -> Place:
        name, hints = split_query(self._city)
        params: dict[str, str | int | float] = {
            "name": name,
            "count": GEOCODING_COUNT,
            "language": "en",
            "format": "json",
        }
        body = await self._get(self._endpoints.geocoding_url, params)
        return parse_place(body, self._city, hints)

    async def _current(self, place: Place, *, light: bool) -> Report:
        params: dict[str, str | int | float] = {
            "latitude": place.latitude,
            "longitude": place.longitude,
            "current": LIGHT_VARIABLES if light else FULL_VARIABLES,
            "temperature_unit": "celsius",
        }
        body = await self._get(self._endpoints.forecast_url, params)
        return parse_current(body, place.name, note=place.note)

    async def _get(self, url: str, params: dict[str, str | int | float]) -> Any:
        try:
            return await get_json(self._client, url, source=SOURCE, params=params)
        except UpstreamStatus as exc:
            if exc.status in _REFUSED_OURS:
                raise RequestRefused(
                    f"{SOURCE} refused a request this tool built: {exc.reason}", source=SOURCE
                ) from exc
            raise


def parse_place(body: Any, city: str, hints: Sequence[str] = ()) -> Place:
    """The match that fits `hints` best; no `results` at all means no such place."""
    if not isinstance(body, dict):
        raise BadUpstreamData(f"{SOURCE} geocoding sent {type(body).__name__}, not an object")
    results = body.get("results")
    if results is None or results == []:
        raise NotFound(city, what="place", source=SOURCE)
    if not isinstance(results, list) or not all(isinstance(match, dict) for match in results):
        raise BadUpstreamData(f"{SOURCE} geocoding results are not a list of places", source=SOURCE)
    match = preferred(results, hints)
    fitted = not hints or _score(match, hints) > 0
    return _place(match, results, city, hints, fitted=fitted)


def preferred(matches: Sequence[dict[str, Any]], hints: Sequence[str]) -> dict[str, Any]:
    """The match most hints fit (a country or a region, by any of its names or codes), the
    earliest among equals; with no hints or no fit, the first."""
    scores = [_score(match, hints) for match in matches]
    best = max(range(len(matches)), key=lambda i: (scores[i], -i))
    return matches[best] if scores[best] > 0 else matches[0]


def _score(match: dict[str, Any], hints: Sequence[str]) -> int:
    return sum(1 for hint in hints if _fits(match, hint))


def _fits(match: dict[str, Any], hint: str) -> bool:
    country = match.get("country_code")
    code = country if isinstance(country, str) else ""
    if hint_fits(hint, code, _admins(match)):
        return True
    name = match.get("country")  # in the answer's own language ("États Unis")
    return isinstance(name, str) and fold(name) == fold(hint)


def _admins(match: dict[str, Any]) -> list[str]:
    return [value for key in _ADMIN_FIELDS if isinstance(value := match.get(key), str)]


def _place(
    match: dict[str, Any],
    matches: Sequence[dict[str, Any]],
    city: str,
    hints: Sequence[str],
    *,
    fitted: bool,
) -> Place:
    latitude, longitude = as_number(match.get("latitude")), as_number(match.get("longitude"))
    if latitude is None or longitude is None or abs(latitude) > 90 or abs(longitude) > 180:
        raise BadUpstreamData(f"{SOURCE} geocoding match has no usable coordinates", source=SOURCE)
    code = match.get("country_code")
    place_label = _label(match, matches, hints, city)
    note = None if fitted else _no_fit_note(city, place_label)
    return Place(place_label, latitude, longitude, code if isinstance(code, str) else "", note)


def _label(
    match: dict[str, Any], matches: Sequence[dict[str, Any]], hints: Sequence[str], city: str
) -> str:
    """ "Paris, France"; with the region when the question named it or when another match
    shares the name and country ("Paris, Texas, United States")."""
    name = label(match.get("name")) or split_query(city)[0]
    region = label(match.get("admin1"))
    country = label(match.get("country"))
    parts = [name]
    if region and region != name and (_region_asked(match, hints) or _shared(match, matches)):
        parts.append(region)
    if country:
        parts.append(country)
    return ", ".join(parts)


def _region_asked(match: dict[str, Any], hints: Sequence[str]) -> bool:
    """Whether a hint named the match's region (not merely its country)."""
    country = match.get("country_code")
    code = country if isinstance(country, str) else ""
    regions = _admins(match)
    return any(hint_fits(h, code, regions) and not hint_fits(h, code) for h in hints)


def _shared(match: dict[str, Any], matches: Sequence[dict[str, Any]]) -> bool:
    key = (match.get("name"), match.get("country_code"))
    return sum(1 for other in matches if (other.get("name"), other.get("country_code")) == key) > 1


def _no_fit_note(city: str, place_label: str) -> str:
    """Says which place the answer is for when the question's region fitted none."""
    name, _, rest = city.partition(",")
    asked = label(" ".join(rest.split()).strip(" ,")) or "the region given"
    where = label(" ".join(name.split())) or "that name"
    return f"No {where} was found in {asked}; this is the weather for {place_label}."


def parse_current(body: Any, city: str, *, note: str | None = None) -> Report:
    """A report from the forecast's `current` block; a missing or null temperature is bad data,
    and so is a unit other than °C or °F (°F is converted)."""
    current = body.get("current") if isinstance(body, dict) else None
    if not isinstance(current, dict):
        raise BadUpstreamData(f"{SOURCE} forecast has no `current` block", source=SOURCE)
    units = body.get("current_units")
    return Report(
        city=city,
        temperature_c=_temperature(current.get("temperature_2m"), units),
        condition=describe_wmo(current.get("weather_code")),
        source=SOURCE,
        humidity_pct=humidity(current.get("relative_humidity_2m")),
        note=note,
    )


def _temperature(value: object, units: object) -> float:
    """The reading in °C. We ask for celsius, so a missing `current_units` is taken as °C; a
    proxy or a configured URL may still answer in °F, which is converted."""
    unit = units.get("temperature_2m") if isinstance(units, dict) else None
    if unit is None or unit == "°C":
        return celsius(value, SOURCE)
    if unit == "°F":
        fahrenheit = as_number(value)
        converted = None if fahrenheit is None else round((fahrenheit - 32) * 5 / 9, 2)
        return celsius(converted if converted is not None else value, SOURCE)
    raise UnexpectedUnit(f"{SOURCE} reports temperature in {unit!r:.20}", source=SOURCE)
