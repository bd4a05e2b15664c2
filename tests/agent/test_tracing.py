"""OpenTelemetry spans of the demo's scenarios: the tree, the attributes, what stays out.

Every span is recorded with the SDK's in-memory exporter on a provider of the test's own
(`tests.tracing_support.recording`); structure, attributes, events and status are asserted,
never timings.
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from agent.settings import Settings
from offline import (
    GEOCODING,
    Fault,
    FlakyModel,
    OfflineModel,
    SimulatedServices,
    api_error,
    open_agent,
)
from resilience import Policy, tracing
from tests.agent.fake_claude import message_body
from tests.agent.helpers import SECRET
from tests.tracing_support import events, exported_text, named, outline, recording
from tools import make_client

ASK = ["  chat offline-scripted", "    attempt offline-scripted #1"]  # a model call, answered
TURN = "invoke_agent failsafe-agent"

# The tool part of each scenario's tree, between the first model call and the last.
TOOLS: dict[str, list[str]] = {
    "happy": ["  execute_tool get_weather", "    attempt open-meteo #1"],
    "transient": [
        "  execute_tool get_weather",
        "    attempt open-meteo #1 ✗ server_error",
        "    • resilience.retry",
        "    attempt open-meteo #2",
    ],
    "fallback": [
        "  execute_tool get_weather",
        "    attempt open-meteo #1 ✗ server_error",
        "    • resilience.retry",
        "    attempt open-meteo #2 ✗ server_error",
        "    • resilience.fallback",
        "    attempt wttr.in #1",
    ],
    "degraded": [
        "  execute_tool get_weather",
        "    attempt open-meteo #1 ✗ server_error",
        "    • resilience.retry",
        "    attempt open-meteo #2 ✗ server_error",
        "    • resilience.fallback",
        "    attempt wttr.in #1 ✗ server_error",
        "    • resilience.retry",
        "    attempt wttr.in #2 ✗ server_error",
        "    • resilience.gave_up",
    ],
    "unknown_city": [
        "  execute_tool get_weather ✗ not_found",
        "    attempt open-meteo #1 ✗ not_found",
        "    • resilience.fallback",
        "    attempt wttr.in #1 ✗ not_found",
    ],
    "rate_limit": [
        "  execute_tool get_weather",
        "    attempt open-meteo #1 ✗ rate_limit",
        "    • resilience.retry",
        "    attempt open-meteo #2",
    ],
    "invalid_input": [
        "  execute_tool get_weather ✗ invalid_input",  # stopped by the registry: no attempt
        *ASK,
        "  execute_tool get_weather",
        "    attempt open-meteo #1",
    ],
    "several": [
        "  execute_tool get_weather",
        "    attempt open-meteo #1",
        "  execute_tool get_weather",
        "    attempt open-meteo #1",
        "  execute_tool get_weather",
        "    attempt open-meteo #1",
    ],
    "divide_by_zero": [
        "  execute_tool calculate ✗ invalid_input",
        "    attempt calculate #1 ✗ invalid_input",
    ],
}
# The model calls, where they are not simply answered.
FIRST_ASK: dict[str, list[str]] = {
    "model_overloaded": [
        "  chat offline-scripted",
        "    attempt offline-scripted #1 ✗ overloaded",
        "    • resilience.retry",
        "    attempt offline-scripted #2",
    ],
    "model_fallback": [  # the primary's third failure opens its circuit
        "  chat offline-scripted",
        "    attempt offline-scripted #1 ✗ overloaded",
        "    • resilience.retry",
        "    attempt offline-scripted #2 ✗ overloaded",
        "    • resilience.retry",
        "    attempt offline-scripted #3 ✗ overloaded",
        "      • resilience.circuit_open",
        "    • resilience.fallback",
        "    attempt offline-fallback #1",
    ],
}
LAST_ASK: dict[str, list[str]] = {
    "model_fallback": [  # the circuit is open: the primary is skipped, not called
        "  chat offline-scripted",
        "    • resilience.skipped",
        "    • resilience.fallback",
        "    attempt offline-fallback #1",
    ],
}
TOOLS["model_overloaded"] = TOOLS["model_fallback"] = TOOLS["happy"]


async def _scenario_spans(demo: ModuleType, name: str) -> tuple[ReadableSpan, ...]:
    [scenario] = [s for s in demo.SCENARIOS if s.name == name]
    with recording() as exporter:
        outcome = await demo.run_scenario(scenario, Settings())
        assert outcome.answer.answered
        return exporter.get_finished_spans()


def test_every_demo_scenario_has_a_tree_here(demo: ModuleType) -> None:
    assert set(TOOLS) == {s.name for s in demo.SCENARIOS}


@pytest.mark.parametrize("name", sorted(TOOLS))
async def test_each_scenario_is_one_tree_of_turn_model_calls_tools_and_attempts(
    demo: ModuleType, name: str
) -> None:
    """One trace per turn: the model calls and the tool calls are children of the turn, each
    attempt a child of its call; retry waits, fallbacks and giving up are events, in order."""
    spans = await _scenario_spans(demo, name)
    expected = [TURN, *FIRST_ASK.get(name, ASK), *TOOLS[name], *LAST_ASK.get(name, ASK)]
    assert outline(spans) == expected
    assert len({s.context.trace_id for s in spans if s.context}) == 1


async def test_the_fallback_tree_says_what_failed_and_who_answered(demo: ModuleType) -> None:
    """Primary down: both attempts at open-meteo fail as server_error with error-to-action's
    fields; the retry's wait and the fallback are events on the tool call, which is no error."""
    spans = await _scenario_spans(demo, "fallback")
    [call] = named(spans, "execute_tool get_weather")
    first, second = named(spans, "attempt open-meteo")
    [wttr] = named(spans, "attempt wttr.in")
    assert call.status.status_code is StatusCode.UNSET
    assert call.attributes is not None
    assert call.attributes["gen_ai.operation.name"] == "execute_tool"
    assert call.attributes["gen_ai.tool.name"] == "get_weather"
    assert call.attributes["gen_ai.tool.call.id"] == "toolu_offline_0001"
    assert call.attributes["resilience.answered_by"] == "wttr.in"
    assert call.attributes["resilience.attempts"] == 3
    assert call.attributes["resilience.degraded"] is False
    for attempt, action, decision in ((first, "retry", "backoff"), (second, "escalate", None)):
        assert attempt.status.status_code is StatusCode.ERROR
        assert attempt.status.description is None  # nothing beyond error.type to say
        attributes = dict(attempt.attributes or {})
        assert attributes["error.type"] == "server_error"
        assert attributes["error_to_action.error_type"] == "server_error"
        assert attributes["error_to_action.action"] == action
        assert attributes["error_to_action.retryable"] is (action == "retry")
        assert "open-meteo 503" in str(attributes["error_to_action.developer_note"])
        assert attributes["resilience.caller"] == "get_weather"
        assert attempt.parent is not None
        assert call.context is not None
        assert attempt.parent.span_id == call.context.span_id
        if decision:
            assert attributes["resilience.decision"] == decision
    assert (second.attributes or {})["resilience.decision"] == "not_retryable"
    assert wttr.status.status_code is StatusCode.UNSET
    [retry] = events(call, "resilience.retry")
    assert retry["resilience.source"] == "open-meteo"
    assert retry["resilience.attempt"] == 1
    assert retry["resilience.decision"] == "backoff"
    [fallback] = events(call, "resilience.fallback")
    assert fallback == {"resilience.failed_source": "open-meteo", "resilience.source": "wttr.in"}


