"""The engine on its own, with scripted sources: no HTTP, fake time."""

from __future__ import annotations

import asyncio
import gc
import math
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import NamedTuple

import httpx
import pytest
from structlog.testing import capture_logs

from errors import (
    BadUpstreamData,
    DeadlineExceeded,
    InvalidInput,
    NotFound,
    UpstreamStatus,
    Verdict,
    classify,
)
from resilience import (
    AttemptInfo,
    Deadline,
    Engine,
    Event,
    Outcome,
    Policy,
    RetryBudget,
    Source,
    full_jitter,
    retry_phrase,
)
from resilience.tracing import _whole
from tests.conftest import Progress, Watched
from tests.tools.fakes import FakeClock


class Scripted:
    """A source whose attempts go as scripted (an exception raises), the last step repeating."""

    def __init__(self, *steps: BaseException | str) -> None:
        self.steps = steps or ("answer",)
        self.seen: list[AttemptInfo] = []

    async def __call__(self, info: AttemptInfo) -> str:
        self.seen.append(info)
        step = self.steps[min(len(self.seen), len(self.steps)) - 1]
        if isinstance(step, BaseException):
            raise step
        return step


def unavailable() -> UpstreamStatus:
    return UpstreamStatus(503, "down", source="a")


async def run(resilience: Engine, *fetches: Scripted) -> Outcome[str]:
    sources = [Source(name, fetch) for name, fetch in zip("abc", fetches, strict=False)]
    return await resilience.run("getting the answer for Paris", sources)


@pytest.fixture
def resilience(policy: Policy) -> Engine:
    return Engine("demo", policy)


async def test_first_source_answers(resilience: Engine) -> None:
    """A healthy source answers on its first attempt; later sources are not touched."""
    second = Scripted()
    outcome = await run(resilience, Scripted("one"), second)
    assert (outcome.value, outcome.source) == ("one", "a")
    assert second.seen == []


async def test_failures_fall_through_to_the_next_source(resilience: Engine) -> None:
    """A source that keeps failing is left for the next one."""
    first = Scripted(unavailable())
    outcome = await run(resilience, first, Scripted("two"))
    assert (outcome.value, outcome.source) == ("two", "b")
    assert [info.number for info in first.seen] == [1, 2]


async def test_no_source_answers_ends_degraded(resilience: Engine) -> None:
    """With every source failing, the outcome has no value, no fix, and the last failure."""
    outcome = await run(resilience, Scripted(unavailable()), Scripted(BadUpstreamData("x")))
    assert (outcome.value, outcome.fix) == (None, None)
    assert outcome.failure is not None
    assert outcome.failure.result.error_type == "bad_data"


async def test_not_found_is_remembered_past_failing_fallbacks(resilience: Engine) -> None:
    """ "No such thing" from the primary stands when the fallback only fails."""
    missing = NotFound("Atlantis", what="place")
    outcome = await run(resilience, Scripted(missing), Scripted(unavailable()))
    assert outcome.fix is not None
    assert (outcome.fix.facts.subject, outcome.fix.result.action) == ("Atlantis", "fix_input")
    assert outcome.value is None


async def test_untrusted_not_found_alone_ends_degraded(resilience: Engine) -> None:
    """A "no such thing" from an untrusted source is not retried and fixes nothing alone."""
    down = Scripted(unavailable())
    doubtful = Scripted(NotFound("Paris", what="place", source="b"))
    sources = [Source("a", down), Source("b", doubtful, trusted=False)]
    with capture_logs() as logs:
        outcome = await resilience.run("getting the answer for Paris", sources)
    assert (outcome.value, outcome.fix) == (None, None)
    assert len(doubtful.seen) == 1
    assert outcome.failure is not None
    assert outcome.failure.result.error_type == "not_found"
    assert [e["event"] for e in logs].count("tool.degraded") == 1


