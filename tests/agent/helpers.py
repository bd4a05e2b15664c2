"""Test doubles for the agent: a scripted model and small tools registered in a real Registry."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from typing import Any

from anthropic.types import Message, TextBlock, ToolUseBlock
from pydantic import BaseModel, Field

from agent.models import ModelRequest
from agent.models.offline import make_message
from errors import NotFound, UpstreamStatus, classify
from tools import Attempt, Registry, Tool, ToolResult

SECRET = "sk-ant-api03-SECRETSECRETSECRET1234567890"


def text(answer: str, stop_reason: Any = "end_turn") -> Message:
    """A text-only response."""
    return make_message([TextBlock(type="text", text=answer)], stop_reason)


def calls(*uses: tuple[str, dict[str, Any]], stop_reason: Any = "tool_use") -> Message:
    """A response that calls tools, one `tool_use` per (name, input)."""
    blocks = [
        ToolUseBlock(type="tool_use", id=f"toolu_{i:02d}", name=name, input=tool_input)
        for i, (name, tool_input) in enumerate(uses)
    ]
    return make_message(blocks, stop_reason)


class ScriptedModel:
    """Answers with queued messages (or raises queued errors) and records every request."""

    name = "scripted"

    def __init__(self, *replies: Message | BaseException, repeat_last: bool = False) -> None:
        self.replies: deque[Message | BaseException] = deque(replies)
        self.requests: list[ModelRequest] = []
        self.repeat_last = repeat_last
        self.closed = False

    async def create(self, request: ModelRequest) -> Message:
        self.requests.append(request)
        reply = self.replies[0] if self.repeat_last and len(self.replies) == 1 else None
        reply = reply or self.replies.popleft()
        if isinstance(reply, BaseException):
            raise reply
        if request.on_text is not None:
            request.on_text("".join(b.text for b in reply.content if isinstance(b, TextBlock)))
        return reply

    async def aclose(self) -> None:
        self.closed = True


class CityInput(BaseModel):
    city: str = Field(min_length=1)


class SumInput(BaseModel):
    expression: str


async def _weather(args: CityInput) -> ToolResult:
    if args.city == "Atlantis":
        verdict = classify(NotFound(args.city, source="geo"), "getting the weather for Atlantis")
        return ToolResult(verdict.result.user_message, is_error=True, error=verdict.result)
    if args.city == "Down":
        error = UpstreamStatus(503, f"upstream 503 body key={SECRET}", source="geo")
        verdict = classify(error, "getting the weather for Down", retry_count=2)
        attempt = Attempt("get_weather", "geo", 1, 0.01, "server_error", "escalate")
        return ToolResult(
            verdict.result.user_message, is_error=True, error=verdict.result, attempts=(attempt,)
        )
    report = {"city": args.city, "temperature": "21.0°C", "condition": "Clear sky"}
    attempt = Attempt("get_weather", "geo", 1, 0.01, "ok")
    return ToolResult(json.dumps(report), attempts=(attempt,))


async def _calculate(args: SumInput) -> ToolResult:
    if args.expression == "boom":
        raise RuntimeError(f"bug with secret {SECRET}")
    return ToolResult(json.dumps({"expression": args.expression, "result": 4}))


def registry(extra: Iterable[Tool] = ()) -> Registry:
    """get_weather (Atlantis: not found; Down: service down) and calculate ("boom" crashes)."""
    return Registry(
        [
            Tool(
                "get_weather",
                "Current weather for a city.",
                CityInput,
                _weather,
                "getting the weather",
            ),
            Tool("calculate", "Evaluate arithmetic.", SumInput, _calculate, "doing the sum"),
            *extra,
        ]
    )


def user_blocks(request: ModelRequest, index: int = -1) -> list[dict[str, Any]]:
    """The content blocks of one user message a request carried."""
    message = request.messages[index]
    assert message["role"] == "user"
    return list(message["content"])  # type: ignore[arg-type]
