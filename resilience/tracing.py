"""Traces, off unless turned on: one small facade over OpenTelemetry for the whole project.

The engine, the tools and the agent say what they do here — a span per call and per attempt,
events for retry waits, fallbacks and open circuits — and nothing is recorded until `enable`
is handed an OpenTelemetry tracer (`agent.otel` does that for `--otel` or
OTEL_EXPORTER_OTLP_ENDPOINT). Off, every function is a no-op and nothing of OpenTelemetry is
imported; on, spans nest through OpenTelemetry's context, which lives in contextvars that
asyncio tasks copy, so concurrent tool calls come out as siblings under their turn.

    with tracing.span("attempt open-meteo", attributes={"resilience.attempt": 1}) as span:
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
import re
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote, quote_plus

from errors import ErrorAction, for_outside

if TYPE_CHECKING:
    from opentelemetry import trace as otel_trace

__all__ = [
    "NULL_SPAN",
    "Attributes",
    "Kind",
    "Span",
    "Value",
    "as_json",
    "capture_content",
    "current",
    "disable",
    "enable",
    "enabled",
    "failure_attributes",
    "span",
    "start",
    "strings",
    "withheld",
]

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
        self._trace = trace
        self._kinds = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
        self.error = Status(StatusCode.ERROR)

    @contextlib.contextmanager
    def span(self, name: str, kind: Kind, attributes: Attributes) -> Iterator[Span]:
        with self.tracer.start_as_current_span(
            name,
            kind=self._kinds[kind],
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

    def start(self, name: str, kind: Kind, attributes: Attributes) -> Span:
        otel_span = self.tracer.start_span(
            name, kind=self._kinds[kind], attributes=_clean(attributes), record_exception=False
        )
        return _Recording(self, otel_span)

    def current(self) -> Span:
        return _Recording(self, self._trace.get_current_span())


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
    return _otel.start(name, kind, attributes or {})


def current() -> Span:
    """The span current here (the one a caller opened around this work), or the no-op one."""
    return NULL_SPAN if _otel is None else _otel.current()


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
