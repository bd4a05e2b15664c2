"""The demo: every failure pattern, live, in a few seconds.

Offline by default (the scripted model and simulated weather services); with ANTHROPIC_API_KEY
(and without --offline) the same scenarios run against Claude, with the same simulated faults.
For each scenario: the question, the timeline of attempts, what the model was told, what the
developer log recorded, and the answer; then a summary table. Waits are requested through an
injected sleep that records them and returns at once, so nothing here really sleeps.

    python scripts/demo.py [--offline] [--scenario NAME ...] [--otel [console|otlp]]

`--otel console` adds each scenario's OpenTelemetry span tree; `--otel` (or
OTEL_EXPORTER_OTLP_ENDPOINT) sends the spans to an OTLP/HTTP collector instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from structlog.testing import capture_logs
from structlog.typing import EventDict

from agent import otel
from agent.app import claude_models, open_agent
from agent.console import trace_table
from agent.log import shared_processors
from agent.loop import Answer
from agent.models import ModelBackend
from agent.settings import Settings
from agent.terminal import for_terminal
from offline import (
    GEOCODING,
    WTTR,
    Fault,
    FlakyModel,
    MangledInputModel,
    OfflineModel,
    SimulatedServices,
    api_error,
)
from resilience import Policy
from tools import make_client

SIMULATED = (
    "The demo's sleeps are simulated: each wait a retry asks for is recorded, not slept, "
    'so "took" does not include it.'
)
_QUIET_EVENTS = {"agent.turn_started", "agent.turn_finished", "agent.tool_result"}


def _no_faults(_: SimulatedServices) -> None:
    return None


def default_models(settings: Settings) -> list[ModelBackend]:
    """The scripted model offline; with a key, Claude (and AGENT_FALLBACK_MODEL, if set)."""
    return [OfflineModel()] if settings.offline else claude_models(settings)


@dataclass(frozen=True, slots=True)
class Scenario:
    """One failure pattern: a question, faults for the services, the models to ask."""

    name: str
    title: str
    question: str
    faults: Callable[[SimulatedServices], None] = _no_faults
    models: Callable[[Settings], list[ModelBackend]] = default_models


def _both_down(services: SimulatedServices) -> None:
    services.fail_always(GEOCODING, Fault.status(503))
    services.fail_always(WTTR, Fault.status(503))


def _overloaded_once(settings: Settings) -> list[ModelBackend]:
    primary = default_models(settings)[0]
    return [FlakyModel(primary, [api_error(529, "overloaded_error", "Overloaded")])]


def _mangled(settings: Settings) -> list[ModelBackend]:
    return [MangledInputModel(default_models(settings)[0])]


def _primary_stays_overloaded(settings: Settings) -> list[ModelBackend]:
    """The primary answers 529 three times (its retries spent); the fallback model answers:
    offline, a second scripted model; with a key, AGENT_FALLBACK_MODEL or Claude Haiku."""
    primary = default_models(settings)[0]
    overloaded = [api_error(529, "overloaded_error", "Overloaded") for _ in range(3)]
    return [FlakyModel(primary, overloaded), _fallback_model(settings, primary)]


def _fallback_model(settings: Settings, primary: ModelBackend) -> ModelBackend:
    if settings.claude_key is None:
        return OfflineModel(name="offline-fallback")
    from agent.claude import ClaudeModel

    assert isinstance(primary, ClaudeModel)
    name = settings.fallback_model or "claude-haiku-4-5"
    return ClaudeModel(model=name, client=primary.client)


SCENARIOS = (
    Scenario("happy", "Happy path", "What's the weather in Paris?"),
    Scenario(
        "transient",
        "A transient 503, then success",
        "What's the weather in Tokyo?",
        lambda s: s.fail(GEOCODING, Fault.status(503)),
    ),
    Scenario(
        "fallback",
        "Primary down → fallback",
        "What's the weather in London?",
        lambda s: s.fail_always(GEOCODING, Fault.status(503)),
    ),
    Scenario("degraded", "Both down → degraded answer", "How warm is it in Bonn?", _both_down),
    Scenario("unknown_city", "An unknown city", "What's the weather in Atlantis?"),
    Scenario(
        "rate_limit",
        "Rate limit with Retry-After",
        "What's the weather in Berlin?",
        lambda s: s.fail(GEOCODING, Fault.status(429, retry_after=2)),
    ),
    Scenario(
        "invalid_input",
        "Invalid input from the model",
        "What's the weather in Sydney?",
        models=_mangled,
    ),
    Scenario(
        "model_overloaded",
        "The model API overloaded (529), once",
        "What's the weather in Mumbai?",
        models=_overloaded_once,
    ),
    Scenario(
        "model_fallback",
        "The primary model stays overloaded → the fallback model answers",
        "What's the weather in Paris?",
        models=_primary_stays_overloaded,
    ),
    Scenario("several", "Several cities at once", "Weather in Paris, Tokyo and New York?"),
    Scenario("divide_by_zero", "A calculation that divides by zero", "What is 1/0?"),
)


@dataclass(slots=True)
class SleepRecorder:
    """An injected sleep: records each requested wait and returns at once."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A scenario's result, for the summary."""

    scenario: Scenario
    answer: Answer
    events: list[EventDict]
    waits: list[float]
    seconds: float


