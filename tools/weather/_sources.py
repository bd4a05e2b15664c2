"""The weather sources: Open-Meteo, the primary, and wttr.in, the fallback.

**Open-Meteo** geocodes the name, then asks for the current weather. Geocoding matches a place
name only, so "Paris, TX" is searched as "Paris"; the rest, split at commas, picks among the
matches by country or region, read with ISO 3166 ("TX", "Texas", "USA", "United States",
"US-TX", and "D.C." as DC). A name with short forms is searched as written, then written
out ("Ft. Worth", then "Fort Worth") until a match has the very name; a region that fits none
of the first five matches is looked for among twenty. Which match answers, its label and
its `note` (a name read as another, a shared name, a region that fits none) are read as
`tools.weather.places` says, for both sources alike. Temperatures are asked for in celsius
(our parameter wins over a configured URL's query) and `current_units` is checked: °F is
converted, any other unit is refused. A 400 for a request this tool built is the tool's own
problem, not the caller's input: it is raised as `RequestRefused`, which error-to-action reads
as an internal error (no retry; the fallback answers).

**wttr.in** is one request, parsed defensively (every value is a string there). Its answers
for unknown places have changed over the years (a 500 with text, a 200 with text labelled
JSON, a 404 with JSON for some other place). Today's form, a non-2xx whose text body starts
"location not found", is recognised as `NotFound`, so it is not retried as an outage; the
fallback chain still does not let it alone decide that a place does not exist. Any other
non-2xx, non-JSON or empty answer is simply unusable. It is also known to answer a name it
does not know with some other place's weather (a 200), and its `nearest_area` is often a
district or town near the place asked for. So the answer's place is checked before it is
believed: against the place Open-Meteo geocoded in this call when there is one (within 50 km;
its label and note are kept), else against the gazetteer's cities of the asked name, read
as Open-Meteo's matches are: the city within 50 km of `nearest_area` answers (its own name, or
an alternate one with a note), a region asked that fits it or no city of the name. A mismatch
is `PlaceMismatch`: not an answer.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from errors import BadSetting, BadUpstreamData, NotFound, OwnFault, UpstreamStatus, redact
from resilience import AttemptInfo
from tools.http import check_http_url, get_capped, get_json, json_answer
from tools.weather.places import (
    NEAR_KM,
    Match,
    Reading,
    choose,
    cities_named,
    country_code_of,
    country_name,
    describe,
    distance_km,
    fits,
    is_fragment,
    name_key,
    names_a_region,
    near,
    spellings,
    split_query,
)
from tools.weather.places import shown as label

__all__ = [
    "FULL_VARIABLES",
    "LIGHT_VARIABLES",
    "OPEN_METEO",
    "WTTR",
    "Endpoints",
    "OpenMeteo",
    "Place",
    "PlaceMismatch",
    "Report",
    "RequestRefused",
    "UnexpectedUnit",
    "Wttr",
    "describe_wmo",
    "describe_wwo",
    "is_unknown_location",
    "parse_current",
    "parse_j1",
    "parse_place",
    "path_segment",
    "split_query",
]


# --- where the services live --------------------------------------------------------------------

# Each URL and the environment variable it comes from, for start-up errors.
_VARIABLES = {
    "geocoding_url": "OPEN_METEO_GEOCODING_URL",
    "forecast_url": "OPEN_METEO_FORECAST_URL",
    "wttr_url": "WTTR_URL",
}


@dataclass(frozen=True, slots=True, repr=False)
class Endpoints:
    """The three URLs `get_weather` calls. Each may carry a query (say `?apikey=…`): it is kept,
    and the tool's own parameters are added to it. The repr masks such keys."""

    geocoding_url: str = "https://geocoding-api.open-meteo.com/v1/search"
    forecast_url: str = "https://api.open-meteo.com/v1/forecast"
    wttr_url: str = "https://wttr.in"

    def __post_init__(self) -> None:
        """A URL that is not http(s) is refused at start-up, named but not echoed."""
        for attribute, variable in _VARIABLES.items():
            check_http_url(variable, getattr(self, attribute))

    def __repr__(self) -> str:
        urls = (self.geocoding_url, self.forecast_url, self.wttr_url)
        return f"Endpoints({', '.join(repr(redact(url)) for url in urls)})"

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, lenient: bool = False) -> Endpoints:
        """From OPEN_METEO_GEOCODING_URL, OPEN_METEO_FORECAST_URL and WTTR_URL, each stripped
        of surrounding whitespace; unset or empty values keep the defaults. `lenient`
        (offline, where no real service is called): a value that is not an http(s) URL keeps
        the default too, rather than being refused."""
        default = cls()
        urls: dict[str, str] = {}
        for attribute, variable in _VARIABLES.items():
            url = env.get(variable, "").strip() or getattr(default, attribute)
            if attribute == "wttr_url":  # its path's trailing slash dropped, any query kept
                parts = urlsplit(url)
                url = urlunsplit(parts._replace(path=parts.path.rstrip("/")))
            if lenient:
                try:
                    check_http_url(variable, url)
                except BadSetting:
                    url = getattr(default, attribute)
            urls[attribute] = url
        return cls(**urls)


