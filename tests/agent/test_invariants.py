"""The agent's invariants (docs/architecture.md, "Invariants") under adversarial conditions.

The real anthropic SDK talks to `FakeClaude` over httpx2 (or to pytest-httpx2 from the CLI);
tools run against the simulated services. What the model saw is read back from the request
bodies. Each test names the contract it holds the agent to.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import structlog
from pydantic import BaseModel
from structlog.testing import LogCapture, capture_logs

from agent.app import Agent, open_agent
from agent.claude import ClaudeModel
from agent.cli import EXIT_NO_ANSWER, EXIT_OK, EXIT_USAGE, main
from agent.console import Screen
from agent.conversation import Conversation
from agent.log import configure_logging
from agent.loop import Answer, Limits
from agent.records import GAVE_UP
from agent.repl import Repl, run_repl
from offline import Fault, SimulatedServices
from resilience import Policy
from tests.agent.fake_claude import (
    FakeClaude,
    error,
    message,
    message_body,
    sse_bytes,
    start_events,
    stream,
    stream_error,
    stream_tool_use,
    text_block,
    tool_use,
)
from tests.agent.helpers import (
    API_KEY,
    CLAUDE_BASE,
    CLAUDE_URL,
    ONLINE,
    SECRET,
    Connector,
    assert_error_sentence,
    assert_plain,
    check_answered,
    check_every_request,
    error_results,
    registry,
)
from tools import Tool, ToolResult, make_client

HTML = httpx2.Response(200, headers={"content-type": "text/html"}, content=b"<html>proxy</html>")


# --- replies and log events -------------------------------------------------------------


def tool_call_reply(*uses: tuple[str, str, dict[str, Any]]) -> httpx2.Response:
    return message(*(tool_use(i, name, args) for i, name, args in uses), stop_reason="tool_use")


def failures(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in logs if e.get("log_level") in {"warning", "error", "critical"}]


# --- every tool_use answered, whatever happened ------------------------------------------------


async def test_twelve_parallel_tool_uses_all_fail_plainly_and_in_order(
    connect: Connector, services: SimulatedServices
) -> None:
    """Twelve calls, every kind of failure: twelve tool_results, same order, all plain."""
    services.fail_always("open-meteo-geocoding", Fault.status(503))
    services.fail_always("wttr", Fault.html())
    uses = [
        *(
            (f"tu_w{i}", "get_weather", {"city": c})
            for i, c in enumerate(["Paris", "Lima", "Oslo"])
        ),
        ("tu_c1", "calculate", {"expression": "1/0"}),
        ("tu_c2", "calculate", {"expression": "import os"}),
        ("tu_c3", "calculate", {"expression": "2+2", "extra": 1}),
        ("tu_i1", "get_weather", {"city": 12345}),
        ("tu_i2", "get_weather", {}),
        ("tu_i3", "get_weather", {"city": "\x00\x01"}),
        ("tu_u1", "get_stock_price", {"ticker": "X"}),
        ("tu_u2", "", {}),
        ("tu_c4", "calculate", {"expression": "6*7"}),
    ]
    fake = FakeClaude(tool_call_reply(*uses), message(text_block("Done.")))
    answer = await (await connect(fake)).ask("Lots of things?")
    sent = fake.bodies[1]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in sent] == [u[0] for u in uses]
    assert answer.text == "Done."
    for block in sent:
        assert_plain(json.dumps(block["content"]))
    for block in error_results(fake):
        assert_error_sentence(block["content"])
    check_every_request(fake)


async def test_duplicated_tool_use_ids_are_kept_once_and_refused(connect: Connector) -> None:
    """Two blocks that share an id: the API wants ids unique and one tool_result per id, so
    the history keeps the first block alone, answered by one refusal; neither call runs."""
    fake = FakeClaude(
        tool_call_reply(
            ("tu_dup", "calculate", {"expression": "1+1"}),
            ("tu_dup", "calculate", {"expression": "2+2"}),
        ),
        message(text_block("I could not run those.")),
    )
    await (await connect(fake)).ask("sums?")
    asked, answered = fake.bodies[1]["messages"][-2:]
    assert [b["id"] for b in asked["content"] if b["type"] == "tool_use"] == ["tu_dup"]
    [result] = answered["content"]
    assert (result["tool_use_id"], result["is_error"]) == ("tu_dup", True)
    assert_error_sentence(result["content"])
    check_every_request(fake)


async def test_a_secret_in_the_models_tool_input_is_not_echoed_back(connect: Connector) -> None:
    """A key pasted into a city or an expression never comes back in the error sentence."""
    fake = FakeClaude(
        tool_call_reply(
            ("tu_1", "get_weather", {"city": API_KEY}),
            ("tu_2", "calculate", {"expression": f"{API_KEY} + 1"}),
            ("tu_3", "get_weather", {"city": f"Error 503 https://x.test/?key={API_KEY}"}),
        ),
        message(text_block("ok")),
    )
    await (await connect(fake)).ask("?")
    results = fake.bodies[1]["messages"][-1]["content"]
    assert len(results) == 3
    for block in results:
        assert_error_sentence(block["content"])


async def test_a_crashing_tool_is_answered_plainly_and_logged_once(connect: Connector) -> None:
    """A tool that raises: an is_error sentence with no exception text, one logged failure."""
    fake = FakeClaude(
        tool_call_reply(("tu_b", "calculate", {"expression": "boom"})), message(text_block("ok"))
    )
    with capture_logs() as logs:
        await (await connect(fake, tools=registry())).ask("boom?")
    [result] = error_results(fake)
    assert_error_sentence(result["content"])
    [crash] = [e for e in logs if e["event"] == "tool.crashed"]
    assert crash["developer_note"]
    assert SECRET not in crash["developer_note"]


async def test_a_crashing_tools_traceback_in_the_log_file_is_redacted(connect: Connector) -> None:
    """The JSON log of a crashing tool never holds the secret from its exception."""
    file = io.StringIO()
    configure_logging(log_file=file)
    fake = FakeClaude(
        tool_call_reply(("tu_b", "calculate", {"expression": "boom"})), message(text_block("ok"))
    )
    await (await connect(fake, tools=registry())).ask("boom?")
    assert "tool.crashed" in file.getvalue()
    assert SECRET not in file.getvalue()


async def test_a_tool_whose_upstreams_hang_ends_by_its_deadline(
    connect: Connector, services: SimulatedServices, fake_sleep: Any
) -> None:
    """Every weather source hangs: the call is cut at its deadline and still answered."""
    for source in ("open-meteo-geocoding", "wttr"):
        services.fail_always(source, Fault.hang())
    policy = Policy(deadline_s=0.3, attempt_timeout_s=0.1, sleep=fake_sleep)
    fake = FakeClaude(
        tool_call_reply(("tu_h", "get_weather", {"city": "Paris"})), message(text_block("n/a"))
    )
    async with asyncio.timeout(5):  # a hang guard: without the deadline, the turn never ends
        answer = await (await connect(fake, policy=policy)).ask("Paris?")
    weather = [a.outcome for a in answer.attempts if a.caller == "get_weather"]
    assert weather  # each source was tried, and each attempt was cut, not answered
    assert set(weather) <= {"timeout", "deadline_exceeded"}
    [result] = fake.bodies[1]["messages"][-1]["content"]
    assert result["tool_use_id"] == "tu_h"
    assert_plain(result["content"])
    assert answer.answered is True


def _streamed_tool_use_cut_by_max_tokens() -> httpx2.Response:
    start = {"type": "tool_use", "id": "tu_cut", "name": "get_weather", "input": {}}
    delta = {"type": "input_json_delta", "partial_json": '{"ci'}
    events = [
        *start_events("Let me check."),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 1, "content_block": start},
        ),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": delta}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "max_tokens", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=sse_bytes(events)
    )


async def test_a_tool_use_cut_mid_stream_by_max_tokens_is_closed(
    connect: Connector, services: SimulatedServices
) -> None:
    """A half-streamed tool_use is not run, and the next question's history answers it."""
    fake = FakeClaude(_streamed_tool_use_cut_by_max_tokens(), stream("Hello again."))
    agent, conversation = await connect(fake), Conversation()
    await agent.ask("Paris?", conversation, on_text=lambda _: None)
    await agent.ask("And now?", conversation, on_text=lambda _: None)
    assert not any(services.calls.values())
    check_every_request(fake)