async def test_trusted_not_found_stands_past_an_untrusted_one(resilience: Engine) -> None:
    """The primary's "no such thing" is kept when the untrusted fallback agrees."""
    missing = NotFound("Atlantis", what="place", source="a")
    doubtful = Scripted(NotFound("Atlantis", what="place", source="b"))
    sources = [Source("a", Scripted(missing)), Source("b", doubtful, trusted=False)]
    outcome = await resilience.run("getting the answer for Atlantis", sources)
    assert outcome.fix is not None
    assert (outcome.fix.facts.subject, outcome.fix.facts.source) == ("Atlantis", "a")
    assert len(doubtful.seen) == 1


async def test_degraded_log_names_the_last_failure_once(resilience: Engine) -> None:
    """tool.degraded names the last source and its error type; the rest was logged with that
    attempt and is not repeated (no note, action, retryable or attempt)."""
    with capture_logs() as logs:
        await run(resilience, Scripted(unavailable()), Scripted(BadUpstreamData("x", source="b")))
    failed = [e for e in logs if e["event"] == "tool.attempt_failed"]
    [degraded] = [e for e in logs if e["event"] == "tool.degraded"]
    assert (degraded["last_source"], degraded["error_type"]) == ("b", "bad_data")
    assert (failed[-1]["source"], failed[-1]["error_type"]) == ("b", "bad_data")
    assert not {"developer_note", "action", "retryable", "attempt"} & degraded.keys()
    assert len(failed) == 4


async def test_degraded_with_no_source_is_still_logged(resilience: Engine) -> None:
    """With nothing to call, the call still ends with one tool.degraded event, naming nothing."""
    with capture_logs() as logs:
        outcome = await resilience.run("getting the answer", [])
    [degraded] = logs
    assert (degraded["event"], degraded["last_source"], degraded["error_type"]) == (
        "tool.degraded",
        None,
        None,
    )
    assert outcome.value is None


@pytest.mark.parametrize(
    ("wait", "words"),
    [
        (0.0, "retrying now"),
        (0.004, "retrying now"),
        (0.25, "retrying now"),
        (0.49, "retrying now"),
        (0.5, "retrying in 1 second"),
        (1.4, "retrying in 1 second"),
        (1.5, "retrying in 2 seconds"),
        (2.0, "retrying in 2 seconds"),
        (2.5, "retrying in 3 seconds"),
        (3.97, "retrying in 4 seconds"),
    ],
)
def test_retry_phrase_never_says_zero_seconds(wait: float, words: str) -> None:
    """Short waits read "retrying now"; others are whole seconds, halves up, at least one."""
    assert retry_phrase(wait) == words


def test_a_wait_in_words_is_at_least_one_second() -> None:
    """A wait is never shown as "0 seconds"."""
    assert [_whole(w) for w in (0.0, 0.6, 5.0)] == ["1 second", "1 second", "5 seconds"]


async def test_a_tiny_backoff_reads_retrying_now(clock: FakeClock) -> None:
    """When full jitter draws almost nothing, the watcher reads "retrying now"."""
    watched = Watched()
    policy = Policy(sleep=clock.sleep, clock=clock, rand=lambda: 0.001)
    resilience = Engine("demo", policy, watched.append)
    await run(resilience, Scripted(unavailable(), "answer"))
    seen = [p.message for p in watched]
    assert [m for m in seen if not m.startswith("waiting for")] == ["a failed — retrying now"]


async def test_invalid_input_stops_the_chain(resilience: Engine) -> None:
    """Input a source rejects would be rejected everywhere: no fallback is tried."""
    second = Scripted()
    rejected = InvalidInput("city", "is not a city", "give a city name")
    outcome = await run(resilience, Scripted(rejected), second)
    assert outcome.fix is not None
    assert (outcome.fix.facts.field, outcome.fix.facts.problem) == ("city", rejected.problem)
    assert second.seen == []


async def test_a_bug_in_a_source_is_not_retried_or_hidden(resilience: Engine) -> None:
    """A KeyError is a bug, not an outage: logged as internal_error, never retried, and the
    next source still answers."""
    broken = Scripted(KeyError("temperature"))
    with capture_logs() as logs:
        outcome = await run(resilience, broken, Scripted("two"))
    assert len(broken.seen) == 1
    assert (outcome.value, outcome.source) == ("two", "b")
    failed = [e for e in logs if e["event"] == "tool.attempt_failed"]
    assert [(e["error_type"], e["action"]) for e in failed] == [("internal_error", "escalate")]


