"""What the engine reports, and where it goes: one `Event` type, its listeners (the log, the
timeline, spans), and the small facade over OpenTelemetry the whole project traces through.

Every moment of a call is one frozen `Event`: an attempt going out, answering, failing or being
cancelled, a source skipped by its open circuit, a circuit opening, the move to a fallback, the
end of a call no source answered. The engine hands each event to its listeners, in order:

    log_event        the structured log (`tool.attempt_failed`, `model.fallback_used`, …)
    trace_event      spans, when tracing is on (an `attempt {source}` span per attempt)
    record           the timeline of the `recording_attempts` blocks it happens in (`/trace`)
    your listener    e.g. the REPL's status line (`Event.progress` says it in words)

A listener is any callable taking an `Event`; one that raises never fails the call. Adding an
event is adding a `What`; adding a listener is passing a function.

Spans are off unless `enable` is handed an OpenTelemetry tracer (`agent.otel` does that for
`--otel` or OTEL_EXPORTER_OTLP_ENDPOINT). Off, every span function is a no-op and nothing of
OpenTelemetry is imported; on, spans nest through OpenTelemetry's context, which lives in
contextvars that asyncio tasks copy, so concurrent tool calls come out as siblings under
their turn. The agent and the tools open their own spans here too:

    with tracing.span("turn", attributes={"agent.question_chars": 42}) as span:
        ...
        span.fail(verdict.result)       # error.type, error_to_action.*, status ERROR

Nothing unredacted leaves here: every attribute, content capture included, passes
`errors.for_outside` on its way out (`_clean`: secrets by value and pattern, invisible
characters escaped); unless content capture is on, every value registered with `withheld`
(the question, a tool's input) is masked in a failure's developer note as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, quote_plus

import structlog

from errors import Action, ErrorAction, OwnFault, Verdict, classify, duration, for_outside

if TYPE_CHECKING:
    from opentelemetry import trace as otel_trace

__all__ = [
    "CANCELLED",
    "NULL_SPAN",
    "Attributes",
    "Event",
    "Kind",
    "Listener",
    "ProgressKind",
    "Reason",
    "Span",
    "Value",
    "What",
    "as_json",
    "capture_content",
    "current",
    "disable",
    "enable",
    "enabled",
    "failure_attributes",
    "listener_failed",
    "log_event",
    "record",
    "recording_attempts",
    "retry_phrase",
    "span",
    "start",
    "strings",
    "trace_event",
    "withheld",
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
            if self.next == "retry_after":
                return (
                    "waiting",
                    f"{self.source} is busy — waiting {_whole(self.wait_s)} as it asked",
                )
            if self.action == Action.WAIT:
                return "waiting", f"{self.source} is busy — {retry_phrase(self.wait_s)}"
            return "retrying", f"{self.source} failed — {retry_phrase(self.wait_s)}"
        if self.what == "skipped":
            return "skipped", f"{self.source} is paused after repeated failures — skipping"
        if self.what == "falling_back":
            return "falling_back", f"{self.previous} could not answer — trying {self.source}"
        if self.what == "gave_up" and self.kind == "tool":
            return "degraded", "no source answered"
        return None


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
        case "gave_up":  # which source failed last, and as what (its attempt logged the rest)
            last = {"last_source": event.source or None}
            error_type = event.verdict.result.error_type if event.verdict else None
            if event.kind == "tool":
                log.warning("tool.degraded", tool=event.caller, **last, error_type=error_type)
            else:
                log.warning("model.call_failed", **last, error_type=error_type)


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

Value = str | bool | int | float | Sequence[str]
Attributes = Mapping[str, Value | None]  # a None value is left out
Kind = Literal["internal", "client"]
WITHHELD = "[withheld]"
_SHORTEST_WITHHELD = 3  # a shorter value would mask ordinary words of the note


class Span:
    """A span to annotate; this base class is the no-op one (tracing off, or not recording)."""

    __slots__ = ()

    @property
    def recording(self) -> bool:
        """Whether anything set on this span is kept."""
        return False

    def set(self, attributes: Attributes) -> None:
        """Set attributes; a None value is left out."""

    def event(self, name: str, attributes: Attributes | None = None) -> None:
        """Add a timestamped event."""

    def fail(self, result: ErrorAction, *, withheld: Sequence[str] = ()) -> None:
        """Mark the operation failed: `error.type`, error-to-action's fields, status ERROR."""

    def end(self, *, failed: bool = False) -> None:
        """End a span made by `start` (with status ERROR if `failed`)."""


