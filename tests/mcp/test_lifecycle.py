"""Starting, restarting and stopping real MCP server processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from errors import plainness_problems
from tests.mcp.conftest import Plan, flaky, quick
from tools import Registry
from tools.mcp import McpServer, connect, open_toolset


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_crashed_server_is_restarted_and_the_call_answers(plan: Plan) -> None:
    """The process dies mid-call: a network failure, a restart, and the retry answers.
    Closing stops the process; a call after that fails plainly."""
    plan.set(echo=["crash"])
    async with connect([flaky(plan)], policy=quick()) as toolset:
        registry = Registry(toolset.tools)
        before = (await registry.dispatch("pid", {})).content
        with capture_logs() as logs:
            result = await registry.dispatch("echo", {"text": "hi"})
        after = (await registry.dispatch("pid", {})).content
    assert result.content == "hi"
    assert [(a.source, a.number, a.outcome, a.action) for a in result.attempts] == [
        ("flaky", 1, "network", "retry"),
        ("flaky", 2, "ok", None),
    ]
    assert before != after  # a new process
    assert toolset.connections[0].restarts == 1
    assert [e["event"] for e in logs if e["event"].startswith("mcp.")] == ["mcp.server_restarted"]
    assert not alive(int(after))  # closing stopped it
    late = await registry.dispatch("echo", {"text": "hi"})
    assert late.is_error
    assert plainness_problems(late.content) == []


async def test_restarts_are_bounded(plan: Plan) -> None:
    """Past `max_restarts` in the window, the server is skipped, not started again."""
    plan.set(echo=["crash", "crash", "crash"])
    server = flaky(plan, max_restarts=1)
    async with connect([server], policy=quick()) as toolset:
        registry = Registry(toolset.tools)
        first = await registry.dispatch("echo", {"text": "hi"})
        second = await registry.dispatch("echo", {"text": "hi"})
    assert [(a.number, a.outcome) for a in first.attempts] == [(1, "network"), (2, "network")]
    assert [(a.number, a.outcome, a.action) for a in second.attempts] == [
        (1, "source_skipped", "skip")
    ]
    assert plainness_problems(second.content) == []
    assert toolset.connections[0].restarts == 1
    assert plan.left("echo") == ["crash"]  # never started a third time


async def test_a_server_that_cant_start_is_one_plain_sentence(plan: Plan) -> None:
    """Its tools are left out, the others' are kept; the reason goes to the log."""
    heard: list[str] = []
    servers = [
        flaky(plan, "--exit-at-start", name="broken"),
        flaky(plan, "--fail-list", name="mute"),
        flaky(plan, name="good"),
    ]
    with capture_logs() as logs:
        async with connect(servers, on_problem=heard.append) as toolset:
            names = [t.name for t in toolset.tools]
    assert names == ["echo", "add", "pid"]
    assert heard == toolset.problems
    assert heard == [
        "The MCP server 'broken' exited before answering, so its tools are left out; run "
        "its command on its own to see why.",
        "The MCP server 'mute' started but would not list its tools, so they are left out; "
        "its own log should say why.",
    ]
    assert all(plainness_problems(sentence) == [] for sentence in heard)
    unavailable = {e["server"]: e for e in logs if e["event"] == "mcp.server_unavailable"}
    assert (unavailable["broken"]["stage"], unavailable["mute"]["stage"]) == ("start", "list")
    assert "refusing to start" in unavailable["broken"]["stderr_tail"]  # the server's stderr


async def test_a_missing_command_is_one_plain_sentence() -> None:
    """A command that is not there: the sentence says it was not found."""
    toolset = await open_toolset([McpServer.parse("no-such-mcp-server-here --stdio")])
    assert toolset.tools == []
    assert toolset.problems == [
        "The MCP server 'no-such-mcp-server-here' could not start because its command was not "
        "found, so its tools are left out; check the command's name, or give its full path."
    ]


async def test_a_command_that_may_not_be_run_says_so(tmp_path: Path) -> None:
    """A file without leave to run: the sentence says the command may not be run."""
    script = tmp_path / "server.py"
    script.write_text("print('never run')\n")
    toolset = await open_toolset([McpServer.stdio(str(script), name="files")])
    assert toolset.problems == [
        "The MCP server 'files' could not start because its command may not be run, so its "
        "tools are left out; check that the command is a program you are allowed to run."
    ]


