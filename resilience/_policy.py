"""The retry policy, in one place: error-to-action's verdict as tenacity's strategies, and a
caller's own bounds.

    from tenacity import AsyncRetrying, stop_after_attempt
    from resilience import (
        retry_if_error_to_action, stop_error_to_action, verdict_of, wait_error_to_action,
    )

    try:
        async for attempt in AsyncRetrying(
            retry=retry_if_error_to_action("fetching the billing data"),
            wait=wait_error_to_action(),
            stop=stop_error_to_action() | stop_after_attempt(5),
            reraise=True,
        ):
            with attempt:
                return await fetch_billing()
    except Exception:
        print(verdict_of(attempt.retry_state).final().result.user_message)

`retry_if_error_to_action` classifies each failure once (`errors.classify`, with the attempt's
retry count) and says yes to the kinds that may pass: timeouts, dropped connections, 5xx,
rate limits, overload. `wait_error_to_action` sleeps what the failure itself asks for — the
server's Retry-After within the cap, nothing for a connection that never opened — and backs
off with full jitter otherwise. `stop_error_to_action` stops once the kind's retries are spent
(the third attempt is always the last) or the server asks for a longer wait than the cap.
The engine (`resilience._engine`) runs every source's attempts with exactly these three.

What a caller adds, and the engine asks through tenacity's `stop`: its patience (`Policy`:
attempts, waits, backoff), its clock (`Deadline`: a wall-clock limit on every attempt and on the
whole call, since a read timeout alone cannot stop a server that drips a byte every 100 ms), a
retry budget shared by a running agent (gRPC's retry throttling: every failure takes a token,
every success gives back a fraction of one, and retries stop while half are gone), and a
circuit breaker per source, which stops calling a source that keeps failing and then probes it:

    closed ──(threshold failures in a row)──▶ open ──(cool-down over)──▶ half-open
      ▲                                        ▲                          │ one probe
      └──────────────(probe succeeds)──────────┴───────(probe fails)──────┘

A source that says when it may be asked again (a daily quota spent until midnight) is held
open for exactly that long with `hold`, whatever the threshold.

Breakers, budgets and request buckets are made by the policy's `state` (the `State`
interface at the end of this module): `InProcess`, the default, keeps them in this process;
`resilience._state.RedisState` keeps them in Redis, one for a whole fleet of workers.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar
from weakref import WeakKeyDictionary

from tenacity import RetryCallState, retry_base, wait_random_exponential
from tenacity.stop import stop_base
from tenacity.wait import wait_base

from errors import MAX_WAIT_S, DeadlineExceeded, Step, Verdict, classify

__all__ = [
    "BUDGET_RATIO",
    "BUDGET_TOKENS",
    "IN_PROCESS",
    "MAX_HOLD_S",
    "Breaker",
    "BreakerState",
    "Bucket",
    "Budget",
    "CircuitBreaker",
    "Deadline",
    "InProcess",
    "Policy",
    "RequestBucket",
    "RetryBudget",
    "State",
    "full_jitter",
    "retry_if_error_to_action",
    "stop_error_to_action",
    "verdict_of",
    "wait_error_to_action",
]


# --- error-to-action, as tenacity's strategies ------------------------------------------------

# The verdict on each retry state's latest failure, with the attempt it is for.
_VERDICTS: WeakKeyDictionary[RetryCallState, tuple[int, Verdict]] = WeakKeyDictionary()


def verdict_of(state: RetryCallState) -> Verdict | None:
    """The verdict on the latest attempt of `state`, if it failed (classified at most once)."""
    error = _failure(state)
    if error is None:
        return None
    return _once(state, lambda: classify(error, "", retry_count=state.attempt_number - 1))


class retry_if_error_to_action(retry_base):
    """Retry the failures error-to-action calls passing: retry and wait kinds.

    `operation` names the work in words ("fetching the billing data"): it is the subject of
    the sentence. `max_wait_s` is the longest wait worth taking (a number, or a function read
    at each failure, such as the time left): a longer Retry-After is not slept.
    """

    def __init__(
        self,
        operation: str,
        *,
        user_context: str = "",
        max_wait_s: float | Callable[[], float] = MAX_WAIT_S,
    ) -> None:
        self.operation = operation
        self.user_context = user_context
        self.max_wait_s = max_wait_s

    def __call__(self, state: RetryCallState) -> bool:
        error = _failure(state)
        return error is not None and self.verdict(state, error).kind.action.retries

    def verdict(self, state: RetryCallState, error: BaseException) -> Verdict:
        """The verdict on `error`, the latest attempt's failure, classified once."""

        def read() -> Verdict:
            cap = self.max_wait_s() if callable(self.max_wait_s) else self.max_wait_s
            retries = state.attempt_number - 1
            return classify(error, self.operation, self.user_context, retries, max_wait_s=cap)

        return _once(state, read)


