"""Breakers, the retry budget and the request bucket shared through a real Redis server.

Each `RedisState` here stands for one worker: two of them on the same URL and namespace are
two processes of one fleet (each has its own connection; nothing is shared but the store).
"""

from __future__ import annotations

import time
import uuid

import pytest
from structlog.testing import capture_logs

from benchmarks.redis_server import RedisServer
from errors import ErrorType, UpstreamStatus
from resilience import (
    Engine,
    InProcess,
    Paced,
    Policy,
    RedisState,
    Source,
    state_from_url,
)
from resilience._policy import IN_PROCESS
from tests.resilience.test_engine import Scripted
from tests.tools.fakes import FakeClock


@pytest.fixture
def fleet(redis_url: str) -> tuple[RedisState, RedisState]:
    """Two workers' states on one store, in a namespace of their own."""
    namespace = uuid.uuid4().hex
    return RedisState(redis_url, namespace=namespace), RedisState(redis_url, namespace=namespace)


def closed_port() -> str:
    with RedisServer() as server:  # started, then stopped: nothing listens there now
        url = server.url
    return url


def test_a_breaker_opened_by_one_worker_is_open_for_another(
    fleet: tuple[RedisState, RedisState],
) -> None:
    """Failures seen by worker A open the circuit that worker B then finds open, with the
    cool-down still to run."""
    a, b = fleet
    first = a.breaker("get_weather/open-meteo", 2, 30.0, time.monotonic)
    second = b.breaker("get_weather/open-meteo", 2, 30.0, time.monotonic)
    assert [first.record_failure(), first.record_failure()] == [False, True]
    assert second.state == "open"
    assert not second.allow()
    assert 25 < second.remaining_cooldown() <= 30


def test_the_circuit_opens_once_for_the_whole_fleet(fleet: tuple[RedisState, RedisState]) -> None:
    """Failures from both workers count together; only the one that crossed the threshold is
    told it opened the circuit."""
    a, b = fleet
    breakers = [s.breaker("model/claude", 3, 30.0, time.monotonic) for s in (a, b, a, b)]
    assert [breaker.record_failure() for breaker in breakers] == [False, False, True, False]


def test_after_the_cooldown_one_probe_goes_for_the_fleet(
    fleet: tuple[RedisState, RedisState],
) -> None:
    """Half-open lets exactly one worker's probe through; its success closes it for all."""
    a, b = fleet
    first = a.breaker("wttr", 1, 0.05, time.monotonic)
    second = b.breaker("wttr", 1, 0.05, time.monotonic)
    first.record_failure()
    time.sleep(0.1)
    assert second.state == "half_open"
    assert [second.allow(), first.allow()] == [True, False]
    second.record_success()
    assert first.state == "closed"
    assert first.allow()


def test_a_failed_probe_reopens_for_everyone(fleet: tuple[RedisState, RedisState]) -> None:
    """A probe that fails opens the circuit again for a whole cool-down, for both workers."""
    a, b = fleet
    first = a.breaker("wttr", 1, 0.05, time.monotonic)
    second = b.breaker("wttr", 1, 0.05, time.monotonic)
    first.record_failure()
    time.sleep(0.1)
    assert second.allow()
    assert second.record_failure()
    assert first.state == "open"


def test_a_hold_reaches_every_worker(fleet: tuple[RedisState, RedisState]) -> None:
    """A source's own "not before" (a spent daily quota) holds its circuit for the fleet."""
    a, b = fleet
    a.breaker("open-meteo", 5, 30.0, time.monotonic).hold(600)
    held = b.breaker("open-meteo", 5, 30.0, time.monotonic)
    assert not held.allow()
    assert 590 < held.remaining_cooldown() <= 600


def test_the_retry_budget_is_one_budget(fleet: tuple[RedisState, RedisState]) -> None:
    """Failures in two workers spend one budget: once half is gone, neither may retry."""
    a, b = fleet
    first, second = a.budget("get_weather", 4, 0.5), b.budget("get_weather", 4, 0.5)
    first.record_failure()
    assert second.tokens == 3
    second.record_failure()
    assert not first.allows_retry()
    assert not second.allows_retry()
    first.record_success()
    assert second.tokens == 2.5
    assert second.allows_retry()


def test_the_request_bucket_is_one_rate(fleet: tuple[RedisState, RedisState]) -> None:
    """Sixty a minute across two workers: the 61st request waits about a second, wherever it
    is made; a wait longer than the caller would take reserves nothing."""
    a, b = fleet
    first, second = a.bucket("model", 60, time.monotonic), b.bucket("model", 60, time.monotonic)
    waits = [bucket.take() for bucket in (first, second) * 30]
    assert waits == [0.0] * 60
    assert 0.9 < second.take(max_wait_s=0.5) <= 1.0  # too long: not reserved…
    assert 0.9 < first.take() <= 1.0  # …so this one gets that place
    assert 1.9 < second.take() <= 2.0


def test_every_key_expires(redis_url: str, fleet: tuple[RedisState, RedisState]) -> None:
    """Nothing the state writes lives forever: every key has a time to live."""
    import redis

    a, _ = fleet
    breaker = a.breaker("s", 1, 30.0, time.monotonic)
    breaker.record_failure()
    a.budget("b", 20, 0.2).record_failure()
    a.bucket("m", 10, time.monotonic).take()
    with redis.Redis.from_url(redis_url) as client:
        keys = client.keys(f"failsafe-agent:{a.namespace}:*")
        assert len(keys) == 3
        assert all(client.ttl(key) > 0 for key in keys)


