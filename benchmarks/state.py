"""State that outlives a process or spans a fleet: the fleet rows and the store row.

**Fleet.** Worker processes × questions against an upstream whose weather routes answer 503
for the first `outage_s` seconds (`benchmarks/fleet.py`), side by side in one run: one worker
alone (the reference), then `workers` workers with the state in each process, then the same
fleet sharing one Redis (a real `redis-server` on a loopback port). For each: the upstream
requests during the outage, the questions answered correctly once the upstream was back, p99.

**Store.** The SQLite conversation store (`agent/history.py`) on a real file in a temporary
folder: committed turns written a second (each turn unique: a question, a tool call, its
result and an answer, as the loop leaves them), bytes on disk per turn, and the time to open
the file and resume a 200-turn conversation (the median of fresh opens).

`python -m benchmarks.state [--quick]` prints both tables.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fleet import FleetResult, run_fleet
from benchmarks.harness import FaultServerProcess
from benchmarks.redis_server import RedisServer
from benchmarks.suite import Check

__all__ = ["FleetSizes", "StateBench", "StoreRow", "print_state", "run_state"]


@dataclass(frozen=True, slots=True)
class FleetSizes:
    """How big a fleet run is."""

    workers: int = 4
    questions: int = 100
    interval_s: float = 0.5  # between one worker's questions
    outage_s: float = 30.0
    cooldown_s: float = 30.0  # the policy's default breaker cool-down

    @classmethod
    def quick(cls) -> FleetSizes:
        """Seconds, not minutes: the outage ends before the cool-down, as in the full run."""
        return cls(questions=12, interval_s=0.25, outage_s=1.5, cooldown_s=2.0)


@dataclass(frozen=True, slots=True)
class StoreRow:
    """The conversation store, measured."""

    turns: int
    turns_per_s: float
    bytes_per_turn: float
    resume_turns: int
    resume_ms: float  # median: open the file, read the conversation back


@dataclass(frozen=True, slots=True)
class StateBench:
    """Both tables, and the machine they ran on."""

    sizes: FleetSizes
    fleet: list[FleetResult]
    store: StoreRow
    cpus: int
    load: tuple[float, float, float]

    def as_json(self) -> dict[str, Any]:
        rows = [
            {"label": r.label, "workers": r.workers, "questions": r.questions,
             "upstream_during_outage": r.upstream_during_outage,
             "correct_after_recovery": r.correct_after_recovery,
             "after_recovery": len(r.after_recovery), "unanswered": r.unanswered,
             "p99_s": r.p99_s, "circuit_opened": r.events["circuit_opened"]}
            for r in self.fleet
        ]  # fmt: skip
        return {
            "fleet": {"sizes": dataclasses.asdict(self.sizes), "rows": rows},
            "store": dataclasses.asdict(self.store),
            "cpus": self.cpus,
            "load": self.load,
        }

    def checks(self) -> list[Check]:
        """Badly broken: a question with no answer at all, a shared fleet that opened a
        circuit more than once per source or sent the upstream more than the fleet that
        shares nothing, a store that cannot resume."""
        alone, own, shared = self.fleet
        unanswered = sum(row.unanswered for row in self.fleet)
        return [
            Check("fleet: every question answered", unanswered == 0, f"{unanswered} unanswered"),
            Check(
                "fleet: a shared circuit opens once for all the workers",
                shared.events["circuit_opened"] == alone.events["circuit_opened"],
                f"{shared.events['circuit_opened']} openings",
            ),
            Check(
                "fleet: shared state sends the upstream no more than each its own",
                shared.upstream_during_outage <= own.upstream_during_outage,
                f"{shared.upstream_during_outage} vs {own.upstream_during_outage}",
            ),
            Check("store: a 200-turn chat resumes", self.store.resume_ms > 0),
        ]

    def ratios(self) -> tuple[float, float]:
        """Upstream requests during the outage, as multiples of one worker's: (in-process
        fleet, shared fleet)."""
        alone, own, shared = (r.upstream_during_outage for r in self.fleet)
        return own / max(alone, 1), shared / max(alone, 1)


def run_state(*, quick: bool = False) -> StateBench:
    """The fleet rows (one worker; the fleet in-process; the fleet on Redis), then the store."""
    sizes = FleetSizes.quick() if quick else FleetSizes()
    fleet = asyncio.run(_fleet(sizes))
    store = measure_store(turns=200 if quick else 2000, resume_turns=200)
    return StateBench(sizes, fleet, store, os.cpu_count() or 1, os.getloadavg())


async def _fleet(sizes: FleetSizes) -> list[FleetResult]:
    options: dict[str, Any] = {
        "questions": sizes.questions,
        "interval_s": sizes.interval_s,
        "outage_s": sizes.outage_s,
        "cooldown_s": sizes.cooldown_s,
    }
    async with FaultServerProcess() as server:
        with RedisServer() as redis:
            alone = await run_fleet(server, label="1 worker, own state", workers=1, **options)
            own = await run_fleet(
                server, label=f"{sizes.workers} workers, own state", workers=sizes.workers,
                **options,
            )  # fmt: skip
            shared = await run_fleet(
                server, label=f"{sizes.workers} workers, shared Redis", workers=sizes.workers,
                state_url=redis.url, **options,
            )  # fmt: skip
    return [alone, own, shared]


# --- the store ----------------------------------------------------------------------------------


def measure_store(*, turns: int, resume_turns: int, opens: int = 15) -> StoreRow:
    """Write `turns` unique turns into a fresh store; then open and resume a conversation of
    `resume_turns` turns `opens` times."""
    from agent.conversation import Conversation
    from agent.history import FILE_NAME, History

    with tempfile.TemporaryDirectory() as folder:
        history = History.open(Path(folder))
        saved = history.new("bench")
        started = time.perf_counter()
        for number in range(turns):
            saved.keep(_turn(number))
        seconds = time.perf_counter() - started
        history.close()  # the WAL folded back into the file
        size = (Path(folder) / FILE_NAME).stat().st_size

        history = History.open(Path(folder))
        chat = history.new("bench")
        for number in range(resume_turns):
            chat.keep(_turn(number))
        history.close()
        times = []
        for _ in range(opens):
            began = time.perf_counter()
            store = History.open(Path(folder))
            resumed, messages = store.resume(chat.id)
            Conversation(messages, keeper=resumed)
            times.append(time.perf_counter() - began)
            store.close()
            assert len(messages) == 4 * resume_turns
    return StoreRow(
        turns=turns,
        turns_per_s=turns / seconds,
        bytes_per_turn=size / turns,
        resume_turns=resume_turns,
        resume_ms=statistics.median(times) * 1000,
    )


def _turn(number: int) -> list[Any]:
    """One turn as the loop commits it: question, tool call, tool result, answer."""
    city = f"Benchville{number:05d}"
    use = {"type": "tool_use", "id": f"toolu_{number:024d}", "name": "get_weather",
           "input": {"city": city}}  # fmt: skip
    weather = (
        f'{{"city": "{city}, Germany", "temperature": "{number % 35}.{number % 10}°C", '
        f'"condition": "Partly cloudy", "humidity": "{40 + number % 50}%", '
        '"source": "open-meteo"}'
    )
    return [
        {"role": "user", "content": [{"type": "text", "text": f"What's the weather in {city}?"}]},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                      "content": weather}]},
        {"role": "assistant", "content": [{"type": "text", "text":
            f"In {city} it is {number % 35}.{number % 10}°C and partly cloudy, with humidity "
            f"at {40 + number % 50}%."}]},
    ]  # fmt: skip


# --- the tables ---------------------------------------------------------------------------------


def print_state(bench: StateBench) -> None:
    """The fleet table and the store row, with the machine."""
    sizes = bench.sizes
    load = ", ".join(f"{value:.2f}" for value in bench.load)
    print(
        f"\nFleet: {sizes.workers} workers × {sizes.questions} questions, one every "
        f"{sizes.interval_s:g} s each; weather down (503) for the first {sizes.outage_s:g} s; "
        f"breaker cool-down {sizes.cooldown_s:g} s ({bench.cpus} CPUs, load {load})\n"
    )
    header = ("", "upstream requests in outage", "× one worker", "correct after recovery",
              "unanswered", "p99", "circuits opened")  # fmt: skip
    widths = (28, 28, 13, 23, 11, 8, 15)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    alone = max(bench.fleet[0].upstream_during_outage, 1)
    for row in bench.fleet:
        cells = (
            row.label,
            str(row.upstream_during_outage),
            f"{row.upstream_during_outage / alone:.2f}×",
            f"{row.correct_after_recovery}/{len(row.after_recovery)}",
            str(row.unanswered),
            f"{row.p99_s:.2f} s",
            str(row.events["circuit_opened"]),
        )
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)))
    store = bench.store
    print(
        f"\nConversation store (SQLite, WAL): {store.turns_per_s:,.0f} turns written a second "
        f"({store.turns} unique turns), {store.bytes_per_turn:,.0f} bytes a turn on disk, "
        f"{store.resume_ms:.1f} ms to open the file and resume a {store.resume_turns}-turn chat "
        "(median)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.state")
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds, not minutes)")
    args = parser.parse_args(argv)
    from agent.log import configure_logging

    configure_logging()
    print_state(run_state(quick=args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