# --- WMO weather codes in words -----------------------------------------------------------------

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


# wttr.in's `weatherCode`: WorldWeatherOnline's codes, not WMO's. Its `weatherDesc` is free
# text from upstream and is never shown: the words come from this table or not at all.
_WWO_WORDS = {
    113: "clear", 116: "partly cloudy", 119: "cloudy", 122: "overcast", 143: "mist",
    176: "patchy rain possible", 179: "patchy snow possible", 182: "patchy sleet possible",
    185: "patchy freezing drizzle possible", 200: "thundery outbreaks possible",
    227: "blowing snow", 230: "blizzard", 248: "fog", 260: "freezing fog",
    263: "patchy light drizzle", 266: "light drizzle", 281: "freezing drizzle",
    284: "heavy freezing drizzle", 293: "patchy light rain", 296: "light rain",
    299: "moderate rain at times", 302: "moderate rain", 305: "heavy rain at times",
    308: "heavy rain", 311: "light freezing rain", 314: "moderate or heavy freezing rain",
    317: "light sleet", 320: "moderate or heavy sleet", 323: "patchy light snow",
    326: "light snow", 329: "patchy moderate snow", 332: "moderate snow",
    335: "patchy heavy snow", 338: "heavy snow", 350: "ice pellets",
    353: "light rain shower", 356: "moderate or heavy rain shower",
    359: "torrential rain shower", 362: "light sleet showers",
    365: "moderate or heavy sleet showers", 368: "light snow showers",
    371: "moderate or heavy snow showers", 374: "light showers of ice pellets",
    377: "moderate or heavy showers of ice pellets", 386: "patchy light rain with thunder",
    389: "moderate or heavy rain with thunder", 392: "patchy light snow with thunder",
    395: "moderate or heavy snow with thunder",
}  # fmt: skip


def describe_wwo(code: object) -> str:
    """Words for wttr.in's `weatherCode` ("122" → "overcast"); anything else is
    "conditions not reported"."""
    return _in_words(_WWO_WORDS, as_number(code))


def describe_wmo(code: object) -> str:
    """Words for a WMO code (a JSON number, not text); anything unknown or missing is
    "conditions not reported"."""
    return _in_words(_WORDS, None if isinstance(code, str) else as_number(code))


def _in_words(words: Mapping[int, str], code: float | None) -> str:
    """The words for a whole-number `code` in `words`, else "conditions not reported"."""
    if code is None or code != int(code):
        return "conditions not reported"
    return words.get(int(code), "conditions not reported")


# --- a report, and the values it is made of -----------------------------------------------------

# Outside this range a reading is not weather but a broken feed.
_PLAUSIBLE_C = (-95.0, 65.0)


