"""The engine: sources in order, each tried until it answers or error-to-action says stop.

For every source, in order::

    breaker open? ── yes ──▶ skip it (recorded as an attempt numbered 0)
        │ no
    attempt, cut at the attempt timeout or the call's deadline, whichever is first
        │ failed
    verdict = errors.classify(error, operation, retry_count=n, max_wait_s=cap)
    decision = decide(verdict, policy, n, time left, budget)   ── retry ──▶ sleep, attempt again
        │ no retry
    input to fix or deadline spent ──▶ stop;  anything else ──▶ next source

It is a plain loop rather than tenacity's hooks: the decision is one pure function
(`decide`), and splitting it into tenacity's separate retry, wait and stop callbacks meant
passing state between them. The same engine runs tool sources (Open-Meteo, then wttr.in) and
model calls (the primary model, then a fallback model).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from errors import DeadlineExceeded, InvalidInput, NotFound, SourceSkipped, Verdict, classify
from resilience._breaker import CircuitBreaker
from resilience._budget import RetryBudget
from resilience._deadline import Deadline
from resilience._decide import Decision, decide
from resilience._policy import Policy
from resilience._report import Call, Kind, Outcome
from resilience._source import AttemptInfo, Source
from resilience._timeline import Observer

__all__ = ["Engine"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Answered(Generic[T]):
    value: T


_NEXT, _STOP = "next", "stop"  # after a source gave up: try the next source, or end the call


class Engine:
    """Retries, fallback, deadlines and breakers for one caller (a tool, or the model).

    It lives as long as the caller: it holds a circuit breaker per source and the retry
    budget (the policy's, shared, or one of its own). `kind` names its log events.
    """

    def __init__(
        self,
        caller: str,
        policy: Policy | None = None,
        observer: Observer | None = None,
        *,
        kind: Kind = "tool",
    ) -> None:
        self.caller = caller
        self.policy = policy or Policy()
        self.observer = observer
        self.kind = kind
        self.budget = self.policy.budget or RetryBudget()
        self._breakers: dict[str, CircuitBreaker] = {}

    def breaker(self, source: str) -> CircuitBreaker:
        """The circuit breaker of `source`, created on first use."""
        if source not in self._breakers:
            policy = self.policy
            self._breakers[source] = CircuitBreaker(
                policy.breaker_threshold, policy.breaker_cooldown_s, policy.clock
            )
        return self._breakers[source]

    async def run(
        self,
        operation: str,
        sources: Sequence[Source[T]],
        *,
        subject: str = "",
        deadline: Deadline | None = None,
    ) -> Outcome[T]:
        """Try `sources` in order until one answers. `operation` names the work in words
        ("getting the weather for Paris"); `subject` is what it is about, for the timeline;
        `deadline` bounds the whole call (default: the policy's `deadline_s` from now)."""
        call = Call(self.caller, self.kind, operation, subject, self.observer)
        run = _Run(
            self, call, deadline or Deadline.after(self.policy.deadline_s, self.policy.clock)
        )
        for index, source in enumerate(sources):
            if index:
                run.call.falling_back(sources[index - 1].name, source.name)
            step = await run.source(source)
            if isinstance(step, _Answered):
                return run.call.outcome(step.value, source.name)
            if step == _STOP:
                break
        return run.call.outcome()


class _Run:
    """One call through the engine: its record, its deadline, and the source being tried."""

    def __init__(self, engine: Engine, call: Call, deadline: Deadline) -> None:
        self.engine, self.call, self.deadline = engine, call, deadline
        self.policy = engine.policy

    async def source(self, source: Source[T]) -> _Answered[T] | str:
        """Attempts at `source` until it answers or gives up (then: `_NEXT` or `_STOP`)."""
        breaker = self.engine.breaker(source.name)
        info = AttemptInfo(1, 0)
        while True:
            if not breaker.allow():
                return self._skipped(source.name, breaker)
            started = self.policy.clock()
            self.call.notify("attempting", source.name, f"waiting for {source.name}")
            with self.call.trace.attempt(source.name, info.number):  # a span, if tracing
                try:
                    value = await self._attempt(source, info, breaker)
                except asyncio.CancelledError:
                    self.call.cancelled(source.name, info.number, self.policy.clock() - started)
                    raise
                except Exception as error:
                    elapsed = self.policy.clock() - started
                    decision, failure = self._failed(source, info, error, elapsed), error
                else:
                    self.call.succeeded(source.name, info.number, self.policy.clock() - started)
                    return _Answered(value)
            if not decision.retry:
                return self._gave_up(source, failure)
            await self._sleep(decision.wait_s)
            info = AttemptInfo(info.number + 1, info.number, _timed_out(self.call))

    async def _attempt(self, source: Source[T], info: AttemptInfo, breaker: CircuitBreaker) -> T:
        """One attempt, bounded; the breaker and the budget learn how it went."""
        timeout = self.policy.attempt_timeout_s
        try:
            value = await self.deadline.run(timeout, source.name, lambda: source.fetch(info))
        except BaseException as error:
            self._count_failure(source.name, breaker, error)
            raise
        breaker.record_success()
        self.engine.budget.record_success()
        return value

    def _count_failure(self, name: str, breaker: CircuitBreaker, error: BaseException) -> None:
        if isinstance(error, asyncio.CancelledError | DeadlineExceeded):
            breaker.release()  # cut short by the caller's clock: no verdict on the source
        elif isinstance(error, NotFound | InvalidInput):
            breaker.record_success()  # the source works; the question was wrong
        else:
            self.engine.budget.record_failure()
            if breaker.record_failure():
                self.call.circuit_opened(name, breaker.cooldown_s)

    def _failed(
        self, source: Source[T], info: AttemptInfo, error: Exception, elapsed: float
    ) -> Decision:
        """Classify the failure, decide, record; a server's "not before" holds its breaker."""
        remaining = self.deadline.remaining()
        verdict = self._classify(error, info.retry_count, remaining)
        decision = decide(
            verdict, self.policy, info.retry_count, remaining, budget=self.engine.budget
        )
        if not source.retry_on(error):
            decision = Decision(retry=False, reason="not_retryable")
        self.call.failed(source.name, info.number, elapsed, (error, verdict), decision)
        if not decision.retry and verdict.hint_s and self.policy.breaker_threshold > 0:
            self.engine.breaker(source.name).hold(verdict.hint_s)
        return decision

    def _classify(self, error: BaseException, retry_count: int, remaining: float) -> Verdict:
        cap = self.policy.wait_cap(remaining)
        return classify(error, self.call.operation, retry_count=retry_count, max_wait_s=cap)

    def _skipped(self, name: str, breaker: CircuitBreaker) -> str:
        error = SourceSkipped(f"{name}: circuit open", source=name)
        self.call.skipped(name, self._classify(error, 0, 0.0), breaker.remaining_cooldown())
        return _NEXT

    def _gave_up(self, source: Source[T], error: Exception) -> str:
        """What follows a source that will not answer: input to fix and a spent deadline end
        the call; a trusted "no such thing" is remembered; anything else tries the next."""
        if isinstance(error, InvalidInput):
            self.call.fix = error
            return _STOP
        if isinstance(error, DeadlineExceeded):
            return _STOP
        if isinstance(error, NotFound) and source.trusted_not_found:
            self.call.fix = self.call.fix or error
        return _NEXT

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:  # an immediate retry goes straight out, without even a sleep(0)
            await self.policy.sleep(seconds)


def _timed_out(call: Call) -> bool:
    """Whether the latest attempt timed out (so the next one may be lighter)."""
    return call.failure is not None and call.failure.result.error_type == "timeout"