async def test_a_tool_use_inside_a_paused_turn_is_answered(connect: Connector) -> None:
    """pause_turn with a tool_use block: later requests still answer that tool_use."""
    fake = FakeClaude(
        message(
            text_block("Looking."),
            tool_use("tu_p", "get_weather", {"city": "Paris"}),
            stop_reason="pause_turn",
        ),
        message(text_block("Paris is mild.")),
        message(text_block("Yes.")),
    )
    agent, conversation = await connect(fake), Conversation()
    await agent.ask("Paris?", conversation)
    await agent.ask("Sure?", conversation)
    check_answered(fake.bodies[-1]["messages"])


async def test_a_refusal_after_a_tool_round_leaves_a_valid_history(connect: Connector) -> None:
    """A refusal in the second round drops the turn; the next request is valid."""
    details = {"type": "refusal", "category": "cyber", "explanation": "Not that."}
    fake = FakeClaude(
        tool_call_reply(("tu_1", "get_weather", {"city": "Paris"})),
        message(stop_reason="refusal", stop_details=details),
        message(text_block("Hi.")),
    )
    agent, conversation = await connect(fake), Conversation()
    refused = await agent.ask("Paris, then something bad", conversation)
    await agent.ask("hello", conversation)
    assert refused.text == "Not that."
    check_every_request(fake)


