"""A circuit breaker per source: stop calling a source that keeps failing, then probe it.

closed ──(threshold failures in a row)──▶ open ──(cool-down over)──▶ half-open
  ▲                                        ▲                          │ one probe
  └──────────────(probe succeeds)──────────┴───────(probe fails)──────┘
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

__all__ = ["CircuitBreaker"]

State = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    """Closed, open or half-open; `allow()` before each call, then record how it went."""

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
        self._opened_at: float | None = None
        self._probing = False

    @property
    def state(self) -> State:
        """The state as of now (an open circuit whose cool-down is over is half-open)."""
        if self._opened_at is None:
            return "closed"
        return "half_open" if self.remaining_cooldown() == 0 else "open"

    def remaining_cooldown(self) -> float:
        """Seconds until an open circuit lets a probe through (0 when closed)."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self._opened_at + self.cooldown_s - self._clock())

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
        self._opened_at = None
        self._probing = False

    def record_failure(self) -> bool:
        """The source failed; true when this failure is the one that opened the circuit."""
        before = self.state
        self._failures += 1
        self._probing = False
        if before == "half_open" or (before == "closed" and self._failures >= self.threshold):
            self._opened_at = self._clock()
            return True
        return False

    def release(self) -> None:
        """An allowed call ended without a verdict (cancelled): let another probe through."""
        self._probing = False
