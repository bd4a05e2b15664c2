"""Close to the bare loop: CPU, tail latency and throughput beside the SDK's tool runner.

Each workload runs in two child processes, one per system, one after the other with the order
alternating, against the same loopback fault server (model → geocode + forecast → model):

    c=1          questions one at a time: CPU per question
    c=20         twenty at a time: CPU per question, p50, p99
    c=20 faults  20 % of weather requests 503, 10 % hang, 5 % 429 (Retry-After 1): p99, outcomes
    c=100        a hundred at a time: questions a second
    degraded     Open-Meteo and wttr.in both down: honest answers, never an invented number
    chat         one conversation of 200 turns: CPU per turn

"This agent" is `agent.app.ask` as a server calls it (one settings, shared HTTP and Claude
clients, one `Admission`), logging every event to a file, breakers and retry budget on, spans
off. The bare loop is the SDK's tool runner with an idiomatic `get_weather`
(`benchmarks/sdk_runner.py`): no logging, no breakers, no spans, no retries of its own.

Every question asks about a city of its own (no cache can answer it); each child warms up on
questions of its own first, untimed. CPU is the child's own `time.process_time()` over the
timed questions only: imports, start-up and the fault server are not counted. The machine's
CPU count and load are reported beside the table.

    python -m benchmarks.perf [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness import API_KEY, REPO, FaultServerProcess, Urls
from benchmarks.plan import Fault, Plan, Share
from benchmarks.scenarios import judge
from benchmarks.suite import Check

__all__ = ["WORKLOADS", "Perf", "Workload", "print_perf", "run_perf"]

OURS, BARE = "this agent", "bare SDK loop"
_WARM = 10  # untimed questions each child asks first


@dataclass(frozen=True, slots=True)
class Workload:
    """One row group: how many questions, how many at once, what the upstream does."""

    name: str
    concurrency: int
    questions: int
    quick_questions: int
    plan: Plan = field(default_factory=Plan)
    chat: bool = False  # one conversation, every question a turn of it

    def size(self, quick: bool) -> int:
        return self.quick_questions if quick else self.questions


_WEATHER = ("geocoding", "forecast", "wttr")
_MIX = (
    (0.20, {"status": 503}),
    (0.10, {"kind": "hang"}),
    (0.05, {"status": 429, "retry_after": 1}),
)
_FAULTS = Plan(
    seed=11,
    mix=tuple(
        Share(rate=rate, fault=Fault.model_validate({"route": route, **fault}))
        for route in _WEATHER
        for rate, fault in _MIX
    ),
)
_DOWN = Plan(faults=tuple(Fault.model_validate({"route": route}) for route in _WEATHER))

WORKLOADS: tuple[Workload, ...] = (
    Workload("c=1", 1, 300, 40),
    Workload("c=20", 20, 1000, 200),
    Workload("c=20, faults", 20, 600, 100, _FAULTS),
    Workload("c=100", 100, 1000, 300),
    Workload("degraded", 20, 200, 60, _DOWN),
    Workload("chat, 200 turns", 1, 200, 40, chat=True),
)


@dataclass(frozen=True, slots=True)
class Measured:
    """What one child measured."""

    system: str
    workload: str
    questions: int
    cpu_s: float
    wall_s: float
    latencies: tuple[float, ...]
    outcomes: dict[str, int]

    @property
    def cpu_ms(self) -> float:
        return self.cpu_s / self.questions * 1000

    @property
    def per_s(self) -> float:
        return self.questions / self.wall_s

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass(slots=True)
class Perf:
    """Every workload, both systems, and the machine."""

    quick: bool
    rows: dict[str, dict[str, Measured]] = field(default_factory=dict)
    cpus: int = 1
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def ratio(self, workload: str, metric: str) -> float:
        ours, bare = self.rows[workload][OURS], self.rows[workload][BARE]
        return float(_metric(ours, metric) / _metric(bare, metric))

    def checks(self) -> list[Check]:
        """Badly broken: an invented temperature, a calm question not answered right, or a
        cost three times the bare loop's (when a c=1 or c=20 row was run)."""
        wrong = sum(r[OURS].outcomes.get("wrong", 0) for r in self.rows.values())
        calm = [w.name for w in WORKLOADS if not w.plan.faults and not w.plan.mix]
        measured = [self.rows[name][OURS] for name in calm if name in self.rows]
        lost = sum(m.questions - m.outcomes.get("correct", 0) for m in measured)
        checks = [
            Check("perf: no invented temperature, in any workload", wrong == 0, f"{wrong} wrong"),
            Check("perf: every calm question answered", lost == 0, f"{lost} not answered"),
        ]
        if cpus := [self.ratio(name, "cpu_ms") for name in ("c=1", "c=20") if name in self.rows]:
            worst = max(cpus)
            checks.append(
                Check("perf: CPU per question under 3× the bare loop's", worst < 3, f"{worst:.2f}×")
            )
        return checks

    def as_json(self) -> dict[str, Any]:
        rows = {
            name: {
                system: {
                    "questions": m.questions, "cpu_ms": m.cpu_ms, "per_s": m.per_s,
                    "p50_s": m.quantile(0.5), "p99_s": m.quantile(0.99), "outcomes": m.outcomes,
                }
                for system, m in row.items()
            }
            for name, row in self.rows.items()
        }  # fmt: skip
        return {"quick": self.quick, "cpus": self.cpus, "load_before": self.load_before,
                "load_after": self.load_after, "rows": rows}  # fmt: skip


