"""`agent.span_tree`: spans as the text tree `--otel console` prints and the docs show."""

from __future__ import annotations

import re
from types import ModuleType

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import set_span_in_context

from agent.span_tree import TreePrinter, render
from tests.agent.test_tracing import _scenario_spans


async def test_the_text_tree_reads_like_the_docs(demo: ModuleType) -> None:
    """`span_tree.render`: the tree `--otel console` prints, notes and events included."""
    spans = await _scenario_spans(demo, "fallback")
    text = render(spans)
    assert text.splitlines()[0].startswith("invoke_agent failsafe-agent  answered=true")
    assert re.search(r"├── attempt open-meteo #1  ✗ server_error  .*action=retry", text)
    assert "note: op='getting the weather for [withheld]'. open-meteo 503." in text
    assert "├── • fallback  from=open-meteo source=wttr.in" in text
    assert "└── attempt wttr.in #1" in text
    assert " ms" not in text  # durations only when asked for


def test_the_console_printer_writes_each_trace_when_its_root_ends() -> None:
    """One tree per finished trace, with durations; a trace cut short is printed at shutdown."""
    written: list[str] = []
    provider = TracerProvider()
    provider.add_span_processor(TreePrinter(written.append))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("turn"), tracer.start_as_current_span("call"):
        assert written == []
    [tree] = written
    assert tree.startswith("turn  ")
    assert re.search(r"└── call  \d+\.\d ms\n$", tree)
    unfinished = tracer.start_span("root")
    with tracer.start_as_current_span("child", context=set_span_in_context(unfinished)):
        pass
    assert len(written) == 1
    provider.shutdown()
    assert written[1].startswith("child  ")
