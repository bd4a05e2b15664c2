"""How the offline model words an answer from tool results, as a person relaying them would."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["answer_from_results", "preface", "preface_calls"]


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