async def test_cancelling_parallel_tools_leaves_a_valid_history(connect: Connector) -> None:
    """Ctrl-C while three tools run: the turn is rolled back, the next request is valid."""

    running: list[int] = []
    all_running = asyncio.Event()

    class In(BaseModel):
        n: int

    async def hang(args: In) -> ToolResult:
        running.append(args.n)
        if len(running) == 3:
            all_running.set()
        await asyncio.Event().wait()
        return ToolResult("never")

    tools = registry([Tool("hang", "hangs", In, hang, "hanging")])
    fake = FakeClaude(
        tool_call_reply(*((f"tu_{n}", "hang", {"n": n}) for n in range(3))),
        message(text_block("Back.")),
    )
    agent, conversation = await connect(fake, tools=tools), Conversation()
    task = asyncio.ensure_future(agent.ask("hang?", conversation))
    async with asyncio.timeout(2):
        await all_running.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    answer = await agent.ask("still there?", conversation)
    assert answer.text == "Back."
    assert fake.bodies[-1]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "still there?"}]}
    ]


async def test_a_model_failure_mid_turn_gives_no_answer_and_a_valid_history(
    connect: Connector,
) -> None:
    """Tools ran, then Claude refuses the key: no answer, and the next turn starts clean."""
    fake = FakeClaude(
        tool_call_reply(("tu_1", "get_weather", {"city": "Paris"})),
        error(401, "authentication_error", f"invalid x-api-key {API_KEY}"),
        message(text_block("Hi.")),
    )
    agent, conversation = await connect(fake), Conversation()
    failed = await agent.ask("Paris?", conversation)
    await agent.ask("hello", conversation)
    assert failed.answered is False
    assert_plain(failed.text)
    assert len(fake.bodies[-1]["messages"]) == 1
    check_every_request(fake)


# --- bounded turns ------------------------------------------------------------------------------