async def test_the_rate_limit_wait_is_an_event_with_the_servers_retry_after(
    demo: ModuleType,
) -> None:
    spans = await _scenario_spans(demo, "rate_limit")
    [call] = named(spans, "execute_tool get_weather")
    first, _second = named(spans, "attempt open-meteo")
    attributes = dict(first.attributes or {})
    assert attributes["error.type"] == "rate_limit"
    assert attributes["error_to_action.action"] == "wait"
    assert attributes["resilience.decision"] == "retry_after"
    assert attributes["resilience.wait_s"] == 2.0
    assert events(call, "resilience.retry") == [
        {
            "resilience.source": "open-meteo",
            "resilience.attempt": 1,
            "resilience.decision": "retry_after",
            "resilience.wait_s": 2.0,
        }
    ]


async def test_a_degraded_answer_is_no_error_and_says_degraded(demo: ModuleType) -> None:
    spans = await _scenario_spans(demo, "degraded")
    [call] = named(spans, "execute_tool get_weather")
    [turn] = named(spans, TURN)
    assert call.status.status_code is StatusCode.UNSET
    assert (call.attributes or {})["resilience.degraded"] is True
    assert "resilience.answered_by" not in (call.attributes or {})
    assert events(call, "resilience.gave_up") == [
        {"resilience.source": "wttr.in", "error.type": "server_error"}
    ]
    assert turn.status.status_code is StatusCode.UNSET


