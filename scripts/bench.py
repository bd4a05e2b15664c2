"""Benchmark this agent beside the article's loop and the SDK's tool runner, soak it, run
every hostile attack against the CLI (the "hostile" table, benchmarks/hostile.py), time
start-up as ratios to `python -c "import httpx, pydantic"` (benchmarks/startup.py), the
state that outlives a process or spans a fleet: four workers with their own state and with a
shared Redis, and the conversation store (benchmarks/state.py), then CPU per question, tail
latency and throughput beside the bare SDK loop at concurrency 1, 20 and 100, with faults,
degraded and in a 200-turn chat (benchmarks/perf.py).

Everything runs against loopback servers (real TCP on 127.0.0.1) that this script starts and
stops: the Messages API as a scripted model, Open-Meteo and wttr.in, with scripted faults, and
the hostile servers of benchmarks/hostile_server.py.

    python scripts/bench.py                 # the full run: tables on stdout, bench-results.json
    python scripts/bench.py --quick         # CI: small sizes, exit 1 only if badly broken
    python scripts/bench.py --only hostile  # the hostile table, default bounds (minutes;
                                            # --quick: windows of a second, sizes small)
    python scripts/bench.py --only startup  # just the start-up table
    python scripts/bench.py --only state    # just the fleet rows and the store row
    python scripts/bench.py --only perf     # just the table beside the bare loop (minutes)
    python scripts/bench.py --soak 5000 --out /tmp/bench.json

Benchmarks are not timed tests: the aims are reported, and only absurd results fail `--quick`;
a hostile attack whose outcome is wrong is a failed check too. Start-up times are reported
against their aim, never checked (a busy machine must not fail CI).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.hostile import Hostile, print_hostile, run_hostile
from benchmarks.perf import Perf, print_perf, run_perf
from benchmarks.startup import Startup, print_startup, run_startup
from benchmarks.state import StateBench, print_state, run_state
from benchmarks.suite import Check, Config, Results, run_suite

_OUTCOME = {"correct": "✓ correct", "unavailable": "~ unavailable", "wrong": "✗ WRONG"}


def main(argv: list[str] | None = None) -> int:
    """Run the bench; 1 if a check failed, else 0."""
    args = _parser().parse_args(argv)
    _quiet_logs()
    started = time.perf_counter()
    results: Results | None = None
    hostile: Hostile | None = None
    startup: Startup | None = None
    if args.only in (None, "suite"):
        soak = args.soak if args.soak is not None else (100 if args.quick else 1000)
        config = Config.quick(soak) if args.quick else Config(soak_questions=soak)
        config = dataclasses.replace(config, seed=args.seed)
        results = asyncio.run(run_suite(config))
    if args.only in (None, "hostile"):
        hostile = run_hostile(quick=args.quick, soak_questions=args.hostile_soak)
    if args.only in (None, "startup"):
        startup = run_startup(quick=args.quick)
    state = run_state(quick=args.quick) if args.only in (None, "state") else None
    perf = run_perf(quick=args.quick) if args.only in (None, "perf") else None
    print_report(
        results, quick=args.quick, hostile=hostile, startup=startup, state=state, perf=perf
    )
    data = as_json(results, hostile, startup, state, perf)
    Path(args.out).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    seconds = time.perf_counter() - started
    print(f"\nResults written to {args.out} ({seconds:.1f} s in all).")
    return 1 if data["broken"] else 0


def _parser() -> argparse.ArgumentParser:
    first_paragraph = " ".join(__doc__.split("\n\n")[0].split())  # whole sentences, not a line
    parser = argparse.ArgumentParser(description=first_paragraph)
    parser.add_argument("--quick", action="store_true", help="CI size; fail only if badly broken")
    parser.add_argument("--soak", type=int, metavar="N", help="soak questions (0 skips the soak)")
    parser.add_argument("--out", default="bench-results.json", help="where to write the JSON")
    parser.add_argument("--seed", type=int, default=7, help="seed of the soak's random faults")
    parser.add_argument(
        "--only",
        choices=("suite", "hostile", "startup", "state", "perf"),
        help="run one part: the side-by-side suite and its soak, the hostile table, the "
        "start-up table, the fleet and store rows, or the table beside the bare loop",
    )
    parser.add_argument(
        "--hostile-soak",
        type=int,
        metavar="N",
        help="questions in the hostile table's soak at concurrency 100 (0 skips it)",
    )
    return parser


def _quiet_logs() -> None:
    """The project's logging as the CLI sets it up with no log file (processed, then dropped);
    the SDK tool runner's tracebacks for failing tools are silenced: noise beside a table."""
    from agent.log import configure_logging

    configure_logging()
    logging.getLogger("anthropic").addHandler(logging.NullHandler())
    logging.getLogger("anthropic").propagate = False