def _alternating(*cities: str) -> Callable[[httpx2.Request], httpx2.Response]:
    counter = itertools.count()

    def reply(request: httpx2.Request) -> httpx2.Response:
        n = next(counter)
        city = cities[n % len(cities)]
        return tool_call_reply((f"tu_{n}", "get_weather", {"city": city}))

    return reply


async def test_a_model_alternating_two_failing_calls_is_bounded(
    connect: Connector, services: SimulatedServices
) -> None:
    """Atlantis, Narnia, Atlantis…: stopped by the repeat bound well before max_rounds."""
    fake = FakeClaude(_alternating("Atlantis", "Narnia"), repeat_last=True)
    agent = await connect(fake, limits=Limits(max_rounds=30, max_repeats=2))
    answer = await agent.ask("Atlantis or Narnia?")
    assert len(fake.requests) <= 6
    assert fake.bodies[-1]["tool_choice"] == {"type": "none"}
    assert answer.text == GAVE_UP
    assert len(services.calls["open-meteo-geocoding"]) <= 2 * 2  # each ran once (plus a retry)
    check_every_request(fake)


async def test_a_model_that_never_stops_calling_tools_is_bounded(connect: Connector) -> None:
    """New successful calls forever: max_rounds model calls, then one with tools off."""
    counter = itertools.count()

    def reply(request: httpx2.Request) -> httpx2.Response:
        n = next(counter)
        return tool_call_reply((f"tu_{n}", "calculate", {"expression": f"{n}+1"}))

    fake = FakeClaude(reply, repeat_last=True)
    answer = await (await connect(fake, limits=Limits(max_rounds=4))).ask("count?")
    assert len(fake.requests) == 5
    assert fake.bodies[-1]["tool_choice"] == {"type": "none"}
    assert answer.answered is True
    check_every_request(fake)


async def test_a_model_that_pauses_forever_is_bounded(connect: Connector) -> None:
    """pause_turn on every call: the turn still ends after max_rounds plus one call."""
    fake = FakeClaude(message(text_block("…"), stop_reason="pause_turn"), repeat_last=True)
    answer = await (await connect(fake, limits=Limits(max_rounds=3))).ask("slow?")
    assert len(fake.requests) == 4
    assert answer.answered is True


async def test_ten_identical_failing_calls_in_one_response_are_bounded(
    connect: Connector,
) -> None:
    """Ten parallel Atlantis calls: ten results, then the turn wraps up at once."""
    uses = [(f"tu_{n}", "get_weather", {"city": "Atlantis"}) for n in range(10)]
    fake = FakeClaude(tool_call_reply(*uses), repeat_last=True)
    answer = await (await connect(fake, limits=Limits(max_rounds=10))).ask("Atlantis?")
    assert len(fake.bodies[1]["messages"][-1]["content"]) >= 10
    assert len(fake.requests) == 2
    assert answer.text == GAVE_UP
    check_every_request(fake)


async def test_every_warning_of_a_bounded_turn_carries_a_developer_note(connect: Connector) -> None:
    """A turn stopped by the repeat bound: each warning event has a developer_note."""
    fake = FakeClaude(tool_call_reply(("tu_x", "get_weather", {"city": "Atlantis"})))
    fake.repeat_last = True
    with capture_logs() as logs:
        await (await connect(fake, limits=Limits(max_rounds=8, max_repeats=2))).ask("?")
    assert failures(logs)
    assert [e["event"] for e in failures(logs) if not e.get("developer_note")] == []


async def test_parallel_failures_are_logged_with_their_own_tool_use_id(connect: Connector) -> None:
    """Three failing calls at once: each failure event carries the id of its own call."""
    capture = LogCapture()
    structlog.configure(processors=[structlog.contextvars.merge_contextvars, capture])
    uses = [
        ("tu_a", "get_weather", {"city": 1}),
        ("tu_b", "calculate", {"expression": "1/0"}),
        ("tu_c", "nope", {}),
    ]
    fake = FakeClaude(tool_call_reply(*uses), message(text_block("ok")))
    await (await connect(fake)).ask("three?")
    failed = failures(capture.entries)
    assert sorted(e.get("tool_use_id") for e in failed) == ["tu_a", "tu_b", "tu_c"]
    assert all(e["developer_note"] for e in failed)


