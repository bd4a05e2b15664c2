"""The offline scripted model: real tool_use blocks, answers worded from tool results."""

from __future__ import annotations

import json

import pytest

from agent.models import ModelRequest, Reply
from offline import OfflineModel
from offline._model import understand
from tests.agent.helpers import registry

TOOLS = registry().definitions()


async def ask(question: str, **kwargs: object) -> Reply:
    request = ModelRequest(
        messages=[{"role": "user", "content": [{"type": "text", "text": question}]}],
        tools=TOOLS,
        **kwargs,  # type: ignore[arg-type]
    )
    return await OfflineModel().create(request)


async def answer_from(results: list[dict[str, object]], uses: Reply) -> str:
    request = ModelRequest(
        messages=[
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [b.to_param() for b in uses.content]},
            {"role": "user", "content": results},
        ],
        tools=TOOLS,
    )
    message = await OfflineModel().create(request)
    return "".join(b.text for b in message.content if b.type == "text")


@pytest.mark.parametrize(
    ("question", "cities"),
    [
        ("What's the weather in Paris?", ["Paris"]),
        ("Weather in Paris, Tokyo and Lima?", ["Paris", "Tokyo", "Lima"]),
        ("How hot is it in New York today?", ["New York"]),
        ("What's the temperature in São Paulo right now?", ["São Paulo"]),
        ("What's the weather in Paris, Texas?", ["Paris, Texas"]),
        ("Weather in Paris, TX?", ["Paris, TX"]),
        ("Is it raining in London, UK?", ["London, UK"]),
        ("Weather in Paris, Texas, USA?", ["Paris, Texas, USA"]),
        ("Weather in Paris, Tokyo and New York?", ["Paris", "Tokyo", "New York"]),
        ("Weather in Paris, Texas and Lima?", ["Paris, Texas", "Lima"]),
        ("Weather in São Paulo, Zürich and 東京?", ["São Paulo", "Zürich", "東京"]),
        ("Weather in Paris, Narnia?", ["Paris, Narnia"]),
    ],
)
def test_weather_questions_name_their_cities(question: str, cities: list[str]) -> None:
    """Each city mentioned becomes one get_weather call."""
    intent = understand(question)
    assert intent.tool == "get_weather"
    assert [i["city"] for i in intent.inputs] == cities


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("what is 12 * 7?", "12 * 7"),
        ("calculate 1/0", "1/0"),
        ("what is 3 times (4 + 5)?", "3 * (4 + 5)"),
        ("2^10 - 3.5", "2**10 - 3.5"),
        ("what is 2 ** 100000?", "2 ** 100000"),
        ("what is 2^10?", "2**10"),
        ("7 // 2?", "7 // 2"),
    ],
)
def test_arithmetic_becomes_a_calculate_call(question: str, expression: str) -> None:
    """A sum in words or symbols becomes one calculate call."""
    assert understand(question).inputs == ({"expression": expression},)


@pytest.mark.parametrize("question", ["hello", "thanks!", "who are you?", "tell me a joke"])
def test_small_talk_is_answered_without_tools(question: str) -> None:
    """Greetings and the like get a reply, no tool call."""
    intent = understand(question)
    assert intent.tool is None
    assert intent.reply


async def test_several_cities_are_called_at_once() -> None:
    """Three cities: one response with three tool_use blocks."""
    message = await ask("weather in Paris, Tokyo and Lima?")
    assert message.stop_reason == "tool_use"
    uses = [b for b in message.content if b.type == "tool_use"]
    assert [u.input for u in uses] == [{"city": "Paris"}, {"city": "Tokyo"}, {"city": "Lima"}]
    assert len({u.id for u in uses}) == 3


async def test_no_tool_calls_when_tools_are_switched_off() -> None:
    """With tool_choice none the model answers in text."""
    message = await ask("weather in Paris?", tool_choice={"type": "none"})
    assert message.stop_reason == "end_turn"


async def test_the_answer_is_worded_from_tool_results() -> None:
    """Weather and failures are relayed as sentences, numbers only from the results."""
    uses = await ask("weather in Paris and Atlantis?")
    ids = [b.id for b in uses.content if b.type == "tool_use"]
    report = {"city": "Paris", "temperature": "21.0°C", "condition": "Clear sky", "humidity": 40}
    results = [
        {"type": "tool_result", "tool_use_id": ids[0], "content": json.dumps(report)},
        {
            "type": "tool_result",
            "tool_use_id": ids[1],
            "content": "Atlantis was not found.",
            "is_error": True,
        },
    ]
    text = await answer_from(results, uses)
    assert "In Paris it's 21.0°C and clear sky, with 40% humidity." in text
    assert "Atlantis was not found." in text


async def test_a_degraded_report_invents_no_numbers() -> None:
    """A degraded result is relayed without a temperature."""
    uses = await ask("weather in Paris?")
    [use] = [b for b in uses.content if b.type == "tool_use"]
    content = json.dumps({"city": "Paris", "degraded": True})
    text = await answer_from(
        [{"type": "tool_result", "tool_use_id": use.id, "content": content}], uses
    )
    assert "Paris" in text
    assert "°" not in text


async def test_a_calculation_result_is_stated() -> None:
    """A calculate result reads as expression = result."""
    uses = await ask("what is 2 + 2?")
    [use] = [b for b in uses.content if b.type == "tool_use"]
    content = json.dumps({"expression": "2 + 2", "result": 4})
    text = await answer_from(
        [{"type": "tool_result", "tool_use_id": use.id, "content": content}], uses
    )
    assert text == "2 + 2 = 4."


async def test_streaming_sends_the_text_to_on_text() -> None:
    """on_text receives what the model says."""
    seen: list[str] = []
    await ask("hello", on_text=seen.append)
    assert seen
    assert "Hello" in seen[0]


def test_weather_and_a_sum_in_one_question_are_both_called() -> None:
    """A calculation asked with a weather question is not dropped."""
    intent = understand("What's the weather in Paris and what is 12 * 7?")
    assert intent.calls == (
        ("get_weather", {"city": "Paris"}),
        ("calculate", {"expression": "12 * 7"}),
    )


async def test_both_tools_go_out_in_one_reply() -> None:
    """One response: a get_weather and a calculate tool_use, and one sentence each after."""
    message = await ask("What's the weather in Paris, Texas and what is 2 + 2?")
    uses = [b for b in message.content if b.type == "tool_use"]
    assert [(u.name, u.input) for u in uses] == [
        ("get_weather", {"city": "Paris, Texas"}),
        ("calculate", {"expression": "2 + 2"}),
    ]
    report = {"city": "Paris, Texas, United States", "temperature": "18.6°C", "humidity": "58%"}
    results = [
        {"type": "tool_result", "tool_use_id": uses[0].id, "content": json.dumps(report)},
        {"type": "tool_result", "tool_use_id": uses[1].id, "content": '{"result": 4}'},
    ]
    text = await answer_from(results, message)
    assert text == "In Paris, Texas, United States it's 18.6°C, with 58% humidity. 2 + 2 = 4."


async def test_a_note_is_relayed() -> None:
    """When the tool says the answer is for another place than asked, the model says so."""
    uses = await ask("weather in Paris, Narnia?")
    [use] = [b for b in uses.content if b.type == "tool_use"]
    note = "No Paris was found in Narnia; this is the weather for Paris, France."
    report = {"city": "Paris, France", "temperature": "8.8°C", "note": note}
    text = await answer_from(
        [{"type": "tool_result", "tool_use_id": use.id, "content": json.dumps(report)}], uses
    )
    assert text == f"In Paris, France it's 8.8°C. ({note})"