def print_report(
    results: Results | None,
    *,
    quick: bool,
    hostile: Hostile | None = None,
    startup: Startup | None = None,
    state: StateBench | None = None,
    perf: Perf | None = None,
) -> None:
    """The table, the ratios, the soak, the hostile table, start-up, state, the table beside
    the bare loop and the checks, on stdout; a part that was not run (`None`) is left out."""
    if results is not None:
        print_table(results)
        print_ratios(results)
        print_soak(results)
    if hostile is not None:
        print_hostile(hostile)
    if startup is not None:
        print_startup(startup)
    if state is not None:
        print_state(state)
    if perf is not None:
        print_perf(perf)
    print_checks(all_checks(results, hostile, state, perf), quick=quick)


def all_checks(
    results: Results | None,
    hostile: Hostile | None = None,
    state: StateBench | None = None,
    perf: Perf | None = None,
) -> list[Check]:
    """Every check of the parts that ran; `--quick` exits 1 if any failed."""
    return [
        *(results.checks() if results else []),
        *(hostile.checks() if hostile else []),
        *(state.checks() if state else []),
        *(perf.checks() if perf else []),
    ]


def print_table(results: Results) -> None:
    """One row per scenario and contender."""
    contenders = len({run.contender for run in results.runs})
    print(f"\nSide by side: {len(results.config.scenarios)} scenarios × {contenders} contenders")
    print("(loopback fault server, real sockets; the article loop is the BASELINE port)\n")
    header = (
        "scenario",
        "contender",
        "outcome",
        "calls",
        "time",
        "raw text to model",
        "400s",
        "crash",
    )
    widths = (33, 16, 14, 5, 8, 34, 4, 16)
    print(_row(header, widths))
    print(_row(tuple("-" * w for w in widths), widths))
    previous = ""
    for run in results.runs:
        markers = sorted({m for found in run.leaks.values() for m in found})
        markers += ["secret"] * (run.secret_hits > 0)
        cells = (
            run.scenario if run.scenario != previous else "",
            run.contender,
            _OUTCOME.get(run.outcome, run.outcome),
            str(run.model_calls),
            f"{run.seconds:.2f} s",
            ", ".join(markers) or "none",
            str(run.protocol_errors),
            run.crash or "",
        )
        print(_row(cells, widths))
        previous = run.scenario
    for name, why in results.missing.items():
        print(f"(not run: {name}: {why})")


def print_ratios(results: Results) -> None:
    """Each ratio with its aim and the numbers behind it."""
    print("\nRatios (each side by side, same run)\n")
    for ratio in results.ratios:
        value = "n/a" if ratio.value is None else f"{_num(ratio.value)} {ratio.unit}"
        mark = {True: "✓ aim met", False: "✗ aim missed", None: ""}[ratio.met]
        aim = "" if ratio.aim == "report" else f"aim {ratio.aim}"
        print(f"  {ratio.name:<52} {value:>14}  {aim:<12} {mark}")
        if ratio.details:
            print("      " + ", ".join(_detail_text(k, v) for k, v in ratio.details.items()))


