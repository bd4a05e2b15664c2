"""Retry on tenacity, with every decision taken by error-to-action.

After each failed attempt the classifier is asked, with the attempt's retry count (so its
per-kind bounds apply) and the wait cap (the policy's, or the time left if shorter); `decide`
then carries out its verdict: a Retry-After within the cap is slept, a longer one is not (the
fallback is quicker), a connection that never opened is retried at once, anything else after
a full-jitter backoff; the attempt cap, the deadline and the retry budget can veto any retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

import httpx
from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from errors import (
    DeadlineExceeded,
    InvalidInput,
    NotFound,
    SourceSkipped,
    ToolError,
    Verdict,
    classify,
)
from tools.middleware._breaker import CircuitBreaker
from tools.middleware._budget import RetryBudget
from tools.middleware._call import Call
from tools.middleware._decide import decide

__all__ = ["SOURCE_FAILURES", "AttemptInfo", "Source", "with_retries"]

T = TypeVar("T")

# What a source can fail with; anything else is a bug in the tool, not retried here.
SOURCE_FAILURES = (ToolError, httpx.HTTPError, TimeoutError)


@dataclass(frozen=True, slots=True)
class AttemptInfo:
    """What a source's fetch function is told about the attempt it is making."""

    number: int  # 1-based
    retry_count: int
    after_timeout: bool = False  # the last attempt timed out: send a lighter request if any


@dataclass(frozen=True, slots=True)
class Source(Generic[T]):
    """One place an answer can come from: a name and a function making one attempt.

    `trusted_not_found` says whether its "no such thing" may end a call as input to fix;
    an untrusted one is still not retried, but alone it leaves the call degraded.
    """

    name: str
    fetch: Callable[[AttemptInfo], Awaitable[T]]
    trusted_not_found: bool = True


async def with_retries(
    call: Call, source: Source[T], breaker: CircuitBreaker, budget: RetryBudget
) -> T:
    """Call `source` until it answers or error-to-action says stop; re-raise the last failure."""
    attempts = _Attempts(call, source, breaker, budget)
    retrying = AsyncRetrying(
        retry=attempts.should_retry,
        wait=attempts.wait,
        stop=stop_after_attempt(call.policy.max_attempts),
        sleep=attempts.sleep,
        reraise=True,
    )
    return cast(T, await retrying(attempts.attempt))


class _Attempts(Generic[T]):
    """The attempts at one source within one call; tenacity drives them."""

    def __init__(
        self, call: Call, source: Source[T], breaker: CircuitBreaker, budget: RetryBudget
    ) -> None:
        self.call, self.source, self.breaker, self.budget = call, source, breaker, budget
        self.number = 0
        self.started = 0.0
        self.after_timeout = False
        self.next_wait = 0.0

    async def attempt(self) -> T:
        self.number += 1
        self.started = self.call.policy.clock()
        if not self.breaker.allow():
            raise SourceSkipped(f"{self.source.name}: circuit open", source=self.source.name)
        info = AttemptInfo(self.number, self.number - 1, self.after_timeout)
        policy, name = self.call.policy, self.source.name
        try:
            value = await self.call.deadline.run(
                policy.attempt_timeout_s, name, lambda: self.source.fetch(info)
            )
        except BaseException as exc:
            self._count_failure(exc)
            raise
        self.breaker.record_success()
        self.budget.record_success()
        self.call.succeeded(name, self.number, self._elapsed())
        return value

    def _count_failure(self, exc: BaseException) -> None:
        if isinstance(exc, asyncio.CancelledError | DeadlineExceeded):
            self.breaker.release()  # cut short by the caller's clock: no verdict on the source
        elif isinstance(exc, NotFound | InvalidInput):
            self.breaker.record_success()  # the source works; the question was wrong
        else:
            self.budget.record_failure()
            if self.breaker.record_failure():
                self.call.circuit_opened(self.source.name, self.breaker.cooldown_s)

    def should_retry(self, state: RetryCallState) -> bool:
        error = state.outcome.exception() if state.outcome else None
        if not isinstance(error, SOURCE_FAILURES):
            return False  # an answer, or a bug for the registry to report
        retry_count, remaining = self.number - 1, self.call.deadline.remaining()
        verdict = self._classify(error, retry_count, remaining)
        if isinstance(error, SourceSkipped):
            self.call.skipped(self.source.name, verdict, self.breaker.remaining_cooldown())
            return False
        decision = decide(verdict, self.call.policy, retry_count, remaining, budget=self.budget)
        self.call.failed(self.source.name, self.number, self._elapsed(), verdict, decision)
        self.after_timeout = verdict.result.error_type == "timeout"
        self.next_wait = decision.wait_s
        return decision.retry

    def _classify(self, error: BaseException, retry_count: int, remaining: float) -> Verdict:
        """error-to-action's verdict, with a Retry-After past the cap or the time left
        marked `beyond_cap` (and said so in its words)."""
        cap = self.call.policy.wait_cap(remaining)
        return classify(error, self.call.operation, retry_count=retry_count, max_wait_s=cap)

    def wait(self, _state: RetryCallState) -> float:
        return self.next_wait

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:  # an immediate retry goes straight out, without even a sleep(0)
            await self.call.policy.sleep(seconds)

    def _elapsed(self) -> float:
        return max(0.0, self.call.policy.clock() - self.started)