async def run_scenario(scenario: Scenario, settings: Settings) -> Outcome:
    """Fresh services, model and agent; one question; everything recorded."""
    services = SimulatedServices(settings.endpoints)
    scenario.faults(services)
    sleep = SleepRecorder()
    policy = Policy(sleep=sleep)
    models = scenario.models(settings)
    with capture_logs(processors=shared_processors()) as events:
        async with make_client(transport=services.transport) as http:
            agent = await open_agent(settings, http=http, backend=models, policy=policy)
            started = time.perf_counter()
            try:
                answer = await agent.ask(scenario.question)
            finally:
                await agent.aclose()
    return Outcome(scenario, answer, events, sleep.waits, time.perf_counter() - started)


def show(console: Console, number: int, outcome: Outcome) -> None:
    """One scenario, in full."""
    console.print(Rule(f"{number}. {outcome.scenario.title}", align="left"))
    console.print(Text.assemble(("Question: ", "bold"), for_terminal(outcome.scenario.question)))
    console.print(trace_table(outcome.answer.attempts))
    console.print("[bold]What the model was told:[/]")
    for block in outcome.answer.tool_results or [{"content": "(no tool calls)"}]:
        line = Text("  ")
        if block.get("is_error"):
            line.append("is_error ", style="red")
        console.print(line.append(for_terminal(str(block["content"]))))
    logged = [e for e in outcome.events if e["event"] not in _QUIET_EVENTS]
    if not logged:
        console.print("[bold]What the developer log recorded:[/] nothing (no failures)")
    else:
        console.print("[bold]What the developer log recorded:[/]")
    for event in logged:
        line = for_terminal(f"  {_log_line(event)}")
        console.print(line, markup=False, highlight=False, style="dim")
    style = "green" if outcome.answer.answered else "red"
    # Model text is shown as plain Text (an answer holding "[/x]" would break markup), and
    # sanitised: no escape sequence from a model reaches the terminal.
    console.print(Text.assemble(("Answer: ", "bold"), (for_terminal(outcome.answer.text), style)))


def _log_line(event: EventDict) -> str:
    head = f"{event.get('level', '?'):7} {event['event']}"
    what = " ".join(f"{k}={event[k]}" for k in ("source", "error_type", "action") if k in event)
    note = event.get("developer_note")
    return f"{head} {what}" + (f" — {note}" if note else "")


def summary(outcomes: Sequence[Outcome]) -> Table:
    """One row per scenario."""
    table = Table(title="Summary", title_justify="left", caption=SIMULATED, caption_justify="left")
    for column in (
        "scenario",
        "answered",
        "model calls",
        "attempts",
        "failures logged",
        "waits (simulated)",
        "took",
    ):
        table.add_column(column, justify="left" if column == "scenario" else "right")
    for o in outcomes:
        failures = sum(1 for e in o.events if e.get("developer_note"))
        table.add_row(
            o.scenario.name,
            "yes" if o.answer.answered else "[red]no[/]",
            str(o.answer.model_calls),
            str(len(o.answer.attempts)),
            str(failures),
            ", ".join(f"{w:.1f} s" for w in o.waits if w > 0) or "—",
            f"{o.seconds * 1000:.0f} ms",
        )
    return table


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--offline", action="store_true", help="never use Claude")
    names = [s.name for s in SCENARIOS]
    parser.add_argument(
        "--scenario",
        action="extend",
        nargs="+",
        choices=names,
        metavar="NAME",
        help=f"run only these (one or more; repeatable): {', '.join(names)}",
    )
    parser.add_argument(
        "--otel", nargs="?", const="otlp", choices=otel.MODES, help="OpenTelemetry spans"
    )
    return parser.parse_args(argv)


async def run(
    settings: Settings, chosen: Sequence[Scenario], console: Console, trees: list[str] | None = None
) -> list[Outcome]:
    """Every chosen scenario, shown as it finishes (with its span tree, when `trees` fills)."""
    outcomes = []
    for number, scenario in enumerate(chosen, 1):
        outcome = await run_scenario(scenario, settings)
        show(console, number, outcome)
        for tree in trees or ():
            console.print("[bold]Span tree:[/]")
            console.print(tree.rstrip(), markup=False, highlight=False, soft_wrap=True)
        if trees:
            trees.clear()
        outcomes.append(outcome)
    return outcomes


def main(argv: Sequence[str] | None = None, env: dict[str, str] | Any = None) -> int:
    """Run the demo; exit 0 when every scenario produced an answer."""
    args = parse(argv)
    env = os.environ if env is None else env
    settings = Settings.from_env(env, offline=args.offline)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    where = settings.banner or f"Online: Claude ({settings.model}), simulated weather faults."
    console.print(where, style="dim")
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    trees: list[str] = []
    tracing = otel.start(args.otel, env, write=trees.append)
    try:
        outcomes = asyncio.run(run(settings, chosen, console, trees))
    finally:
        if tracing is not None:
            tracing.close()
    console.print(summary(outcomes))
    return 0 if all(o.answer.answered for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
