"""What the engine reports: one `Event` type, and the listeners that turn events into a log,
spans, a progress line and the timeline.

Every moment of a call is one frozen `Event`: an attempt going out, answering, failing or being
cancelled, a source skipped by its open circuit, a circuit opening, the move to a fallback, the
end of a call no source answered. The engine hands each event to its listeners, in order:

    log_event        the structured log (`tool.attempt_failed`, `model.fallback_used`, …)
    trace_event      spans, when tracing is on (an `attempt {source}` span per attempt)
    record           the timeline of the `recording_attempts` blocks it happens in (`/trace`)
    your listener    e.g. the REPL's status line (`Event.progress` says it in words)

A listener is any callable taking an `Event`; one that raises never fails the call. Adding an
event is adding a `What`; adding a listener is passing a function.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

import structlog

from errors import Action, ErrorAction, Verdict, duration
from resilience import tracing

__all__ = [
    "CANCELLED",
    "Event",
    "Listener",
    "ProgressKind",
    "Reason",
    "What",
    "log_event",
    "record",
    "recording_attempts",
    "retry_phrase",
    "trace_event",
]

CANCELLED = "cancelled"  # the outcome of an attempt cut short by the caller's cancellation
log = structlog.get_logger("resilience")

What = Literal[
    "attempting",  # an attempt at `source` has just gone out
    "answered",  # it answered
    "failed",  # it failed: `verdict`, and what follows (`next`, `wait_s`)
    "cancelled",  # the caller's cancellation cut it short
    "skipped",  # `source`'s open circuit kept it from being called (attempt 0)
    "circuit_opened",  # this failure opened `source`'s circuit, for `cooldown_s`
    "falling_back",  # `previous` could not answer; `source` is tried next
    "gave_up",  # no source answered; `verdict` is the last failure, at `source`
    "ended",  # the call is over: `source` answered ("" if none) after `number` attempts;
    # `wait_s`, a wait a server asked for that was not taken
]
Reason = Literal[
    # retrying
    "backoff",  # full-jitter backoff: no hint, and a connection that may have reached a server
    "retry_after",  # the server's Retry-After, within the cap
    "reconnect",  # at once: the connection never opened, so no server did any work
    # not retrying
    "not_retryable",  # error-to-action says stop (its action is not retry/wait, or retries spent)
    "hint_beyond_cap",  # the Retry-After is longer than the cap or the time left: report it
    "attempt_cap",  # `Policy.max_attempts` reached
    "deadline",  # the wait would use up the time left
    "retry_budget",  # the shared retry budget is spent
]
ProgressKind = Literal["attempting", "retrying", "waiting", "falling_back", "degraded", "skipped"]
Listener = Callable[["Event"], None]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in one call through the engine.

    An attempt's end (answered, failed, cancelled, or a source skipped) is also a row of the
    timeline: `outcome` is "ok", the failure's error_type or "cancelled", `action`
    error-to-action's action for a failure.
    """

    what: What
    caller: str  # "get_weather", "calculate", "model", …
    source: str  # "open-meteo", "wttr.in", "claude-sonnet-4-6", …
    number: int = 0  # the attempt at `source`, from 1 (0: not called)
    duration_s: float = 0.0
    outcome: str = ""
    action: str | None = None
    wait_s: float | None = None  # the wait before the next attempt, when one is slept
    subject: str = ""  # what the call is about, when it names one ("Paris")
    verdict: Verdict | None = None  # a failure's
    next: Reason | None = None  # after a failure: what follows it
    cooldown_s: float | None = None  # skipped, circuit_opened: how long the source stays off
    previous: str | None = None  # falling_back: the source that could not answer
    kind: Literal["tool", "model"] = "tool"  # the caller's kind, which prefixes log events

    @property
    def ends_attempt(self) -> bool:
        """Whether the timeline shows this event: an attempt's end, or a source skipped."""
        return self.what in {"answered", "failed", "cancelled", "skipped"}

    @property
    def progress(self) -> tuple[ProgressKind, str] | None:
        """What a person watching is told, as one plain phrase (None: nothing to tell)."""
        if self.what == "attempting":
            return "attempting", f"waiting for {self.source}"
        if self.what == "failed" and self.wait_s is not None:
            return _retrying(self.source, self.action, self.next, self.wait_s)
        if self.what == "skipped":
            return "skipped", f"{self.source} is paused after repeated failures — skipping"
        if self.what == "falling_back":
            return "falling_back", f"{self.previous} could not answer — trying {self.source}"
        if self.what == "gave_up" and self.kind == "tool":
            return "degraded", "no source answered"
        return None


def _retrying(
    source: str, action: str | None, reason: Reason | None, wait_s: float
) -> tuple[ProgressKind, str]:
    if reason == "retry_after":
        return "waiting", f"{source} is busy — waiting {_whole(wait_s)} as it asked"
    if action == Action.WAIT:
        return "waiting", f"{source} is busy — {retry_phrase(wait_s)}"
    return "retrying", f"{source} failed — {retry_phrase(wait_s)}"


def retry_phrase(wait_s: float) -> str:
    """ "retrying now" for a wait under half a second, else "retrying in 2 seconds"."""
    return "retrying now" if wait_s < 0.5 else f"retrying in {_whole(wait_s)}"


def _whole(wait_s: float) -> str:
    """A wait in words, in whole seconds with halves rounded up, never "0 seconds"."""
    return duration(math.floor(wait_s + 0.5))


# --- the log --------------------------------------------------------------------------------


