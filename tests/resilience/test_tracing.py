"""The engine's spans and the tracing facade, with scripted sources on fake time."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.trace import StatusCode

from errors import UpstreamStatus, classify
from resilience import Engine, Policy, Source, tracing
from tests.resilience.test_engine import Scripted, unavailable
from tests.tracing_support import events, exported_text, named, outline, recording


async def test_with_tracing_off_everything_is_a_no_op(policy: Policy) -> None:
    """Nothing to record into: spans are the shared no-op one, and the engine runs as ever."""
    assert not tracing.enabled()
    with tracing.span("anything", attributes={"a": 1}) as span:
        assert span is tracing.NULL_SPAN
        assert not span.recording
        span.fail(classify(RuntimeError("x"), "doing it").result)
    assert tracing.current() is tracing.NULL_SPAN
    outcome = await Engine("demo", policy).run("getting it", [Source("a", Scripted("one"))])
    assert outcome.value == "one"


async def test_attempts_are_children_of_the_callers_span(policy: Policy) -> None:
    """The engine opens no span of its own for the call: its attempts hang under whatever span
    the caller opened, and what happens between attempts is an event on that span."""
    engine = Engine("demo", policy)
    sources = [Source("a", Scripted(unavailable(), unavailable())), Source("b", Scripted("two"))]
    with recording() as exporter:
        with tracing.span("execute_tool demo"):
            outcome = await engine.run("getting the answer", sources)
        spans = exporter.get_finished_spans()
    assert outcome.source == "b"
    assert outline(spans) == [
        "execute_tool demo",
        "  attempt a #1 ✗ server_error",
        "  • resilience.retry",
        "  attempt a #2 ✗ server_error",
        "  • resilience.fallback",
        "  attempt b #1",
    ]
    [call] = named(spans, "execute_tool demo")
    assert (call.attributes or {})["resilience.answered_by"] == "b"
    assert (call.attributes or {})["resilience.attempts"] == 3
    [retry] = events(call, "resilience.retry")
    assert retry["resilience.wait_s"] == 0.25  # half the first backoff ceiling (rand = 0.5)


async def test_the_subject_is_withheld_from_developer_notes(policy: Policy) -> None:
    """A call's subject (the city) is the person's text: masked in the note, also URL-encoded."""
    failing = Scripted(UpstreamStatus(404, "no such place: New York (New%20York)", source="a"))
    with recording() as exporter:
        with tracing.span("call"):
            await Engine("demo", policy).run(
                "getting the weather for New York", [Source("a", failing)], subject="New York"
            )
        text = exported_text(exporter.get_finished_spans())
    assert "New York" not in text
    assert "New%20York" not in text
    assert "getting the weather for [withheld]" in text


async def test_withheld_values_from_an_outer_scope_are_masked_too(policy: Policy) -> None:
    failing = Scripted(UpstreamStatus(500, "boom while computing 12*7", source="a"))
    with recording() as exporter:
        with tracing.span("call"), tracing.withheld("12*7", "x"):  # too short to mask: "x"
            await Engine("demo", policy).run("working it out", [Source("a", failing)])
        text = exported_text(exporter.get_finished_spans())
    assert "12*7" not in text
    assert "[withheld]" in text


async def test_a_wait_beyond_the_cap_is_not_slept_and_is_said_on_the_call(policy: Policy) -> None:
    busy = UpstreamStatus(429, "slow down", source="a", headers={"Retry-After": "120"})
    with recording() as exporter:
        with tracing.span("call"):
            await Engine("demo", policy).run("getting it", [Source("a", Scripted(busy))])
        spans = exporter.get_finished_spans()
    [call] = named(spans, "call")
    [attempt] = named(spans, "attempt a")
    assert (attempt.attributes or {})["resilience.decision"] == "hint_beyond_cap"
    assert (call.attributes or {})["resilience.retry_after_s"] == 120.0
    assert events(call, "resilience.retry") == []


async def test_an_exception_leaving_a_span_is_named_by_its_type_alone() -> None:
    """No exception event, no message (it may hold anything): `error.type` and ERROR."""
    with recording() as exporter:
        with pytest.raises(ValueError, match="secret"), tracing.span("work"):
            raise ValueError("the secret city of Atlantis")
        [span] = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description is None
    assert (span.attributes or {})["error.type"] == "ValueError"
    assert span.events == ()
    assert "Atlantis" not in exported_text([span])


async def test_a_cancelled_attempt_ends_its_span_as_cancelled(policy: Policy) -> None:
    started = asyncio.Event()

    async def hang(_info: object) -> str:
        started.set()
        await asyncio.sleep(3600)
        return "never"

    with recording() as exporter:
        engine = Engine("demo", policy)
        task = asyncio.create_task(engine.run("getting it", [Source("slow", hang)]))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        [attempt] = exporter.get_finished_spans()
    assert attempt.name == "attempt slow"
    assert (attempt.attributes or {})["error.type"] == "cancelled"


async def test_a_span_off_the_record_sets_nothing() -> None:
    """`current()` outside any span is OpenTelemetry's invalid span: annotating it is harmless."""
    with recording() as exporter:
        outside = tracing.current()
        assert not outside.recording
        outside.set({"a": 1})
        outside.event("nothing")
        assert exporter.get_finished_spans() == ()


def test_attributes_drop_none_and_sequences_become_lists_of_text() -> None:
    with recording() as exporter:
        with tracing.span("s", attributes={"a": None, "b": ("x", "y"), "c": 1.5}) as span:
            span.set({"d": None, "e": True})
        [recorded] = exporter.get_finished_spans()
    assert dict(recorded.attributes or {}) == {"b": ("x", "y"), "c": 1.5, "e": True}