def test_an_unreachable_store_falls_back_with_one_notice() -> None:
    """Nothing listening: every operation answers from this worker's own state, and the
    worker says so once, however many operations follow."""
    state = RedisState(closed_port(), namespace="n")
    with capture_logs() as logs:
        breaker = state.breaker("s", 2, 30.0, time.monotonic)
        assert breaker.allow()
        assert [breaker.record_failure(), breaker.record_failure()] == [False, True]
        assert not breaker.allow()  # the worker's own breaker opened
        budget = state.budget("b", 4, 0.5)
        budget.record_failure()
        assert budget.tokens == 3
        assert state.bucket("m", 60, time.monotonic).take() == 0.0
    notices = [log for log in logs if log["event"] == "resilience.state_unreachable"]
    assert len(notices) == 1
    assert notices[0]["store"].startswith("redis://127.0.0.1:")


def test_a_store_killed_mid_run_leaves_the_worker_working() -> None:
    """The server dies between two operations: the next one falls back, with one notice,
    and the breaker goes on counting in the worker."""
    with RedisServer() as server:
        state = RedisState(server.url, namespace="n")
        breaker = state.breaker("s", 2, 30.0, time.monotonic)
        assert not breaker.record_failure()  # counted in the store
        server.kill()
        with capture_logs() as logs:
            assert breaker.allow()
            assert [breaker.record_failure(), breaker.record_failure()] == [False, True]
            assert breaker.state == "open"
    assert [log["event"] for log in logs].count("resilience.state_unreachable") == 1


def test_the_password_never_reaches_the_log() -> None:
    """The notice names the store by scheme, host and port, never its credentials."""
    url = closed_port().replace("redis://", "redis://worker:hunter2-secret@")
    with capture_logs() as logs:
        RedisState(url).budget("b", 4, 0.5).record_failure()
    assert "hunter2" not in repr(logs)


async def test_an_engine_skips_a_source_another_worker_found_down(
    fleet: tuple[RedisState, RedisState],
) -> None:
    """Worker A's engine opens the breaker of a failing source; worker B's engine, on the
    same store, skips that source without calling it and answers from the next one."""
    a, b = fleet
    clock = FakeClock()

    def policy(state: RedisState) -> Policy:
        return Policy(sleep=clock.sleep, clock=clock, rand=lambda: 0.5, breaker_threshold=2,
                      state=state)  # fmt: skip

    down = Scripted(UpstreamStatus(503, "down", source="primary"))
    first = Engine("get_weather", policy(a))
    await first.run("getting the weather for Paris", [Source("primary", down)])
    assert len(down.seen) == 2  # one retry, then the circuit opened

    again, fallback = Scripted("never"), Scripted("answer")
    second = Engine("get_weather", policy(b))
    outcome = await second.run(
        "getting the weather for Paris", [Source("primary", again), Source("fallback", fallback)]
    )
    assert (outcome.value, outcome.source) == ("answer", "fallback")
    assert again.seen == []


async def test_requests_a_minute_are_paced() -> None:
    """With 60 requests a minute and the bucket spent, the next attempt waits its second
    (asked of the injected sleep) and goes."""
    clock = FakeClock()
    policy = Policy(sleep=clock.sleep, clock=clock, requests_per_minute=60)
    engine = Engine("model", policy, kind="model")
    for _ in range(60):
        assert engine.bucket.take() == 0.0
    source = Scripted("reply")
    outcome = await engine.run("asking the model", [Source("claude", source)])
    assert outcome.value == "reply"
    assert len(clock.sleeps) == 1
    assert clock.sleeps == [1.0]  # on the policy's clock: no real time passes


async def test_a_pace_beyond_the_cap_is_a_wait_the_source_is_not_blamed_for() -> None:
    """When the next place is further off than the wait cap, the attempt is not sent: the
    verdict is the API's own rate limit with its wait, and the source's breaker stays shut."""
    clock = FakeClock()
    policy = Policy(sleep=clock.sleep, clock=clock, requests_per_minute=1, max_wait_s=5,
                    breaker_threshold=1)  # fmt: skip
    engine = Engine("model", policy, kind="model")
    engine.bucket.take()  # the minute's one request
    source = Scripted("reply")
    outcome = await engine.run("asking the model", [Source("claude", source)])
    assert source.seen == []
    assert outcome.failure is not None
    assert outcome.failure.kind.error_type is ErrorType.RATE_LIMIT
    assert isinstance(outcome.error, Paced)
    assert outcome.retry_after_s is not None
    assert 55 <= outcome.retry_after_s <= 60
    assert engine.breaker("claude").state == "closed"
    assert clock.sleeps == []


def test_the_state_url_chooses_the_store(redis_url: str) -> None:
    """Unset: this process's state; a redis:// (or valkey://) URL: one store per URL."""
    assert state_from_url(None) is IN_PROCESS
    assert isinstance(state_from_url(None), InProcess)
    shared = state_from_url(redis_url)
    assert isinstance(shared, RedisState)
    assert state_from_url(redis_url) is shared
    valkey = state_from_url(redis_url.replace("redis://", "valkey://"))
    assert isinstance(valkey, RedisState)
    assert valkey.url.startswith("redis://")
