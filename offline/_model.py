"""The offline scripted model: a first-class backend for the demo, the REPL and tests.

It understands the demo's questions (weather in one or several cities, "City, Region",
arithmetic, both in one question, small talk), answers with real tool calls (several at once
for several cities, and a sum alongside), and words its
answer from the tool results. It returns the agent's light `Reply`, so offline mode never
loads the anthropic SDK.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from agent.models import ModelRequest, Reply, Text, ToolCall
from offline._phrase import answer_from_results, preface_calls
from offline._understand import Call, Intent, understand

__all__ = ["OFFLINE_MODEL", "OfflineModel"]

OFFLINE_MODEL = "offline-scripted"


class OfflineModel:
    """Stateless: each answer is decided from the messages alone. `name` labels it in the
    timeline (a second one can stand in as the fallback model)."""

    def __init__(self, name: str = OFFLINE_MODEL) -> None:
        self.name = name
        self._ids = itertools.count(1)

    async def create(self, request: ModelRequest) -> Reply:
        """Tool calls for a new question, or an answer worded from tool results."""
        return self.respond(request)

    def respond(self, request: ModelRequest) -> Reply:
        """`create`, without the coroutine: what the benchmark's fault server calls."""
        last = request.messages[-1]
        results = [b for b in _blocks(last["content"]) if b.get("type") == "tool_result"]
        if results:
            return self._after_tools(request, results)
        intent = understand(_question(last["content"]))
        if not intent.calls or not all(_may_call(request, tool) for tool, _ in intent.calls):
            return self._say(request, intent.reply or "I can't look that up right now.")
        return self._call(request, intent)

    async def aclose(self) -> None:
        """Nothing to release."""

    def _after_tools(self, request: ModelRequest, results: list[Mapping[str, Any]]) -> Reply:
        """The answer; or, when a call failed with input it never meant, the call it meant."""
        calls = _calls(request.messages[-2]["content"]) if len(request.messages) > 1 else {}
        intent = understand(_last_question(request.messages))
        sent = [(call.get("name"), call.get("input")) for call in calls.values()]
        unsent: tuple[Call, ...] = tuple(c for c in intent.calls if c not in sent)
        failed = any(result.get("is_error") for result in results)
        if failed and unsent and all(_may_call(request, tool) for tool, _ in unsent):
            return self._call(request, Intent(more=unsent), again=True)
        return self._say(request, answer_from_results(calls, results))

    def _say(self, request: ModelRequest, text: str) -> Reply:
        if request.on_text is not None:
            request.on_text(text)
        return self._reply((Text(text),), "end_turn")

    def _call(self, request: ModelRequest, intent: Intent, *, again: bool = False) -> Reply:
        text = ("That input was wrong; trying again. " if again else "") + preface_calls(
            intent.calls
        )
        if request.on_text is not None:
            request.on_text(text + "\n")
        uses = [self._use(tool, tool_input) for tool, tool_input in intent.calls]
        return self._reply((Text(text), *uses), "tool_use")

    def _use(self, tool: str, tool_input: dict[str, str]) -> ToolCall:
        return ToolCall(self._next("toolu"), tool, {**tool_input})

    def _reply(self, content: tuple[Text | ToolCall, ...], stop_reason: str) -> Reply:
        return Reply(content, stop_reason, model=self.name, id=self._next("msg"))

    def _next(self, prefix: str) -> str:
        return f"{prefix}_offline_{next(self._ids):04d}"


def _may_call(request: ModelRequest, tool: str) -> bool:
    if request.tool_choice is not None and request.tool_choice["type"] == "none":
        return False
    return any(definition.get("name") == tool for definition in request.tools)


def _blocks(content: object) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, Sequence):
        return []
    return [block for block in content if isinstance(block, Mapping)]


def _question(content: object) -> str:
    return " ".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def _last_question(messages: Sequence[Any]) -> str:
    """The text of the latest user message that is a question, not tool results."""
    for message in reversed(messages):
        blocks = _blocks(message["content"])
        if message["role"] == "user" and not any(b.get("type") == "tool_result" for b in blocks):
            return _question(message["content"])
    return ""


def _calls(content: object) -> dict[str, Mapping[str, Any]]:
    return {str(b.get("id")): b for b in _blocks(content) if b.get("type") == "tool_use"}
