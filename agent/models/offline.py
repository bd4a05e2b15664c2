"""The offline scripted model: a first-class backend for the demo, the REPL and tests.

It understands the demo's questions (weather in one or several cities, arithmetic, small
talk), answers with real `tool_use` blocks (several at once for several cities), and words
its answer from the tool results. It returns the SDK's own `Message`, so the loop has one path.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from anthropic.types import Message, TextBlock, ToolUseBlock, Usage

from agent.models._base import ModelRequest
from agent.models._phrase import answer_from_results, preface
from agent.models._understand import Intent, understand

__all__ = ["OFFLINE_MODEL", "OfflineModel", "make_message"]

OFFLINE_MODEL = "offline-scripted"
StopReason = Literal["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal"]


def make_message(
    content: Iterable[TextBlock | ToolUseBlock],
    stop_reason: StopReason | Literal["model_context_window_exceeded"] = "end_turn",
    *,
    message_id: str = "msg_offline",
    model: str = OFFLINE_MODEL,
) -> Message:
    """A `Message` exactly as the SDK would return it."""
    return Message(
        id=message_id,
        type="message",
        role="assistant",
        model=model,
        content=list(content),
        stop_reason=stop_reason,
        usage=Usage(input_tokens=0, output_tokens=0),
    )


class OfflineModel:
    """Stateless: each answer is decided from the messages alone."""

    name = "offline"

    def __init__(self) -> None:
        self._ids = itertools.count(1)

    async def create(self, request: ModelRequest) -> Message:
        """Tool calls for a new question, or an answer worded from tool results."""
        last = request.messages[-1]
        results = [b for b in _blocks(last["content"]) if b.get("type") == "tool_result"]
        if results:
            return self._after_tools(request, results)
        intent = understand(_question(last["content"]))
        if intent.tool is None or not _may_call(request, intent.tool):
            return self._say(request, intent.reply or "I can't look that up right now.")
        return self._call(request, intent)

    def _after_tools(self, request: ModelRequest, results: list[Mapping[str, Any]]) -> Message:
        """The answer; or, when a call failed with input it never meant, the call it meant."""
        calls = _calls(request.messages[-2]["content"]) if len(request.messages) > 1 else {}
        intent = understand(_last_question(request.messages))
        sent = [call.get("input") for call in calls.values()]
        unsent = tuple(i for i in intent.inputs if i not in sent)
        failed = any(result.get("is_error") for result in results)
        if failed and unsent and intent.tool and _may_call(request, intent.tool):
            return self._call(request, Intent(intent.tool, unsent), again=True)
        return self._say(request, answer_from_results(calls, results))

    async def aclose(self) -> None:
        """Nothing to release."""

    def _say(self, request: ModelRequest, text: str) -> Message:
        if request.on_text is not None:
            request.on_text(text)
        return make_message([TextBlock(type="text", text=text)], message_id=self._next("msg"))

    def _call(self, request: ModelRequest, intent: Intent, *, again: bool = False) -> Message:
        assert intent.tool is not None
        text = ("That input was wrong; trying again. " if again else "") + preface(
            intent.tool, intent.inputs
        )
        if request.on_text is not None:
            request.on_text(text + "\n")
        uses = [self._use(intent.tool, tool_input) for tool_input in intent.inputs]
        content: list[TextBlock | ToolUseBlock] = [TextBlock(type="text", text=text), *uses]
        return make_message(content, "tool_use", message_id=self._next("msg"))

    def _use(self, tool: str, tool_input: dict[str, str]) -> ToolUseBlock:
        uid = self._next("toolu")
        return ToolUseBlock(type="tool_use", id=uid, name=tool, input={**tool_input})

    def _next(self, prefix: str) -> str:
        return f"{prefix}_offline_{next(self._ids):04d}"


def _may_call(request: ModelRequest, tool: str) -> bool:
    if (request.tool_choice or {}).get("type") == "none":
        return False
    return any(definition.get("name") == tool for definition in request.tools)


def _blocks(content: object) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [_as_dict(block) for block in content] if isinstance(content, Sequence) else []


def _as_dict(block: object) -> Mapping[str, Any]:
    if isinstance(block, Mapping):
        return block
    to_dict = getattr(block, "to_dict", None)
    return to_dict() if callable(to_dict) else {}


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