async def test_a_bug_in_the_only_source_says_so_truthfully(resilience: Engine) -> None:
    """With no other source, a bug ends the call with a sentence that promises no retry."""
    outcome = await run(resilience, Scripted(OverflowError("cannot convert float infinity")))
    assert outcome.failure is not None
    assert outcome.failure.result.action == "escalate"
    assert "tried once more" not in outcome.failure.result.user_message


async def test_a_retryable_failure_that_ends_the_call_promises_no_retry(
    resilience: Engine,
) -> None:
    """The last failure of a call is worded as final: no "will be tried again"."""
    outcome = await run(resilience, Scripted(unavailable()))
    assert outcome.failure is not None
    assert outcome.failure.result.retryable is False
    assert "tried once more" not in outcome.failure.result.user_message


async def test_a_foreign_connection_error_is_retried_and_falls_back(
    resilience: Engine,
) -> None:
    """A ConnectionRefusedError from any client is a network failure: retried, then fallback."""
    refused = Scripted(ConnectionRefusedError(111, "Connection refused"))
    outcome = await run(resilience, refused, Scripted("two"))
    assert len(refused.seen) == 2
    assert outcome.source == "b"


async def test_timeout_makes_the_next_attempt_lighter(resilience: Engine) -> None:
    """After a timeout the source is told so, to send a lighter request."""
    source = Scripted(httpx.ReadTimeout("slow"), "answer")
    await run(resilience, source)
    assert [(i.retry_count, i.after_timeout) for i in source.seen] == [(0, False), (1, True)]


async def test_max_attempts_caps_even_retryable_failures(policy: Policy, clock: FakeClock) -> None:
    """Policy.max_attempts bounds a source's attempts whatever the classifier allows."""
    capped = Engine("demo", Policy(sleep=clock.sleep, clock=clock, max_attempts=2))
    source = Scripted(UpstreamStatus(429, "busy"))
    await run(capped, source)
    assert len(source.seen) == 2


def verdict_for(
    error: BaseException | str, retry_count: int = 0, cap: float = Policy().max_wait_s
) -> Verdict:
    return classify(error, "getting the answer", retry_count=retry_count, max_wait_s=cap)


class Decision(NamedTuple):
    """What the engine did after a failed attempt: retry or not, why, and the wait it slept."""

    retry: bool
    reason: str
    wait_s: float = 0.0


def decision_for(
    error: BaseException | str,
    policy: Policy,
    retry_count: int = 0,
    remaining: float = math.inf,
    budget: RetryBudget | None = None,
) -> Decision:
    """What the engine decides after `error` at attempt `retry_count + 1` of a source (the
    same error before it), with `remaining` seconds of the call left and `budget`."""
    failure = error if isinstance(error, BaseException) else RuntimeError(error)
    events: list[Event] = []
    clock = FakeClock()
    policy = replace(policy, budget=budget or RetryBudget(), sleep=clock.sleep, clock=clock)
    engine = Engine("demo", policy, events.append)
    deadline = Deadline.after(remaining if math.isfinite(remaining) else 1e9, clock)
    source = Source("a", Scripted(*[failure] * (retry_count + 1), "answer"))
    asyncio.run(engine.run("getting the answer", [source], deadline=deadline))
    failed = [e for e in events if e.what == "failed" and e.number == retry_count + 1]
    (event,) = failed
    retried = event.wait_s is not None
    return Decision(retried, str(event.next), event.wait_s or 0.0)


def busy(retry_after: str) -> UpstreamStatus:
    return UpstreamStatus(429, "busy", headers={"Retry-After": retry_after})


