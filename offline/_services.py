"""Both weather services, simulated: an `httpx.MockTransport` with a fault plan per source.

Faults can be asked for one request at a time or always. Hangs and slow answers sleep with
`asyncio.sleep`, so a deadline cancels them as it would a real socket read; huge and dripping
bodies are generated lazily, never held whole.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from offline import _world
from tools.weather import Endpoints

__all__ = ["FORECAST", "GEOCODING", "SOURCES", "WTTR", "Fault", "SimulatedServices"]

Answer = Callable[[httpx.Request], httpx.Response]  # a service's normal answer

HANG_S = 3600.0
# Open-Meteo's own reason for its documented 400.
_INVALID = "Cannot initialize WeatherVariable from invalid String value tempeture_2m"
_HTML = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
_JSON = {"Content-Type": "application/json"}
# Each source's body under other names (drift) or with its numbers gone (nulls).
_RENAMES = {"latitude": "lat", "longitude": "lon", "current": "current_weather", "temp_C": "tempC"}
_NULLED = {"latitude", "longitude", "temperature_2m", "weather_code", "temp_C", "humidity"}


@dataclass(frozen=True, slots=True)
class Fault:
    """One misbehaviour; build it with the class methods (`Fault.status(503)`, …)."""

    kind: str
    code: int = 200
    retry_after: str | None = None
    seconds: float = 0.0
    reason: str = ""

    @classmethod
    def status(cls, code: int, retry_after: float | str | None = None) -> Fault:
        """Answer `code` with an Open-Meteo style error body (and maybe Retry-After)."""
        hint = None if retry_after is None else str(retry_after)
        return cls("status", code=code, retry_after=hint)

    @classmethod
    def invalid_request(cls) -> Fault:
        """Open-Meteo's 400 for a request naming a variable it does not know."""
        return cls("status", code=400, reason=_INVALID)

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
    def huge(cls) -> Fault:
        """Answer 200 with a body of 10 MB, streamed."""
        return cls("huge")

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

    async def apply(self, request: httpx.Request, answer: Answer) -> httpx.Response:
        """The response or exception this fault makes of `request` (`answer` gives the usual)."""
        match self.kind:
            case "status":
                headers = {} if self.retry_after is None else {"Retry-After": self.retry_after}
                reason = self.reason or f"Simulated failure {self.code} for {request.url.host}."
                body = {"error": True, "reason": reason}
                return httpx.Response(self.code, json=body, headers=headers)
            case "elsewhere":
                return httpx.Response(200, json=_world.j1(_world.search("Hanoi")[0]))
            case "hang":
                await asyncio.sleep(HANG_S)
                raise httpx.ReadTimeout("simulated server never answered", request=request)
            case "reset":
                raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
            case "refused":
                raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
            case "html":
                return httpx.Response(200, html=_HTML)
            case "drift":
                return _rewritten(answer(request), lambda k, v: (_RENAMES.get(k, k), v))
            case "nulls":
                return _rewritten(answer(request), lambda k, v: (k, None if k in _NULLED else v))
            case "huge":
                return httpx.Response(200, headers=_JSON, content=_padding())
            case "slow":
                await asyncio.sleep(self.seconds)
                return answer(request)
            case "drip":
                return httpx.Response(200, headers=_JSON, content=_dripping(self.seconds))
            case "not_json":
                text = b"Unknown location; please try ~48.85,2.35"
                return httpx.Response(200, headers=_JSON, content=text)
        raise ValueError(f"no such fault: {self.kind!r}")


async def _padding() -> AsyncIterator[bytes]:
    chunk = b"x" * 65536
    yield b'{"padding": "'
    for _ in range(10_000_000 // len(chunk)):
        yield chunk
    yield b'"}'


async def _dripping(interval: float) -> AsyncIterator[bytes]:
    yield b"{"
    for _ in range(100_000):
        await asyncio.sleep(interval)
        yield b" "


def _rewritten(
    response: httpx.Response, change: Callable[[str, Any], tuple[str, Any]]
) -> httpx.Response:
    """`response`, if a success, with every key and value of its JSON passed through `change`."""

    def rewrite(body: Any) -> Any:
        if isinstance(body, dict):
            return dict(change(key, rewrite(value)) for key, value in body.items())
        return [rewrite(item) for item in body] if isinstance(body, list) else body

    if not response.is_success:
        return response
    return httpx.Response(response.status_code, json=rewrite(response.json()))


# The simulated services, by the names `fail`, `fail_always`, `clear` and `calls` take.
GEOCODING, FORECAST, WTTR = "open-meteo-geocoding", "open-meteo-forecast", "wttr"
SOURCES = (GEOCODING, FORECAST, WTTR)
_ANSWER: dict[str, Answer] = {
    GEOCODING: _world.geocoding,
    FORECAST: _world.forecast,
    WTTR: _world.wttr,
}


class SimulatedServices:
    """Open-Meteo (geocoding and forecast) and wttr.in, offline and deterministic.

    `fail(source, *faults)` queues faults, one consumed per request; `fail_always(source,
    fault)` applies one to every request until `clear(source)`. `calls[source]` lists the
    requests.
    """

    def __init__(self, endpoints: Endpoints | None = None) -> None:
        endpoints = endpoints or Endpoints()
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

    def clear(self, source: str) -> None:
        """Forget the faults of `source`."""
        self._queued[_known(source)].clear()
        self._always.pop(source, None)

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url.copy_with(query=None))
        prefixes = self._prefixes.items()
        source = next((name for name, prefix in prefixes if url.startswith(prefix)), None)
        if source is None:
            return httpx.Response(404, text="no simulated service at this address")
        self.calls[source].append(request)
        queued = self._queued[source]
        fault = (queued.popleft() if queued else None) or self._always.get(source)
        if fault is None:
            return _ANSWER[source](request)
        return await fault.apply(request, _ANSWER[source])


def _address(url: str) -> str:
    return url.split("?", 1)[0].split("#", 1)[0]


def _known(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"unknown simulated source {source!r}; use one of {', '.join(SOURCES)}")
    return source
