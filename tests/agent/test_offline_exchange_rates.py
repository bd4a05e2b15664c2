"""The offline scripted model and `exchange_rate` (examples/exchange_rates.py): it calls the tool
for a currency pair only when an agent offers it, and words the answer from the result."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.models import ModelRequest, Reply, Text, ToolCall
from offline import OfflineModel
from offline._model import HELP, help_text, understand
from tests.examples.test_exchange_rates import USD_EUR

RATE_TOOL = {"name": "exchange_rate", "description": "An exchange rate.", "input_schema": {}}
WEATHER_TOOL = {"name": "get_weather", "description": "The weather.", "input_schema": {}}


def request(*messages: Any, tools: tuple[Any, ...] = (RATE_TOOL, WEATHER_TOOL)) -> ModelRequest:
    return ModelRequest(messages=list(messages), tools=tools)


def question(words: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": words}]}


def uses(reply: Reply) -> list[ToolCall]:
    return [block for block in reply.content if isinstance(block, ToolCall)]


def said(reply: Reply) -> str:
    return "".join(block.text for block in reply.content if isinstance(block, Text))


@pytest.mark.parametrize(
    ("words", "pair"),
    [
        ("What's the exchange rate from USD to EUR?", ("USD", "EUR")),
        ("exchange rate USD/JPY", ("USD", "JPY")),
        ("Convert GBP into CHF, please", ("GBP", "CHF")),
        ("conversion rate for eur to usd?", ("EUR", "USD")),
        ("USD → EUR exchange rates today", ("USD", "EUR")),
    ],
)
def test_a_currency_pair_becomes_an_exchange_rate_call(words: str, pair: tuple[str, str]) -> None:
    """The two codes, in capitals, are the call's base and quote."""
    intent = understand(words)
    assert intent.tool == "exchange_rate"
    assert intent.inputs == ({"base": pair[0], "quote": pair[1]},)


@pytest.mark.parametrize(
    ("words", "tool"),
    [
        ("What's the exchange rate?", None),
        ("What is 100 USD in EUR?", None),
        ("What's the weather in Paris?", "get_weather"),
        ("what is 12 * 7?", "calculate"),
    ],
)
def test_other_questions_are_understood_as_before(words: str, tool: str | None) -> None:
    """No pair, or no word about rates: not an exchange_rate call."""
    assert understand(words).tool == tool


async def test_it_calls_the_tool_an_agent_offers() -> None:
    """Offered exchange_rate: one tool_use for the pair, with a sentence before it."""
    reply = await OfflineModel().create(request(question("Exchange rate from USD to EUR?")))
    assert reply.stop_reason == "tool_use"
    assert [(u.name, u.input) for u in uses(reply)] == [
        ("exchange_rate", {"base": "USD", "quote": "EUR"})
    ]
    assert said(reply) == "Let me look up the USD to EUR rate."


async def test_without_the_tool_it_offers_help_instead() -> None:
    """An agent without exchange_rate: no tool call, the help text with its tools."""
    model = OfflineModel()
    reply = await model.create(
        request(question("Exchange rate from USD to EUR?"), tools=(WEATHER_TOOL,))
    )
    assert (uses(reply), said(reply)) == ([], help_text([WEATHER_TOOL]))
    assert said(reply).startswith(HELP)


async def answer_to(result: dict[str, Any]) -> str:
    """What the model says after `result` comes back for its exchange_rate call."""
    model = OfflineModel()
    first = request(question("Exchange rate from USD to EUR?"))
    calling = await model.create(first)
    [use] = uses(calling)
    reply = await model.create(
        request(
            question("Exchange rate from USD to EUR?"),
            {"role": "assistant", "content": [block.to_param() for block in calling.content]},
            {"role": "user", "content": [{"tool_use_id": use.id, **result}]},
        )
    )
    return said(reply)


async def test_the_answer_is_worded_from_the_rate() -> None:
    """The rate, its date and its source, all from the tool's result."""
    text = await answer_to({"type": "tool_result", "content": json.dumps(USD_EUR)})
    assert text == "1 USD is 0.852966 EUR (the rate of 2025-09-30, from open.er-api.com)."


async def test_a_failed_call_is_relayed_as_its_sentence() -> None:
    """is_error: the tool's one sentence, after "Sorry —"."""
    sentence = "Getting the exchange rate stopped because no currency called “XYZ” could be found."
    text = await answer_to({"type": "tool_result", "content": sentence, "is_error": True})
    assert text == f"Sorry — {sentence[0].lower()}{sentence[1:]}"
