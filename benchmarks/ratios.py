"""The ratios, each measured side by side in one run: overhead, fallback cost, concurrency.

Timed pairs are interleaved (and their order alternated) so drift in the machine hits both sides
alike; the headline is the ratio of medians. `sane` is the generous bound `--quick` enforces;
`met` is the aim.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from benchmarks.harness import FaultServerProcess, Run, Urls
from benchmarks.plan import Plan
from benchmarks.scenarios import judge
from benchmarks.scripted_model import answer_line

__all__ = ["Ratio", "concurrency", "fallback_cost", "middleware_overhead"]

Timed = Callable[[int], Awaitable[float]]


@dataclass(frozen=True, slots=True)
class Ratio:
    """One measured ratio, its aim, and whether it is within a sane bound."""

    name: str
    value: float | None
    unit: str
    aim: str
    met: bool | None
    sane: bool
    details: dict[str, float | str] = field(default_factory=dict)


async def middleware_overhead(server: FaultServerProcess, samples: int, latency_s: float) -> Ratio:
    """`get_weather` through the registry and middleware vs the same two bare httpx GETs."""
    await server.apply(_latency(latency_s))
    async with _Pair(server.urls) as pair:
        bare, tool = await _interleaved(pair.bare_open_meteo, pair.tool_call, samples)
    await server.apply(_latency(0.0))
    async with _Pair(server.urls) as pair:
        raw_bare, raw_tool = await _interleaved(pair.bare_open_meteo, pair.tool_call, samples)
    overhead = tool / bare - 1
    return Ratio(
        "middleware overhead, happy path (vs bare httpx)",
        overhead * 100,
        "%",
        "< 5 %",
        overhead < 0.05,
        overhead < 1.0,
        {
            "upstream_latency_ms": latency_s * 1000,
            "bare_ms": bare * 1000,
            "tool_ms": tool * 1000,
            "added_ms_at_0_latency": (raw_tool - raw_bare) * 1000,
            "overhead_pct_at_0_latency": (raw_tool / raw_bare - 1) * 100,
        },
    )


async def fallback_cost(server: FaultServerProcess, samples: int, latency_s: float) -> Ratio:
    """`get_weather` with Open-Meteo refusing connections vs a bare call to wttr.in alone."""
    await server.apply(_latency(latency_s))
    async with _Pair(server.refused_urls) as pair:
        bare, tool = await _interleaved(pair.bare_wttr, pair.tool_call, samples)
    ratio = tool / bare
    return Ratio(
        "primary refusing connections (vs the fallback alone)",
        ratio,
        "×",
        "≤ 1.2×",
        ratio <= 1.2,
        ratio < 50,  # badly broken: waiting on a refused connection as if it were a timeout
        {"upstream_latency_ms": latency_s * 1000, "wttr_ms": bare * 1000, "tool_ms": tool * 1000},
    )


def concurrency(runs: list[Run], scenario: str, forecast_s: float) -> Ratio:
    """Three cities whose forecasts take `forecast_s` each: this agent's time, others beside it."""
    times = {run.contender: run.seconds for run in runs if run.scenario == scenario}
    mine = times.get("this agent")
    details: dict[str, float | str] = {f"{name}_s": t for name, t in times.items()}
    return Ratio(
        f"three cities, forecasts {forecast_s:g} s each",
        mine,
        "s",
        f"≤ {1.3 * forecast_s:g} s",
        None if mine is None else mine <= 1.3 * forecast_s,
        mine is None or mine < 2.5 * forecast_s,
        details,
    )


def _latency(seconds: float) -> Plan:
    return Plan(latency={"geocoding": seconds, "forecast": seconds, "wttr": seconds})


async def _interleaved(first: Timed, second: Timed, samples: int) -> tuple[float, float]:
    """Median seconds of each, over `samples` alternating pairs after two warm-ups."""
    for number in range(2):
        await first(-1 - number)
        await second(-1 - number)
    a: list[float] = []
    b: list[float] = []
    for number in range(samples):
        if number % 2:
            b.append(await second(number))
            a.append(await first(number))
        else:
            a.append(await first(number))
            b.append(await second(number))
    return statistics.median(a), statistics.median(b)


class _Pair:
    """A bare httpx client and the project's tool, both pointed at the same URLs."""

    def __init__(self, urls: Urls) -> None:
        from tools.http import make_client

        self.urls = urls
        self._bare = httpx.AsyncClient()
        self._tools = make_client()

    async def __aenter__(self) -> _Pair:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._bare.aclose()
        await self._tools.aclose()

    async def tool_call(self, number: int) -> float:
        """One `get_weather` as the loop runs it: a fresh tool (as `ask` builds), then dispatch."""
        from tools import Registry
        from tools.weather import Endpoints, weather_tool

        city = _city(number)
        registry = Registry(
            [weather_tool(self._tools, endpoints=Endpoints.from_env(self.urls.env()))]
        )
        started = time.perf_counter()
        result = await registry.dispatch("get_weather", {"city": city})
        elapsed = time.perf_counter() - started
        _check(city, result.content if not result.is_error else "")
        return elapsed

    async def bare_open_meteo(self, number: int) -> float:
        """Geocode and forecast with plain httpx, the least any client must do."""
        city = _city(number)
        started = time.perf_counter()
        geo = await self._bare.get(self.urls.geocoding, params={"name": city, "count": 1})
        match = geo.raise_for_status().json()["results"][0]
        where = {"latitude": match["latitude"], "longitude": match["longitude"]}
        current = "temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m"
        forecast = await self._bare.get(self.urls.forecast, params={**where, "current": current})
        temperature = forecast.raise_for_status().json()["current"]["temperature_2m"]
        elapsed = time.perf_counter() - started
        _check(city, f"{temperature}°C")
        return elapsed

    async def bare_wttr(self, number: int) -> float:
        """One plain httpx GET to wttr.in."""
        city = _city(number)
        started = time.perf_counter()
        response = await self._bare.get(f"{self.urls.wttr}/{city}", params={"format": "j1"})
        temperature = response.raise_for_status().json()["current_condition"][0]["temp_C"]
        elapsed = time.perf_counter() - started
        _check(city, f"{temperature}°C")
        return elapsed


def _city(number: int) -> str:
    return f"Ratio{number + 10:05d}"


def _check(city: str, text: str) -> None:
    """A timing only counts if the answer was right."""
    if judge(answer_line(city, text), (city,)) != "correct":
        raise RuntimeError(f"wrong answer while timing {city}: {text[:120]!r}")