class wait_error_to_action(wait_base):
    """The wait the failure asks for; without one, `backoff` (full jitter by default)."""

    def __init__(self, backoff: Callable[[RetryCallState], float] | None = None) -> None:
        self.backoff = backoff or wait_random_exponential(multiplier=0.5, max=4)

    def __call__(self, state: RetryCallState) -> float:
        verdict = verdict_of(state)
        if verdict is not None and verdict.wait_s is not None:
            return verdict.wait_s
        return self.backoff(state)


class stop_error_to_action(stop_base):
    """Stop once error-to-action says this failure earns no more attempts: the kind's retries
    are spent, or the server asked for a longer wait than the cap."""

    def __call__(self, state: RetryCallState) -> bool:
        verdict = verdict_of(state)
        return verdict is not None and verdict.step is not Step.RETRY


def _failure(state: RetryCallState) -> Exception | None:
    """The latest attempt's exception, if it raised one worth classifying (a cancellation or
    an interrupt is never retried, so never classified)."""
    outcome = state.outcome
    if outcome is None or not outcome.failed:
        return None
    error = outcome.exception()
    return error if isinstance(error, Exception) else None


def _once(state: RetryCallState, read: Callable[[], Verdict]) -> Verdict:
    """The verdict on the latest attempt of `state`: `read()` the first time, then remembered."""
    known = _VERDICTS.get(state)
    if known is None or known[0] != state.attempt_number:
        known = _VERDICTS[state] = (state.attempt_number, read())
    return known[1]


# --- the caller's own bounds -----------------------------------------------------------------

T = TypeVar("T")


BUDGET_TOKENS, BUDGET_RATIO = 20.0, 0.2  # a retry budget's size, and what a success gives back


class RetryBudget:
    """A token bucket shared by every tool call of one agent."""

    def __init__(
        self, max_tokens: float = BUDGET_TOKENS, token_ratio: float = BUDGET_RATIO
    ) -> None:
        if max_tokens <= 0 or token_ratio < 0:
            raise ValueError("max_tokens must be positive and token_ratio not negative")
        self.max_tokens = max_tokens
        self.token_ratio = token_ratio
        self.tokens = max_tokens  # tokens left

    def allows_retry(self) -> bool:
        """Whether one more retry may be sent now."""
        return self.tokens > self.max_tokens / 2

    def record_failure(self) -> None:
        """A failed attempt costs one token."""
        self.tokens = max(0.0, self.tokens - 1)

    def record_success(self) -> None:
        """A success earns back a fraction of a token."""
        self.tokens = min(self.max_tokens, self.tokens + self.token_ratio)


