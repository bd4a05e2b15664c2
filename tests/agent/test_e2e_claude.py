"""End to end: the real anthropic SDK over HTTP (httpx2 MockTransport), the real tools over the
simulated services. What the model saw is read back from the request bodies."""

from __future__ import annotations

import json
from typing import Any

import httpx
import httpx2
from structlog.testing import capture_logs

from agent.app import open_agent
from agent.conversation import Conversation
from agent.loop import Limits
from agent.records import CUT_SHORT, GAVE_UP
from offline import Fault, SimulatedServices
from resilience import Policy
from tests.agent.fake_claude import (
    FakeClaude,
    error,
    message,
    stream,
    stream_error,
    stream_tool_use,
    text_block,
    tool_use,
)
from tests.agent.helpers import (
    API_KEY,
    ONLINE,
    SECRET,
    Connector,
    assert_error_sentence,
    assert_plain,
    check_every_request,
)


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a request's last message."""
    last = body["messages"][-1]
    assert last["role"] == "user"
    return [block for block in last["content"] if block["type"] == "tool_result"]


def assert_clean(fake: FakeClaude) -> None:
    """The key only in its header, and every is_error tool_result one plain sentence."""
    for request, body in zip(fake.requests, fake.bodies, strict=True):
        assert API_KEY not in request.content.decode()
        assert request.headers["authorization"] == f"Bearer {API_KEY}"
        for result in tool_results(body) if body["messages"][-1]["role"] == "user" else []:
            if result.get("is_error"):
                assert_error_sentence(result["content"])


async def test_parallel_tool_uses_are_all_answered(connect: Connector) -> None:
    """Two cities in one response: two tool_results in the next request, then the answer."""
    fake = FakeClaude(
        message(
            tool_use("tu_1", "get_weather", {"city": "Paris"}),
            tool_use("tu_2", "get_weather", {"city": "Tokyo"}),
            stop_reason="tool_use",
        ),
        message(text_block("Paris 8.8°C, Tokyo 17.5°C.")),
    )
    answer = await (await connect(fake)).ask("Weather in Paris and Tokyo?")
    results = tool_results(fake.bodies[1])
    assert [r["tool_use_id"] for r in results] == ["tu_1", "tu_2"]
    assert all(json.loads(r["content"])["temperature"].endswith("°C") for r in results)
    assert answer.text == "Paris 8.8°C, Tokyo 17.5°C."
    check_every_request(fake)
    assert_clean(fake)


async def test_the_request_carries_tools_system_and_no_sdk_retries(connect: Connector) -> None:
    """The model is offered both tools, the system prompt and the configured model id."""
    fake = FakeClaude(message(text_block("Hi.")))
    await (await connect(fake)).ask("hello")
    body = fake.bodies[0]
    assert {t["name"] for t in body["tools"]} == {"get_weather", "calculate"}
    assert body["model"] == "claude-sonnet-4-6"
    assert body["system"]
    assert len(fake.requests) == 1


async def test_unknown_tool_gets_a_plain_error_result(connect: Connector) -> None:
    """A made-up tool name is answered with is_error and the tools that exist."""
    fake = FakeClaude(
        message(tool_use("tu_1", "get_stock_price", {"ticker": "X"}), stop_reason="tool_use"),
        message(text_block("I can't do stocks.")),
    )
    with capture_logs() as logs:
        await (await connect(fake)).ask("price of X?")
    [result] = tool_results(fake.bodies[1])
    assert result["is_error"] is True
    assert "get_weather" in result["content"]
    assert [e["event"] for e in logs].count("tool.unknown") == 1
    assert_clean(fake)


async def test_invalid_input_is_answered_without_calling_upstream(
    connect: Connector, services: SimulatedServices
) -> None:
    """A wrong-typed city is a fix_input result; no weather service is called."""
    fake = FakeClaude(
        message(tool_use("tu_1", "get_weather", {"city": 12345}), stop_reason="tool_use"),
        message(text_block("Which city?")),
    )
    with capture_logs() as logs:
        await (await connect(fake)).ask("weather in 12345?")
    [result] = tool_results(fake.bodies[1])
    assert result["is_error"] is True
    assert "city" in result["content"]
    assert all(not calls for calls in services.calls.values())
    assert [e["event"] for e in logs].count("tool.input_invalid") == 1
    assert_clean(fake)


async def test_a_model_calling_the_same_failing_tool_forever_is_bounded(connect: Connector) -> None:
    """Atlantis again and again: told not to repeat, then a final call with tools off."""
    fake = FakeClaude(
        message(tool_use("tu_x", "get_weather", {"city": "Atlantis"}), stop_reason="tool_use"),
        repeat_last=True,
    )
    answer = await (await connect(fake, limits=Limits(max_rounds=8, max_repeats=2))).ask(
        "Atlantis?"
    )
    assert answer.answered is True
    assert answer.text == GAVE_UP
    assert len(fake.requests) == 4
    assert fake.bodies[-1]["tool_choice"] == {"type": "none"}
    assert "do not repeat" in tool_results(fake.bodies[2])[0]["content"]
    assert_clean(fake)