def log_event(event: Event) -> None:
    """The structured log: every failed attempt once, with error-to-action's fields; the
    other moments with what they need (docs/log-events.md)."""
    prefix, who = event.kind, _who(event)
    match event.what:
        case "failed":
            fields = _failure(event)
            log.warning(f"{prefix}.attempt_failed", **fields, next=event.next, wait_s=event.wait_s)
        case "skipped":
            cooldown = round(event.cooldown_s or 0.0, 1)
            log.warning(f"{prefix}.source_skipped", **_failure(event), cooldown_s=cooldown)
        case "circuit_opened":
            cooldown = round(event.cooldown_s or 0.0, 1)
            log.warning(f"{prefix}.circuit_open", **who, cooldown_s=cooldown)
        case "falling_back":
            log.info(f"{prefix}.fallback_used", **who, failed_source=event.previous)
        case "gave_up":
            _log_gave_up(event)


def _log_gave_up(event: Event) -> None:
    """The end of a call no source answered: which source failed last, and as what (that
    failure was logged with its attempt, note and all; it is not repeated here)."""
    error_type = event.verdict.result.error_type if event.verdict else None
    if event.kind == "tool":
        log.warning("tool.degraded", tool=event.caller, last_source=event.source or None,
                    error_type=error_type)  # fmt: skip
    else:
        log.warning("model.call_failed", last_source=event.source or None, error_type=error_type)


def _who(event: Event) -> dict[str, Any]:
    """The caller and source, under the names the log contract uses."""
    who: dict[str, Any] = {"source": event.source}
    if event.kind == "tool":
        who["tool"] = event.caller
    return who


def _failure(event: Event) -> dict[str, Any]:
    fields = {**_who(event), "attempt": event.number}
    return fields | (event.verdict.result.log_fields() if event.verdict else {})


def listener_failed(event: Event, error: Exception) -> None:
    """Log a listener that raised: a display problem must not cost the answer."""
    from errors import OwnFault, classify

    fault = OwnFault(f"the progress observer raised {type(error).__name__}: {error}")
    result: ErrorAction = classify(fault, "showing progress").result
    log.error(f"{event.kind}.observer_failed", **_who(event), **result.log_fields())


# --- the timeline ---------------------------------------------------------------------------

# The lists `recording_attempts` fills, innermost last; a task started inside inherits them.
_RECORDERS: ContextVar[tuple[list[Event], ...]] = ContextVar("attempt_recorders", default=())


@contextlib.contextmanager
def recording_attempts() -> Iterator[list[Event]]:
    """A list that receives every attempt made inside the block (in this task and the tasks
    it starts) as soon as it is over, so that a caller cancelled part-way (Ctrl-C in the
    REPL) still knows what was tried; an attempt cut short by the cancellation is there too,
    with the outcome "cancelled"."""
    attempts: list[Event] = []
    token = _RECORDERS.set((*_RECORDERS.get(), attempts))
    try:
        yield attempts
    finally:
        _RECORDERS.reset(token)


def record(event: Event) -> None:
    """Hand an attempt's end to every `recording_attempts` block it happened in."""
    if event.ends_attempt:
        for attempts in _RECORDERS.get():
            attempts.append(event)


# --- spans ----------------------------------------------------------------------------------

# The attempt span open in this task (attempts of one call run one after another in its task).
_ATTEMPT: ContextVar[tracing.Span] = ContextVar("attempt_span", default=tracing.NULL_SPAN)


def trace_event(event: Event) -> None:
    """Spans, when tracing is on: a child span `attempt {source}` per attempt, and what
    happens between attempts as events on the caller's span, since the call is what waits."""
    if not tracing.enabled():
        return
    if event.what == "attempting":
        attributes: tracing.Attributes = {
            "resilience.caller": event.caller,
            "resilience.source": event.source,
            "resilience.attempt": event.number,
        }
        _ATTEMPT.set(tracing.start(f"attempt {event.source}", attributes=attributes))
    elif event.what in {"answered", "failed", "cancelled"}:
        _end_attempt(event)
    elif event.what == "circuit_opened":
        opened = {"resilience.source": event.source, "resilience.cooldown_s": event.cooldown_s}
        _ATTEMPT.get().event("resilience.circuit_open", opened)
    else:
        _caller_event(event)


def _end_attempt(event: Event) -> None:
    span = _ATTEMPT.get()
    _ATTEMPT.set(tracing.NULL_SPAN)
    if event.what == "cancelled":
        span.set({"error.type": CANCELLED})
    elif event.verdict is not None:
        span.fail(event.verdict.result, withheld=(event.subject,))
        span.set({"resilience.decision": event.next, "resilience.wait_s": event.wait_s})
        if event.wait_s is not None:
            retry: tracing.Attributes = {
                "resilience.source": event.source,
                "resilience.attempt": event.number,
                "resilience.decision": event.next,
                "resilience.wait_s": event.wait_s,
            }
            tracing.current().event("resilience.retry", retry)
    span.end(failed=event.what == "cancelled")


def _caller_event(event: Event) -> None:
    caller = tracing.current()
    if event.what == "skipped" and event.verdict is not None:
        skipped: dict[str, tracing.Value | None] = {
            "resilience.source": event.source,
            "resilience.cooldown_s": round(event.cooldown_s or 0.0, 1),
        }
        skipped.update(tracing.failure_attributes(event.verdict.result, withheld=(event.subject,)))
        caller.event("resilience.skipped", skipped)
    elif event.what == "falling_back":
        moved = {"resilience.failed_source": event.previous, "resilience.source": event.source}
        caller.event("resilience.fallback", moved)
    elif event.what == "gave_up":
        error_type = event.verdict.result.error_type if event.verdict else None
        last = {"resilience.source": event.source or None, "error.type": error_type}
        caller.event("resilience.gave_up", last)
    elif event.what == "ended":
        outcome: tracing.Attributes = {
            "resilience.answered_by": event.source or None,
            "resilience.attempts": event.number,
            "resilience.retry_after_s": event.wait_s,
        }
        caller.set(outcome)