async def test_model_calls_follow_the_genai_conventions(demo: ModuleType) -> None:
    """`chat {model}` is a CLIENT span with the operation, provider, models, finish reason and
    tokens; the turn is `invoke_agent` with the agent's name and the turn's totals."""
    spans = await _scenario_spans(demo, "model_overloaded")
    first, last = named(spans, "chat offline-scripted")
    [turn] = named(spans, TURN)
    attributes = dict(first.attributes or {})
    assert first.kind is SpanKind.CLIENT
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.provider.name"] == "offline-scripted"
    assert attributes["gen_ai.request.model"] == "offline-scripted"
    assert attributes["gen_ai.response.model"] == "offline-scripted"
    assert attributes["gen_ai.request.max_tokens"] == 1024
    assert attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert "gen_ai.usage.input_tokens" not in attributes  # the scripted model counts none
    assert attributes["resilience.attempts"] == 2
    assert first.status.status_code is StatusCode.UNSET  # the retry answered
    assert (last.attributes or {})["gen_ai.response.finish_reasons"] == ("end_turn",)
    turn_attributes = dict(turn.attributes or {})
    assert turn.kind is SpanKind.INTERNAL
    assert turn_attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn_attributes["gen_ai.agent.name"] == "failsafe-agent"
    assert turn_attributes["agent.answered"] is True
    assert turn_attributes["agent.model_calls"] == 2


async def test_claudes_calls_carry_the_anthropic_provider_and_token_usage(
    demo: ModuleType, httpx2_mock: Any
) -> None:
    """Online: provider "anthropic", the response id and model, the tokens of each call, and
    the turn's sum of them."""
    reply = message_body({"type": "text", "text": "Mumbai is warm."})
    httpx2_mock.post("https://claude.test/v1/messages").mock(
        return_value=httpx.Response(200, json=reply)
    )
    settings = Settings(api_key=SECRET, base_url="https://claude.test", offline=False)
    [scenario] = [s for s in demo.SCENARIOS if s.name == "model_overloaded"]
    with recording() as exporter:
        outcome = await demo.run_scenario(scenario, settings)
        spans = exporter.get_finished_spans()
    assert outcome.answer.text == "Mumbai is warm."
    [chat] = named(spans, "chat claude-sonnet-4-6")
    [turn] = named(spans, TURN)
    attributes = dict(chat.attributes or {})
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.request.model"] == "claude-sonnet-4-6"
    assert attributes["gen_ai.response.model"] == reply["model"]
    assert attributes["gen_ai.response.id"] == "msg_fake"
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (
        10,
        5,
    )
    turn_attributes = dict(turn.attributes or {})
    assert turn_attributes["gen_ai.provider.name"] == "anthropic"
    assert turn_attributes["gen_ai.usage.input_tokens"] == 10
    assert "Mumbai" not in exported_text(spans)