# --- model API failures -----------------------------------------------------------------------


async def test_a_huge_retry_after_is_not_slept_and_ends_without_an_answer(
    connect: Connector, sleeps: list[float]
) -> None:
    """429 with Retry-After: 3600 gives one request, no sleep, one plain sentence."""
    fake = FakeClaude(error(429, "rate_limit_error", headers={"retry-after": "3600"}))
    with capture_logs() as logs:
        answer = await (await connect(fake)).ask("hi")
    assert (answer.answered, len(fake.requests), sleeps) == (False, 1, [])
    assert_plain(answer.text)
    failed, gave_up = failures(logs)
    assert (failed["event"], gave_up["event"]) == ("model.attempt_failed", "model.call_failed")
    assert failed["developer_note"]


async def test_a_zero_retry_after_does_not_hot_loop(
    connect: Connector, sleeps: list[float]
) -> None:
    """529 with Retry-After: 0 waits a little before the retry, never zero."""
    fake = FakeClaude(
        error(529, "overloaded_error", headers={"retry-after": "0"}), message(text_block("ok"))
    )
    answer = await (await connect(fake)).ask("hi")
    assert answer.text == "ok"
    assert len(sleeps) == 1
    assert sleeps[0] > 0


async def test_overloaded_forever_logs_each_failed_attempt_once(connect: Connector) -> None:
    """529 on every attempt: three requests, three failure events, each with a note, then
    one event for the call that got no answer."""
    fake = FakeClaude(error(529, "overloaded_error"), repeat_last=True)
    with capture_logs() as logs:
        answer = await (await connect(fake)).ask("hi")
    assert (answer.answered, len(fake.requests)) == (False, 3)
    assert [e["event"] for e in failures(logs)] == [
        "model.attempt_failed",
        "model.attempt_failed",
        "model.attempt_failed",
        "model.call_failed",
    ]
    assert all(e["developer_note"] for e in failures(logs)[:3])
    assert_plain(answer.text)


async def test_connection_refused_is_retried_once_then_one_sentence(connect: Connector) -> None:
    """The API refuses connections: two requests, then an unanswered plain sentence."""

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)

    fake = FakeClaude(refuse, repeat_last=True)
    answer = await (await connect(fake)).ask("hi")
    assert (answer.answered, len(fake.requests)) == (False, 2)
    assert_plain(answer.text)
    assert "refused" not in answer.text


async def test_a_mid_stream_overload_that_persists_gives_no_answer(connect: Connector) -> None:
    """overloaded_error inside every stream: bounded retries, one plain sentence."""
    fake = FakeClaude(stream_error("Let me"), repeat_last=True)
    answer = await (await connect(fake)).ask("hi", on_text=lambda _: None)
    assert (answer.answered, len(fake.requests)) == (False, 3)
    assert_plain(answer.text)


async def test_a_malformed_json_body_is_retried_once(connect: Connector) -> None:
    """200 labelled JSON that is not JSON: retried once, then no answer."""
    broken = httpx2.Response(200, headers={"content-type": "application/json"}, content=b"{nope")
    fake = FakeClaude(broken, repeat_last=True)
    answer = await (await connect(fake)).ask("hi")
    assert (answer.answered, len(fake.requests)) == (False, 2)
    assert_plain(answer.text)


async def _ask_safely(agent: Agent, **kwargs: Any) -> Answer | BaseException:
    try:
        return await agent.ask("hi", **kwargs)
    except Exception as exc:  # what the defect looks like: the turn raises
        return exc