async def test_a_server_that_prints_what_is_not_mcp_says_so() -> None:
    """A line that is no JSON-RPC: one sentence, and the SDK's complaint in our log."""
    server = McpServer.stdio(sys.executable, ["-c", "print(1)"], name="chatty")
    with capture_logs() as logs:
        toolset = await open_toolset([server])
    assert toolset.problems == [
        "The MCP server 'chatty' printed something that is not MCP, so its tools are left "
        "out; check that its command starts an MCP server that talks over stdin and stdout."
    ]
    [said] = [e for e in logs if e["event"] == "mcp.sdk_message"]
    assert (said["server"], said["logger"]) == ("chatty", "mcp.client.stdio")
    assert "input_value=1" in said["note"]


def test_start_up_noise_never_reaches_the_terminal() -> None:
    """`agent ask --mcp "python -c 'print(1)'"`: stderr is the banner and one sentence."""
    spec = f"{sys.executable} -c 'print(1)'"
    argv = [sys.executable, "-m", "agent", "ask", "--offline", "--mcp", spec, "what is 2+2?"]
    done = subprocess.run(argv, capture_output=True, text=True, env=_env(), check=False)  # noqa: S603
    assert (done.returncode, done.stdout) == (0, "2+2 = 4.\n")
    assert done.stderr.splitlines()[1:] == [
        "The MCP server 'print-1' printed something that is not MCP, so its tools are left "
        "out; check that its command starts an MCP server that talks over stdin and stdout."
    ]


def _env() -> dict[str, str]:
    """This environment, offline, with the project importable."""
    root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": root, "AGENT_OFFLINE": "1", "ANTHROPIC_API_KEY": ""}


async def test_a_server_that_never_answers_is_given_up_at_its_timeout(plan: Plan) -> None:
    server = flaky(plan, "--hang-at-start", connect_timeout_s=0.5)
    async with connect([server]) as toolset:
        assert toolset.tools == []
    assert toolset.problems == [
        "The MCP server 'flaky' did not answer within 0.5 seconds of starting, so its tools "
        "are left out; check that it is an MCP server and that it runs."
    ]


async def test_clashing_names_are_prefixed_by_the_servers_name(plan: Plan) -> None:
    """A name taken by a built-in or an earlier server gets `{server}_{name}`; a server
    named twice is told apart."""
    servers = [flaky(plan, name="one"), flaky(plan, name="two"), flaky(plan, name="one")]
    async with connect(servers, reserved={"echo", "get_weather"}) as toolset:
        names = [t.name for t in toolset.tools]
        registry = Registry(toolset.tools)
        result = await registry.dispatch("two_add", {"a": 2, "b": 3})
    assert [c.server.name for c in toolset.connections] == ["one", "two", "one-2"]
    assert names[:6] == ["one_echo", "add", "pid", "two_echo", "two_add", "two_pid"]
    assert names[6:] == ["one-2_echo", "one-2_add", "one-2_pid"]
    assert result.content == "5"
    assert [a.source for a in result.attempts] == ["two"]


def test_the_sdk_is_not_imported_until_servers_start() -> None:
    """Naming servers (and the CLI's flags) cost no SDK import: start-up stays quick."""
    code = "import tools.mcp, agent.cli, sys; print('mcp' in sys.modules)"
    out = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


async def test_without_the_sdk_servers_are_one_plain_sentence(
    plan: Plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The `mcp` extra not installed: one sentence, and the agent goes on without them."""
    monkeypatch.setitem(sys.modules, "tools.mcp._connection", None)  # import fails
    toolset = await open_toolset([flaky(plan), flaky(plan, name="other")])
    assert toolset.tools == []
    assert toolset.problems == [
        "MCP servers need the mcp package, which is not installed, so the agent runs without "
        "them; install it with pip install 'failsafe-agent[mcp]' and try again."
    ]
    assert plainness_problems(toolset.problems[0]) == []