@pytest.mark.parametrize(
    ("error", "retry_count", "retry", "reason", "wait"),
    [
        (unavailable(), 0, True, "backoff", 0.25),
        (unavailable(), 1, False, "not_retryable", 0.0),
        (UpstreamStatus(429, "busy"), 1, True, "backoff", 0.5),
        (UpstreamStatus(429, "busy"), 2, False, "not_retryable", 0.0),
        (busy("3"), 0, True, "retry_after", 3.0),
        (busy("0"), 0, True, "retry_after", 1.0),
        (busy("5"), 0, True, "retry_after", 5.0),
        (busy("5.5"), 0, False, "hint_beyond_cap", 0.0),
        (busy("3600"), 0, False, "hint_beyond_cap", 0.0),
        (UpstreamStatus(401, "bad key"), 0, False, "not_retryable", 0.0),
        (NotFound("Atlantis"), 0, False, "not_retryable", 0.0),
        (httpx.ConnectError("[Errno 111] Connection refused"), 0, True, "reconnect", 0.0),
        (httpx.ConnectError("[Errno -2] Name or service not known"), 0, True, "reconnect", 0.0),
        (httpx.ConnectTimeout("timed out"), 0, True, "reconnect", 0.0),
        (httpx.ConnectError("refused"), 1, False, "not_retryable", 0.0),
        (httpx.ReadError("[Errno 104] Connection reset by peer"), 0, True, "backoff", 0.25),
        (httpx.RemoteProtocolError("Server disconnected"), 0, True, "backoff", 0.25),
        (httpx.ReadTimeout("timed out"), 0, True, "backoff", 0.25),
        (httpx.PoolTimeout("no free connection"), 0, True, "backoff", 0.25),
    ],
)
def test_decide_follows_error_to_action(
    error: BaseException, retry_count: int, retry: bool, reason: str, wait: float, policy: Policy
) -> None:
    """Retry only on retry/wait: hints within the cap, at once after a failure to connect,
    else full-jitter backoff."""
    decision = decision_for(error, policy, retry_count, policy.deadline_s, RetryBudget())
    assert (decision.retry, decision.reason, decision.wait_s) == (retry, reason, wait)


@pytest.mark.parametrize(
    ("error", "reason", "wait"),
    [
        ("connect ECONNREFUSED 10.0.0.1:443", "reconnect", 0.0),
        ("getaddrinfo ENOTFOUND api.example.test", "reconnect", 0.0),
        ("read ECONNRESET", "backoff", 0.25),
    ],
)
def test_the_verdict_alone_tells_a_connection_that_never_opened(
    error: str, reason: str, wait: float, policy: Policy
) -> None:
    """No exception class is needed: error-to-action's facts say whether anything was sent."""
    decision = decision_for(error, policy)
    assert (decision.retry, decision.reason, decision.wait_s) == (True, reason, wait)


def test_a_wait_verdict_without_a_hint_backs_off(policy: Policy) -> None:
    """Capacity without a Retry-After gets full-jitter backoff; with one, the hint is slept."""
    assert decision_for(UpstreamStatus(429, "busy"), policy) == Decision(True, "backoff", 0.25)
    assert decision_for(busy("3"), policy) == Decision(True, "retry_after", 3.0)


def test_decide_needs_no_deadline_or_budget() -> None:
    """A loop with neither (the model calls) gets the same decision from the policy alone."""
    patient = Policy(max_wait_s=30.0, rand=lambda: 0.5)
    assert decision_for(busy("20"), patient) == Decision(True, "retry_after", 20.0)
    assert decision_for(busy("45"), patient) == Decision(False, "hint_beyond_cap")


async def test_a_refused_connection_is_retried_at_once(
    resilience: Engine, clock: FakeClock, progress: list[Progress]
) -> None:
    """Refused, then answered: the retry goes straight out, with no call to sleep at all."""
    resilience.listeners += (progress.append,)
    source = Scripted(httpx.ConnectError("[Errno 111] Connection refused"), "answer")
    with capture_logs() as logs:
        outcome = await run(resilience, source)
    assert (outcome.value, len(source.seen)) == ("answer", 2)
    assert clock.sleeps == []
    assert [(a.outcome, a.wait_s) for a in outcome.attempts] == [("network", 0.0), ("ok", None)]
    [failed] = [e for e in logs if e["event"] == "tool.attempt_failed"]
    assert (failed["next"], failed["wait_s"]) == ("reconnect", 0.0)
    shown = [p.message for p in progress if p.kind != "attempting"]
    assert shown == ["a failed — retrying now"]