NULL_SPAN = Span()
_OFF = contextlib.nullcontext(NULL_SPAN)


class _Recording(Span):
    """A live OpenTelemetry span."""

    __slots__ = ("_otel", "_span")

    def __init__(self, otel: _Otel, otel_span: otel_trace.Span) -> None:
        self._otel = otel
        self._span = otel_span

    @property
    def recording(self) -> bool:
        return self._span.is_recording()

    def set(self, attributes: Attributes) -> None:
        self._span.set_attributes(_clean(attributes))

    def event(self, name: str, attributes: Attributes | None = None) -> None:
        self._span.add_event(name, _clean(attributes or {}))

    def fail(self, result: ErrorAction, *, withheld: Sequence[str] = ()) -> None:
        self.set(failure_attributes(result, withheld=withheld))
        self._span.set_status(self._otel.error)

    def end(self, *, failed: bool = False) -> None:
        if failed:
            self._span.set_status(self._otel.error)
        self._span.end()


class _Otel:
    """Tracing on: the tracer, and the few OpenTelemetry API pieces used, imported once."""

    def __init__(self, tracer: otel_trace.Tracer, *, content: bool) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self.tracer = tracer
        self.content = content
        self.trace = trace
        self.kinds = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
        self.error = Status(StatusCode.ERROR)

    @contextlib.contextmanager
    def span(self, name: str, kind: Kind, attributes: Attributes) -> Iterator[Span]:
        with self.tracer.start_as_current_span(
            name,
            kind=self.kinds[kind],
            attributes=_clean(attributes),
            record_exception=False,  # an exception's text is unredacted: never recorded
            set_status_on_exception=False,
        ) as otel_span:
            handle = _Recording(self, otel_span)
            try:
                yield handle
            except BaseException as exc:  # escaping the span: named by its type alone
                otel_span.set_attribute("error.type", _escaped(exc))
                otel_span.set_status(self.error)
                raise


_otel: _Otel | None = None
_withheld: ContextVar[tuple[str, ...]] = ContextVar("withheld", default=())


def enable(tracer: otel_trace.Tracer, *, content: bool = False) -> None:
    """Record spans with `tracer` from now on; `content` also records the question, tool
    inputs and outputs and unmasked notes (off by default: they are the person's text)."""
    global _otel
    _otel = _Otel(tracer, content=content)


def disable() -> None:
    """Stop recording: every function here is a no-op again."""
    global _otel
    _otel = None


def enabled() -> bool:
    """Whether spans are being recorded."""
    return _otel is not None


def capture_content() -> bool:
    """Whether the person's and the model's text may be recorded (an explicit opt-in)."""
    return _otel is not None and _otel.content


def span(
    name: str, *, kind: Kind = "internal", attributes: Attributes | None = None
) -> contextlib.AbstractContextManager[Span]:
    """A span named `name`, current inside the `with` (children nest under it); an exception
    leaving it sets `error.type` to the exception's type and the status to ERROR."""
    if _otel is None:
        return _OFF
    return _otel.span(name, kind, attributes or {})


def start(name: str, *, kind: Kind = "internal", attributes: Attributes | None = None) -> Span:
    """A span named `name`, a child of the current one but not made current itself: `end` it.
    (The engine's attempt spans: opened and ended by events, in the caller's task.)"""
    if _otel is None:
        return NULL_SPAN
    attributes = _clean(attributes or {})
    otel_span = _otel.tracer.start_span(
        name, kind=_otel.kinds[kind], attributes=attributes, record_exception=False
    )
    return _Recording(_otel, otel_span)


def current() -> Span:
    """The span current here (the one a caller opened around this work), or the no-op one."""
    return NULL_SPAN if _otel is None else _Recording(_otel, _otel.trace.get_current_span())


@contextlib.contextmanager
def withheld(*values: str) -> Iterator[None]:
    """Mask `values` (the person's question, a tool's input) in every developer note recorded
    inside the `with`, unless content capture is on."""
    if _otel is None or _otel.content:
        yield
        return
    token = _withheld.set(_withheld.get() + _variants(values))
    try:
        yield
    finally:
        _withheld.reset(token)


def failure_attributes(result: ErrorAction, *, withheld: Sequence[str] = ()) -> dict[str, Value]:
    """`error.type` and error-to-action's fields, the developer note (unless content capture is
    on) with the withheld values masked; redacted, as every attribute is, on its way out."""
    note = result.developer_note
    if not capture_content():
        note = _mask(note, _withheld.get() + _variants(withheld))
    return {
        "error.type": result.error_type,
        "error_to_action.error_type": result.error_type,
        "error_to_action.action": result.action.value,
        "error_to_action.retryable": result.retryable,
        "error_to_action.developer_note": note,
    }


