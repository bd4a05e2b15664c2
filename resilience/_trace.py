"""What one call through the engine puts on its trace: a span per attempt, and events.

The caller's span (`execute_tool get_weather`, `chat claude-sonnet-4-6`) is current when the
engine starts; each attempt becomes a child span `attempt {source}`, and what happens between
attempts — a retry's wait, the move to a fallback, a source skipped by its open circuit, the
end of the chain — becomes an event on the caller's span, since the call is what waits. With
tracing off, `CallTrace.start` hands out the no-op base class.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from errors import Verdict
from resilience import tracing
from resilience._decide import Decision

__all__ = ["CallTrace"]


class CallTrace:
    """The no-op trace of a call (tracing off); `start` gives the live one when it is on."""

    @staticmethod
    def start(caller: str, subject: str) -> CallTrace:
        """The trace of a call starting now, under the current span."""
        return _Live(caller, subject) if tracing.enabled() else _NULL

    def attempt(self, source: str, number: int) -> contextlib.AbstractContextManager[None]:
        """Open while one attempt runs and its failure is classified."""
        return contextlib.nullcontext()

    def failed(self, source: str, number: int, verdict: Verdict, decision: Decision) -> None:
        """The attempt failed: how, and what follows."""

    def skipped(self, source: str, verdict: Verdict, cooldown_s: float) -> None:
        """An open circuit kept `source` from being called."""

    def circuit_opened(self, source: str, cooldown_s: float) -> None:
        """The attempt's failure opened `source`'s circuit."""

    def falling_back(self, failed: str, fallback: str) -> None:
        """`failed` could not answer; `fallback` is tried next."""

    def gave_up(self, source: str | None, error_type: str | None) -> None:
        """No source answered."""

    def ended(self, source: str | None, attempts: int, retry_after_s: float | None) -> None:
        """The call is over: who answered, after how many attempts."""


_NULL = CallTrace()


class _Live(CallTrace):
    def __init__(self, caller: str, subject: str) -> None:
        self.caller = caller
        self.subject = (subject,)  # masked in developer notes unless content is captured
        self.span = tracing.current()  # the caller's span
        self.attempt_span = tracing.NULL_SPAN

    @contextlib.contextmanager
    def attempt(self, source: str, number: int) -> Iterator[None]:
        attributes: tracing.Attributes = {
            "resilience.caller": self.caller,
            "resilience.source": source,
            "resilience.attempt": number,
        }
        with tracing.span(f"attempt {source}", attributes=attributes) as span:
            self.attempt_span = span
            try:
                yield
            finally:
                self.attempt_span = tracing.NULL_SPAN

    def failed(self, source: str, number: int, verdict: Verdict, decision: Decision) -> None:
        wait = decision.wait_s if decision.retry else None
        self.attempt_span.fail(verdict.result, withheld=self.subject)
        self.attempt_span.set({"resilience.decision": decision.reason, "resilience.wait_s": wait})
        if decision.retry:
            retry: tracing.Attributes = {
                "resilience.source": source,
                "resilience.attempt": number,
                "resilience.decision": decision.reason,
                "resilience.wait_s": wait,
            }
            self.span.event("resilience.retry", retry)

    def skipped(self, source: str, verdict: Verdict, cooldown_s: float) -> None:
        skipped: dict[str, tracing.Value | None] = {
            "resilience.source": source,
            "resilience.cooldown_s": round(cooldown_s, 1),
        }
        skipped.update(tracing.failure_attributes(verdict.result, withheld=self.subject))
        self.span.event("resilience.skipped", skipped)

    def circuit_opened(self, source: str, cooldown_s: float) -> None:
        opened: tracing.Attributes = {
            "resilience.source": source,
            "resilience.cooldown_s": round(cooldown_s, 1),
        }
        self.attempt_span.event("resilience.circuit_open", opened)

    def falling_back(self, failed: str, fallback: str) -> None:
        moved: tracing.Attributes = {
            "resilience.failed_source": failed,
            "resilience.source": fallback,
        }
        self.span.event("resilience.fallback", moved)

    def gave_up(self, source: str | None, error_type: str | None) -> None:
        last: tracing.Attributes = {"resilience.source": source, "error.type": error_type}
        self.span.event("resilience.gave_up", last)

    def ended(self, source: str | None, attempts: int, retry_after_s: float | None) -> None:
        outcome: tracing.Attributes = {
            "resilience.answered_by": source,
            "resilience.attempts": attempts,
            "resilience.retry_after_s": retry_after_s,
        }
        self.span.set(outcome)
