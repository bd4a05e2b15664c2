"""A bounded soak: many questions at once, random faults everywhere, and nothing may break.

Every question asks about its own cities (one to three, sometimes a place that does not exist),
so the seeded faults, keyed by city and attempt, are the same whatever order requests arrive in.
"""

from __future__ import annotations

import asyncio
import gc
import random
import resource
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.harness import SECRETS, Contender, FaultServerProcess
from benchmarks.leaks import leaks
from benchmarks.plan import ROUTES, Plan
from benchmarks.scenarios import Outcome, judge, question_for

__all__ = ["SoakResult", "questions", "soak"]

QUESTION_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class SoakResult:
    """What the soak saw; `clean` says whether it met its bar."""

    contender: str
    questions: int
    concurrency: int
    fault_rate: float
    seconds: float
    outcomes: dict[str, int]
    crashes: dict[str, int]
    protocol_errors: int
    leaks: int
    leak_markers: dict[str, int]
    secret_hits: int
    model_calls: int
    faults_injected: int
    p50_s: float
    p99_s: float
    max_s: float
    peak_rss_mb: float
    rss_growth_mb: float
    rss_after_mb: float
    examples: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """Zero crashes, hangs, wrong numbers, protocol errors and leaks."""
        broken = self.outcomes.get("wrong", 0) + sum(self.crashes.values())
        return broken + self.protocol_errors + self.leaks + self.secret_hits == 0


def questions(count: int, seed: int) -> list[tuple[str, ...]]:
    """The cities of each question: one to three, and now and then a place that does not exist."""
    asked = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        cities = [f"Soak{number:04d}{letter}" for letter in "abc"[: rng.choice((1, 1, 2, 3))]]
        if rng.random() < 0.1:
            cities[-1] = f"Nowhere{number:04d}"
        asked.append(tuple(cities))
    return asked


async def soak(
    server: FaultServerProcess,
    contender: Contender,
    count: int,
    *,
    concurrency: int = 20,
    fault_rate: float = 0.2,
    seed: int = 7,
) -> SoakResult:
    """Ask `count` questions, `concurrency` at a time, with faults at every route."""
    plan = Plan(seed=seed, random_rate=fault_rate, random_routes=ROUTES, secrets=SECRETS)
    await server.apply(plan)
    rss_before = _peak_rss_mb()
    gate = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    asked = questions(count, seed)
    results = await asyncio.gather(*(_one(contender, server, cities, gate) for cities in asked))
    seconds = time.perf_counter() - started
    report = await server.report()
    found = leaks(report.tool_results, plan.secrets)
    latencies = sorted(r[2] for r in results)
    return SoakResult(
        contender=contender.name,
        questions=count,
        concurrency=concurrency,
        fault_rate=fault_rate,
        seconds=seconds,
        outcomes=dict(Counter(r[0] for r in results)),
        crashes=dict(Counter(r[1] for r in results if r[1])),
        protocol_errors=len(report.protocol_errors),
        leaks=len(found),
        leak_markers=dict(Counter(m for markers in found.values() for m in markers)),
        secret_hits=report.secret_hits,
        model_calls=report.model_calls,
        faults_injected=report.faults_injected,
        p50_s=statistics.median(latencies),
        p99_s=_percentile(latencies, 0.99),
        max_s=latencies[-1],
        peak_rss_mb=_peak_rss_mb(),
        rss_growth_mb=_peak_rss_mb() - rss_before,
        rss_after_mb=_rss_now_mb(),
        examples=[report.tool_results[tid][:160] for tid in list(found)[:3]]
        + report.protocol_errors[:2],
    )


async def _one(
    contender: Contender,
    server: FaultServerProcess,
    cities: tuple[str, ...],
    gate: asyncio.Semaphore,
) -> tuple[Outcome, str | None, float]:
    async with gate:
        started = time.perf_counter()
        try:
            ask = contender.ask(question_for(cities), server.urls)
            text = await asyncio.wait_for(ask, QUESTION_TIMEOUT_S)
        except TimeoutError:
            return "no answer", "hung", time.perf_counter() - started
        except Exception as exc:  # counted: a crash is what the soak looks for
            return "no answer", type(exc).__name__, time.perf_counter() - started
        return judge(text, cities), None, time.perf_counter() - started


def _percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _rss_now_mb() -> float:
    """Resident memory now, after a collection (Linux; else the peak)."""
    gc.collect()
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return _peak_rss_mb()
    return pages * resource.getpagesize() / (1024 * 1024)


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