@dataclass(frozen=True, slots=True)
class Report:
    """Current weather at one place, as one source reported it."""

    city: str
    temperature_c: float
    condition: str
    source: str
    humidity_pct: float | None = None
    note: str | None = None  # e.g. the region asked for fitted no place of that name

    def to_json(self) -> str:
        """The tool's success answer (docs/contracts.md, "The get_weather tool"), plus `note`
        when there is one."""
        body: dict[str, str] = {
            "city": self.city,
            "temperature": f"{_number(self.temperature_c)}°C",
            "condition": self.condition,
        }
        if self.humidity_pct is not None:
            body["humidity"] = f"{_number(self.humidity_pct)}%"
        body["source"] = self.source
        if self.note:
            body["note"] = self.note
        return json.dumps(body, ensure_ascii=False)


def _number(value: float) -> str:
    return f"{round(value, 1):g}"


def celsius(value: object, source: str) -> float:
    """A temperature reading, or `BadUpstreamData`: null, text, NaN or absurd is not one."""
    number = as_number(value)
    if number is None or not _PLAUSIBLE_C[0] <= number <= _PLAUSIBLE_C[1]:
        raise BadUpstreamData(f"{source} sent no usable temperature ({value!r:.40})", source=source)
    return number


def as_number(value: object) -> float | None:
    """A finite number from a JSON number or numeric string (wttr.in sends strings)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def humidity(value: object) -> float | None:
    """Relative humidity, when present and between 0 and 100; otherwise left out."""
    number = as_number(value)
    return number if number is not None and 0 <= number <= 100 else None


# --- Open-Meteo ---------------------------------------------------------------------------------

OPEN_METEO = "open-meteo"
FULL_VARIABLES = "temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m"
LIGHT_VARIABLES = "temperature_2m,weather_code"  # after a timeout: ask for less
GEOCODING_COUNT = 5  # enough matches to choose "Paris, United States" over Paris, France
GEOCODING_WIDE = 20  # when the region asked fits none of those: "Springfield, Oregon"
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


@dataclass
class OpenMeteo:
    """One call's use of Open-Meteo; a place found once is not looked up again on retry."""

    client: httpx.AsyncClient
    endpoints: Endpoints
    city: str
    place: Place | None = None  # known once geocoding answered (wttr.in checks it)

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt: geocode (unless done already), then the current weather."""
        if self.place is None:
            self.place = await self._geocode()
        return await self._current(self.place, light=attempt.after_timeout)

    async def _geocode(self) -> Place:
        """The place asked: the name as written, then with its short forms written out
        ("Ft. Worth", then "Fort Worth") until some match has the very name; a region
        asked that fits none of the first few matches is looked for among more."""
        name, hints = split_query(self.city)
        region_asked = any(names_a_region(hint) for hint in hints)
        found: list[Match] = []
        for spelling in spellings(name):
            matches = await self._search(spelling, GEOCODING_COUNT)
            if matches and region_asked and not any(fits(match, hints) for match in matches):
                matches = await self._search(spelling, GEOCODING_WIDE) or matches
            if any(name_key(match.name) == name_key(name) for match in matches):
                found = matches
                break
            found = found or matches
        return read_place(found, self.city, hints)

    async def _search(self, name: str, count: int) -> list[Match]:
        params: dict[str, str | int | float] = {
            "name": name,
            "count": count,
            "language": "en",
            "format": "json",
        }
        return matches_of(await self._get(self.endpoints.geocoding_url, params))

    async def _current(self, place: Place, *, light: bool) -> Report:
        params: dict[str, str | int | float] = {
            "latitude": place.latitude,
            "longitude": place.longitude,
            "current": LIGHT_VARIABLES if light else FULL_VARIABLES,
            "temperature_unit": "celsius",
        }
        body = await self._get(self.endpoints.forecast_url, params)
        return parse_current(body, place.name, note=place.note)

    async def _get(self, url: str, params: dict[str, str | int | float]) -> Any:
        try:
            return await get_json(self.client, url, source=OPEN_METEO, params=params)
        except UpstreamStatus as exc:
            if exc.status in _REFUSED_OURS:
                raise RequestRefused(
                    f"{OPEN_METEO} refused a request this tool built: {exc.reason}",
                    source=OPEN_METEO,
                ) from exc
            raise


def parse_place(body: Any, city: str, hints: Sequence[str] = ()) -> Place:
    """The place one geocoding answer gives for `city` (its name before any comma) and the
    folded `hints`; no `results` at all, or none that may be read as the name, is no such
    place."""
    return read_place(matches_of(body), city, hints)


def matches_of(body: Any) -> list[Match]:
    """A geocoding answer's matches that have a name and usable coordinates; none for no
    `results`."""
    if not isinstance(body, dict):
        raise BadUpstreamData(f"{OPEN_METEO} geocoding sent {type(body).__name__}, not an object")
    results = body.get("results")
    if results is None or results == []:
        return []
    if not isinstance(results, list) or not all(isinstance(match, dict) for match in results):
        raise BadUpstreamData(
            f"{OPEN_METEO} geocoding results are not a list of places", source=OPEN_METEO
        )
    matches = [match for result in results if (match := _match(result)) is not None]
    if not matches:
        raise BadUpstreamData(
            f"{OPEN_METEO} geocoding matches have no usable name or coordinates",
            source=OPEN_METEO,
        )
    return matches


def read_place(matches: Sequence[Match], city: str, hints: Sequence[str]) -> Place:
    """The match that answers `city`, with its label and note (`tools.weather.places`)."""
    name = split_query(city)[0]
    chosen = choose(name, hints, matches)
    if chosen is None:
        raise NotFound(city, what="place", source=OPEN_METEO)
    label, note = describe(city, name, hints, chosen, matches)
    return Place(label, chosen.latitude, chosen.longitude, chosen.country_code, note)


def _match(result: dict[str, Any]) -> Match | None:
    """One geocoding result as a match, or None without usable coordinates."""
    latitude, longitude = as_number(result.get("latitude")), as_number(result.get("longitude"))
    if latitude is None or longitude is None or abs(latitude) > 90 or abs(longitude) > 180:
        return None
    name = label(result.get("name"))
    if name is None:  # nothing fit to show: not a place this answer can name
        return None
    code, country = _country(result.get("country_code"))
    population = result.get("population")
    feature = result.get("feature_code")
    regions = (label(result.get(key)) for key in _ADMIN_FIELDS)
    return Match(
        name=name,
        country=country,
        country_code=code,
        region=label(result.get("admin1")) or "",
        regions=tuple(region for region in regions if region),
        latitude=latitude,
        longitude=longitude,
        population=population if isinstance(population, int) and population > 0 else None,
        town=not isinstance(feature, str) or feature.startswith("PPL"),
    )


def _country(code: object) -> tuple[str, str]:
    """A result's country as its ISO code and GeoNames' English name for it, or ("", "")
    when GeoNames has no country of that code: never the answer's own `country` text, which
    is free text from upstream (and in the language the request asked for)."""
    code = code.strip().upper() if isinstance(code, str) else ""
    name = country_name(code)  # the code itself when GeoNames has no such country
    return (code, name) if name != code else ("", "")


def parse_current(body: Any, city: str, *, note: str | None = None) -> Report:
    """A report from the forecast's `current` block; a missing or null temperature is bad data,
    and so is a unit other than °C or °F (°F is converted)."""
    current = body.get("current") if isinstance(body, dict) else None
    if not isinstance(current, dict):
        raise BadUpstreamData(f"{OPEN_METEO} forecast has no `current` block", source=OPEN_METEO)
    units = body.get("current_units")
    return Report(
        city=city,
        temperature_c=_temperature(current.get("temperature_2m"), units),
        condition=describe_wmo(current.get("weather_code")),
        source=OPEN_METEO,
        humidity_pct=humidity(current.get("relative_humidity_2m")),
        note=note,
    )


def _temperature(value: object, units: object) -> float:
    """The reading in °C. We ask for celsius, so a missing `current_units` is taken as °C; a
    proxy or a configured URL may still answer in °F, which is converted."""
    unit = units.get("temperature_2m") if isinstance(units, dict) else None
    if unit is None or unit == "°C":
        return celsius(value, OPEN_METEO)
    if unit == "°F":
        if (fahrenheit := as_number(value)) is not None:
            value = round((fahrenheit - 32) * 5 / 9, 2)
        return celsius(value, OPEN_METEO)
    raise UnexpectedUnit(f"{OPEN_METEO} reports temperature in {unit!r:.20}", source=OPEN_METEO)


# --- wttr.in ------------------------------------------------------------------------------------

WTTR = "wttr.in"
_UNKNOWN_LOCATION = b"location not found"


class PlaceMismatch(NotFound):
    """wttr.in answered, but for some other place than the one asked for."""

    def __init__(self, city: str, answered_for: str) -> None:
        super().__init__(city, what="place", source=WTTR)
        self.reason = f"{WTTR} answered for {answered_for!r}, not for {city!r}"


@dataclass(frozen=True, slots=True)
class Area:
    """wttr.in's `nearest_area`: where its answer is for."""

    name: str
    region: str
    country: str
    latitude: float | None
    longitude: float | None

    def describe(self) -> str:
        return ", ".join(part for part in (self.name, self.region, self.country) if part)


