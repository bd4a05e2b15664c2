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
import json
import os
import shutil
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from structlog.testing import capture_logs
from structlog.typing import EventDict

from agent import otel
from agent.app import claude_models, open_agent
from agent.console import table, trace_table, wait_words
from agent.log import shared_processors
from agent.loop import Answer
from agent.models import ModelBackend
from agent.settings import Settings
from agent.terminal import for_terminal, styled
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


@dataclass
class Printer:
    """Lines to `stream`. On a terminal (`width` set): styled in colour unless NO_COLOR, each
    line wrapped between words to the width, with a hanging indent, and tables laid out to
    it. Off one (`width` None): plain text, each line whole, tables as wide as they need."""

    stream: TextIO
    width: int | None = None
    color: bool = False

    @property
    def table_width(self) -> int:
        """The width tables are laid out to: the terminal's, or any a pipe needs."""
        return self.width or 10_000

    def line(self, text: str = "", style: str = "", *, hang: str = "  ") -> None:
        """One line (or several), sanitised: no escape sequence from a model is written; on a
        terminal, wrapped between words, the lines after the first indented by `hang`."""
        for line in for_terminal(text).split("\n"):
            for piece in self._wrapped(line, hang):
                self.stream.write(styled(piece, style, color=self.color) + "\n")

    def lines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.line(line)

    def parts(self, parts: Sequence[str], lead: str, style: str = "") -> None:
        """`parts` on as few lines as fit, a line never broken inside a part (a JSON value):
        `lead` before the first, its width of spaces before the rest."""
        brace = 1 if parts and parts[0].startswith("{") else 0
        hang = " " * (len(lead) + brace)  # under the first word, or member past the brace
        lines = [lead + parts[0]] if parts else [lead]
        for part in parts[1:]:
            joined = f"{lines[-1]} {part}"
            if self.width is None or len(joined) <= self.width:
                lines[-1] = joined
            else:
                lines.append(hang + part)
        for line in lines:
            self.line(line, style, hang=hang + "  ")

    def _wrapped(self, line: str, hang: str) -> list[str]:
        if self.width is None or len(line) <= self.width:
            return [line.rstrip()]
        own = line[: len(line) - len(line.lstrip())]  # a line's own indent, kept
        return textwrap.wrap(
            line.strip(),
            max(20, self.width),
            initial_indent=own,
            subsequent_indent=own + hang,
            break_long_words=False,
            break_on_hyphens=False,
        )

    @classmethod
    def for_stdout(cls) -> Printer:
        """stdout: a terminal's width and colour (unless NO_COLOR), else plain."""
        if not sys.stdout.isatty():
            return cls(sys.stdout)
        color = not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        return cls(sys.stdout, shutil.get_terminal_size().columns, color)


def show(out: Printer, number: int, outcome: Outcome) -> None:
    """One scenario, in full."""
    title = f"── {number}. {outcome.scenario.title}"
    rule = "─" * (min(out.width or 80, 80) - len(title) - 1)
    out.line(f"{title} {rule}" if rule else title, "bold", hang="   ")
    out.line(f"Question: {outcome.scenario.question}")
    out.lines(trace_table(outcome.answer.attempts, out.table_width, "Timeline"))
    out.line("What the model was told:", "bold")
    for block in outcome.answer.tool_results or [{"content": "(no tool calls)"}]:
        flag = "is_error " if block.get("is_error") else ""
        told = str(block["content"])
        if out.width is None:  # a pipe: the text exactly as the model read it
            out.line(f"  {flag}{told}")
        else:
            out.parts(_members(told), f"  {flag}")
    logged = [e for e in outcome.events if e["event"] not in _QUIET_EVENTS]
    if not logged:
        out.line("What the developer log recorded: nothing (no failures)", "bold")
    else:
        out.line("What the developer log recorded:", "bold")
    for event in logged:
        out.line(f"  {_log_line(event)}", "dim", hang="    ")
    out.line(f"Answer: {outcome.answer.text}", "" if outcome.answer.answered else "red")
    out.line()


def _members(content: str) -> list[str]:
    """A tool's JSON answer as its members (`"city": "Paris, France",`), so that a narrow
    screen breaks lines between them, never inside a value; any other text, as its words."""
    try:
        value = json.loads(content)
    except ValueError:
        return content.split()
    if not isinstance(value, dict) or not value:
        return content.split()
    members = [
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)},"
        for k, v in value.items()
    ]
    members[0], members[-1] = "{" + members[0], members[-1].removesuffix(",") + "}"
    return members


def _log_line(event: EventDict) -> str:
    head = f"{event.get('level', '?'):7} {event['event']}"
    what = " ".join(f"{k}={event[k]}" for k in ("source", "error_type", "action") if k in event)
    note = event.get("developer_note")
    return f"{head} {what}" + (f" — {note}" if note else "")


_SUMMARY = ("scenario", "answered", "model calls", "attempts", "failures", "waits", "took")
_NUMBERS = frozenset(_SUMMARY[1:])


def summary(outcomes: Sequence[Outcome], width: int) -> list[str]:
    """One row per scenario, and what the waits are."""
    rows = [
        (
            o.scenario.name,
            "yes" if o.answer.answered else "no",
            str(o.answer.model_calls),
            str(len(o.answer.attempts)),
            str(sum(1 for e in o.events if e.get("developer_note"))),
            ", ".join(wait_words(w) for w in o.waits) or "—",
            f"{o.seconds * 1000:.0f} ms",
        )
        for o in outcomes
    ]
    return ["Summary", *table(_SUMMARY, rows, width, right=_NUMBERS), SIMULATED]


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
    settings: Settings, chosen: Sequence[Scenario], out: Printer, trees: list[str] | None = None
) -> list[Outcome]:
    """Every chosen scenario, shown as it finishes (with its span tree, when `trees` fills)."""
    outcomes = []
    for number, scenario in enumerate(chosen, 1):
        outcome = await run_scenario(scenario, settings)
        show(out, number, outcome)
        for tree in trees or ():
            out.line("Span tree:", "bold")
            out.line(tree.rstrip())
        if trees:
            trees.clear()
        outcomes.append(outcome)
    return outcomes


def main(argv: Sequence[str] | None = None, env: dict[str, str] | Any = None) -> int:
    """Run the demo; exit 0 when every scenario produced an answer."""
    args = parse(argv)
    env = os.environ if env is None else env
    settings = Settings.from_env(env, offline=args.offline)
    out = Printer.for_stdout()
    where = settings.banner or f"Online: Claude ({settings.model}), simulated weather faults."
    out.line(where, "dim")
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    trees: list[str] = []
    tracing = otel.start(args.otel, env, write=trees.append)
    try:
        outcomes = asyncio.run(run(settings, chosen, out, trees))
    finally:
        if tracing is not None:
            tracing.close()
    out.lines(summary(outcomes, out.table_width))
    return 0 if all(o.answer.answered for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