@dataclass(frozen=True, slots=True)
class Policy:
    """Values, plus the injectable I/O (sleep, clock, randomness).

    `budget` is shared state: callers built with the same policy share one retry budget, so
    build one policy per running agent. Left `None`, each engine gets a budget of its own.
    `state` says where breakers, budgets and request buckets live (`resilience._state`): in
    this process (None), or in Redis, shared by every worker of a fleet.
    `requests_per_minute` paces each engine's attempts (0: no pacing), the model API's limit.
    """

    max_wait_s: float = 5.0  # the longest Retry-After worth sleeping inside one call
    deadline_s: float = 20.0  # the whole call, every source and every retry included
    attempt_timeout_s: float = 6.0  # one attempt, however slowly its bytes arrive
    base_backoff_s: float = 0.5  # full-jitter backoff: uniform(0, base * 2**retries)…
    max_backoff_s: float = 4.0  # …never above this
    max_attempts: int = 3  # a safety net; error-to-action's bounds normally end sooner
    breaker_threshold: int = 5  # failed attempts in a row that open a source's circuit (0: off)
    breaker_cooldown_s: float = 30.0  # how long an open circuit skips its source
    budget: RetryBudget | None = None
    state: State | None = None
    requests_per_minute: float = 0.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    rand: Callable[[], float] = random.random  # in [0, 1): the jitter

    def wait_cap(self, remaining_s: float = math.inf) -> float:
        """The longest wait worth taking now, with `remaining_s` left of the deadline: pass it
        as `errors.classify(…, max_wait_s=…)`, so that a longer Retry-After is `beyond_cap`."""
        return min(self.max_wait_s, remaining_s)


def full_jitter(policy: Policy, retry_count: int) -> float:
    """AWS's "full jitter": a uniform draw below the capped exponential backoff."""
    ceiling = min(policy.max_backoff_s, policy.base_backoff_s * 2.0**retry_count)
    return policy.rand() * ceiling


@dataclass(frozen=True, slots=True)
class Deadline:
    """The moment a call must be over, on an injectable monotonic clock."""

    expires_at: float
    clock: Callable[[], float]

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float]) -> Deadline:
        """A deadline `seconds` from now."""
        return cls(clock() + seconds, clock)

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.expires_at - self.clock())

    async def run(self, timeout_s: float, source: str, work: Callable[[], Awaitable[T]]) -> T:
        """`work()`, cut at `timeout_s` or at the deadline, whichever comes first."""
        limit = min(timeout_s, self.remaining())
        if limit <= 0:
            raise DeadlineExceeded(f"no time left to call {source}", source=source)
        scope = asyncio.timeout(limit)
        try:
            async with scope:
                return await work()
        except TimeoutError:
            if not scope.expired():
                raise
            if limit < timeout_s:
                cut = f"the call's deadline cut {source} after {limit:.2f} s"
                raise DeadlineExceeded(cut, source=source) from None
            raise TimeoutError(f"{source} gave no complete answer within {limit:g} s") from None


MAX_HOLD_S = 24 * 3600.0  # the longest a source's own words may hold its circuit open

