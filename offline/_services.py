"""Both weather services, simulated: an `httpx.MockTransport` with a fault plan per source."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import httpx

from offline import _weather_wire as _answers
from offline._faults import Fault
from tools.weather import Endpoints

__all__ = ["FORECAST", "GEOCODING", "SOURCES", "WTTR", "SimulatedServices"]

# The simulated services, by the names `fail`, `fail_always`, `clear` and `calls` take.
GEOCODING, FORECAST, WTTR = "open-meteo-geocoding", "open-meteo-forecast", "wttr"
SOURCES = (GEOCODING, FORECAST, WTTR)

_ANSWER: dict[str, Callable[[httpx.Request], httpx.Response]] = {
    GEOCODING: _answers.geocoding,
    FORECAST: _answers.forecast,
    WTTR: _answers.wttr,
}


class SimulatedServices:
    """Open-Meteo (geocoding and forecast) and wttr.in, offline and deterministic.

    `fail(source, *faults)` queues faults, one consumed per request; `fail_always(source,
    fault)` applies one to every request until `clear()`. `calls[source]` lists the requests.
    """

    def __init__(self, endpoints: Endpoints | None = None) -> None:
        self.endpoints = endpoints = endpoints or Endpoints()
        self._prefixes = {  # an endpoint's own query (an API key) is not part of its address
            GEOCODING: _address(endpoints.geocoding_url),
            FORECAST: _address(endpoints.forecast_url),
            WTTR: _address(endpoints.wttr_url).rstrip("/") + "/",
        }
        self.calls: dict[str, list[httpx.Request]] = {source: [] for source in SOURCES}
        self._queued: dict[str, deque[Fault]] = {source: deque() for source in SOURCES}
        self._always: dict[str, Fault] = {}
        self.transport = httpx.MockTransport(self._handle)

    def fail(self, source: str, *faults: Fault) -> None:
        """Queue `faults` for the next requests to `source`, in order."""
        self._queued[_known(source)].extend(faults)

    def fail_always(self, source: str, fault: Fault) -> None:
        """Apply `fault` to every request to `source` (after any queued ones)."""
        self._always[_known(source)] = fault

    def clear(self, source: str | None = None) -> None:
        """Forget the faults of `source`, or of every source."""
        for name in SOURCES if source is None else (_known(source),):
            self._queued[name].clear()
            self._always.pop(name, None)

    def _source_of(self, request: httpx.Request) -> str | None:
        url = str(request.url.copy_with(query=None))
        prefixes = self._prefixes.items()
        return next((name for name, prefix in prefixes if url.startswith(prefix)), None)

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        source = self._source_of(request)
        if source is None:
            return httpx.Response(404, text="no simulated service at this address")
        self.calls[source].append(request)
        fault = self._queued[source].popleft() if self._queued[source] else None
        fault = fault or self._always.get(source)
        if fault is None:
            return _ANSWER[source](request)
        return await fault.apply(request, lambda: _ANSWER[source](request))


def _address(url: str) -> str:
    return url.split("?", 1)[0].split("#", 1)[0]


def _known(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"unknown simulated source {source!r}; use one of {', '.join(SOURCES)}")
    return source
