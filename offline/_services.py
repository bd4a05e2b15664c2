"""Both weather services, simulated: an `httpx.MockTransport` with a fault plan per source.

Faults can be asked for one request at a time or always. Hangs and slow answers sleep with
`asyncio.sleep`, so a deadline cancels them as it would a real socket read; huge and dripping
bodies are generated lazily, never held whole.
"""

from __future__ import annotations

import asyncio
import copy
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from offline import _world as _answers
from offline._world import j1, search
from tools.weather import Endpoints

__all__ = ["FORECAST", "GEOCODING", "SOURCES", "WTTR", "Fault", "SimulatedServices"]


# --- from _faults.py ---

HANG_S = 3600.0
# Open-Meteo's own reasons (its server's RateLimiter and its documented 400).
_DAILY = "Daily API request limit exceeded. Please try again tomorrow."
_MINUTELY = "Minutely API request limit exceeded. Please try again in one minute."
_INVALID = "Cannot initialize WeatherVariable from invalid String value tempeture_2m"
_HTML = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"


@dataclass(frozen=True, slots=True)
class Fault:
    """One misbehaviour; build it with the class methods (`Fault.status(503)`, …)."""

    kind: str
    code: int = 200
    retry_after: str | None = None
    seconds: float = 0.0
    size: int = 0
    reason: str = ""

    @classmethod
    def status(cls, code: int, retry_after: float | str | None = None) -> Fault:
        """Answer `code` with an Open-Meteo style error body (and maybe Retry-After)."""
        hint = None if retry_after is None else str(retry_after)
        return cls("status", code=code, retry_after=hint)

    @classmethod
    def daily_limit(cls) -> Fault:
        """Open-Meteo's 429 for a spent daily allowance, in its own words."""
        return cls("reason", code=429, reason=_DAILY)

    @classmethod
    def minutely_limit(cls) -> Fault:
        """Open-Meteo's 429 for a spent per-minute allowance (a busy spell that passes)."""
        return cls("reason", code=429, reason=_MINUTELY)

    @classmethod
    def invalid_request(cls) -> Fault:
        """Open-Meteo's 400 for a request naming a variable it does not know."""
        return cls("reason", code=400, reason=_INVALID)

    @classmethod
    def elsewhere(cls) -> Fault:
        """wttr.in's 200 for a name it does not know: some other place's weather."""
        return cls("elsewhere")

    @classmethod
    def hang(cls) -> Fault:
        """Accept the request and never answer."""
        return cls("hang")

    @classmethod
    def reset(cls) -> Fault:
        """Drop the connection mid-answer."""
        return cls("reset")

    @classmethod
    def refused(cls) -> Fault:
        """Refuse the connection."""
        return cls("refused")

    @classmethod
    def html(cls) -> Fault:
        """Answer 200 with an HTML error page (a proxy in the way)."""
        return cls("html")

    @classmethod
    def drift(cls) -> Fault:
        """Answer 200 with the data under other names (the schema moved on)."""
        return cls("drift")

    @classmethod
    def nulls(cls) -> Fault:
        """Answer 200 with null where the numbers should be."""
        return cls("nulls")

    @classmethod
    def huge(cls, size: int = 10_000_000) -> Fault:
        """Answer 200 with a body of `size` bytes, streamed."""
        return cls("huge", size=size)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Answer normally, after `seconds`."""
        return cls("slow", seconds=seconds)

    @classmethod
    def drip(cls, interval: float = 0.1) -> Fault:
        """Send headers, then one byte of body every `interval` seconds."""
        return cls("drip", seconds=interval)

    @classmethod
    def not_json(cls) -> Fault:
        """Answer 200 labelled JSON with a plain-text body (wttr.in's "Unknown location")."""
        return cls("not_json")

    async def apply(
        self, request: httpx.Request, normal: Callable[[], httpx.Response]
    ) -> httpx.Response:
        """The response (or exception) this fault makes of `request`."""
        return await _APPLY[self.kind](self, request, normal)


Apply = Callable[[Fault, httpx.Request, Callable[[], httpx.Response]], Awaitable[httpx.Response]]


async def _status(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    headers = {} if fault.retry_after is None else {"Retry-After": fault.retry_after}
    body = {"error": True, "reason": f"Simulated failure {fault.code} for {request.url.host}."}
    return httpx.Response(fault.code, json=body, headers=headers)


async def _reason(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    """An Open-Meteo error body carrying one of its real reasons."""
    return httpx.Response(fault.code, json={"error": True, "reason": fault.reason})


async def _elsewhere(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    return httpx.Response(200, json=j1(search("Hanoi")[0]))


async def _hang(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    await asyncio.sleep(HANG_S)
    raise httpx.ReadTimeout("simulated server never answered", request=request)


async def _reset(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)


async def _refused(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


async def _html(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    return httpx.Response(200, html=_HTML)


async def _drift(fault: Fault, request: httpx.Request, normal: Any) -> httpx.Response:
    return _reshaped(normal(), _drifted)


async def _nulls(fault: Fault, request: httpx.Request, normal: Any) -> httpx.Response:
    return _reshaped(normal(), _nulled)


async def _huge(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    return httpx.Response(200, headers=headers, content=_padding(fault.size))


async def _slow(fault: Fault, request: httpx.Request, normal: Any) -> httpx.Response:
    await asyncio.sleep(fault.seconds)
    response: httpx.Response = normal()
    return response


async def _drip(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    return httpx.Response(200, headers=headers, content=_dripping(fault.seconds))


async def _not_json(fault: Fault, request: httpx.Request, _: Any) -> httpx.Response:
    body = b"Unknown location; please try ~48.85,2.35"
    return httpx.Response(200, headers={"Content-Type": "application/json"}, content=body)


_APPLY: dict[str, Apply] = {
    "status": _status,
    "reason": _reason,
    "elsewhere": _elsewhere,
    "hang": _hang,
    "reset": _reset,
    "refused": _refused,
    "html": _html,
    "drift": _drift,
    "nulls": _nulls,
    "huge": _huge,
    "slow": _slow,
    "drip": _drip,
    "not_json": _not_json,
}


async def _padding(size: int) -> AsyncIterator[bytes]:
    yield b'{"padding": "'
    chunk = b"x" * 65536
    for _ in range(size // len(chunk)):
        yield chunk
    yield b'"}'


async def _dripping(interval: float) -> AsyncIterator[bytes]:
    yield b"{"
    for _ in range(100_000):
        await asyncio.sleep(interval)
        yield b" "


def _reshaped(response: httpx.Response, change: Callable[[Any], Any]) -> httpx.Response:
    if not response.is_success:
        return response
    return httpx.Response(response.status_code, json=change(copy.deepcopy(response.json())))


# Each source's body under other names (drift) or with its numbers gone (nulls).
_RENAMES = {"latitude": "lat", "longitude": "lon", "current": "current_weather", "temp_C": "tempC"}
_NULLED = {"latitude", "longitude", "temperature_2m", "weather_code", "temp_C", "humidity"}


def _drifted(body: Any) -> Any:
    if isinstance(body, dict):
        return {_RENAMES.get(key, key): _drifted(value) for key, value in body.items()}
    return [_drifted(item) for item in body] if isinstance(body, list) else body


def _nulled(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: None if k in _NULLED else _nulled(v) for k, v in body.items()}
    return [_nulled(item) for item in body] if isinstance(body, list) else body


# --- from _services.py ---

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