async def test_a_200_html_answer_is_a_model_failure_not_a_crash(connect: Connector) -> None:
    """200 text/html from the API: retried once, then no answer, logged as bad data."""
    fake = FakeClaude(HTML, repeat_last=True)
    with capture_logs() as logs:
        answer = await _ask_safely(await connect(fake))
    assert isinstance(answer, Answer)
    assert (answer.answered, len(fake.requests)) == (False, 2)
    [failed] = [e for e in logs if e["event"] == "model.call_failed"]
    assert failed["error_type"] == "bad_data"


async def test_a_200_json_of_the_wrong_shape_is_a_model_failure_not_a_crash(
    connect: Connector,
) -> None:
    """200 JSON that is not a message: retried once, then no answer, not an exception."""
    fake = FakeClaude(httpx2.Response(200, json={"unexpected": True}), repeat_last=True)
    answer = await _ask_safely(await connect(fake))
    assert isinstance(answer, Answer)
    assert (answer.answered, len(fake.requests)) == (False, 2)


async def test_a_streamed_200_html_answer_is_bad_data_not_an_app_bug(connect: Connector) -> None:
    """The REPL's streaming path gets HTML: retried once and blamed on the service."""
    fake = FakeClaude(HTML, repeat_last=True)
    with capture_logs() as logs:
        answer = await (await connect(fake)).ask("hi", on_text=lambda _: None)
    assert answer.answered is False
    [failed] = [e for e in logs if e["event"] == "model.call_failed"]
    assert failed["error_type"] == "bad_data"
    assert len(fake.requests) == 2


async def test_a_stream_cut_before_its_end_is_not_a_finished_answer(connect: Connector) -> None:
    """The connection drops mid-answer: retried, not shown as the whole answer."""
    cut = httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=sse_bytes(start_events("Paris"))
    )
    fake = FakeClaude(cut, stream("Paris is 8.8°C."))
    answer = await (await connect(fake)).ask("Paris?", on_text=lambda _: None)
    assert answer.text == "Paris is 8.8°C."
    assert len(fake.requests) == 2


# --- the command line -----------------------------------------------------------------------


def cli(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, env=env or {}, stdout=out, stderr=err, read=lambda _: "")
    return code, out.getvalue(), err.getvalue()


def online(tmp_path: Path) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": CLAUDE_BASE,
        "AGENT_LOG_FILE": str(tmp_path / "agent.jsonl"),
    }


def as_httpx(response: httpx2.Response) -> httpx.Response:
    return httpx.Response(response.status_code, headers=response.headers, content=response.content)


def assert_one_sentence(err: str) -> None:
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert API_KEY not in err
    assert not re.search(r"\b[45]\d\d\b", err)


def test_ask_with_a_huge_retry_after_exits_1_with_one_sentence(
    httpx2_mock: Any, tmp_path: Path
) -> None:
    """429 asking for an hour: exit 1 at once, stdout empty, one plain line on stderr."""
    reply = error(429, "rate_limit_error", headers={"retry-after": "3600"})
    httpx2_mock.post(CLAUDE_URL).mock(return_value=as_httpx(reply))
    code, out, err = cli(["ask", "hi"], online(tmp_path))
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert_one_sentence(err)


def test_ask_with_an_html_answer_exits_1_with_one_sentence(
    httpx2_mock: Any, tmp_path: Path
) -> None:
    """200 text/html from the API: exit 1, one plain line, no traceback."""
    httpx2_mock.post(CLAUDE_URL).mock(return_value=as_httpx(HTML))
    code, out, err = cli(["ask", "hi"], online(tmp_path))
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert_one_sentence(err)