async def test_a_model_fallback_and_its_open_circuit_show_on_the_model_calls(
    demo: ModuleType,
) -> None:
    """The demo's circuit-breaker scenario: the primary's third 529 opens its circuit (an event
    on that attempt); the fallback model answers; the next model call skips the primary (an
    event on that call, with error-to-action's fields) and goes straight to the fallback."""
    spans = await _scenario_spans(demo, "model_fallback")
    first, second = named(spans, "chat offline-scripted")
    *_, third = named(spans, "attempt offline-scripted")
    [opened] = events(third, "resilience.circuit_open")
    assert opened["resilience.source"] == "offline-scripted"
    assert opened["resilience.cooldown_s"] == pytest.approx(60.0, abs=5.0)  # a real clock
    for call in (first, second):
        attributes = dict(call.attributes or {})
        assert attributes["gen_ai.request.model"] == "offline-scripted"
        assert attributes["gen_ai.response.model"] == "offline-fallback"
        assert attributes["resilience.answered_by"] == "offline-fallback"
        assert call.status.status_code is StatusCode.UNSET
    [skipped] = events(second, "resilience.skipped")
    assert skipped["resilience.source"] == "offline-scripted"
    assert 55.0 <= skipped["resilience.cooldown_s"] <= 60.0  # what is left of the 60 s hold
    assert skipped["error_to_action.action"] == "skip"
    assert "circuit open" in str(skipped["error_to_action.developer_note"])


async def test_concurrent_tool_calls_are_siblings_under_the_turn(demo: ModuleType) -> None:
    spans = await _scenario_spans(demo, "several")
    [turn] = named(spans, TURN)
    calls = named(spans, "execute_tool get_weather")
    assert turn.context is not None
    assert [c.parent.span_id for c in calls if c.parent] == [turn.context.span_id] * 3
    ids = {(c.attributes or {})["gen_ai.tool.call.id"] for c in calls}
    assert ids == {"toolu_offline_0001", "toolu_offline_0002", "toolu_offline_0003"}


def _distinctive(question: str) -> list[str]:
    """The words of a question that would identify it (places, expressions)."""
    common = {"what's", "weather", "warm", "what", "with"}
    words = [w.strip("?,.") for w in question.split()]
    return [w for w in words if (len(w) >= 4 or "/" in w) and w.lower() not in common]


@pytest.mark.parametrize("name", sorted(TOOLS))
async def test_nothing_of_the_question_the_answer_or_tool_data_is_exported(
    demo: ModuleType, name: str
) -> None:
    """Off by default: no question, no city or expression from it (masked in developer notes
    too), no answer text and no tool output reaches any span, event or attribute."""
    [scenario] = [s for s in demo.SCENARIOS if s.name == name]
    with recording() as exporter:
        outcome = await demo.run_scenario(scenario, Settings())
        text = exported_text(exporter.get_finished_spans())
    assert scenario.question not in text
    for word in _distinctive(scenario.question):
        assert word.lower() not in text.lower(), word
    assert outcome.answer.text not in text
    for block in outcome.answer.tool_results:
        assert str(block["content"]) not in text
    assert "°" not in text


async def test_developer_notes_keep_their_facts_with_the_input_withheld(
    demo: ModuleType,
) -> None:
    spans = await _scenario_spans(demo, "fallback")
    first, _ = named(spans, "attempt open-meteo")
    note = str((first.attributes or {})["error_to_action.developer_note"])
    assert note.startswith("op='getting the weather for [withheld]'. open-meteo 503.")


async def test_content_is_recorded_only_when_asked_for(demo: ModuleType) -> None:
    """AGENT_OTEL_CONTENT=1: the question and answer on the turn, the tool's arguments and
    result on its span, and developer notes as they are."""
    [scenario] = [s for s in demo.SCENARIOS if s.name == "fallback"]
    with recording(content=True) as exporter:
        outcome = await demo.run_scenario(scenario, Settings())
        spans = exporter.get_finished_spans()
    [turn] = named(spans, TURN)
    [call] = named(spans, "execute_tool get_weather")
    first, _ = named(spans, "attempt open-meteo")
    assert "What's the weather in London?" in str((turn.attributes or {})["gen_ai.input.messages"])
    assert outcome.answer.text in str((turn.attributes or {})["gen_ai.output.messages"])
    assert (call.attributes or {})["gen_ai.tool.call.arguments"] == '{"city": "London"}'
    assert "wttr.in" in str((call.attributes or {})["gen_ai.tool.call.result"])
    assert "London" in str((first.attributes or {})["error_to_action.developer_note"])