async def test_a_failing_service_reaches_the_model_as_one_sentence(
    connect: Connector, services: SimulatedServices
) -> None:
    """Both sources down: a degraded answer with no numbers, no status, no URL."""
    services.fail_always("open-meteo-geocoding", Fault.status(503))
    services.fail_always("wttr", Fault.status(500))
    fake = FakeClaude(
        message(tool_use("tu_1", "get_weather", {"city": "Paris"}), stop_reason="tool_use"),
        message(text_block("The weather service is down.")),
    )
    answer = await (await connect(fake)).ask("Paris?")
    [result] = tool_results(fake.bodies[1])
    assert json.loads(result["content"])["degraded"] is True
    assert_plain(result["content"])
    assert answer.answered is True


async def test_a_529_is_retried_inside_the_turn(connect: Connector, sleeps: list) -> None:
    """Overloaded once: retried after a backoff, one more HTTP request, same model call."""
    fake = FakeClaude(error(529, "overloaded_error"), message(text_block("ok")))
    answer = await (await connect(fake)).ask("hi")
    assert answer.text == "ok"
    assert answer.model_calls == 1
    assert len(fake.requests) == 2
    assert len(sleeps) == 1


async def test_a_429_waits_the_retry_after(connect: Connector, sleeps: list) -> None:
    """Rate limited with Retry-After: 2: waits two seconds, then succeeds."""
    fake = FakeClaude(
        error(429, "rate_limit_error", headers={"retry-after": "2"}), message(text_block("ok"))
    )
    answer = await (await connect(fake)).ask("hi")
    assert answer.text == "ok"
    assert sleeps == [2.0]


async def test_an_overloaded_model_that_stays_down_gives_no_answer(connect: Connector) -> None:
    """529 on every attempt: bounded retries, then one plain unanswered sentence."""
    fake = FakeClaude(error(529, "overloaded_error"), repeat_last=True)
    with capture_logs() as logs:
        answer = await (await connect(fake)).ask("hi")
    assert answer.answered is False
    assert len(fake.requests) == 3
    assert_plain(answer.text)
    [failed] = [e for e in logs if e["event"] == "model.call_failed"]
    assert failed["error_type"] == "overloaded"
    attempts = [e for e in logs if e["event"] == "model.attempt_failed"]
    assert len(attempts) == 3
    assert all(e["developer_note"] for e in attempts)


async def test_a_rejected_key_is_not_retried_and_says_how_to_fix_it(connect: Connector) -> None:
    """401: one request, and a sentence naming ANTHROPIC_API_KEY without the key."""
    fake = FakeClaude(error(401, "authentication_error", "invalid x-api-key"))
    answer = await (await connect(fake)).ask("hi")
    assert answer.answered is False
    assert len(fake.requests) == 1
    assert "ANTHROPIC_API_KEY" in answer.text
    assert API_KEY not in answer.text


async def test_a_mid_stream_overload_is_retried(connect: Connector, sleeps: list) -> None:
    """An `event: error` overloaded_error mid-stream: retried, and the streamed answer arrives."""
    seen: list[str] = []
    fake = FakeClaude(stream_error("Let me"), stream("All good."))
    answer = await (await connect(fake)).ask("hi", on_text=seen.append)
    assert answer.text == "All good."
    assert len(sleeps) == 1
    assert "".join(seen).endswith("All good.")
    assert all(body["stream"] is True for body in fake.bodies)


async def test_a_streamed_tool_use_runs_and_is_answered(connect: Connector) -> None:
    """Streaming (the REPL's path): text streams out, the tool runs, its result goes back."""
    seen: list[str] = []
    fake = FakeClaude(
        stream_tool_use("Checking.", "tu_s", "get_weather", {"city": "Paris"}),
        stream("Paris is mild."),
    )
    answer = await (await connect(fake)).ask("Paris?", on_text=seen.append)
    [result] = tool_results(fake.bodies[1])
    assert result["tool_use_id"] == "tu_s"
    assert fake.bodies[1]["messages"][1]["content"][1]["input"] == {"city": "Paris"}
    assert "".join(seen) == "Checking.Paris is mild."
    assert answer.text == "Paris is mild."
    check_every_request(fake)


async def test_refusal_is_passed_on(connect: Connector) -> None:
    """stop_reason refusal: the explanation reaches the user, the exchange is not kept."""
    details = {"type": "refusal", "category": "cyber", "explanation": "Not something I can do."}
    fake = FakeClaude(message(stop_reason="refusal", stop_details=details))
    conversation = Conversation()
    answer = await (await connect(fake)).ask("hack it", conversation)
    assert answer.text == "Not something I can do."
    assert len(conversation) == 0


async def test_max_tokens_says_the_answer_was_cut_short(connect: Connector) -> None:
    """stop_reason max_tokens: the partial text and a note."""
    fake = FakeClaude(message(text_block("Paris is"), stop_reason="max_tokens"))
    answer = await (await connect(fake)).ask("hi")
    assert answer.text == f"Paris is\n\n{CUT_SHORT}"


