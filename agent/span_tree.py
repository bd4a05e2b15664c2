"""Finished spans as a tree of text: what `--otel console` prints, and what the docs show.

    invoke_agent failsafe-agent  answered=true model_calls=2 finish=end_turn
    ├── chat offline-scripted  answered_by=offline-scripted attempts=1 finish=tool_use
    │   └── attempt offline-scripted #1
    ├── execute_tool get_weather  call=toolu_offline_0001 answered_by=wttr.in attempts=3
    │   ├── attempt open-meteo #1  ✗ server_error  action=retry retryable=true then=backoff …
    │   │     note: op='getting the weather for [withheld]'. open-meteo 503. UpstreamStatus. …
    │   ├── • retry  source=open-meteo attempt=1 then=backoff wait_s=0.25
    …

Children and events are in the order they happened. This imports the OpenTelemetry SDK:
load it only with tracing on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor
from opentelemetry.trace import StatusCode
from opentelemetry.util.types import AttributeValue

__all__ = ["TreePrinter", "render"]

# Shown after a span's name, in this order, under these short labels; others are left out
# (the name says them already, or they are for a tracing backend rather than a reader).
_LABELS = {
    "gen_ai.tool.call.id": "call",
    "resilience.failed_source": "from",
    "resilience.source": "source",
    "resilience.attempt": "attempt",
    "error_to_action.action": "action",
    "error_to_action.retryable": "retryable",
    "resilience.decision": "then",
    "resilience.wait_s": "wait_s",
    "resilience.cooldown_s": "cooldown_s",
    "resilience.answered_by": "answered_by",
    "resilience.attempts": "attempts",
    "resilience.retry_after_s": "retry_after_s",
    "resilience.degraded": "degraded",
    "agent.answered": "answered",
    "agent.model_calls": "model_calls",
    "gen_ai.response.finish_reasons": "finish",
    "gen_ai.usage.input_tokens": "in_tokens",
    "gen_ai.usage.output_tokens": "out_tokens",
}
_NOTE = "error_to_action.developer_note"
_NOTE_WIDTH = 100


@dataclass(slots=True)
class _Node:
    span: ReadableSpan
    children: list[_Node] = field(default_factory=list)


def render(spans: Iterable[ReadableSpan], *, durations: bool = False) -> str:
    """The spans as one tree per trace (roots in the order they started)."""
    nodes = {span.context.span_id: _Node(span) for span in spans if span.context is not None}
    roots: list[_Node] = []
    for node in nodes.values():
        parent = node.span.parent
        if parent is not None and parent.span_id in nodes:
            nodes[parent.span_id].children.append(node)
        else:
            roots.append(node)
    lines: list[str] = []
    for root in sorted(roots, key=_started):
        lines.append(_line(root.span, durations))
        lines += _body(root, "", durations)
    return "\n".join(lines)


def _body(node: _Node, indent: str, durations: bool) -> list[str]:
    """The lines under `node`: its note, then its children and events in time order."""
    items: list[tuple[int, _Node | Event]] = [(_started(child), child) for child in node.children]
    items += [(event.timestamp, event) for event in node.span.events]
    items.sort(key=lambda pair: pair[0])
    lines = []
    note = _note(node.span.attributes or {})
    if note:
        lines.append(f"{indent}{'│' if items else ' '} note: {note}")
    for index, (_, item) in enumerate(items):
        last = index == len(items) - 1
        branch, deeper = ("└── ", "    ") if last else ("├── ", "│   ")
        if isinstance(item, _Node):
            lines.append(indent + branch + _line(item.span, durations))
            lines += _body(item, indent + deeper, durations)
        else:
            lines.append(indent + branch + _event(item))
            if note := _note(item.attributes or {}):
                lines.append(f"{indent}{deeper}  note: {note}")
    return lines


def _line(span: ReadableSpan, durations: bool) -> str:
    attributes = span.attributes or {}
    text = span.name
    if "resilience.attempt" in attributes:
        text += f" #{_value(attributes['resilience.attempt'])}"
    if span.status.status_code is StatusCode.ERROR:
        text += f"  ✗ {_value(attributes.get('error.type', 'error'))}"
    details = _details(attributes, skip={"resilience.attempt", "resilience.source"})
    if durations and span.start_time is not None and span.end_time is not None:
        details.append(f"{(span.end_time - span.start_time) / 1e6:.1f} ms")
    return f"{text}  {' '.join(details)}".rstrip()


def _event(event: Event) -> str:
    attributes = event.attributes or {}
    name = event.name.removeprefix("resilience.")
    error = f"  ✗ {_value(attributes['error.type'])}" if "error.type" in attributes else ""
    details = " ".join(_details(attributes))
    return f"• {name}{error}  {details}".rstrip()


def _details(attributes: Mapping[str, AttributeValue], skip: Iterable[str] = ()) -> list[str]:
    shown = [key for key in _LABELS if key in attributes and key not in skip]
    if attributes.get("resilience.degraded") is False:
        shown.remove("resilience.degraded")  # said only when it is so
    return [f"{_LABELS[key]}={_value(attributes[key])}" for key in shown]


def _value(value: AttributeValue) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return f"{value:.2g}" if value < 1 else f"{value:.3g}"
    if isinstance(value, Sequence):
        return ",".join(str(item) for item in value)
    return str(value)


def _note(attributes: Mapping[str, AttributeValue]) -> str:
    note = str(attributes.get(_NOTE, ""))
    return note if len(note) <= _NOTE_WIDTH else note[: _NOTE_WIDTH - 1] + "…"


def _started(item: _Node) -> int:
    return item.span.start_time or 0


class TreePrinter(SpanProcessor):
    """Prints each trace as a tree once its root span ends (`--otel console`)."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self._write = write
        self._pending: dict[int, list[ReadableSpan]] = {}
        self._lock = threading.Lock()

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return
        trace_id = span.context.trace_id
        with self._lock:
            self._pending.setdefault(trace_id, []).append(span)
            if span.parent is not None and not span.parent.is_remote:
                return
            finished = self._pending.pop(trace_id)
        self._write(render(finished, durations=True) + "\n")

    def shutdown(self) -> None:
        with self._lock:
            left, self._pending = self._pending, {}
        for spans in left.values():  # traces whose root never ended (cut short)
            self._write(render(spans, durations=True) + "\n")

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