async def test_refused_twice_falls_back_without_sleeping(
    resilience: Engine, clock: FakeClock
) -> None:
    """A source that keeps refusing costs one immediate retry, then the fallback answers."""
    refusing = Scripted(httpx.ConnectError("[Errno 111] Connection refused"))
    outcome = await run(resilience, refusing, Scripted("backup"))
    assert (outcome.value, outcome.source, len(refusing.seen)) == ("backup", "b", 2)
    assert clock.sleeps == []


async def test_a_reset_after_sending_still_backs_off(resilience: Engine, clock: FakeClock) -> None:
    """A connection reset once the request was sent keeps its full-jitter backoff."""
    source = Scripted(httpx.ReadError("[Errno 104] Connection reset by peer"), "answer")
    outcome = await run(resilience, source)
    assert outcome.value == "answer"
    assert clock.sleeps == [0.25]


async def test_an_immediate_retry_still_spends_the_retry_budget(clock: FakeClock) -> None:
    """Skipping the sleep does not skip the budget: a spent budget stops the retry."""
    budget = RetryBudget(max_tokens=2)
    budget.record_failure()
    thrifty = Engine("demo", Policy(sleep=clock.sleep, clock=clock, budget=budget))
    refusing = Scripted(httpx.ConnectError("[Errno 111] Connection refused"))
    await run(thrifty, refusing)
    assert len(refusing.seen) == 1


def test_a_hint_longer_than_the_time_left_is_beyond_the_cap(policy: Policy) -> None:
    """A Retry-After within the cap but past the deadline is not slept: reported instead."""
    verdict = verdict_for(busy("3"), cap=policy.wait_cap(2.5))
    assert verdict.beyond_cap
    assert decision_for(busy("3"), policy, remaining=2.5) == Decision(False, "hint_beyond_cap")


async def test_a_hint_past_the_deadline_is_kept_for_the_answer(clock: FakeClock) -> None:
    """With no fallback, a Retry-After longer than the time left is not slept but reported."""
    policy = Policy(sleep=clock.sleep, clock=clock, deadline_s=3.0, max_wait_s=5.0)
    with capture_logs() as logs:
        outcome = await run(Engine("demo", policy), Scripted(busy("4")))
    assert clock.sleeps == []
    assert (outcome.value, outcome.retry_after_s) == (None, 4.0)
    [failed] = [e for e in logs if e["event"] == "tool.attempt_failed"]
    assert failed["next"] == "hint_beyond_cap"


def test_decide_never_sleeps_past_the_deadline(policy: Policy) -> None:
    """A backoff as long as the time left is refused, so the fallback gets the time."""
    decision = decision_for(unavailable(), policy, remaining=0.25)
    assert (decision.retry, decision.reason) == (False, "deadline")


def test_decide_respects_an_empty_retry_budget(policy: Policy) -> None:
    """When the agent's retry budget is spent, nothing is retried."""
    budget = RetryBudget(max_tokens=2)
    budget.record_failure()
    decision = decision_for(unavailable(), policy, budget=budget)
    assert (decision.retry, decision.reason) == (False, "retry_budget")


def test_backoff_grows_and_is_capped() -> None:
    """Full jitter: uniform below base·2ⁿ, never above max_backoff_s."""
    top = Policy(rand=lambda: 0.999999, base_backoff_s=0.5, max_backoff_s=4.0)
    ceilings = [round(full_jitter(top, n), 3) for n in range(6)]
    assert ceilings == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert full_jitter(Policy(rand=lambda: 0.0), 3) == 0.0