def print_soak(results: Results) -> None:
    """The soak's outcome, latency and memory."""
    soak = results.soak
    if soak is None:
        print("\nSoak: not run")
        return
    print(
        f"\nSoak: {soak.contender}, {soak.questions} questions, concurrency {soak.concurrency}, "
        f"{soak.fault_rate:.0%} random faults at every route (seed {results.config.seed})\n"
    )
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(soak.outcomes.items()))
    crashes = sum(soak.crashes.values())
    print(f"  answers: {outcomes}")
    print(
        f"  crashes {crashes}{_detail(soak.crashes)} · protocol errors {soak.protocol_errors} · "
        f"raw-text leaks {soak.leaks}{_detail(soak.leak_markers)} · secret leaks {soak.secret_hits}"
    )
    print(f"  model calls {soak.model_calls} · faults injected {soak.faults_injected}")
    print(
        f"  latency p50 {soak.p50_s:.2f} s · p99 {soak.p99_s:.2f} s · max {soak.max_s:.2f} s · "
        f"wall {soak.seconds:.1f} s"
    )
    print(
        f"  memory: peak RSS {soak.peak_rss_mb:.0f} MB (the peak rose {soak.rss_growth_mb:.1f} MB "
        f"during the soak), RSS after it {soak.rss_after_mb:.0f} MB"
    )
    for example in soak.examples:
        print(f"  e.g. {example}")


def print_checks(checks: list[Check], *, quick: bool) -> None:
    """The generous "badly broken" bounds; `--quick` fails on any of them."""
    heading = " (--quick fails on any ✗ here; an aim missed above is reported only)"
    print("\nChecks" + (heading if quick else "") + "\n")
    for check in checks:
        detail = f" ({check.detail})" if check.detail and not check.ok else ""
        print(f"  {'✓' if check.ok else '✗'} {check.name}{detail}")


def as_json(
    results: Results | None,
    hostile: Hostile | None = None,
    startup: Startup | None = None,
    state: StateBench | None = None,
    perf: Perf | None = None,
) -> dict[str, Any]:
    """Everything measured, as plain data (a part not run is `null`, or absent)."""
    checks = all_checks(results, hostile, state, perf)
    data: dict[str, Any] = {
        "meta": {"python": platform.python_version(), "platform": platform.platform()}
    }
    if results is not None:
        config = dataclasses.asdict(results.config)
        config["scenarios"] = [scenario.name for scenario in results.config.scenarios]
        data |= {
            "config": config,
            "seconds": results.seconds,
            "missing": results.missing,
            "problems": results.problems,
            "runs": [dataclasses.asdict(run) for run in results.runs],
            "ratios": [dataclasses.asdict(ratio) for ratio in results.ratios],
            "soak": dataclasses.asdict(results.soak) if results.soak else None,
        }
    data["hostile"] = hostile.as_json() if hostile is not None else None
    data["startup"] = _startup_json(startup) if startup is not None else None
    data["state"] = state.as_json() if state is not None else None
    data["perf"] = perf.as_json() if perf is not None else None
    data["checks"] = [dataclasses.asdict(check) for check in checks]
    data["broken"] = not all(check.ok for check in checks)
    return data


def _startup_json(startup: Startup) -> dict[str, Any]:
    """The start-up table: each command's median, its ratio to the baseline, its aim."""
    rows = [
        {"command": row.case.name, "median_s": row.median_s, "ratio": row.ratio,
         "aim": row.case.aim, "met": row.met, "reached_prompt": row.reached_prompt}
        for row in startup.rows
    ]  # fmt: skip
    machine = {"cpus": startup.cpus, "load": startup.load, "python": startup.python}
    return {"baseline_s": startup.baseline_s, "runs": startup.runs, "rows": rows, **machine}


def _row(cells: tuple[str, ...], widths: tuple[int, ...]) -> str:
    return "  ".join(cell[:width].ljust(width) for cell, width in zip(cells, widths, strict=True))


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


_UNITS = {"_per_s": "/s", "_ms": "ms", "_pct": "%", "_s": "s"}  # longest suffix first


def _detail_text(key: str, value: float | str) -> str:
    """`bare_ms: 45.7` → "bare 45.7 ms"."""
    if isinstance(value, str):
        return f"{key} {value}"
    for suffix, unit in _UNITS.items():
        if key.endswith(suffix):
            return f"{key.removesuffix(suffix).replace('_', ' ')} {_num(value)} {unit}"
    return f"{key.replace('_', ' ')} {_num(value)}"


def _detail(counts: dict[str, int]) -> str:
    return f" ({', '.join(f'{k} {v}' for k, v in counts.items())})" if counts else ""


if __name__ == "__main__":
    sys.exit(main())
