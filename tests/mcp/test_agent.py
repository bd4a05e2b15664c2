"""MCP servers through the whole agent: `agent ask` and `agent chat` with the scripted offline
model (which calls a tool named outright: "use echo with text=hi"), and the Python API."""

from __future__ import annotations

import shlex
import sys
from typing import Any

from structlog.testing import capture_logs

from agent.app import open_agent
from agent.cli import EXIT_OK, EXIT_USAGE
from agent.settings import Settings
from errors import plainness_problems
from offline import QueuedModel, calls, text
from tests.cli_run import run_cli
from tests.mcp.conftest import SECRET, SERVER, Plan, flaky, quick


def command(plan: Plan, *flags: str, name: str = "flaky") -> str:
    """The --mcp value that runs the flaky server with this Python."""
    words = [sys.executable, str(SERVER), "--plan", str(plan.path), *flags]
    return f"{name}={shlex.join(words)}"


run = run_cli


def test_ask_answers_through_a_crash(plan: Plan) -> None:
    """`agent ask --mcp`: the server dies under the call, is restarted, and the answer comes."""
    plan.set(echo=["crash"])
    code, out, err = run(["ask", "--mcp", command(plan), "use echo with text=hi"])
    assert (code, out) == (EXIT_OK, "hi\n")
    assert err.startswith("Offline:")  # the banner, and nothing about the crash
    assert plan.left("echo") == []


def test_a_dead_server_is_one_plain_sentence_and_the_agent_goes_on(plan: Plan) -> None:
    """The server can't start: one sentence on stderr; the built-in tools still answer."""
    argv = ["ask", "--mcp", command(plan, "--exit-at-start", name="notes"), "what is 6 * 7?"]
    code, out, err = run(argv)
    assert (code, out) == (EXIT_OK, "6 * 7 = 42.\n")
    sentence = (
        "The MCP server 'notes' exited before answering, so its tools are left out; "
        "run its command on its own to see why."
    )
    assert err.splitlines()[1:] == [sentence]


def test_chat_lists_the_tools_and_traces_the_retries(plan: Plan) -> None:
    """`agent chat --mcp`: /tools names each tool's server; /trace shows the crash, the
    retry on a restarted server and the answer, each for the value the call was about."""
    plan.set(echo=["crash"])
    lines = ("use echo with text=hi", "/trace", "/tools")
    code, out, _ = run(["chat", "--mcp", command(plan)], lines=lines)
    assert code == EXIT_OK
    assert "… flaky failed — retrying" in out
    assert "\nhi\n" in out
    rows = [
        line.split() for line in out.splitlines() if line.split()[:3] == ["echo", "hi", "flaky"]
    ]
    assert [row[:4] for row in rows] == [["echo", "hi", "flaky", "1"], ["echo", "hi", "flaky", "2"]]
    assert {"network", "retry"} <= set(rows[0])
    assert "ok" in rows[1]
    assert "echo [MCP server flaky]: Answer with the same text." in out
    assert "add [MCP server flaky]: Add two whole numbers." in out


def test_the_model_is_told_only_the_sentence(plan: Plan) -> None:
    """Through the Python API: the model's tool_result is error-to-action's sentence; the
    server's words (and secret) reach only the log, redacted."""
    import asyncio

    plan.set(echo=[f"is_error:the disk exploded, key={SECRET}"])
    model = QueuedModel(calls(("echo", {"text": "hi"})), text("It failed."))

    async def turn() -> Any:
        agent = await open_agent(
            Settings(), backend=model, mcp=[flaky(plan)], policy=quick(), builtins=False
        )
        try:
            return await agent.ask("echo hi")
        finally:
            await agent.aclose()

    with capture_logs() as logs:
        answer = asyncio.run(turn())
    [result] = answer.tool_results
    assert result.get("is_error") is True
    sentence = str(result["content"])
    assert plainness_problems(sentence) == []
    assert "exploded" not in sentence
    assert [d["name"] for d in model.requests[0].tools] == ["echo", "add", "pid"]
    assert SECRET not in str(model.requests) + str(logs)
    assert any("exploded" in str(e.get("developer_note")) for e in logs)


def _told(plan: Plan, arguments: dict[str, Any]) -> str:
    """What the model is told when the server's `echo` answers `isError`, called with
    `arguments`."""
    import asyncio

    model = QueuedModel(calls(("echo", arguments)), text("It failed."))

    async def turn() -> Any:
        agent = await open_agent(
            Settings(), backend=model, mcp=[flaky(plan)], policy=quick(), builtins=False
        )
        try:
            return await agent.ask("echo")
        finally:
            await agent.aclose()

    [result] = asyncio.run(turn()).tool_results
    assert result.get("is_error") is True
    return str(result["content"])


def test_a_refused_value_is_named_so_the_model_can_correct_it(plan: Plan) -> None:
    """The MCP time server's own refusal ("Invalid timezone: 'No time zone found with key
    Mars/Olympus'") reaches the model naming the field and the value it sent."""
    plan.set(echo=["is_error:Invalid timezone: 'No time zone found with key Mars/Olympus'"])
    sentence = _told(plan, {"text": "Mars/Olympus"})
    assert "time zone “Mars/Olympus”" in sentence
    assert plainness_problems(sentence) == []


def test_a_value_the_caller_did_not_send_is_never_repeated(plan: Plan) -> None:
    """A server's refusal quoting something the call did not contain names the field only:
    a server's words reach the model only as the caller's own values."""
    plan.set(echo=["is_error:Invalid timezone: 'No time zone found with key Ignore/Previous'"])
    sentence = _told(plan, {"text": "Europe/Paris"})
    assert "time zone" in sentence
    assert "Ignore" not in sentence
    assert "Paris" not in sentence


def test_a_null_input_a_server_refuses_is_named(plan: Plan) -> None:
    """A server's pydantic refusal of a null `city` names the field and says it is null."""
    refusal = (
        "Error executing tool get_forecast: 1 validation error for get_forecastArguments\n"
        "city\n  Input should be a valid string [type=string_type, input_value=None, "
        "input_type=NoneType]"
    )
    plan.set(echo=[f"is_error:{refusal}"])
    sentence = _told(plan, {"text": "hi"})
    assert "the city is null" in sentence


def test_unusable_mcp_flags_are_usage_errors() -> None:
    for flags in (["--mcp", ""], ["--mcp", "x 'open"], ["--mcp-url", "ftp://host/mcp"]):
        code, out, err = run(["ask", *flags, "hi"])
        assert (code, out) == (EXIT_USAGE, "")
        assert err.startswith("agent: --mcp")
