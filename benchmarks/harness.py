"""The fault server as a child process, the URLs that point at it, and one timed run."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Protocol

import httpx

from benchmarks.leaks import leaks
from benchmarks.plan import Plan, Report
from benchmarks.scenarios import Outcome, Scenario, judge
from benchmarks.weather_shapes import CANARY

__all__ = [
    "API_KEY",
    "REPO",
    "SECRETS",
    "Contender",
    "FaultServerProcess",
    "Run",
    "Urls",
    "run_one",
]

REPO = Path(__file__).resolve().parent.parent
API_KEY = "test-key"
SECRETS = (API_KEY, CANARY)  # the model must never see either


@dataclass(frozen=True, slots=True)
class Urls:
    """Where a contender finds the model and the weather services."""

    model: str
    geocoding: str
    forecast: str
    wttr: str

    @classmethod
    def at(cls, base: str, primary: str | None = None) -> Urls:
        """The routes of a fault server at `base`, Open-Meteo's at `primary` if given."""
        primary = primary or base
        return cls(
            model=base,
            geocoding=f"{primary}/geocoding/v1/search",
            forecast=f"{primary}/forecast/v1/forecast",
            wttr=f"{base}/wttr",
        )

    def env(self, api_key: str = API_KEY) -> dict[str, str]:
        """The environment the project's settings read."""
        return {
            "ANTHROPIC_API_KEY": api_key,
            "ANTHROPIC_BASE_URL": self.model,
            "OPEN_METEO_GEOCODING_URL": self.geocoding,
            "OPEN_METEO_FORECAST_URL": self.forecast,
            "WTTR_URL": self.wttr,
        }


class Contender(Protocol):
    """Something that answers a question using the services at `urls`."""

    name: str

    async def ask(self, question: str, urls: Urls) -> str | None:
        """The final answer text, None if there is none; may raise (a crash)."""
        ...

    async def aclose(self) -> None:
        """Release clients."""
        ...


class FaultServerProcess:
    """`python -m benchmarks.fault_server` in a child process, with a closed port beside it."""

    def __init__(self) -> None:
        self._process: asyncio.subprocess.Process | None = None
        self._closed = socket.socket()  # bound, never listening: connections are refused
        self._closed.bind(("127.0.0.1", 0))
        self.base = ""
        self._control: httpx.AsyncClient | None = None

    async def __aenter__(self) -> FaultServerProcess:
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.fault_server",
            cwd=REPO,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert self._process.stdout is not None
        line = await asyncio.wait_for(self._process.stdout.readline(), 15)
        self.base = f"http://127.0.0.1:{json.loads(line)['port']}"
        self._control = httpx.AsyncClient(base_url=self.base, timeout=10)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._control is not None:
            await self._control.aclose()
        if self._process is not None:
            await _stop(self._process)
        self._closed.close()

    @property
    def urls(self) -> Urls:
        """Every route on the fault server."""
        return Urls.at(self.base)

    @property
    def refused_urls(self) -> Urls:
        """Open-Meteo at a port that refuses connections; the rest on the fault server."""
        return Urls.at(self.base, primary=f"http://127.0.0.1:{self._closed.getsockname()[1]}")

    async def apply(self, plan: Plan) -> None:
        """Put a plan in force and reset the counters."""
        assert self._control is not None
        response = await self._control.post("/_bench/plan", content=plan.model_dump_json())
        response.raise_for_status()

    async def report(self) -> Report:
        """What the server saw since the last plan."""
        assert self._control is not None
        response = await self._control.get("/_bench/report")
        response.raise_for_status()
        return Report.model_validate_json(response.content)


@dataclass(frozen=True, slots=True)
class Run:
    """One contender on one scenario."""

    scenario: str
    contender: str
    outcome: Outcome
    seconds: float
    model_calls: int
    protocol_errors: int
    leaks: dict[str, list[str]] = field(default_factory=dict)
    secret_hits: int = 0
    crash: str | None = None
    text: str | None = None

    @property
    def leaked(self) -> bool:
        """Whether raw error text or a secret reached the model."""
        return bool(self.leaks) or self.secret_hits > 0


async def run_one(
    server: FaultServerProcess, contender: Contender, scenario: Scenario, timeout_s: float
) -> Run:
    """Apply the scenario's plan, time the contender's answer, and judge it."""
    plan = scenario.plan.model_copy(update={"secrets": SECRETS})
    await server.apply(plan)
    urls = server.refused_urls if scenario.primary_refused else server.urls
    text, crash, seconds = await _timed(contender.ask(scenario.question, urls), timeout_s)
    report = await server.report()
    return Run(
        scenario=scenario.name,
        contender=contender.name,
        outcome=judge(text, scenario.cities, scenario.obtainable),
        seconds=seconds,
        model_calls=report.model_calls,
        protocol_errors=len(report.protocol_errors),
        leaks=leaks(report.tool_results, plan.secrets),
        secret_hits=report.secret_hits,
        crash=crash,
        text=text,
    )


async def _stop(process: asyncio.subprocess.Process) -> None:
    """Close its stdin (it exits on EOF); kill it only if it does not."""
    assert process.stdin is not None
    process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), 5)
    except TimeoutError:
        process.kill()
        await process.wait()


async def _timed(
    answer: Awaitable[str | None], timeout_s: float
) -> tuple[str | None, str | None, float]:
    started = time.perf_counter()
    try:
        text = await asyncio.wait_for(answer, timeout_s)
    except TimeoutError:
        return None, f"no answer in {timeout_s:.0f} s", time.perf_counter() - started
    except Exception as exc:  # a contender's crash is a result, not the bench's
        return None, type(exc).__name__, time.perf_counter() - started
    return text, None, time.perf_counter() - started