@dataclass
class Wttr:
    """One call's use of wttr.in. `known` gives the place Open-Meteo geocoded in this call,
    if it got that far, to check wttr.in's answer against."""

    client: httpx.AsyncClient
    endpoints: Endpoints
    city: str
    known: Callable[[], Place | None]

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt; wttr.in has no lighter variant, so every attempt asks the same."""
        del attempt
        params = {"format": "j1"}
        url = city_url(self.endpoints.wttr_url, self.city)
        response, body = await get_capped(self.client, url, source=WTTR, params=params)
        if is_unknown_location(response, body):
            raise NotFound(self.city, what="place", source=WTTR)
        answer = json_answer(response, body, WTTR)
        report = parse_j1(answer, self.city)
        city, note = checked_label(area_of(answer), self.city, self.known())
        return dataclasses.replace(report, city=city, note=note)


def is_unknown_location(response: httpx.Response, body: bytes) -> bool:
    """Today's "no such place" from wttr.in: an error status with a `location not found` text."""
    return not response.is_success and body.lstrip()[:64].lower().startswith(_UNKNOWN_LOCATION)


def city_url(base: str, city: str) -> str:
    """`{base}/{city}`, the city one encoded segment at the end of the base's path; a query
    the base carries (an API key) stays the query, and `format=j1` is added to it per request.
    """
    parts = urlsplit(base)
    path = f"{parts.path.rstrip('/')}/{path_segment(city)}"
    return urlunsplit(parts._replace(path=path, fragment=""))