async def test_pause_turn_continues_with_the_paused_content(connect: Connector) -> None:
    """pause_turn: the paused content ends the next request; the answer has both replies."""
    fake = FakeClaude(
        message(text_block("Thinking"), stop_reason="pause_turn"), message(text_block("Done."))
    )
    answer = await (await connect(fake)).ask("hi")
    assert answer.text == "Thinking\n\nDone."
    assert fake.bodies[1]["messages"][-1] == {
        "role": "assistant",
        "content": [text_block("Thinking")],
    }


async def test_every_field_of_a_block_goes_back_as_it_came(connect: Connector) -> None:
    """Citations, unknown fields and shapes the SDK did not expect go back as they came."""
    citation = {
        "type": "web_search_result_location",
        "cited_text": "Paris is the capital of France.",
        "encrypted_index": "Eo8BCioIBxgC",
        "title": "Paris",
        "url": "https://example.org/paris",
    }
    cited = {"type": "text", "text": "Paris.", "citations": [citation], "x_later": {"kept": 1}}
    call = {**tool_use("toolu_1", "calculate", {"expression": "1+1"}), "caller": "direct"}
    fake = FakeClaude(message(cited, call, stop_reason="tool_use"), message(text_block("2")))
    await (await connect(fake)).ask("hi")
    assert fake.bodies[1]["messages"][1] == {"role": "assistant", "content": [cited, call]}


async def test_stop_sequence_and_end_turn_end_the_turn(connect: Connector) -> None:
    """stop_sequence ends the turn like end_turn."""
    fake = FakeClaude(message(text_block("Bye"), stop_reason="stop_sequence"))
    answer = await (await connect(fake)).ask("hi")
    assert (answer.text, answer.stop_reason) == ("Bye", "stop_sequence")


async def test_context_window_exceeded_trims_the_history(connect: Connector) -> None:
    """model_context_window_exceeded: earlier turns dropped, the question asked again."""
    fake = FakeClaude(
        message(text_block("first")),
        message(text_block("cut"), stop_reason="model_context_window_exceeded"),
        message(text_block("second")),
    )
    agent = await connect(fake)
    conversation = Conversation()
    await agent.ask("one", conversation)
    answer = await agent.ask("two", conversation)
    assert answer.text == "second"
    assert len(fake.bodies[2]["messages"]) == 1


async def test_history_carries_across_turns(connect: Connector) -> None:
    """A second question is sent with the first exchange before it."""
    fake = FakeClaude(message(text_block("It's 8.8°C.")), message(text_block("Yes.")))
    agent = await connect(fake)
    conversation = Conversation()
    await agent.ask("Paris?", conversation)
    await agent.ask("Cold?", conversation)
    assert [m["role"] for m in fake.bodies[1]["messages"]] == ["user", "assistant", "user"]


async def test_every_failure_is_logged_once_with_its_developer_note(connect: Connector) -> None:
    """Unknown city, unknown tool and a 500: each failure event carries a developer_note."""
    fake = FakeClaude(
        message(
            tool_use("tu_1", "get_weather", {"city": "Atlantis"}),
            tool_use("tu_2", "nope", {}),
            stop_reason="tool_use",
        ),
        error(500, "api_error"),
        message(text_block("ok")),
    )
    with capture_logs() as logs:
        await (await connect(fake)).ask("Atlantis?")
    failures = [e for e in logs if e.get("log_level") in {"warning", "error"}]
    assert failures
    assert all(e.get("developer_note") for e in failures)
    assert [e["event"] for e in failures].count("model.attempt_failed") == 1


async def test_online_tools_over_respx_leak_nothing_to_the_model(
    httpx2_mock: Any, respx_mock: Any, fake_sleep: Any
) -> None:
    """Real endpoints (respx) answering with secrets and URLs: the model sees none of it."""
    leak = f"upstream broke, see https://internal.example/debug?key={SECRET}"
    respx_mock.get(url__startswith="https://geocoding-api.open-meteo.com/").respond(503, text=leak)
    respx_mock.get(url__startswith="https://wttr.in/").respond(500, text=leak)
    claude = httpx2_mock.post("https://claude.test/v1/messages")
    fake = FakeClaude(
        message(tool_use("tu_1", "get_weather", {"city": "Paris"}), stop_reason="tool_use"),
        message(text_block("Weather is unavailable.")),
    )
    claude.mock(side_effect=lambda request: _as_httpx(fake(request)))
    agent = await open_agent(ONLINE, policy=Policy(sleep=fake_sleep))
    with capture_logs() as logs:
        answer = await agent.ask("Paris?")
    await agent.aclose()
    assert answer.answered is True
    sent = json.dumps(fake.bodies)
    assert SECRET not in sent
    assert "internal.example" not in sent
    assert SECRET not in str(logs)
    assert json.loads(tool_results(fake.bodies[1])[0]["content"])["degraded"] is True


def _as_httpx(response: httpx2.Response) -> httpx.Response:
    """respx (behind pytest-httpx2) serves httpx responses."""
    return httpx.Response(response.status_code, headers=response.headers, content=response.content)
