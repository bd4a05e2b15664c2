"""How patient a caller is: the engine's knobs, and the clock, sleep and jitter it runs on."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from resilience._budget import RetryBudget

__all__ = ["Policy", "full_jitter"]


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
