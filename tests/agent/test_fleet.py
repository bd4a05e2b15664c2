"""Four worker processes against one failing upstream, sharing a real Redis or not.

Each worker is a child process running one agent (the real SDK against the loopback fault
server, the weather tools against its weather routes), as `benchmarks/fleet.py` runs them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from benchmarks.fleet import FleetResult, run_fleet
from benchmarks.harness import FaultServerProcess
from benchmarks.redis_server import RedisServer
from tests.cli_run import run_cli

pytestmark = pytest.mark.loopback

SOURCES = 2  # the weather tool's: Open-Meteo and wttr.in, each with its breaker


async def fleet(server: FaultServerProcess, state_url: str | None, **options: float) -> FleetResult:
    # The upstream stays down for the whole run and an open circuit stays open: each
    # breaker opens exactly once where its state lives.
    settings: dict[str, float] = {"outage_s": 120.0, "cooldown_s": 120.0, **options}
    return await run_fleet(
        server, label="test", workers=4, questions=8, interval_s=0.2, state_url=state_url,
        **settings,
    )  # fmt: skip


async def test_a_shared_breaker_opens_once_for_four_workers(redis_url: str) -> None:
    """With their state in one Redis, four workers open each source's circuit once between
    them; each keeping its own, they open it four times. Every question is answered, and the
    upstream hears fewer requests during the outage from the shared fleet."""
    async with FaultServerProcess() as server:
        own = await fleet(server, None)
        shared = await fleet(server, redis_url)
    assert own.events["circuit_opened"] == 4 * SOURCES
    assert shared.events["circuit_opened"] == SOURCES
    assert own.unanswered == shared.unanswered == 0
    assert shared.upstream_during_outage < own.upstream_during_outage
    assert shared.events["state_unreachable"] == 0


async def test_every_worker_answers_when_the_store_dies_mid_run() -> None:
    """Redis killed while four workers are asking: every question is still answered right,
    and each worker says once that it carries on with its own state."""
    with RedisServer() as store:

        async def kill_soon() -> None:
            await asyncio.sleep(0.5)
            store.kill()

        async with FaultServerProcess() as server:
            result = await run_fleet(
                server, label="test", workers=4, questions=6, interval_s=0.25, outage_s=0,
                cooldown_s=30, state_url=store.url, on_started=kill_soon,
            )  # fmt: skip
    assert len(result.answers) == 24
    assert all(answer.outcome == "correct" for answer in result.answers)
    assert result.events["state_unreachable"] == 4


def test_a_store_nobody_listens_on_costs_no_answer(tmp_path: Path) -> None:
    """`agent ask` with AGENT_STATE_URL at a port where nothing listens: the question is
    answered, and the log says once that the state falls back to this process."""
    with RedisServer() as server:
        url = server.url  # stopped on leaving: nothing listens there now
    log = tmp_path / "agent.log"
    env = {"AGENT_OFFLINE": "1", "AGENT_STATE_URL": url, "AGENT_LOG_FILE": str(log)}
    code, out, _ = run_cli(["ask", "What's the weather in Paris?"], env)
    assert code == 0
    assert "Paris" in out
    events = [json.loads(line)["event"] for line in log.read_text().splitlines()]
    assert events.count("resilience.state_unreachable") == 1


def test_a_state_url_that_is_no_store_is_a_usage_error() -> None:
    """AGENT_STATE_URL must name a Redis store: anything else stops at once (exit 2), naming
    the variable and never echoing its value."""
    code, _, err = run_cli(["ask", "2+2?"], {"AGENT_STATE_URL": "http://user:pw-secret@host/"})
    assert code == 2
    assert "AGENT_STATE_URL" in err
    assert "pw-secret" not in err
