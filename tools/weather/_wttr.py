"""wttr.in, the fallback: one request, parsed defensively (every value is a string there).

Its answers for unknown places have changed over the years (a 500 with text, a 200 with text
labelled JSON, a 404 with JSON for some other place), so it is never trusted to say "no such
place": any non-2xx, non-JSON or empty answer is simply unusable.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from errors import BadUpstreamData
from tools.http import get_json
from tools.middleware import AttemptInfo
from tools.weather._endpoints import Endpoints
from tools.weather._report import Report, celsius, humidity, label

__all__ = ["SOURCE", "Wttr", "path_segment"]

SOURCE = "wttr.in"


class Wttr:
    """One call's use of wttr.in."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, city: str) -> None:
        self._client = client
        self._url = f"{endpoints.wttr_url.rstrip('/')}/{path_segment(city)}"
        self._city = city

    async def fetch(self, attempt: AttemptInfo) -> Report:
        """One attempt; wttr.in has no lighter variant, so every attempt asks the same."""
        del attempt
        body = await get_json(self._client, self._url, source=SOURCE, params={"format": "j1"})
        return parse_j1(body, self._city)


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