async def test_a_secret_in_a_failure_is_redacted_in_the_span() -> None:
    """A developer note is redacted by errors; the span passes it through `redact` again."""
    with recording() as exporter:
        with tracing.span("call") as span:
            result = (await _failing_call("Bearer sk-ant-api03-abcdefghijklmnop")).result
            span.fail(result)
        text = exported_text(exporter.get_finished_spans())
    assert "sk-ant-api03-abcdefghijklmnop" not in text
    assert "[redacted]" in text


async def _failing_call(secret: str) -> object:
    from errors import classify

    return classify(RuntimeError(f"upstream said: Authorization: {secret}"), "calling it")


async def test_a_model_that_stays_down_fails_the_call_and_the_turn() -> None:
    """No model answered: `chat` and the turn are ERROR with error-to-action's fields, and every
    attempt failed on its own span."""
    overloaded = [api_error(529, "overloaded_error", "Overloaded") for _ in range(3)]
    backend = FlakyModel(OfflineModel(), overloaded)
    with recording() as exporter:
        async with make_client(transport=SimulatedServices().transport) as http:
            agent = await open_agent(
                Settings(), http=http, backend=backend, policy=Policy(sleep=_no_sleep)
            )
            try:
                answer = await agent.ask("What's the weather in Paris?")
            finally:
                await agent.aclose()
        spans = exporter.get_finished_spans()
    assert not answer.answered
    assert outline(spans) == [
        f"{TURN} ✗ overloaded",
        "  chat offline-scripted ✗ overloaded",
        "    attempt offline-scripted #1 ✗ overloaded",
        "    • resilience.retry",
        "    attempt offline-scripted #2 ✗ overloaded",
        "    • resilience.retry",
        "    attempt offline-scripted #3 ✗ overloaded",
        "    • resilience.gave_up",
    ]
    [turn] = named(spans, TURN)
    assert (turn.attributes or {})["error_to_action.action"] == "escalate"
    assert (turn.attributes or {})["agent.answered"] is False


async def _no_sleep(_seconds: float) -> None:
    await asyncio.sleep(0)


async def test_an_open_circuit_shows_as_an_event_and_the_source_is_skipped() -> None:
    """A tool source's circuit (the demo's circuit scenario is the model's): open-meteo keeps
    failing; its second failure opens its circuit (an event on that attempt), and the next
    question skips it (an event on the tool call) and goes straight to wttr.in."""
    services = SimulatedServices()
    services.fail_always(GEOCODING, Fault.status(503))
    policy = Policy(sleep=_no_sleep, breaker_threshold=2)
    with recording() as exporter:
        async with make_client(transport=services.transport) as http:
            agent = await open_agent(Settings(), http=http, policy=policy)
            try:
                for question in ("What's the weather in London?", "What's the weather in Paris?"):
                    assert (await agent.ask(question)).answered
            finally:
                await agent.aclose()
        spans = exporter.get_finished_spans()
    assert outline(spans) == [
        TURN,
        *ASK,
        "  execute_tool get_weather",
        "    attempt open-meteo #1 ✗ server_error",
        "    • resilience.retry",
        "    attempt open-meteo #2 ✗ server_error",
        "      • resilience.circuit_open",
        "    • resilience.fallback",
        "    attempt wttr.in #1",
        *ASK,
        TURN,
        *ASK,
        "  execute_tool get_weather",
        "    • resilience.skipped",
        "    • resilience.fallback",
        "    attempt wttr.in #1",
        *ASK,
    ]
    _, second = named(spans, "attempt open-meteo")
    [opened] = events(second, "resilience.circuit_open")
    assert opened == {"resilience.source": "open-meteo", "resilience.cooldown_s": 30.0}
    _, later = named(spans, "execute_tool get_weather")
    [skipped] = events(later, "resilience.skipped")
    assert skipped["resilience.source"] == "open-meteo"
    assert skipped["error.type"] == "source_skipped"
    assert skipped["error_to_action.action"] == "skip"
    assert later.status.status_code is StatusCode.UNSET
    assert "Paris" not in exported_text(spans)