def test_verbose_stderr_and_log_file_never_show_the_key(httpx2_mock: Any, tmp_path: Path) -> None:
    """A 401 body echoing the key and a bearer header: masked on stderr and in the file."""
    echo = f"invalid x-api-key {API_KEY}; Authorization: Bearer {API_KEY}"
    reply = error(401, "authentication_error", echo)
    httpx2_mock.post(CLAUDE_URL).mock(return_value=as_httpx(reply))
    code, out, err = cli(["ask", "--verbose", "hi"], online(tmp_path))
    log = (tmp_path / "agent.jsonl").read_text()
    assert code == EXIT_NO_ANSWER
    assert "model.call_failed" in err
    assert "model.call_failed" in log
    assert API_KEY not in out + err + log
    assert "TESTSECRET" not in out + err + log


@pytest.mark.parametrize(
    "argv",
    [["ask", ""], ["ask", "\t\n "], ["ask", "--nope", "hi"], ["ask", "--model"], ["chat", "x"]],
)
def test_more_usage_errors_exit_2(argv: list[str]) -> None:
    """Empty questions, unknown options, a missing option value: exit 2, nothing on stdout."""
    code, out, err = cli(argv)
    assert (code, out) == (EXIT_USAGE, "")
    assert err
    assert "Traceback" not in err


def test_a_malformed_anthropic_base_url_is_a_usage_error(tmp_path: Path) -> None:
    """ANTHROPIC_BASE_URL that is not an http(s) CLAUDE_URL: exit 2 with one line, like WTTR_URL."""
    env = {**online(tmp_path), "ANTHROPIC_BASE_URL": "ftp://claude.test"}
    code, out, err = cli(["ask", "hi"], env)
    assert (code, out) == (EXIT_USAGE, "")
    assert_one_sentence(err)


def test_ask_exits_0_only_with_an_answer_on_stdout(httpx2_mock: Any, tmp_path: Path) -> None:
    """The model ends its turn with no content at all: not an exit-0 answer."""
    httpx2_mock.post(CLAUDE_URL).mock(return_value=httpx.Response(200, json=message_body()))
    code, out, _ = cli(["ask", "hi"], online(tmp_path))
    assert code == EXIT_NO_ANSWER or (code == EXIT_OK and out.strip())


# --- the REPL's history across failures --------------------------------------------------------


def chat(fake: FakeClaude, lines: list[str]) -> str:
    """A whole REPL session on Claude over `fake`; returns what was written."""
    written: list[str] = []
    screen = Screen(written.append)

    async def no_sleep(_: float) -> None:
        return None

    async def open_repl() -> Repl:
        backend = ClaudeModel(api_key=API_KEY, base_url=CLAUDE_BASE, transport=fake.transport())
        agent = await open_agent(
            ONLINE,
            http=make_client(transport=SimulatedServices().transport),
            backend=backend,
            policy=Policy(sleep=no_sleep),
        )
        return Repl(agent, screen)

    pending = list(lines)

    def read(_: str) -> str:
        if not pending:
            raise EOFError
        return pending.pop(0)

    run_repl(open_repl, read)
    return "".join(written)


def test_the_turn_after_a_failed_turn_sends_a_valid_history() -> None:
    """Tools ran, then Claude stayed overloaded: the next turn's request is clean and valid."""
    fake = FakeClaude(
        stream("Hi."),
        stream_tool_use("Checking.", "tu_1", "get_weather", {"city": "Paris"}),
        *(error(529, "overloaded_error") for _ in range(3)),
        stream("Still here."),
    )
    out = chat(fake, ["hello", "Paris?", "again"])
    assert "Still here." in out
    assert [m["role"] for m in fake.bodies[-1]["messages"]] == ["user", "assistant", "user"]
    check_every_request(fake)


def test_the_turn_after_a_bounded_turn_sends_a_valid_history() -> None:
    """A turn cut by the repeat bound leaves no unanswered tool_use for the next turn."""
    atlantis = stream_tool_use("", "tu_x", "get_weather", {"city": "Atlantis"})
    fake = FakeClaude(*(atlantis for _ in range(4)), stream("Fine."))
    out = chat(fake, ["Atlantis?", "ok then"])
    assert "Fine." in out
    check_every_request(fake)
