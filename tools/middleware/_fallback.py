"""The fallback chain: sources in order, each behind its circuit breaker and retries.

A failure specific to one source (unavailable, rate limited, bad data, refused, its circuit
open) moves on to the next. "No such thing" from a trusted source is remembered and still lets
the next source try; if none does better, the call ends with that, not with an outage. An
untrusted source's "no such thing" is never retried but decides nothing on its own. Invalid
input and a spent deadline stop the chain. With no answer and nothing to fix, the call ends
degraded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from errors import DeadlineExceeded, InvalidInput, NotFound
from tools._types import Observer
from tools.middleware._breaker import CircuitBreaker
from tools.middleware._budget import RetryBudget
from tools.middleware._call import Call, Outcome
from tools.middleware._policy import Policy
from tools.middleware._retry import SOURCE_FAILURES, Source, with_retries

__all__ = ["Resilience"]

T = TypeVar("T")


class Resilience:
    """The middleware for one tool: lives as long as the tool, holding breakers and budget."""

    def __init__(
        self, tool: str, policy: Policy | None = None, observer: Observer | None = None
    ) -> None:
        self.tool = tool
        self.policy = policy or Policy()
        self.observer = observer
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

    async def run(self, operation: str, sources: Sequence[Source[T]]) -> Outcome[T]:
        """Try `sources` in order until one answers; `operation` names the work in words."""
        call = Call(self.tool, operation, self.policy, self.observer)
        for index, source in enumerate(sources):
            if index:
                call.falling_back(sources[index - 1].name, source.name)
            try:
                value = await with_retries(call, source, self.breaker(source.name), self.budget)
            except NotFound as exc:
                if source.trusted_not_found:
                    call.fix = call.fix or exc
            except InvalidInput as exc:
                call.fix = exc
                break
            except DeadlineExceeded:
                break
            except SOURCE_FAILURES:
                continue
            else:
                return call.outcome(value, source.name)
        return call.outcome()
