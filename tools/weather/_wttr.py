"""wttr.in, the fallback: one request, parsed defensively (every value is a string there).

Its answers for unknown places have changed over the years (a 500 with text, a 200 with text
labelled JSON, a 404 with JSON for some other place). Today's form, a non-2xx whose text body
starts "location not found", is recognised as `NotFound`, so it is not retried as an outage;
the fallback chain still does not let it alone decide that a place does not exist. Any other
non-2xx, non-JSON or empty answer is simply unusable.

It is also known to answer a name it does not know with some other place's weather (a 200),
and its `nearest_area` is often a district or town near the place asked for. So the answer's
place is checked before it is believed: against the place Open-Meteo geocoded in this call
when there is one (within 50 km), else against the name and any country or region in the
question, where a different `areaName` still fits if a real city of the asked name lies
within 50 km of it (the gazetteer). A mismatch is `PlaceMismatch`: not an answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from errors import BadUpstreamData, NotFound
from resilience import AttemptInfo
from tools.http import get_capped, json_answer
from tools.weather._endpoints import Endpoints
from tools.weather._gazetteer import cities_named, distance_km
from tools.weather._names import fold, split_query
from tools.weather._open_meteo import Place
from tools.weather._regions import country_code_of, hint_fits
from tools.weather._report import Report, as_number, celsius, humidity, label

__all__ = [
    "SOURCE",
    "Area",
    "PlaceMismatch",
    "Wttr",
    "area_of",
    "checked_label",
    "city_url",
    "is_unknown_location",
    "path_segment",
]

SOURCE = "wttr.in"
_UNKNOWN_LOCATION = b"location not found"
NEAR_KM = 50.0  # wttr.in's nearest_area is often a district or a town next door


class PlaceMismatch(NotFound):
    """wttr.in answered, but for some other place than the one asked for."""

    def __init__(self, city: str, answered_for: str) -> None:
        super().__init__(city, what="place", source=SOURCE)
        self.reason = f"{SOURCE} answered for {answered_for!r}, not for {city!r}"


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


class Wttr:
    """One call's use of wttr.in. `known` gives the place Open-Meteo geocoded in this call,
    if it got that far, to check wttr.in's answer against."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        endpoints: Endpoints,
        city: str,
        known: Callable[[], Place | None] = lambda: None,
    ) -> None:
        self._client = client
        self._url = city_url(endpoints.wttr_url, city)
        self._city = city
        self._known = known

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt; wttr.in has no lighter variant, so every attempt asks the same."""
        del attempt
        params = {"format": "j1"}
        response, body = await get_capped(self._client, self._url, source=SOURCE, params=params)
        if is_unknown_location(response, body):
            raise NotFound(self._city, what="place", source=SOURCE)
        answer = json_answer(response, body, SOURCE)
        report = parse_j1(answer, self._city)
        city = checked_label(area_of(answer), self._city, self._known())
        return Report(city, report.temperature_c, report.condition, SOURCE, report.humidity_pct)


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
    current = _first(body.get("current_condition") if isinstance(body, dict) else None)
    return Report(
        city=city,
        temperature_c=celsius(current.get("temp_C"), SOURCE),
        condition=_description(current.get("weatherDesc")),
        source=SOURCE,
        humidity_pct=humidity(current.get("humidity")),
    )


def area_of(body: Any) -> Area | None:
    """The answer's `nearest_area[0]`, or None when it has none."""
    areas = body.get("nearest_area") if isinstance(body, dict) else None
    if not (isinstance(areas, list) and areas and isinstance(areas[0], dict)):
        return None
    area = areas[0]
    return Area(
        name=_value(area.get("areaName")),
        region=_value(area.get("region")),
        country=_value(area.get("country")),
        latitude=as_number(area.get("latitude")),
        longitude=as_number(area.get("longitude")),
    )


def _value(field: object) -> str:
    """`[{"value": "Paris"}]` → "Paris" (only text fit to show)."""
    first = field[0] if isinstance(field, list) and field else None
    return (label(first.get("value")) or "") if isinstance(first, dict) else ""


def checked_label(area: Area | None, city: str, known: Place | None) -> str:
    """The label for wttr.in's answer once its place is checked; `PlaceMismatch` if it is
    not the place asked for (or says nowhere at all)."""
    if area is None or not area.name:
        raise PlaceMismatch(city, "an unnamed place")
    if known is not None:
        if not _is_known(area, known, split_query(city)[0]):
            raise PlaceMismatch(city, area.describe())
        return known.name
    name, hints = split_query(city)
    code = country_code_of(area.country)
    if not _fits_hints(area, code, hints) or not _same_place(area, name):
        raise PlaceMismatch(city, area.describe())
    regions = [area.region]
    asked_region = code is not None and any(
        hint_fits(h, code, regions) and not hint_fits(h, code) for h in hints
    )
    parts = [name, area.region if asked_region else "", area.country]
    return ", ".join(part for part in parts if part)


def _near(area: Area, point: tuple[float, float]) -> bool:
    if area.latitude is None or area.longitude is None:
        return False
    return distance_km((area.latitude, area.longitude), point) <= NEAR_KM


def _is_known(area: Area, known: Place, name: str) -> bool:
    """The area is where Open-Meteo placed the city: within 50 km of it or, when the answer
    gives no coordinates, the same name in the same country."""
    if area.latitude is not None and area.longitude is not None:
        return _near(area, (known.latitude, known.longitude))
    code = country_code_of(area.country)
    same_country = code is None or not known.country_code or code == known.country_code
    return same_country and fold(area.name) == fold(name)


def _fits_hints(area: Area, code: str | None, hints: tuple[str, ...]) -> bool:
    """Some hint names the area's country or region. A country that cannot be read
    contradicts nothing: wttr.in's own names, and a test server's, may be anything."""
    if not hints or code is None:
        return True
    return any(hint_fits(hint, code, [area.region]) for hint in hints)


def _same_place(area: Area, name: str) -> bool:
    """The area is the place asked for: the same name, or near a real city of that name."""
    if fold(area.name) == fold(name):
        return True
    if area.latitude is None or area.longitude is None:
        return False
    return any(_near(area, (c.latitude, c.longitude)) for c in cities_named(name))


def _first(conditions: object) -> dict[str, Any]:
    if isinstance(conditions, list) and conditions and isinstance(conditions[0], dict):
        return conditions[0]
    raise BadUpstreamData(f"{SOURCE} answer has no current_condition", source=SOURCE)


def _description(value: object) -> str:
    """`[{"value": "Overcast"}]` → "overcast"."""
    first = value[0] if isinstance(value, list) and value else None
    text = label(first.get("value")) if isinstance(first, dict) else None
    return text.lower() if text else "conditions not reported"
