"""error-to-action throughput: in this process, and through `agent explain-error` (lines/s).

Honest by construction: every line is unique (the real-world corpus, each error given a
counter suffix), so nothing can be answered from a cache, and the headline is a ratio to a
`json.loads` + `json.dumps` round trip of the *same* lines in the *same* run, so a busy
machine slows both sides alike. The two are timed in alternating batches and the median of
the per-batch ratios is reported.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Callable

from benchmarks.corpus import load
from benchmarks.harness import REPO
from benchmarks.ratios import Ratio

__all__ = ["AIM", "FIELDS", "in_process", "lines", "round_trip_ratio", "through_cli"]

FIELDS = {"error_type", "user_message", "action", "action_detail", "retryable", "developer_note"}
AIM = 0.15  # classifying a line costs at most ~6.7 JSON round trips of it
_BATCH = 500


def lines(count: int) -> list[str]:
    """`count` unique JSON input lines: the real-world corpus, cycled, each error numbered."""
    rows = load()
    return [
        json.dumps(
            {
                "error": f"{rows[i % len(rows)]['error']} ~{i:07d}",
                "operation": rows[i % len(rows)]["operation"],
                "retry_count": i % 3,
            }
        )
        for i in range(count)
    ]


def round_trip_ratio(batch: list[str], rounds: int) -> tuple[float, float, float]:
    """(median ratio, classify lines/s, round-trip lines/s): round trips and classifications of
    the same lines, timed in alternating batches."""
    from errors import error_to_action

    def classify(line: str) -> str:
        return error_to_action(**json.loads(line)).to_json()

    def round_trip(line: str) -> str:
        return json.dumps(json.loads(line))

    ratios, classified, tripped = [], [], []
    for start in range(0, rounds * _BATCH, _BATCH):
        part = batch[start % len(batch) : start % len(batch) + _BATCH] or batch
        trip_s, class_s = _timed(round_trip, part), _timed(classify, part)
        ratios.append(trip_s / class_s)
        classified.append(len(part) / class_s)
        tripped.append(len(part) / trip_s)
    return statistics.median(ratios), statistics.median(classified), statistics.median(tripped)


def _timed(work: Callable[[str], str], part: list[str]) -> float:
    started = time.perf_counter()
    for line in part:
        work(line)
    return time.perf_counter() - started


async def in_process(count: int) -> Ratio:
    """Parse, classify and serialise `count` unique lines; the ratio to a JSON round trip."""
    from errors import error_to_action

    batch = lines(count)
    sample = batch[:200]
    _check([error_to_action(**json.loads(line)).to_json() for line in sample], len(sample))
    ratio, rate, trip_rate = round_trip_ratio(batch, max(3, count // _BATCH))
    return Ratio(
        "error-to-action in-process",
        ratio * 100,
        "%",
        f"≥ {AIM:.0%}",
        ratio >= AIM,
        rate > 100,
        {"lines_per_s": rate, "round_trip_lines_per_s": trip_rate, "unique_lines": len(batch)},
    )


async def through_cli(count: int, timeout_s: float = 120.0) -> Ratio:
    """`python -m agent explain-error` fed `count` unique lines, startup included.

    Startup is the median of three one-line runs; the steady rate (startup taken out) is only
    reported when the lines took clearly longer than starting did.
    """
    startup = statistics.median([(await _cli(lines(1), timeout_s))[0] for _ in range(3)])
    total, out = await _cli(lines(count), timeout_s)
    _check(out, count)
    rate = count / total
    details: dict[str, float | str] = {"startup_s": startup, "total_s": total}
    if total > 1.5 * startup:
        details["steady_lines_per_s"] = (count - 1) / (total - startup)
    return Ratio(
        "error-to-action through the CLI", rate, "lines/s", "report", None, rate > 20, details
    )


async def _cli(batch: list[str], timeout_s: float) -> tuple[float, list[str]]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"} | {"AGENT_OFFLINE": "1"}
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent",
        "explain-error",
        cwd=REPO,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(
            process.communicate("\n".join(batch).encode() + b"\n"), timeout_s
        )
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    elapsed = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"explain-error exited {process.returncode}: {stderr.decode()[-300:]}")
    return elapsed, stdout.decode().splitlines()


def _check(out: list[str], count: int) -> None:
    """Every line answered, each with exactly the six fields."""
    if len(out) != count or any(set(json.loads(line)) != FIELDS for line in out):
        raise RuntimeError(f"explain-error gave {len(out)} good lines for {count}")