def path_segment(city: str) -> str:
    """`city` as one opaque path segment: '/', '?', '#' and even '.' are percent-encoded,
    so `../x` cannot climb out of it and `a?b` cannot start a query."""
    return quote(city, safe="").replace(".", "%2E")


def parse_j1(body: Any, city: str) -> Report:
    """A report from `current_condition[0]`; anything missing there makes the answer unusable."""
    conditions = body.get("current_condition") if isinstance(body, dict) else None
    if not (isinstance(conditions, list) and conditions and isinstance(conditions[0], dict)):
        raise BadUpstreamData(f"{WTTR} answer has no current_condition", source=WTTR)
    current = conditions[0]
    return Report(
        city=city,
        temperature_c=celsius(current.get("temp_C"), WTTR),
        condition=describe_wwo(current.get("weatherCode")),
        source=WTTR,
        humidity_pct=humidity(current.get("humidity")),
    )


def area_of(body: Any) -> Area | None:
    """The answer's `nearest_area[0]`, its country as GeoNames names it (or none), or None
    when it has none."""
    areas = body.get("nearest_area") if isinstance(body, dict) else None
    if not (isinstance(areas, list) and areas and isinstance(areas[0], dict)):
        return None
    area = areas[0]
    code = country_code_of(_value(area.get("country")))
    return Area(
        name=_value(area.get("areaName")),
        region=_value(area.get("region")),
        country=country_name(code) if code else "",  # GeoNames' name: never wttr.in's words
        latitude=as_number(area.get("latitude")),
        longitude=as_number(area.get("longitude")),
    )