def _metric(measured: Measured, metric: str) -> float:
    if metric == "p99":
        return measured.quantile(0.99)
    if metric == "p50":
        return measured.quantile(0.5)
    return float(getattr(measured, metric))


# --- the parent ---------------------------------------------------------------------------------


def run_perf(*, quick: bool = False, workloads: Sequence[Workload] = WORKLOADS) -> Perf:
    """Every workload, the two systems side by side."""
    return asyncio.run(_run(quick, workloads))


async def _run(quick: bool, workloads: Sequence[Workload]) -> Perf:
    perf = Perf(quick, cpus=os.cpu_count() or 1, load_before=os.getloadavg())
    async with FaultServerProcess() as server:
        for index, workload in enumerate(workloads):
            order = (OURS, BARE) if index % 2 == 0 else (BARE, OURS)
            row: dict[str, Measured] = {}
            for system in order:
                await server.apply(workload.plan)
                row[system] = await _child(server.urls, system, workload, quick)
            perf.rows[workload.name] = row
    perf.load_after = os.getloadavg()
    return perf


async def _child(urls: Urls, system: str, workload: Workload, quick: bool) -> Measured:
    spec = {"system": system, "questions": workload.size(quick), "base": urls.model,
            "concurrency": workload.concurrency, "chat": workload.chat}  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.perf", "child", json.dumps(spec),
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{system} on {workload.name} exited {process.returncode}")
    data = json.loads(out.decode().splitlines()[-1])
    return Measured(system, workload.name, data["questions"], data["cpu_s"], data["wall_s"],
                    tuple(data["latencies"]), data["outcomes"])  # fmt: skip


# --- a child ------------------------------------------------------------------------------------


