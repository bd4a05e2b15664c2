"""A fleet of worker processes against one upstream that is down for the first seconds.

Each worker is `python -m benchmarks.fleet worker …`: one agent kept for its whole life (as a
server process keeps one), the real SDK against the fault server's Messages API, the weather
tools against its weather routes. It says `{"ready": …}` once built, starts on a `go` line,
asks its questions on a fixed schedule (open loop: question i starts at i × interval, whatever
the earlier ones are doing), and writes one JSON line per answer, then a summary.

`run_fleet` starts the workers, puts the outage in force (every weather request answered 503
for `outage_s`), says go, and gathers what they saw and what the upstream saw. With the state in
each process (the default), every worker discovers the outage for itself; with
`AGENT_STATE_URL` pointing at one Redis, the first discovery opens the circuit for all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness import REPO, FaultServerProcess
from benchmarks.plan import Fault, Plan
from benchmarks.scenarios import judge

__all__ = ["FleetResult", "run_fleet"]

WEATHER_ROUTES = ("geocoding", "forecast", "wttr")
_QUESTION_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Answered:
    """One question as a worker saw it."""

    worker: int
    started_s: float  # after go
    seconds: float
    outcome: str


@dataclass(slots=True)
class FleetResult:
    """One fleet run: what the workers saw, and what reached the upstream."""

    label: str
    workers: int
    questions: int
    outage_s: float
    upstream_during_outage: int  # weather requests answered 503
    answers: list[Answered] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)  # circuit_opened, state_unreachable…

    @property
    def after_recovery(self) -> list[Answered]:
        """The questions started once the upstream was back."""
        return [a for a in self.answers if a.started_s >= self.outage_s]

    @property
    def correct_after_recovery(self) -> int:
        return sum(a.outcome == "correct" for a in self.after_recovery)

    @property
    def unanswered(self) -> int:
        return sum(a.outcome == "no answer" for a in self.answers)

    @property
    def p99_s(self) -> float:
        times = sorted(a.seconds for a in self.answers)
        return times[min(len(times) - 1, math.ceil(0.99 * len(times)) - 1)] if times else math.nan


async def run_fleet(
    server: FaultServerProcess,
    *,
    label: str,
    workers: int,
    questions: int,
    interval_s: float,
    outage_s: float,
    cooldown_s: float,
    state_url: str | None = None,
    on_started: Any = None,
) -> FleetResult:
    """`workers` processes × `questions` each, against the weather down for `outage_s`.
    `on_started(seconds)` (an async function), if given, runs once all have said go."""
    env = {**os.environ, **server.urls.env(), "PYTHONPATH": str(REPO)}
    env.pop("AGENT_STATE_URL", None)
    if state_url:
        env["AGENT_STATE_URL"] = state_url
    args = ["--questions", str(questions), "--interval", str(interval_s),
            "--cooldown", str(cooldown_s)]  # fmt: skip
    command = [sys.executable, "-m", "benchmarks.fleet", "worker", *args]
    pipes = {"stdin": asyncio.subprocess.PIPE, "stdout": asyncio.subprocess.PIPE}
    processes = [
        await asyncio.create_subprocess_exec(
            *command, "--worker", str(n), cwd=REPO, env=env, **pipes
        )
        for n in range(workers)
    ]
    try:
        for process in processes:
            assert process.stdout is not None
            await asyncio.wait_for(process.stdout.readline(), 60)  # {"ready": …}
        faults = tuple(Fault(route=route, for_s=outage_s) for route in WEATHER_ROUTES)
        await server.apply(Plan(faults=faults))
        for process in processes:
            assert process.stdin is not None
            process.stdin.write(b"go\n")
            await process.stdin.drain()
        if on_started is not None:
            await on_started()
        budget = questions * interval_s + _QUESTION_TIMEOUT_S + 30
        outputs = await asyncio.wait_for(
            asyncio.gather(*(process.communicate() for process in processes)), budget
        )
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
    report = await server.report()
    result = FleetResult(label, workers, questions, outage_s, report.faults_injected)
    for stdout, _ in outputs:
        for line in stdout.decode().splitlines():
            data = json.loads(line)
            if "outcome" in data:
                result.answers.append(Answered(**data))
            elif "events" in data:
                result.events.update(data["events"])
    return result


# --- a worker ----------------------------------------------------------------------------------


async def _worker(number: int, questions: int, interval_s: float, cooldown_s: float) -> None:
    import structlog

    from agent.app import model_client, open_agent
    from agent.conversation import Conversation
    from agent.settings import Settings
    from resilience import Event, Policy
    from tools.http import make_client

    seen: Counter[str] = Counter()

    def count(_logger: object, _name: str, event: dict[str, Any]) -> dict[str, Any]:
        seen[str(event.get("event", ""))] += 1
        raise structlog.DropEvent

    structlog.configure(processors=[count])

    def listen(event: Event) -> None:
        if event.what == "circuit_opened":
            seen["circuit_opened"] += 1

    settings = Settings.from_env(os.environ, offline=False)
    http, client = make_client(), model_client(settings)
    agent = await open_agent(
        settings, http=http, client=client, listener=listen,
        policy=Policy(breaker_cooldown_s=cooldown_s),
    )  # fmt: skip
    _say({"ready": number})
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    go = time.monotonic()

    async def one(index: int) -> None:
        await asyncio.sleep(max(0.0, go + index * interval_s - time.monotonic()))
        city = f"Fleet{number}x{index:03d}"
        started = time.monotonic()
        try:
            async with asyncio.timeout(_QUESTION_TIMEOUT_S):
                answer = await agent.ask(f"What's the weather in {city}?", Conversation())
            text = answer.text if answer.answered else None
        except Exception:  # a crash is a result here, judged "no answer"
            text = None
        _say({"worker": number, "started_s": round(started - go, 3),
              "seconds": round(time.monotonic() - started, 4),
              "outcome": judge(text, (city,))})  # fmt: skip

    await asyncio.gather(*(one(index) for index in range(questions)))
    await agent.aclose()
    await http.aclose()
    if client is not None:
        await client.close()
    events = {
        "circuit_opened": seen["circuit_opened"],
        "state_unreachable": seen["resilience.state_unreachable"],
    }
    _say({"events": events})


def _say(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fleet")
    sub = parser.add_subparsers(dest="command", required=True)
    worker = sub.add_parser("worker", help="one worker of a fleet (started by run_fleet)")
    worker.add_argument("--worker", type=int, default=0)
    worker.add_argument("--questions", type=int, default=100)
    worker.add_argument("--interval", type=float, default=0.5)
    worker.add_argument("--cooldown", type=float, default=30.0)
    args = parser.parse_args(argv)
    asyncio.run(_worker(args.worker, args.questions, args.interval, args.cooldown))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