async def test_retry_budget_stops_a_storm(clock: FakeClock) -> None:
    """Under a storm of failures the shared budget switches retries off across calls."""
    budget = RetryBudget(max_tokens=4, token_ratio=0.1)
    storm = Engine("demo", Policy(sleep=clock.sleep, clock=clock, budget=budget))
    sources = [Scripted(unavailable()) for _ in range(3)]
    for source in sources:
        await run(storm, source)
    assert [len(s.seen) for s in sources] == [2, 1, 1]


async def test_retry_budget_refills_with_successes(clock: FakeClock) -> None:
    """Successes earn tokens back, and with them retries."""
    budget = RetryBudget(max_tokens=4, token_ratio=0.5)
    for _ in range(2):
        budget.record_failure()
    assert not budget.allows_retry()
    budget.record_success()
    assert budget.allows_retry()
    assert budget.tokens == 2.5


def test_retry_budget_rejects_nonsense() -> None:
    """A budget needs a positive size."""
    with pytest.raises(ValueError, match="max_tokens"):
        RetryBudget(max_tokens=0)


async def test_deadline_cuts_a_hanging_attempt() -> None:
    """A per-attempt timeout turns a hang into a TimeoutError naming the source."""
    deadline = Deadline.after(10.0, asyncio.get_running_loop().time)
    with pytest.raises(TimeoutError, match="slow-source"):
        await deadline.run(0.01, "slow-source", lambda: asyncio.sleep(5))


async def test_deadline_cut_is_deadline_exceeded() -> None:
    """When the whole-call budget is the shorter limit, the cut is DeadlineExceeded."""
    deadline = Deadline.after(0.01, asyncio.get_running_loop().time)
    with pytest.raises(DeadlineExceeded):
        await deadline.run(5.0, "slow-source", lambda: asyncio.sleep(5))


async def test_no_time_left_means_no_call(clock: FakeClock) -> None:
    """With the deadline passed, the work is not even started."""
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    deadline = Deadline.after(1.0, clock)
    clock.advance(2.0)
    with pytest.raises(DeadlineExceeded):
        await deadline.run(5.0, "source", work)
    assert started == []


async def test_inner_timeout_errors_pass_through() -> None:
    """A TimeoutError from inside the work is not mistaken for the deadline's."""

    async def work() -> None:
        raise TimeoutError("inner")

    deadline = Deadline.after(10.0, asyncio.get_running_loop().time)
    with pytest.raises(TimeoutError, match="inner"):
        await deadline.run(5.0, "source", work)


async def test_a_spent_deadline_stops_the_chain(policy: Policy, clock: FakeClock) -> None:
    """A first source that uses up the budget leaves no time to call the second one."""

    async def slow_failure(_info: AttemptInfo) -> str:
        clock.advance(policy.deadline_s + 1)
        raise unavailable()

    second = Scripted()
    resilience = Engine("demo", policy)
    with capture_logs() as logs:
        outcome = await resilience.run(
            "getting the answer", [Source("a", slow_failure), Source("b", second)]
        )
    assert second.seen == []
    assert resilience.breaker("b").state == "closed"  # never called: nothing against it
    assert outcome.value is None
    failed = [(e["source"], e["error_type"]) for e in logs if e["event"] == "tool.attempt_failed"]
    assert failed == [("a", "server_error"), ("b", "deadline_exceeded")]


def tripping(resilience: Engine) -> Callable[[], Awaitable[Outcome[str]]]:
    return lambda: run(resilience, Scripted(unavailable()), Scripted("backup"))


async def test_circuit_opens_after_repeated_failures(clock: FakeClock, policy: Policy) -> None:
    """After `threshold` failed attempts the source is skipped, not called, until cool-down."""
    resilience = Engine("demo", Policy(sleep=clock.sleep, clock=clock, breaker_threshold=4))
    for _ in range(2):
        await tripping(resilience)()  # two calls, two attempts each
    skipped = Scripted()
    with capture_logs() as logs:
        outcome = await run(resilience, skipped, Scripted("backup"))
    assert skipped.seen == []
    assert outcome.source == "b"
    assert [a.outcome for a in outcome.attempts] == ["source_skipped", "ok"]
    assert next(e["event"] for e in logs) == "tool.source_skipped"


