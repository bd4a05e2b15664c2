"""The offline scripted model: a first-class backend for the demo, the REPL and tests.

It understands the demo's questions (`offline._understand`: weather in one or several cities,
"City, Region", arithmetic, both in one question, small talk, a tool named outright), answers
with real tool calls (several at once for several cities, and a sum alongside), and words its
answer from the tool results as a person relaying them would. It returns the agent's light
`Reply`, so offline mode never loads the anthropic SDK.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent.models import ModelRequest, Reply, Text, ToolCall
from offline._understand import Call, Intent, understand

__all__ = ["OFFLINE_MODEL", "OfflineModel", "answer_from_results", "preface", "preface_calls"]


# --- from _phrase.py ---


def preface(tool: str, inputs: tuple[dict[str, str], ...]) -> str:
    """The sentence said before calling `tool` once per input."""
    return preface_calls(tuple((tool, tool_input) for tool_input in inputs))


def preface_calls(calls: tuple[tuple[str, dict[str, str]], ...]) -> str:
    """The sentence said before making `calls` (tool name, input), weather first."""
    cities = [i.get("city", "?") for tool, i in calls if tool == "get_weather"]
    rates = [i for tool, i in calls if tool == "exchange_rate"]
    sums = [i.get("expression", "?") for tool, i in calls if tool == "calculate"]
    if rates:
        return f"Let me look up the {rates[0].get('base')} to {rates[0].get('quote')} rate."
    if cities and sums:
        return f"Let me check the weather in {_join(cities)} and work out {_join(sums)}."
    if cities:
        return f"Let me check the weather in {_join(cities)}."
    return "Let me work that out."


def answer_from_results(calls: Mapping[str, Mapping[str, Any]], results: list[Any]) -> str:
    """One sentence per tool result; `calls` maps tool_use ids to their tool_use blocks."""
    sentences = [_sentence(calls.get(str(r.get("tool_use_id")), {}), r) for r in results]
    return " ".join(sentence for sentence in sentences if sentence)


def _sentence(call: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    text = _text(result.get("content"))
    if result.get("is_error"):
        return f"Sorry — {_as_clause(text)}" if text else "Sorry — that didn't work."
    data = _json(text)
    if data is None or call.get("name") not in {"get_weather", "calculate", "exchange_rate", None}:
        return text  # another tool's answer (an MCP server's, say) is relayed as it is
    if call.get("name") == "exchange_rate":
        return _exchange_rate(data)
    if call.get("name") == "calculate" or "result" in data:
        return _calculation(call, data)
    return _weather(call, data)


def _weather(call: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    city = data.get("city") or _input(call, "city") or "there"
    if data.get("degraded") or data.get("temperature") is None:
        note = data.get("message") or data.get("note")
        return str(note) if note else f"I couldn't get the current weather for {city} right now."
    condition = str(data.get("condition") or "").lower()
    sentence = f"In {city} it's {data['temperature']}" + (f" and {condition}" if condition else "")
    humidity = data.get("humidity")
    if humidity is not None:
        sentence += f", with {humidity}{'%' if isinstance(humidity, int | float) else ''} humidity"
    note = data.get("note")
    return sentence + "." + (f" ({note})" if isinstance(note, str) and note else "")


def _calculation(call: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    expression = data.get("expression") or _input(call, "expression") or "That"
    return f"{expression} = {data.get('result')}."


def _exchange_rate(data: Mapping[str, Any]) -> str:
    """ "1 USD is 0.852966 EUR (the rate of 2025-09-30, from open.er-api.com)." """
    base, quote, rate = data.get("base"), data.get("quote"), data.get("rate")
    if not (base and quote and isinstance(rate, int | float)):
        return "I couldn't read that exchange rate."
    sentence = f"1 {base} is {rate} {quote}"
    if data.get("date") and data.get("source"):
        return f"{sentence} (the rate of {data['date']}, from {data['source']})."
    return sentence + "."


def _as_clause(sentence: str) -> str:
    """ "Getting the weather …" reads on after a dash as "getting the weather …"."""
    first, _, rest = sentence.partition(" ")
    if first.endswith("ing") and first[:1].isupper() and first[1:].islower():
        return f"{first.lower()} {rest}".strip()
    return sentence


def _input(call: Mapping[str, Any], key: str) -> str | None:
    value = (call.get("input") or {}).get(key)
    return str(value) if value else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict)).strip()
    return ""


def _json(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# --- from _model.py ---

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