async def _measure(spec: dict[str, Any]) -> dict[str, Any]:
    urls = Urls.at(spec["base"])
    count, chat = spec["questions"], spec["chat"]
    system = _Ours(urls) if spec["system"] == OURS else _Bare(urls)
    try:
        for number in range(_WARM):
            await system.ask(f"What's the weather in Warm{number:03d}?")
        if chat:
            system.new_conversation()
        gate = asyncio.Semaphore(spec["concurrency"])
        latencies: list[float] = []
        outcomes: Counter[str] = Counter()

        async def one(number: int) -> None:
            async with gate:
                city = f"Perf{number:05d}"
                began = time.perf_counter()
                try:
                    text = await system.ask(f"What's the weather in {city}?")
                except Exception:  # a crash is an outcome here: no answer
                    text = None
                latencies.append(time.perf_counter() - began)
                outcomes[judge(text, (city,))] += 1  # "unavailable": honest, no number

        cpu, wall = time.process_time(), time.perf_counter()
        if chat:
            for number in range(count):
                await one(number)
        else:
            await asyncio.gather(*(one(number) for number in range(count)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        await system.aclose()
    return {"questions": count, "cpu_s": cpu, "wall_s": wall, "latencies": latencies,
            "outcomes": dict(outcomes)}  # fmt: skip


class _Ours:
    """`agent.app.ask` as a server calls it, logging every event to a file."""

    def __init__(self, urls: Urls) -> None:
        from agent.app import Admission, ask, model_client
        from agent.conversation import Conversation
        from agent.log import configure_logging
        from agent.settings import Settings
        from tools.http import make_client

        self._log = tempfile.NamedTemporaryFile("a", suffix=".log", delete=False)  # noqa: SIM115
        configure_logging(log_file=self._log)
        self._settings = Settings.from_env(urls.env(API_KEY), offline=False)
        self._http = make_client()
        self._client = model_client(self._settings)
        self._admission = Admission(max_in_flight=128, max_waiting=1000)
        self._ask, self._conversation_type = ask, Conversation
        self._conversation: Any = None

    def new_conversation(self) -> None:
        self._conversation = self._conversation_type()

    async def ask(self, question: str) -> str | None:
        answer = await self._ask(
            question, self._settings, http=self._http, client=self._client,
            admission=self._admission, conversation=self._conversation,
        )  # fmt: skip
        return answer.text if answer.answered else None

    async def aclose(self) -> None:
        await self._http.aclose()
        if self._client is not None:
            await self._client.close()
        self._log.close()
        os.unlink(self._log.name)


class _Bare:
    """The SDK's tool runner with an idiomatic `get_weather`; a chat keeps its messages."""

    def __init__(self, urls: Urls) -> None:
        import httpx
        from anthropic import AsyncAnthropic

        from benchmarks import sdk_runner

        self._client = AsyncAnthropic(api_key=API_KEY, base_url=urls.model)
        self._http = httpx.AsyncClient()
        self._tool = sdk_runner.weather_tool(self._http, urls.geocoding, urls.forecast)
        self._history: list[Any] | None = None

    def new_conversation(self) -> None:
        self._history = []

    async def ask(self, question: str) -> str | None:
        from benchmarks import sdk_runner

        if self._history is None:
            return await sdk_runner.ask(self._client, question, self._tool)
        self._history.append({"role": "user", "content": question})
        runner = self._client.beta.messages.tool_runner(
            model=sdk_runner.MODEL, max_tokens=1024, tools=[self._tool],
            messages=list(self._history), thread=False,
        )  # fmt: skip
        text = ""
        async for message in runner:
            self._history.append({"role": "assistant", "content": message.to_param()["content"]})
            if results := await runner.generate_tool_call_response():
                self._history.append(results)
            text = "".join(block.text for block in message.content if block.type == "text")
        return text

    async def aclose(self) -> None:
        await self._http.aclose()
        await self._client.close()


# --- the table ----------------------------------------------------------------------------------

# (workload, metric, label, aim: the ratio's bound and its direction)
_ROWS: tuple[tuple[str, str, str, tuple[float, str] | None], ...] = (
    ("c=1", "cpu_ms", "CPU per question, c=1 (ms)", (1.3, "≤")),
    ("c=20", "cpu_ms", "CPU per question, c=20 (ms)", (1.3, "≤")),
    ("c=20", "p50", "p50, c=20 (s)", None),
    ("c=20", "p99", "p99, c=20 (s)", (1.2, "≤")),
    ("c=100", "per_s", "questions a second, c=100", (0.95, "≥")),
    ("c=20, faults", "p99", "p99, c=20, 20 % 503 / 10 % hang / 5 % 429 (s)", None),
    ("degraded", "p99", "p99, weather down (s)", None),
    ("chat, 200 turns", "cpu_ms", "CPU per turn, 200-turn chat (ms)", None),
)


def print_perf(perf: Perf) -> None:
    """The table: both systems, the ratio, the aim; then each workload's outcomes."""
    before = ", ".join(f"{v:.2f}" for v in perf.load_before)
    after = ", ".join(f"{v:.2f}" for v in perf.load_after)
    print(f"\nBeside the bare loop ({perf.cpus} CPUs; load {before} before, {after} after)\n")
    widths = (46, 12, 14, 8, 10)
    print(_line(("", OURS, BARE, "ratio", "aim"), widths))
    for workload, metric, label, aim in _ROWS:
        if workload not in perf.rows:
            continue
        ours, bare = (perf.rows[workload][s] for s in (OURS, BARE))
        ratio = perf.ratio(workload, metric)
        met = "" if aim is None else _met(ratio, aim)
        cells = (label, _num(_metric(ours, metric)), _num(_metric(bare, metric)),
                 f"{ratio:.2f}×", met)  # fmt: skip
        print(_line(cells, widths))
    print("\nOutcomes (correct / honest 'unavailable' / wrong / no answer):")
    for name, row in perf.rows.items():
        said = "; ".join(f"{system}: {_outcomes(m.outcomes)}" for system, m in row.items())
        print(f"  {name}: {said}")


def _met(ratio: float, aim: tuple[float, str]) -> str:
    bound, direction = aim
    ok = ratio <= bound if direction == "≤" else ratio >= bound
    return f"{'✓' if ok else '✗'} {direction} {bound:g}×"


def _outcomes(counts: dict[str, int]) -> str:
    kinds = ("correct", "unavailable", "wrong", "no answer")
    return " / ".join(str(counts.get(kind, 0)) for kind in kinds)


def _num(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _line(cells: tuple[str, ...], widths: tuple[int, ...]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()


def main(argv: list[str]) -> int:
    if argv[:1] == ["child"]:
        import logging  # the tool runner logs each failing tool's traceback: noise here

        logging.getLogger("anthropic").addHandler(logging.NullHandler())
        logging.getLogger("anthropic").propagate = False
        print(json.dumps(asyncio.run(_measure(json.loads(argv[1])))))
        return 0
    parser = argparse.ArgumentParser(prog="python -m benchmarks.perf")
    parser.add_argument("--quick", action="store_true", help="small sizes")
    args = parser.parse_args(argv)
    print_perf(run_perf(quick=args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