async def test_circuit_open_is_logged_when_it_trips(clock: FakeClock) -> None:
    """The failure that opens a circuit logs tool.circuit_open once."""
    resilience = Engine("demo", Policy(sleep=clock.sleep, clock=clock, breaker_threshold=2))
    with capture_logs() as logs:
        await tripping(resilience)()
        await tripping(resilience)()
    opened = [e for e in logs if e["event"] == "tool.circuit_open"]
    assert [(e["source"], e["cooldown_s"]) for e in opened] == [("a", 30.0)]


async def test_half_open_probe_closes_the_circuit(clock: FakeClock) -> None:
    """After the cool-down one probe goes through; its success closes the circuit."""
    resilience = Engine("demo", Policy(sleep=clock.sleep, clock=clock, breaker_threshold=2))
    await tripping(resilience)()
    clock.advance(31)
    probe = Scripted("back")
    outcome = await run(resilience, probe)
    assert (outcome.value, len(probe.seen)) == ("back", 1)
    assert resilience.breaker("a").state == "closed"


async def test_failed_probe_reopens_without_retrying(clock: FakeClock) -> None:
    """A failed half-open probe reopens the circuit; the retry finds it open and skips."""
    resilience = Engine("demo", Policy(sleep=clock.sleep, clock=clock, breaker_threshold=2))
    await tripping(resilience)()
    clock.advance(31)
    probe = Scripted(unavailable())
    outcome = await run(resilience, probe, Scripted("backup"))
    assert len(probe.seen) == 1
    assert [a.outcome for a in outcome.attempts] == ["server_error", "source_skipped", "ok"]
    assert resilience.breaker("a").state == "open"


async def test_a_server_asking_for_a_long_pause_is_skipped_until_then(
    resilience: Engine, clock: FakeClock
) -> None:
    """Retry-After beyond the cap is not slept; the source is held open for that long, so the
    next call goes straight to the fallback, and the source is asked again after it."""
    busy_a = Scripted(UpstreamStatus(429, "busy", source="a", headers={"Retry-After": "60"}))
    await run(resilience, busy_a, Scripted("two"))
    outcome = await run(resilience, busy_a, Scripted("two"))
    first = outcome.attempts[0]
    assert (first.source, first.number, first.outcome) == ("a", 0, "source_skipped")
    assert len(busy_a.seen) == 1
    clock.advance(60)
    await run(resilience, busy_a, Scripted("two"))
    assert len(busy_a.seen) == 2


async def test_retry_on_narrows_what_is_retried(resilience: Engine) -> None:
    """A failure `retry_on` rejects is not retried, though error-to-action would."""
    first = Scripted(unavailable())
    never = Source("a", first, retry_on=lambda error: not isinstance(error, UpstreamStatus))
    outcome = await resilience.run("getting the answer", [never, Source("b", Scripted("two"))])
    assert len(first.seen) == 1
    assert outcome.source == "b"


async def test_an_answer_carries_no_failure(resilience: Engine) -> None:
    """A call answered after a retry reports no failure and no error."""
    outcome = await run(resilience, Scripted(unavailable(), "ok"))
    assert (outcome.value, outcome.failure, outcome.error) == ("ok", None, None)


@pytest.mark.parametrize(
    "steps",
    [lambda: ("answer",), lambda: (unavailable(), "answer"), lambda: (unavailable(),)],
    ids=["answered", "retried, then answered", "gave up"],
)
async def test_a_finished_call_leaves_no_reference_cycle(
    resilience: Engine, steps: Callable[[], tuple[BaseException | str, ...]]
) -> None:
    """A call's tenacity loop, record and failures are freed as it ends, not by the collector."""
    await run(resilience, Scripted(*steps()))  # the breaker and the budget, made once
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        outcome = await run(resilience, Scripted(*steps()), Scripted("fallback"))
        del outcome
        gc.collect()
        left = {type(thing).__name__ for thing in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not left & {"AsyncRetrying", "RetryCallState", "_Call", "Event", "UpstreamStatus"}