def _value(field: object) -> str:
    """`[{"value": "Paris"}]` → "Paris" (only text fit to show)."""
    first = field[0] if isinstance(field, list) and field else None
    return (label(first.get("value")) or "") if isinstance(first, dict) else ""


def checked_label(area: Area | None, city: str, known: Place | None) -> Reading:
    """The label and note for wttr.in's answer once its place is checked; `PlaceMismatch`
    if it is not the place asked for (or says nowhere at all). Checked against the place
    Open-Meteo found in this call when there is one; else read as Open-Meteo's matches are
    (`tools.weather.places.describe`), the gazetteer's cities of the name standing for them."""
    if area is None or not area.name:
        raise PlaceMismatch(city, "an unnamed place")
    name, hints = split_query(city)
    if known is not None:
        if not _is_known(area, known, name):
            raise PlaceMismatch(city, area.describe())
        return Reading(known.name, known.note)
    towns = [Match.of_city(town) for town in cities_named(name)]
    here = _located(area, name, towns)
    if here is None or (is_fragment(name) and name_key(here.name) != name_key(name)):
        raise PlaceMismatch(city, area.describe())
    if hints and not fits(here, hints):
        if not here.country_code:  # a country that cannot be read contradicts nothing
            return Reading(", ".join(part for part in (area.name, area.country) if part), None)
        if any(fits(town, hints) for town in towns):  # the one asked for is elsewhere
            raise PlaceMismatch(city, area.describe())
    matches = towns if here in towns else [here, *towns]
    return describe(city, name, hints, here, matches)


def _located(area: Area, name: str, towns: Sequence[Match]) -> Match | None:
    """The place wttr.in answered for, as a match: the town of the name it lies within
    50 km of (its `areaName` is often a district or the town next door); without
    coordinates, the biggest town of the very name in its country; else the area itself
    when it has the very name (wttr.in's own names, and a test server's, may be anything);
    else None."""
    same_name = name_key(area.name) == name_key(name)
    code = country_code_of(area.country) or ""
    if area.latitude is None or area.longitude is None:
        if same_name:
            alike = (town for town in towns if town.country_code == code)
            return next(alike, None) or _area_match(area, code, 0.0, 0.0)
        return None
    point = _area_match(area, code, area.latitude, area.longitude)
    nearby = next((town for town in towns if near(town, point)), None)
    return nearby or (point if same_name else None)


def _area_match(area: Area, code: str, latitude: float, longitude: float) -> Match:
    regions = (area.region,) if area.region else ()
    return Match(area.name, area.country, code, area.region, regions, latitude, longitude)


def _is_known(area: Area, known: Place, name: str) -> bool:
    """The area is where Open-Meteo placed the city: within 50 km of it or, when the answer
    gives no coordinates, the same name in the same country."""
    if area.latitude is not None and area.longitude is not None:
        point = (area.latitude, area.longitude)
        return distance_km(point, (known.latitude, known.longitude)) <= NEAR_KM
    code = country_code_of(area.country)
    same_country = code is None or not known.country_code or code == known.country_code
    return same_country and name_key(area.name) == name_key(name)
