"""wttr.in, the fallback: one request, parsed defensively (every value is a string there).

Its answers for unknown places have changed over the years (a 500 with text, a 200 with text
labelled JSON, a 404 with JSON for some other place). Today's form, a non-2xx whose text body
starts "location not found", is recognised as `NotFound`, so it is not retried as an outage;
the fallback chain still does not let it alone decide that a place does not exist. Any other
non-2xx, non-JSON or empty answer is simply unusable.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from errors import BadUpstreamData, NotFound
from resilience import AttemptInfo
from tools.http import get_capped, json_answer
from tools.weather._endpoints import Endpoints
from tools.weather._report import Report, celsius, humidity, label

__all__ = ["SOURCE", "Wttr", "city_url", "is_unknown_location", "path_segment"]

SOURCE = "wttr.in"
_UNKNOWN_LOCATION = b"location not found"


class Wttr:
    """One call's use of wttr.in."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, city: str) -> None:
        self._client = client
        self._url = city_url(endpoints.wttr_url, city)
        self._city = city

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt; wttr.in has no lighter variant, so every attempt asks the same."""
        del attempt
        params = {"format": "j1"}
        response, body = await get_capped(self._client, self._url, source=SOURCE, params=params)
        if is_unknown_location(response, body):
            raise NotFound(self._city, what="place", source=SOURCE)
        return parse_j1(json_answer(response, body, SOURCE), self._city)


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


def _first(conditions: object) -> dict[str, Any]:
    if isinstance(conditions, list) and conditions and isinstance(conditions[0], dict):
        return conditions[0]
    raise BadUpstreamData(f"{SOURCE} answer has no current_condition", source=SOURCE)


def _description(value: object) -> str:
    """`[{"value": "Overcast"}]` → "overcast"."""
    first = value[0] if isinstance(value, list) and value else None
    text = label(first.get("value")) if isinstance(first, dict) else None
    return text.lower() if text else "conditions not reported"