BreakerState = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    """Closed, open or half-open; `allow()` before each call, then record how it went.

    A `threshold` of 0 turns the breaker off: it stays closed whatever happens.
    """

    def __init__(
        self,
        threshold: int = 5,
        cooldown_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._failures = 0
        self._until: float | None = None  # when an open circuit lets a probe through
        self._probing = False

    @property
    def state(self) -> BreakerState:
        """The state as of now (an open circuit whose cool-down is over is half-open)."""
        if self._until is None:
            return "closed"
        return "half_open" if self.remaining_cooldown() == 0 else "open"

    def remaining_cooldown(self) -> float:
        """Seconds until an open circuit lets a probe through (0 when closed)."""
        return 0.0 if self._until is None else max(0.0, self._until - self._clock())

    def allow(self) -> bool:
        """Whether a call may go out now; in half-open, only one probe at a time."""
        state = self.state
        if state == "closed":
            return True
        if state == "open" or self._probing:
            return False
        self._probing = True
        return True

    def record_success(self) -> None:
        """The source answered: close the circuit."""
        self._failures = 0
        self._until = None
        self._probing = False

    def record_failure(self) -> bool:
        """The source failed; true when this failure is the one that opened the circuit."""
        if self.threshold <= 0:
            return False
        before = self.state
        self._failures += 1
        self._probing = False
        if before == "half_open" or (before == "closed" and self._failures >= self.threshold):
            self._until = self._clock() + self.cooldown_s
            return True
        return False

    def hold(self, seconds: float) -> None:
        """Open the circuit for `seconds` (at most `MAX_HOLD_S`): the source said it will
        refuse until then. An error's words are not trusted to switch a source off for
        longer than a day ("try again in 5000 hours", a 300-digit Retry-After)."""
        seconds = min(max(seconds, 0.0), MAX_HOLD_S)
        self._until = max(self._until or 0.0, self._clock() + seconds)
        self._probing = False

    def release(self) -> None:
        """An allowed call ended without a verdict (cancelled): let another probe through."""
        self._probing = False


# --- where breakers, budgets and buckets live --------------------------------------------------


class Breaker(Protocol):
    """A source's circuit breaker, wherever its state lives."""

    threshold: int
    cooldown_s: float

    @property
    def state(self) -> BreakerState: ...
    def allow(self) -> bool: ...
    def record_success(self) -> None: ...
    def record_failure(self) -> bool: ...
    def hold(self, seconds: float) -> None: ...
    def release(self) -> None: ...
    def remaining_cooldown(self) -> float: ...


class Budget(Protocol):
    """The retry budget, wherever its tokens are counted."""

    max_tokens: float

    @property
    def tokens(self) -> float: ...
    def allows_retry(self) -> bool: ...
    def record_failure(self) -> None: ...
    def record_success(self) -> None: ...


class Bucket(Protocol):
    """So many requests a minute: how long to wait before the next one may go.

    `take(max_wait_s)` reserves the next request's place when its wait is at most
    `max_wait_s` and returns the wait; a longer wait is returned without reserving anything
    (the caller will not wait that long, so the place stays free for others)."""

    per_minute: float

    def take(self, max_wait_s: float = math.inf) -> float: ...


class State(Protocol):
    """Makes the breakers, the budget and the buckets of one agent (or one fleet)."""

    def breaker(
        self, name: str, threshold: int, cooldown_s: float, clock: Callable[[], float]
    ) -> Breaker: ...
    def budget(self, name: str, max_tokens: float, token_ratio: float) -> Budget: ...
    def bucket(self, name: str, per_minute: float, clock: Callable[[], float]) -> Bucket: ...


class RequestBucket:
    """A token bucket of `per_minute` requests, in this process; 0 means no limit."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._tokens = per_minute
        self._at = clock()

    def take(self, max_wait_s: float = math.inf) -> float:
        """Seconds to wait before the next request may go; counted now if within `max_wait_s`."""
        if self.per_minute <= 0:
            return 0.0
        now = self._clock()
        rate = self.per_minute / 60.0
        tokens = min(self.per_minute, self._tokens + (now - self._at) * rate) - 1
        wait = 0.0 if tokens >= 0 else -tokens / rate
        if wait <= max_wait_s:
            self._tokens, self._at = tokens, now
        return wait


class InProcess:
    """Breakers, budget and buckets held in this process: what one worker knows."""

    def breaker(
        self, name: str, threshold: int, cooldown_s: float, clock: Callable[[], float]
    ) -> Breaker:
        return CircuitBreaker(threshold, cooldown_s, clock)

    def budget(self, name: str, max_tokens: float, token_ratio: float) -> Budget:
        return RetryBudget(max_tokens, token_ratio)

    def bucket(self, name: str, per_minute: float, clock: Callable[[], float]) -> Bucket:
        return RequestBucket(per_minute, clock)


IN_PROCESS: State = InProcess()  # what a policy without a `state` uses
