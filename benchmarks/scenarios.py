"""The side-by-side scenarios and the judge of a final answer.

A scenario is a question, a fault plan, and whether a right temperature can be had at all
(some source is up). Each scenario asks about its own cities, so no cache can carry an answer
from one scenario into the next. The scripted model words each city as `"Bonn: 24.1°C."` or
`"Bonn: unavailable."`, so the judge reads those lines and nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from benchmarks.plan import Fault, Plan
from benchmarks.world import place

__all__ = ["SCENARIOS", "Outcome", "Scenario", "judge", "question_for"]

Outcome = Literal["correct", "unavailable", "wrong", "no answer"]
_RANK: dict[Outcome, int] = {"correct": 0, "unavailable": 1, "wrong": 2, "no answer": 3}
FORECAST_DELAY_S = 1.0
_CALM = Plan()


@dataclass(frozen=True, slots=True)
class Scenario:
    """One row group of the table."""

    name: str
    cities: tuple[str, ...]
    plan: Plan = _CALM
    obtainable: bool = True  # a right temperature can be had for every real place
    primary_refused: bool = False  # Open-Meteo URLs point at a closed port

    @property
    def question(self) -> str:
        """The user's question."""
        return question_for(self.cities)


def question_for(cities: tuple[str, ...]) -> str:
    """ "What's the weather in Bonn, Paris and Tokyo?" """
    names = ", ".join(cities[:-1]) + " and " + cities[-1] if len(cities) > 1 else cities[0]
    return f"What's the weather in {names}?"


def _down(*routes: str, status: int = 503) -> tuple[Fault, ...]:
    return tuple(Fault.model_validate({"route": r, "status": status}) for r in routes)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("happy path", ("Bonn",)),
    Scenario("primary 503 once", ("Paris",), Plan(faults=(Fault(route="forecast", times=1),))),
    Scenario("primary refusing connections", ("Lima",), primary_refused=True),
    Scenario("primary down, fallback up", ("Oslo",), Plan(faults=_down("geocoding", "forecast"))),
    Scenario(
        "both down",
        ("Cairo",),
        Plan(faults=_down("geocoding", "forecast", "wttr")),
        obtainable=False,
    ),
    Scenario(
        "429 with Retry-After 1",
        ("Quito",),
        Plan(faults=(Fault(route="geocoding", status=429, retry_after=1, times=1),)),
    ),
    Scenario("unknown city", ("Atlantis",)),
    Scenario(
        "model 529 once", ("Hanoi",), Plan(faults=(Fault(route="messages", status=529, times=1),))
    ),
    Scenario(
        "three cities, forecasts 1 s each",
        ("Tokyo", "Nairobi", "Perth"),
        Plan(latency={"forecast": FORECAST_DELAY_S}),
    ),
)


def judge(text: str | None, cities: tuple[str, ...], obtainable: bool = True) -> Outcome:
    """The worst outcome over the cities: a right number, an honest "unavailable", or neither."""
    if text is None:
        return "no answer"
    outcomes = [_city_outcome(text, city, obtainable) for city in cities]
    return max(outcomes, key=_RANK.__getitem__)


def _city_outcome(text: str, city: str, obtainable: bool) -> Outcome:
    match = re.search(rf"{re.escape(city)}: (?:(-?\d+(?:\.\d+)?)°C|(unavailable))", text)
    found = place(city)
    if match is None:
        return "no answer"
    if match.group(1) is None:
        return "unavailable" if found is not None and obtainable else "correct"
    right = found is not None and any(
        abs(float(match.group(1)) - t) < 0.05 for t in found.temperatures()
    )
    return "correct" if right else "wrong"
