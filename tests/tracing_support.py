"""Recording spans in tests: an SDK provider with the in-memory exporter, never the global one.

with recording() as exporter:
    ...
assert outline(exporter.get_finished_spans()) == ["invoke_agent failsafe-agent", ...]
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from resilience import tracing


@contextlib.contextmanager
def recording(*, content: bool = False) -> Iterator[InMemorySpanExporter]:
    """Spans recorded into an in-memory exporter for the `with`; tracing off after it."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider.get_tracer("failsafe-agent"), content=content)
    try:
        yield exporter
    finally:
        tracing.disable()
        provider.shutdown()


def outline(spans: Sequence[ReadableSpan]) -> list[str]:
    """The span tree as indented lines: names (attempt numbers, ✗ and `error.type` for an
    ERROR status) and events (• name), children and events in the order they happened."""
    by_id = {span.context.span_id: span for span in spans if span.context is not None}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        parent = span.parent.span_id if span.parent and span.parent.span_id in by_id else None
        children.setdefault(parent, []).append(span)
    lines: list[str] = []

    def walk(span: ReadableSpan, depth: int) -> None:
        lines.append("  " * depth + _title(span))
        assert span.context is not None
        items: list[tuple[int, ReadableSpan | Event]] = [
            (child.start_time or 0, child) for child in children.get(span.context.span_id, [])
        ]
        items += [(event.timestamp, event) for event in span.events]
        for _, item in sorted(items, key=lambda pair: pair[0]):
            if isinstance(item, Event):
                lines.append("  " * (depth + 1) + f"• {item.name}")
            else:
                walk(item, depth + 1)

    for root in sorted(children.get(None, []), key=lambda span: span.start_time or 0):
        walk(root, 0)
    return lines


def _title(span: ReadableSpan) -> str:
    attributes = span.attributes or {}
    title = span.name
    if "resilience.attempt" in attributes:
        title += f" #{attributes['resilience.attempt']}"
    if span.status.status_code is StatusCode.ERROR:
        title += f" ✗ {attributes.get('error.type')}"
    return title


def named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    """The spans called `name`, in the order they started."""
    return sorted((s for s in spans if s.name == name), key=lambda s: s.start_time or 0)


def events(span: ReadableSpan, name: str) -> list[dict[str, object]]:
    """The attributes of `span`'s events called `name`."""
    return [dict(event.attributes or {}) for event in span.events if event.name == name]


def exported_text(spans: Sequence[ReadableSpan]) -> str:
    """Everything a backend would receive as text: names, attribute and event values, status
    descriptions and the resource."""
    parts: list[str] = []
    for span in spans:
        parts += [span.name, str(span.status.description or "")]
        parts += [f"{k}={v}" for k, v in (span.attributes or {}).items()]
        for event in span.events:
            parts += [event.name, *(f"{k}={v}" for k, v in (event.attributes or {}).items())]
        parts += [f"{k}={v}" for k, v in span.resource.attributes.items()]
    return "\n".join(parts)