def as_json(value: object) -> str:
    """`value` as a JSON attribute (content capture: a tool's input, the messages)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def strings(value: object) -> Iterator[str]:
    """Every string inside `value` (a tool's input), however nested: the values to withhold."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def _variants(values: Sequence[str]) -> tuple[str, ...]:
    """Each value as typed, and as it would appear in a URL."""
    found: list[str] = []
    for value in values:
        value = value.strip()
        if len(value) >= _SHORTEST_WITHHELD:
            found += [value, quote(value), quote_plus(value)]
    return tuple(dict.fromkeys(found))


def _mask(note: str, values: Sequence[str]) -> str:
    if not values:
        return note
    longest_first = sorted(set(values), key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(v) for v in longest_first), re.IGNORECASE)
    return pattern.sub(WITHHELD, note)


def _clean(attributes: Attributes) -> dict[str, Value]:
    """What every attribute passes on its way out (span, event or start): text through
    `errors.for_outside` — secrets masked, invisible characters escaped —, content capture
    included; no None (OpenTelemetry takes none); sequences as lists of strings."""
    clean: dict[str, Value] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str):
            clean[key] = for_outside(value)
        elif isinstance(value, bool | int | float):
            clean[key] = value
        else:
            clean[key] = [for_outside(str(item)) for item in value]
    return clean


def _escaped(exc: BaseException) -> str:
    """`error.type` for an exception leaving a span: its type, never its message."""
    return "cancelled" if isinstance(exc, asyncio.CancelledError) else type(exc).__qualname__


# --- spans: the listener --------------------------------------------------------------------

# The attempt span open in this task (attempts of one call run one after another in its task).
_ATTEMPT: ContextVar[Span] = ContextVar("attempt_span", default=NULL_SPAN)


def trace_event(event: Event) -> None:
    """Spans, when tracing is on: a child span `attempt {source}` per attempt, and what
    happens between attempts as events on the caller's span, since the call is what waits."""
    if not enabled():
        return
    if event.what == "attempting":
        attributes: Attributes = {
            "resilience.caller": event.caller,
            "resilience.source": event.source,
            "resilience.attempt": event.number,
        }
        _ATTEMPT.set(start(f"attempt {event.source}", attributes=attributes))
    elif event.what in {"answered", "failed", "cancelled"}:
        _end_attempt(event)
    elif event.what == "circuit_opened":
        opened = {"resilience.source": event.source, "resilience.cooldown_s": event.cooldown_s}
        _ATTEMPT.get().event("resilience.circuit_open", opened)
    else:
        _caller_event(event)


def _end_attempt(event: Event) -> None:
    span = _ATTEMPT.get()
    _ATTEMPT.set(NULL_SPAN)
    if event.what == "cancelled":
        span.set({"error.type": CANCELLED})
    elif event.verdict is not None:
        span.fail(event.verdict.result, withheld=(event.subject,))
        span.set({"resilience.decision": event.next, "resilience.wait_s": event.wait_s})
        if event.wait_s is not None:
            retry: Attributes = {
                "resilience.source": event.source,
                "resilience.attempt": event.number,
                "resilience.decision": event.next,
                "resilience.wait_s": event.wait_s,
            }
            current().event("resilience.retry", retry)
    span.end(failed=event.what == "cancelled")


def _caller_event(event: Event) -> None:
    caller = current()
    if event.what == "skipped" and event.verdict is not None:
        skipped: dict[str, Value | None] = {
            "resilience.source": event.source,
            "resilience.cooldown_s": round(event.cooldown_s or 0.0, 1),
        }
        skipped.update(failure_attributes(event.verdict.result, withheld=(event.subject,)))
        caller.event("resilience.skipped", skipped)
    elif event.what == "falling_back":
        moved = {"resilience.failed_source": event.previous, "resilience.source": event.source}
        caller.event("resilience.fallback", moved)
    elif event.what == "gave_up":
        error_type = event.verdict.result.error_type if event.verdict else None
        last = {"resilience.source": event.source or None, "error.type": error_type}
        caller.event("resilience.gave_up", last)
    elif event.what == "ended":
        outcome: Attributes = {
            "resilience.answered_by": event.source or None,
            "resilience.attempts": event.number,
            "resilience.retry_after_s": event.wait_s,
        }
        caller.set(outcome)
