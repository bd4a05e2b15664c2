"""A caller's own bounds: its patience (`Policy`), its clock (`Deadline`), a circuit breaker
per source and a retry budget shared by a running agent.

error-to-action says whether a failure is worth another attempt and how long to wait; these
say whether this caller can still afford it. The engine asks them through tenacity's `stop`.

A circuit breaker per source stops calling a source that keeps failing, then probes it::

    closed ──(threshold failures in a row)──▶ open ──(cool-down over)──▶ half-open
      ▲                                        ▲                          │ one probe
      └──────────────(probe succeeds)──────────┴───────(probe fails)──────┘

A source that says when it may be asked again (a daily quota spent until midnight) is held
open for exactly that long with `hold`, whatever the threshold. The retry budget is gRPC's
retry throttling: every failed attempt takes a token, every success gives back a fraction of
one, and retries are allowed only while more than half the tokens remain.

A read timeout alone cannot stop a server that drips a byte every 100 ms (each byte resets
it), so every attempt also runs under a wall-clock limit (`Deadline.run`): the smaller of the
per-attempt timeout and whatever is left of the call's budget.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from errors import DeadlineExceeded

__all__ = [
    "MAX_HOLD_S",
    "CircuitBreaker",
    "Deadline",
    "Policy",
    "RetryBudget",
    "State",
    "full_jitter",
]

T = TypeVar("T")


class RetryBudget:
    """A token bucket shared by every tool call of one agent."""

    def __init__(self, max_tokens: float = 20.0, token_ratio: float = 0.2) -> None:
        if max_tokens <= 0 or token_ratio < 0:
            raise ValueError("max_tokens must be positive and token_ratio not negative")
        self.max_tokens = max_tokens
        self.token_ratio = token_ratio
        self._tokens = max_tokens

    @property
    def tokens(self) -> float:
        """Tokens left."""
        return self._tokens

    def allows_retry(self) -> bool:
        """Whether one more retry may be sent now."""
        return self._tokens > self.max_tokens / 2

    def record_failure(self) -> None:
        """A failed attempt costs one token."""
        self._tokens = max(0.0, self._tokens - 1)

    def record_success(self) -> None:
        """A success earns back a fraction of a token."""
        self._tokens = min(self.max_tokens, self._tokens + self.token_ratio)


@dataclass(frozen=True, slots=True)
class Policy:
    """Values, plus the injectable I/O (sleep, clock, randomness).

    `budget` is shared state: callers built with the same policy share one retry budget, so
    build one policy per running agent. Left `None`, each engine gets a budget of its own.
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
            raise _cut(source, limit, limit < timeout_s) from None


def _cut(source: str, limit: float, by_deadline: bool) -> Exception:
    if by_deadline:
        return DeadlineExceeded(
            f"the call's deadline cut {source} after {limit:.2f} s", source=source
        )
    return TimeoutError(f"{source} gave no complete answer within {limit:g} s")


MAX_HOLD_S = 24 * 3600.0  # the longest a source's own words may hold its circuit open

State = Literal["closed", "open", "half_open"]


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
    def state(self) -> State:
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
