"""The agent's spans, named by the OpenTelemetry GenAI semantic conventions (v1.41.1).

    invoke_agent failsafe-agent            a turn                  (Turn.run)
    ├── chat claude-sonnet-4-6             a model call, retries and fallback model included
    │   └── attempt claude-sonnet-4-6      one attempt at one model (the engine's)
    └── execute_tool get_weather           a tool call; concurrent calls are siblings
        ├── attempt open-meteo             one attempt at one source (the engine's)
        └── attempt wttr.in

A call that ends without an answer is status ERROR with `error.type` and error-to-action's
fields; retried attempts fail on their own spans, not on the call's. A tool that answered
although no source did (the honest "weather unavailable") is not an error:
`resilience.degraded` says so. The question, the model's text and tool inputs and outputs are
recorded only with content capture on (`AGENT_OTEL_CONTENT=1`); without it the question and
tool inputs are also masked in developer notes (`tracing.withheld`). Every helper is a no-op
while tracing is off.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from errors import ErrorAction
from resilience import tracing

if TYPE_CHECKING:
    from agent.loop import Answer
    from agent.models import Reply, ToolCall
    from tools import ToolResult

__all__ = ["AGENT_NAME", "chat", "provider", "replied", "tool", "tool_done", "turn", "turn_done"]

AGENT_NAME = "failsafe-agent"
_OP, _PROVIDER = "gen_ai.operation.name", "gen_ai.provider.name"
_USAGE_IN, _USAGE_OUT = "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"


def provider(model: str) -> str:
    """`gen_ai.provider.name`: "anthropic" for Claude, else the (offline) model's own name."""
    return "anthropic" if model.startswith("claude") else model


@dataclass(slots=True)
class _Turn:
    span: tracing.Span
    usage: dict[str, int] = field(default_factory=dict)  # the turn's tokens, model calls summed


_turn: ContextVar[_Turn | None] = ContextVar("turn", default=None)


@contextlib.contextmanager
def turn(model: str, question: str) -> Iterator[tracing.Span]:
    """`invoke_agent failsafe-agent`: the span of one turn, the question withheld."""
    if not tracing.enabled():
        yield tracing.NULL_SPAN
        return
    attributes: tracing.Attributes = {
        _OP: "invoke_agent",
        _PROVIDER: provider(model),
        "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.request.model": model,
        "gen_ai.input.messages": _messages("user", question) if tracing.capture_content() else None,
    }
    with (
        tracing.span(f"invoke_agent {AGENT_NAME}", attributes=attributes) as span,
        tracing.withheld(question),
    ):
        token = _turn.set(_Turn(span))
        try:
            yield span
        finally:
            _turn.reset(token)


def turn_done(span: tracing.Span, answer: Answer) -> None:
    """The turn's outcome: answered or not, model calls, tokens used in all."""
    if not span.recording:
        return
    state = _turn.get()
    span.set(
        {
            "agent.answered": answer.answered,
            "agent.model_calls": answer.model_calls,
            "gen_ai.response.model": answer.model,
            "gen_ai.response.finish_reasons": [answer.stop_reason] if answer.stop_reason else None,
            **(state.usage if state is not None else {}),
        }
    )
    if tracing.capture_content():
        span.set({"gen_ai.output.messages": _messages("assistant", answer.text)})
    if not answer.answered and answer.error is not None:
        span.fail(answer.error)


@contextlib.contextmanager
def chat(model: str, max_tokens: int) -> Iterator[tracing.Span]:
    """`chat {model}`: one model call through the engine, all its attempts inside."""
    attributes: tracing.Attributes = {
        _OP: "chat",
        _PROVIDER: provider(model),
        "gen_ai.request.model": model,
        "gen_ai.request.max_tokens": max_tokens,
    }
    with tracing.span(f"chat {model}", kind="client", attributes=attributes) as span:
        yield span


def replied(span: tracing.Span, reply: Reply, source: str | None) -> None:
    """The model's reply, without its text: the model, the stop reason, the tokens (when the
    model counted any: the offline scripted model does not)."""
    if not span.recording:
        return
    usage = {_USAGE_IN: reply.usage.input_tokens, _USAGE_OUT: reply.usage.output_tokens}
    if not any(usage.values()):
        usage = {}
    span.set(
        {
            "gen_ai.response.model": reply.model or source,
            "gen_ai.response.id": reply.id or None,
            "gen_ai.response.finish_reasons": [reply.stop_reason] if reply.stop_reason else None,
            **usage,
        }
    )
    if (state := _turn.get()) is not None:
        for key, tokens in usage.items():
            state.usage[key] = state.usage.get(key, 0) + tokens


@contextlib.contextmanager
def tool(use: ToolCall, *, known: bool) -> Iterator[tracing.Span]:
    """`execute_tool {name}`: one tool call, its input withheld. A name the agent has no tool
    for is the model's own text: it shows as "unknown" unless content is captured."""
    if not tracing.enabled():
        yield tracing.NULL_SPAN
        return
    content = tracing.capture_content()
    name = use.name[:80] if known or content else "unknown"
    attributes: tracing.Attributes = {
        _OP: "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": use.id,
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments": _json(use.input) if content else None,
    }
    with (
        tracing.span(f"execute_tool {name}", attributes=attributes) as span,
        tracing.withheld(*_strings(use.input)),
    ):
        yield span


def tool_done(span: tracing.Span, result: ToolResult | ErrorAction) -> None:
    """A tool call's outcome: an error the model was told (status ERROR), a degraded answer
    (no source answered, and the tool said so honestly), or an answer."""
    if not span.recording:
        return
    if isinstance(result, ErrorAction):
        span.fail(result)
        return
    if result.is_error and result.error is not None:
        span.fail(result.error)
        return
    answered = any(a.outcome == "ok" for a in result.attempts)
    span.set({"resilience.degraded": bool(result.attempts) and not answered})
    if tracing.capture_content():
        span.set({"gen_ai.tool.call.result": result.content})


def _messages(role: str, text: str) -> str:
    return _json([{"role": role, "parts": [{"type": "text", "content": text}]}])


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _strings(value: object) -> Iterator[str]:
    """Every string inside a tool's input, however nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
