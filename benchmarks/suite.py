"""The whole bench in one run: side by side, ratios, soak, and the checks `--quick` enforces.

A part that cannot run (a package not there yet, a CLI that fails) is recorded in `problems`
and the rest goes on; the checks then say what is broken.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from benchmarks import corpus, ratios, throughput
from benchmarks.contenders import all_contenders
from benchmarks.harness import Contender, FaultServerProcess, Run, run_one
from benchmarks.ratios import Ratio
from benchmarks.scenarios import FORECAST_DELAY_S, SCENARIOS, Scenario
from benchmarks.soak import SoakResult, soak

__all__ = ["AGENT", "Check", "Config", "Results", "run_suite", "side_by_side"]

AGENT = "this agent"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Config:
    """How much to measure; `quick()` is the CI size."""

    soak_questions: int = 1000
    overhead_samples: int = 100
    fallback_samples: int = 30
    e2a_lines: int = 50_000
    cli_lines: int = 50_000
    upstream_latency_s: float = 0.02
    timeout_s: float = 60.0
    seed: int = 7
    scenarios: tuple[Scenario, ...] = SCENARIOS

    @classmethod
    def quick(cls, soak_questions: int = 100) -> Config:
        """Small enough for CI on two cores: well under a minute."""
        return cls(soak_questions, 15, 5, 5_000, 5_000, timeout_s=30.0)


@dataclass(frozen=True, slots=True)
class Check:
    """One "is something badly broken?" verdict."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(slots=True)
class Results:
    """Everything measured."""

    config: Config
    runs: list[Run] = field(default_factory=list)
    ratios: list[Ratio] = field(default_factory=list)
    soak: SoakResult | None = None
    missing: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def checks(self) -> list[Check]:
        """The generous bounds: failing one means the bench or the agent is badly broken."""
        mine = [run for run in self.runs if run.contender == AGENT]
        happy = [run for run in self.runs if run.scenario == self.config.scenarios[0].name]
        return [
            Check("every contender could be built", not self.missing, _join(self.missing)),
            Check("every part of the bench ran", not self.problems, "; ".join(self.problems)),
            Check(
                "every contender answers the happy path",
                bool(happy) and all(r.outcome == "correct" for r in happy),
                _join({r.contender: r.outcome for r in happy if r.outcome != "correct"}),
            ),
            Check("this agent: no crash", all(r.crash is None for r in mine), _bad(mine, "crash")),
            Check(
                "this agent: no protocol error",
                all(r.protocol_errors == 0 for r in mine),
                _bad(mine, "protocol_errors"),
            ),
            Check(
                "this agent: no raw text or secret to the model",
                not any(r.leaked for r in mine),
                ", ".join(r.scenario for r in mine if r.leaked),
            ),
            *(Check(f"ratio not absurd: {r.name}", r.sane, _value(r)) for r in self.ratios),
            self._soak_check(),
        ]

    def _soak_check(self) -> Check:
        if self.config.soak_questions == 0:
            return Check("soak skipped (--soak 0)", True)
        return Check("soak clean", self.soak is not None and self.soak.clean, _soak(self.soak))

    @property
    def broken(self) -> bool:
        """Whether any check failed."""
        return not all(check.ok for check in self.checks())


async def side_by_side(
    server: FaultServerProcess,
    contenders: list[Contender],
    scenarios: tuple[Scenario, ...],
    timeout_s: float,
) -> list[Run]:
    """Every scenario, each contender in turn, after one untimed warm-up each."""
    for contender in contenders:
        await run_one(server, contender, Scenario("warm-up", ("Warmup",)), timeout_s)
    return [
        await run_one(server, contender, scenario, timeout_s)
        for scenario in scenarios
        for contender in contenders
    ]


async def run_suite(config: Config) -> Results:
    """Start the fault server, run every part, stop the server."""
    results = Results(config)
    started = time.perf_counter()
    async with FaultServerProcess() as server:
        contenders, results.missing = all_contenders(server.base)
        try:
            await _parts(server, contenders, results)
        finally:
            for contender in contenders:
                await contender.aclose()
    results.seconds = time.perf_counter() - started
    return results


async def _parts(server: FaultServerProcess, contenders: list[Contender], results: Results) -> None:
    config = results.config
    results.runs = await side_by_side(server, contenders, config.scenarios, config.timeout_s)
    three = next((s for s in config.scenarios if len(s.cities) == 3), None)
    if three is not None:
        results.ratios.append(ratios.concurrency(results.runs, three.name, FORECAST_DELAY_S))
    latency = config.upstream_latency_s
    for name, part in (
        (
            "middleware overhead",
            partial(ratios.middleware_overhead, server, config.overhead_samples, latency),
        ),
        ("fallback cost", partial(ratios.fallback_cost, server, config.fallback_samples, latency)),
        ("in-process throughput", partial(throughput.in_process, config.e2a_lines)),
        ("CLI throughput", partial(throughput.through_cli, config.cli_lines)),
    ):
        measured = await _guarded(name, part, results)
        if measured is not None:
            results.ratios.append(measured)
    scored = await _guarded("real-world corpus", corpus.ratios, results)
    results.ratios.extend(scored or [])
    agent = next((c for c in contenders if c.name == AGENT), None)
    if agent is not None and config.soak_questions > 0:
        soak_part = partial(soak, server, agent, config.soak_questions, seed=config.seed)
        results.soak = await _guarded("soak", soak_part, results)


async def _guarded(name: str, part: Callable[[], Awaitable[T]], results: Results) -> T | None:
    try:
        return await part()
    except Exception as exc:  # a part that cannot run is a finding, not the end of the bench
        where = traceback.extract_tb(exc.__traceback__)[-1]
        results.problems.append(
            f"{name}: {type(exc).__name__}: {exc} ({where.filename}:{where.lineno})"
        )
        return None


def _join(mapping: dict[str, str]) -> str:
    return "; ".join(f"{k}: {v}" for k, v in mapping.items())


def _bad(runs: list[Run], attribute: str) -> str:
    return ", ".join(
        f"{r.scenario} ({getattr(r, attribute)})" for r in runs if getattr(r, attribute)
    )


def _value(ratio: Ratio) -> str:
    return "not measured" if ratio.value is None else f"{ratio.value:.3g} {ratio.unit}"


def _soak(result: SoakResult | None) -> str:
    if result is None:
        return "did not run"
    crashes = sum(result.crashes.values())
    return (
        f"crashes {crashes}, wrong {result.outcomes.get('wrong', 0)}, "
        f"protocol errors {result.protocol_errors}, leaks {result.leaks + result.secret_hits}"
    )
