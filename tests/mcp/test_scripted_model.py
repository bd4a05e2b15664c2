"""The offline scripted model calls a tool named outright, so MCP tools can be driven offline;
its help lists them, and their answers are put in words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"result": "found"}', "found"),
        (
            '{\n  "city": "Kew",\n  "wind_speed": 3,\n  "gusts": null\n}',
            "city: Kew; wind speed: 3; gusts: none",
        ),
        ('["a", "b"]', "a, b"),
        ("plain words", "plain words"),
    ],
)
def test_another_tools_answer_is_put_in_words(content: str, said: str) -> None:
    """JSON from an MCP tool is neither mistaken for a weather report nor shown raw."""
    calls = {"t1": {"name": "lookup", "input": {"q": "x"}}}
    results = [{"tool_use_id": "t1", "content": content}]
    assert answer_from_results(calls, results) == said


# --- offline, through the command line: MCP tools are easy to find and read ---------------

ROOT = Path(__file__).resolve().parents[2]
FLAKY = f"flaky={sys.executable} {Path(__file__).with_name('flaky_server.py')}"
STATIONS = f"stations={sys.executable} {Path(__file__).with_name('json_server.py')}"


def agent(*argv: str, stdin: str = "") -> str:
    """`python -m agent ARGV` offline (no ANTHROPIC_API_KEY), in a child process: stdout."""
    done = subprocess.run(  # noqa: S603 - a fixed argv: our own interpreter
        [sys.executable, "-m", "agent", *argv],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        env={"PATH": "", "NO_COLOR": "1", "AGENT_DATA_DIR": os.environ["AGENT_DATA_DIR"]},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_help_lists_the_mcp_tools_and_how_to_name_one() -> None:
    """The offline help names every tool offered, an MCP server's with its inputs, and the
    "use TOOL with key=value" form."""
    said = agent("ask", "--mcp", FLAKY, "help")
    assert "“use TOOL with key=value”" in said
    assert "“use echo with text=…”" in said
    assert (
        "Tools here: get_weather (city); calculate (expression); echo (text); add (a, b); pid."
        in said
    )


def test_an_mcp_answer_in_json_is_shown_in_words() -> None:
    """A server's JSON object reaches the person as plain words, not pretty-printed JSON."""
    said = agent("ask", "--mcp", STATIONS, "use station with name=Kew")
    assert said == "station: Kew; temperature c: 12.5; wind: light; gusts: none\n"


def test_inputs_are_sent_as_the_tools_schema_asks() -> None:
    """ "use add with a=1 b=2": the numbers go as integers, as add's schema asks."""
    assert agent("ask", "--mcp", FLAKY, "use add with a=1 b=2") == "3\n"


def test_no_sum_is_announced_before_another_tools_call() -> None:
    """Before calling an MCP tool the model says which, never "Let me work that out."."""
    said = agent("chat", "--mcp", FLAKY, stdin="use echo with text=hello\n")
    assert "Let me ask echo.\nhello\n" in said
    assert "Let me work that out." not in said
