"""Retry on tenacity, with every decision taken by error-to-action.

After each failed attempt the classifier is asked (with the attempt's retry count, so its
per-kind bounds apply); only `retry` and `wait` go again. How long to wait first is
`retry_wait`'s one rule: a Retry-After within the cap and the deadline is slept (a longer one
is not slept at all: the fallback is quicker); a connection that never reached a server is
retried at once; anything else waits a full-jitter backoff. The retry budget can veto any retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

import httpx
from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from errors import (
    Action,
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
from tools.middleware._call import Call, Decision
from tools.middleware._policy import Policy, full_jitter

__all__ = ["CONNECT_PHASE", "AttemptInfo", "Source", "decide", "retry_wait", "with_retries"]

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


# Failures of the connect phase: refused, unreachable, DNS (httpx.ConnectError) or a handshake
# that did not finish in time (httpx.ConnectTimeout). No request was sent, so no server did any
# work for it, and backing off would spare nobody: the one retry goes straight out. (A TLS
# failure is a ConnectError too; it did reach a server, but only for a handshake.) Failures
# after the request left (ReadError, RemoteProtocolError, ReadTimeout…) may have reached a
# struggling server, and keep their backoff.
CONNECT_PHASE = (httpx.ConnectError, httpx.ConnectTimeout)


def decide(
    verdict: Verdict,
    retry_count: int,
    call: Call,
    budget: RetryBudget,
    error: BaseException | None = None,
) -> Decision:
    """Retry or not, and after how long; error-to-action has the first word. `error` is the
    failure `verdict` was made from (it tells a connect-phase failure apart)."""
    policy = call.policy
    if not verdict.retryable:
        return Decision(retry=False, reason="not_retryable")
    if retry_count + 1 >= policy.max_attempts:
        return Decision(retry=False, reason="attempt_cap")
    hint, hinted_wait = verdict.hint_s, verdict.wait_s
    if hint is not None and hinted_wait is not None and max(hint, hinted_wait) > policy.max_wait_s:
        return Decision(retry=False, reason="hint_beyond_cap")
    wait, reason = retry_wait(error, verdict, policy, retry_count)
    if wait >= call.deadline.remaining():
        return Decision(retry=False, reason="deadline")
    if not budget.allows_retry():
        return Decision(retry=False, reason="retry_budget")
    return Decision(retry=True, reason=reason, wait_s=wait)


def retry_wait(
    error: BaseException | None, verdict: Verdict, policy: Policy, retry_count: int
) -> tuple[float, str]:
    """The wait before a retry error-to-action allowed, and its reason (`Decision.reason`):

    - the server's Retry-After, clamped by the classifier ("retry_after");
    - none for a connect-phase failure the classifier said to `retry` ("reconnect"): nothing
      was sent, so there is no one to spare, and its retry is bounded to one like any other;
    - otherwise full-jitter backoff ("backoff"), including any `wait` verdict without a hint.
    """
    if verdict.hint_s is not None and verdict.wait_s is not None:
        return verdict.wait_s, "retry_after"
    if isinstance(error, CONNECT_PHASE) and verdict.result.action is Action.RETRY:
        return 0.0, "reconnect"
    return full_jitter(policy, retry_count), "backoff"


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
        if self.call.deadline.remaining() <= 0:
            raise DeadlineExceeded(f"no time left to call {self.source.name}")
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
        verdict = classify(error, self.call.operation, retry_count=self.number - 1)
        if isinstance(error, SourceSkipped):
            self.call.skipped(self.source.name, verdict, self.breaker.remaining_cooldown())
            return False
        decision = decide(verdict, self.number - 1, self.call, self.budget, error)
        self.call.failed(self.source.name, self.number, self._elapsed(), verdict, decision)
        self.after_timeout = verdict.result.error_type == "timeout"
        self.next_wait = decision.wait_s
        return decision.retry

    def wait(self, _state: RetryCallState) -> float:
        return self.next_wait

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:  # an immediate retry goes straight out, without even a sleep(0)
            await self.call.policy.sleep(seconds)

    def _elapsed(self) -> float:
        return max(0.0, self.call.policy.clock() - self.started)
