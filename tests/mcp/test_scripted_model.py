"""The offline scripted model calls a tool named outright, so MCP tools can be driven offline."""

from __future__ import annotations

import pytest

from offline._model import Intent, answer_from_results, understand


@pytest.mark.parametrize(
    ("question", "tool", "inputs"),
    [
        ("use echo with text=hi", "echo", {"text": "hi"}),
        ('Use the echo tool with text="hello world".', "echo", {"text": "hello world"}),
        ("call add with a=1, b=2", "add", {"a": "1", "b": "2"}),
        ("call add with a=1 and b=2?", "add", {"a": "1", "b": "2"}),
        ("use pid", "pid", {}),
    ],
)
def test_a_named_tool_is_called_with_its_inputs(
    question: str, tool: str, inputs: dict[str, str]
) -> None:
    assert understand(question) == Intent(tool, (inputs,))


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("use the weather in Paris", "get_weather"),  # not a tool name and inputs
        ("what is 2 + 2?", "calculate"),
        ("use echo with 'open", None),  # a quote left open: not understood as a call
    ],
)
def test_other_questions_are_understood_as_before(question: str, tool: str | None) -> None:
    assert understand(question).tool == tool


def test_another_tools_answer_is_relayed_as_it_is() -> None:
    """JSON from an MCP tool is not mistaken for a weather report."""
    calls = {"t1": {"name": "lookup", "input": {"q": "x"}}}
    results = [{"tool_use_id": "t1", "content": '{"result": "found"}'}]
    assert answer_from_results(calls, results) == '{"result": "found"}'
