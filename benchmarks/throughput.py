"""error-to-action throughput: in this process, and through `agent explain-error` (lines/s)."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time

from benchmarks.harness import REPO
from benchmarks.ratios import Ratio

__all__ = ["CORPUS", "FIELDS", "in_process", "lines", "through_cli"]

FIELDS = {"error_type", "user_message", "action", "action_detail", "retryable", "developer_note"}

# One line per row of the failure policy (docs/failure-policy.md), plus the skill's examples.
CORPUS: tuple[dict[str, object], ...] = (
    {"error": "429 Too Many Requests. Retry-After: 30", "operation": "Fetching billing data"},
    {
        "error": "403 Forbidden: You don't have permission to push to this repository",
        "operation": "git push to agent-skills repo",
        "user_context": "New contributor",
    },
    {"error": "503 Service Unavailable", "operation": "getting the weather"},
    {"error": "529 overloaded_error: Overloaded", "operation": "asking the model"},
    {"error": "500 Internal Server Error", "operation": "getting the weather", "retry_count": 2},
    {"error": "ReadTimeout: timed out", "operation": "getting the weather"},
    {"error": "ConnectError: [Errno 111] Connection refused", "operation": "getting the weather"},
    {"error": "401 Unauthorized: invalid x-api-key", "operation": "asking the model"},
    {"error": "402 Payment Required: credit balance is too low", "operation": "asking the model"},
    {"error": "404 Not Found", "operation": "looking up the city"},
    {
        "error": "422 Unprocessable Entity: field 'city' is required",
        "operation": "getting the weather",
    },
    {"error": "JSONDecodeError: Expecting value: line 1 column 1 (char 0)", "operation": "parsing"},
)


def lines(count: int) -> list[str]:
    """`count` JSON input lines, cycling through the corpus."""
    return [json.dumps(CORPUS[i % len(CORPUS)]) for i in range(count)]


async def in_process(count: int) -> Ratio:
    """Parse, classify and serialise `count` lines with `errors.error_to_action`."""
    from errors import error_to_action

    batch = lines(count)
    started = time.perf_counter()
    out = [error_to_action(**json.loads(line)).to_json() for line in batch]
    rate = count / (time.perf_counter() - started)
    _check(out, count)
    return Ratio("error-to-action in-process", rate, "lines/s", "report", None, rate > 100)


async def through_cli(count: int, timeout_s: float = 120.0) -> Ratio:
    """`python -m agent explain-error` fed `count` lines, startup included.

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
