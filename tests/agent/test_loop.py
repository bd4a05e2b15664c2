"""The tool_use loop against a scripted model and small tools."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
from pydantic import BaseModel
from structlog.testing import capture_logs

from agent.conversation import Conversation
from agent.loop import Answer, Limits, Turn
from agent.models import ModelCaller, Text, ToolCall
from agent.records import CONTEXT_FULL, CUT_SHORT, GAVE_UP, OUT_OF_ROUNDS, REFUSED, WRAP_UP
from offline import api_error
from tests.agent.helpers import (
    SECRET,
    ScriptedModel,
    assert_error_sentence,
    calls,
    model_policy_on,
    registry,
    reply,
    text,
    user_blocks,
)
from tools import Registry, Tool, ToolResult


async def run(
    model: ScriptedModel,
    question: str = "q?",
    *,
    conversation: Conversation | None = None,
    limits: Limits | None = None,
    tools: Any = None,
    sleep: Any = None,
) -> Answer:
    async def no_sleep(_: float) -> None:
        return None

    caller = ModelCaller(model, model_policy_on(sleep or no_sleep))
    turn = Turn(
        conversation if conversation is not None else Conversation(),
        caller=caller,
        registry=tools or registry(),
        limits=limits or Limits(),
    )
    return await turn.run(question)


def _tool_ids(message: Any) -> list[str]:
    return [b["id"] for b in message["content"] if b["type"] == "tool_use"]


def _result_ids(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]


async def test_every_tool_use_is_answered_in_the_next_user_message() -> None:
    """Three tool_use blocks get three tool_results, in order, in the very next user message."""
    model = ScriptedModel(
        calls(
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Lima"}),
            ("calculate", {"expression": "2+2"}),
        ),
        text("done"),
    )
    answer = await run(model)
    second = model.requests[1]
    assert _result_ids(user_blocks(second)) == _tool_ids(second.messages[-2])
    assert answer.text == "done"
    assert answer.model_calls == 2


async def test_tool_calls_of_one_response_run_concurrently() -> None:
    """Two slow calls overlap: both have started before either finishes."""
    started: list[str] = []
    both_started = asyncio.Event()

    class In(BaseModel):
        name: str

    async def slow(args: In) -> ToolResult:
        started.append(args.name)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), timeout=1)
        return ToolResult("ok")

    tools = registry([Tool("slow", "waits", In, slow, "waiting")])
    model = ScriptedModel(calls(("slow", {"name": "a"}), ("slow", {"name": "b"})), text("ok"))
    answer = await run(model, tools=tools)
    assert [r["content"] for r in answer.tool_results] == ["ok", "ok"]


async def test_a_failing_tool_sends_only_the_user_message_with_is_error() -> None:
    """A failure reaches the model as one plain sentence, flagged is_error, nothing raw."""
    model = ScriptedModel(calls(("get_weather", {"city": "Down"})), text("sorry"))
    answer = await run(model)
    [block] = answer.tool_results
    assert block["is_error"] is True
    assert "503" not in block["content"]
    assert SECRET not in block["content"]
    assert "http" not in block["content"].lower()


async def test_unknown_tool_is_answered_and_logged_once() -> None:
    """A tool the agent does not have gets a fix_input result and one tool.unknown event."""
    model = ScriptedModel(calls(("teleport", {"to": "Mars"})), text("ok"))
    with capture_logs() as logs:
        answer = await run(model)
    assert answer.tool_results[0]["is_error"] is True
    assert "get_weather" in answer.tool_results[0]["content"]
    unknown = [e for e in logs if e["event"] == "tool.unknown"]
    assert len(unknown) == 1
    assert unknown[0]["developer_note"]


async def test_invalid_input_never_reaches_the_tool() -> None:
    """Input that fails validation becomes a fix_input result naming the field."""
    model = ScriptedModel(calls(("get_weather", {"city": 42})), text("ok"))
    with capture_logs() as logs:
        answer = await run(model)
    assert answer.tool_results[0]["is_error"] is True
    assert "city" in answer.tool_results[0]["content"]
    assert [e["event"] for e in logs].count("tool.input_invalid") == 1


async def test_a_crashing_tool_is_an_error_result_without_its_text() -> None:
    """A bug inside a tool is reported to the model in plain words, never the exception."""
    model = ScriptedModel(calls(("calculate", {"expression": "boom"})), text("ok"))
    answer = await run(model)
    content = answer.tool_results[0]["content"]
    assert "RuntimeError" not in content
    assert SECRET not in content


async def test_the_same_failing_call_is_not_run_again() -> None:
    """A repeat of a failed call is answered without running it, telling the model to stop."""
    model = ScriptedModel(
        calls(("get_weather", {"city": "Down"})),
        calls(("get_weather", {"city": "Down"})),
        text("I could not get it."),
    )
    with capture_logs() as logs:
        answer = await run(model)
    repeat = answer.tool_results[1]
    assert repeat["is_error"] is True
    assert "do not repeat" in repeat["content"]
    assert_error_sentence(repeat["content"])
    [event] = [e for e in logs if e["event"] == "agent.repeated_call"]
    assert (event["error_type"], event["action"], event["retryable"]) == (
        "repeated_call",
        "fix_input",
        False,
    )
    assert event["developer_note"]
    assert len([a for a in answer.attempts if a.caller == "get_weather"]) == 1


async def test_a_model_that_repeats_a_failing_call_forever_is_stopped() -> None:
    """Past the repeat bound, the model is asked once more with tools off, then the turn ends."""
    model = ScriptedModel(calls(("get_weather", {"city": "Down"})), repeat_last=True)
    answer = await run(model, limits=Limits(max_rounds=10, max_repeats=2))
    assert answer.answered is True
    assert answer.text == GAVE_UP
    assert answer.model_calls == 4
    assert model.requests[-1].tool_choice == {"type": "none"}
    assert WRAP_UP in json.dumps(model.requests[-1].messages[-1])


async def test_rounds_are_bounded_even_when_every_call_succeeds() -> None:
    """A model that never stops calling tools is cut off after max_rounds plus a final call."""
    model = ScriptedModel(calls(("calculate", {"expression": "1+1"})), repeat_last=True)
    answer = await run(model, limits=Limits(max_rounds=3))
    assert answer.model_calls == 4
    assert answer.answered is True


async def test_out_of_rounds_with_every_call_succeeding_does_not_blame_the_tools() -> None:
    """Every round succeeded, the model just never stopped: the wrap-up says the question took
    too many steps, not that the tools kept failing; with a failure in the turn, it does."""
    model = ScriptedModel(calls(("calculate", {"expression": "1+1"})), repeat_last=True)
    with capture_logs() as logs:
        answer = await run(model, limits=Limits(max_rounds=3))
    assert answer.text == OUT_OF_ROUNDS
    assert "kept failing" not in answer.text
    [bounded] = [e for e in logs if e["event"] == "agent.turn_bounded"]
    assert "every tool call succeeded" in bounded["developer_note"]
    down = ScriptedModel(
        calls(("get_weather", {"city": "Down"})),
        calls(("calculate", {"expression": "1+1"})),
        repeat_last=True,
    )
    assert (await run(down, limits=Limits(max_rounds=3))).text == GAVE_UP


async def test_calls_refused_unrun_are_not_failures_in_the_wrap_up() -> None:
    """Ten calls a round (eight run, two refused by the per-reply cap), all that ran
    succeeded: out of rounds, not "the tools kept failing"."""
    ten = calls(*[("calculate", {"expression": f"{n}+1"}) for n in range(10)])
    answer = await run(ScriptedModel(ten, repeat_last=True), limits=Limits(max_rounds=2))
    assert answer.text == OUT_OF_ROUNDS


async def test_the_final_call_with_tools_off_gives_the_answer() -> None:
    """When the wrap-up call answers in text, that text is the answer."""
    model = ScriptedModel(
        calls(("calculate", {"expression": "1+1"})),
        text("It is 2."),
    )
    answer = await run(model, limits=Limits(max_rounds=1))
    assert answer.text == "It is 2."
    assert model.requests[-1].tool_choice == {"type": "none"}


async def test_history_stays_valid_after_a_bounded_turn() -> None:
    """Unrun tool calls left by a bounded turn are closed before the next question."""
    conversation = Conversation()
    model = ScriptedModel(calls(("get_weather", {"city": "Down"})), repeat_last=True)
    await run(model, conversation=conversation, limits=Limits(max_rounds=10, max_repeats=1))
    messages = conversation.messages
    for current, following in itertools.pairwise(messages):
        if current["role"] == "assistant" and _tool_ids(current):
            assert _result_ids(list(following["content"])) == _tool_ids(current)  # type: ignore[arg-type]
    assert messages[-1]["role"] == "assistant"


@pytest.mark.parametrize("stop_reason", ["end_turn", "stop_sequence"])
async def test_a_finished_answer_is_returned_as_is(stop_reason: str) -> None:
    """end_turn and stop_sequence end the turn with the model's text."""
    answer = await run(ScriptedModel(text("Hello there.", stop_reason)))
    assert (answer.text, answer.stop_reason) == ("Hello there.", stop_reason)


async def test_max_tokens_says_the_answer_was_cut_short() -> None:
    """A truncated answer is passed on with a note that it was cut short."""
    answer = await run(ScriptedModel(text("The weather in Par", "max_tokens")))
    assert answer.text.startswith("The weather in Par")
    assert answer.text.endswith(CUT_SHORT)


async def test_max_tokens_inside_a_tool_call_leaves_a_valid_history() -> None:
    """A tool_use cut off by max_tokens is not run, and is closed with a tool_result."""
    conversation = Conversation()
    message = calls(("get_weather", {"city": "Par"}), stop_reason="max_tokens")
    answer = await run(ScriptedModel(message), conversation=conversation)
    assert CUT_SHORT in answer.text
    assert conversation.messages[-2]["content"][0]["type"] == "tool_result"  # type: ignore[index]
    assert [a.caller for a in answer.attempts] == ["model"]


async def test_an_unrun_tool_call_is_closed_with_one_sentence_and_logged_once() -> None:
    """The closing tool_result is one plain sentence; agent.tool_not_run carries its note."""
    conversation = Conversation()
    message = calls(("get_weather", {"city": "Par"}), stop_reason="max_tokens")
    with capture_logs() as logs:
        await run(ScriptedModel(message), conversation=conversation)
    closing: dict[str, Any]
    [closing] = conversation.messages[-2]["content"]  # type: ignore[assignment,misc]
    assert closing["is_error"] is True
    assert_error_sentence(closing["content"])
    [event] = [e for e in logs if e["event"] == "agent.tool_not_run"]
    assert (event["tool_use_id"], event["error_type"]) == ("toolu_00", "tool_not_run")
    assert event["developer_note"]


async def test_pause_turn_sends_the_turn_back_as_it_is() -> None:
    """pause_turn: the paused content goes back as it is and its text begins the answer."""
    paused = reply([Text("Working…")], "pause_turn")
    model = ScriptedModel(paused, text("Finished."))
    answer = await run(model)
    assert answer.text == "Working…\n\nFinished."
    assert model.requests[1].messages[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Working…"}],
    }


async def test_refusal_is_passed_on_and_not_kept_in_history() -> None:
    """A refusal reaches the user; the refused exchange is dropped from the conversation."""
    conversation = Conversation()
    refusal = reply([], "refusal")
    answer = await run(ScriptedModel(refusal), conversation=conversation)
    assert answer.text == REFUSED
    assert answer.stop_reason == "refusal"
    assert len(conversation) == 0


async def test_context_window_exceeded_drops_earlier_turns_and_retries() -> None:
    """With earlier turns to drop, the model is asked again on the trimmed history."""
    conversation = Conversation()
    await run(ScriptedModel(text("first answer")), "first?", conversation=conversation)
    full = text("partial", "model_context_window_exceeded")
    model = ScriptedModel(full, text("second answer"))
    answer = await run(model, "second?", conversation=conversation)
    assert answer.text == "second answer"
    assert len(model.requests[1].messages) == 1


async def test_context_window_exceeded_with_nothing_to_drop_says_so() -> None:
    """With no earlier turn to drop, the partial answer comes with a plain note."""
    answer = await run(ScriptedModel(text("partial", "model_context_window_exceeded")))
    assert answer.text.endswith(CONTEXT_FULL)


async def test_an_unreachable_model_gives_one_sentence_and_no_answer() -> None:
    """A model that stays overloaded ends the turn unanswered, with a plain sentence."""
    model = ScriptedModel(*(api_error(529, "overloaded_error") for _ in range(3)))
    conversation = Conversation()
    answer = await run(model, conversation=conversation)
    assert answer.answered is False
    assert "529" not in answer.text
    assert "overloaded_error" not in answer.text
    assert len(conversation) == 0
    assert answer.model_calls == 1
    assert len(model.requests) == 3


async def test_a_transient_model_failure_costs_no_extra_turn() -> None:
    """One 529 then success: the turn answers and the timeline shows both attempts."""
    model = ScriptedModel(api_error(529, "overloaded_error"), text("fine"))
    answer = await run(model)
    assert answer.text == "fine"
    assert [a.outcome for a in answer.attempts] == ["overloaded", "ok"]


async def test_a_cancelled_turn_leaves_the_history_as_it_was() -> None:
    """Cancelling mid-turn rolls the conversation back to before the question."""
    conversation = Conversation()
    gate = asyncio.Event()

    class In(BaseModel):
        x: int

    async def hang(_: In) -> ToolResult:
        await gate.wait()
        return ToolResult("never")

    tools = registry([Tool("hang", "hangs", In, hang, "hanging")])
    task = asyncio.ensure_future(
        run(ScriptedModel(calls(("hang", {"x": 1}))), conversation=conversation, tools=tools)
    )
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(conversation) == 0


async def test_text_streams_to_on_text_and_notes_follow() -> None:
    """Streamed text goes to on_text; a cut-short note is streamed after it."""
    seen: list[str] = []
    caller = ModelCaller(ScriptedModel(text("Partial", "max_tokens")))
    turn = Turn(Conversation(), caller=caller, registry=registry(), on_text=seen.append)
    await turn.run("q")
    assert seen[0] == "Partial"
    assert CUT_SHORT in seen[-1]


async def test_the_timeline_records_tool_attempts() -> None:
    """Tool attempts reach the answer's timeline beside the model's."""
    model = ScriptedModel(calls(("get_weather", {"city": "Paris"})), text("ok"))
    answer = await run(model)
    assert [(a.caller, a.outcome) for a in answer.attempts] == [
        ("model", "ok"),
        ("get_weather", "ok"),
        ("model", "ok"),
    ]


@pytest.mark.parametrize(
    ("use", "outcome"),
    [
        (("teleport", {"to": "Mars"}), ("teleport", "invalid_input")),
        (("get_weather", {"city": 42}), ("get_weather", "invalid_input")),
        (("calculate", {"expression": "boom"}), ("calculate", "internal_error")),
    ],
    ids=["unknown tool", "invalid input", "crashed handler"],
)
async def test_a_registry_failure_is_one_registry_line(
    use: tuple[str, dict[str, Any]], outcome: tuple[str, str]
) -> None:
    """A call the registry settles shows exactly one "registry" attempt in the timeline."""
    answer = await run(ScriptedModel(calls(use), text("ok")))
    tools = [(a.caller, a.outcome) for a in answer.attempts if a.caller != "model"]
    assert tools == [outcome]
    assert [a.source for a in answer.attempts].count("registry") == 1


async def test_a_registry_that_raises_still_gets_one_registry_line() -> None:
    """Should dispatch itself raise, the call is still answered and shown once."""

    class Broken(Registry):
        async def dispatch(
            self, name: str, raw_input: object, *, timeout_s: float | None = None
        ) -> ToolResult:
            raise RuntimeError("registry bug")

    answer = await run(ScriptedModel(calls(("x", {})), text("ok")), tools=Broken([]))
    assert answer.tool_results[0]["is_error"] is True
    lines = [(a.caller, a.source, a.outcome) for a in answer.attempts if a.caller != "model"]
    assert lines == [("x", "registry", "internal_error")]


def test_blocks_built_for_tests_are_sdk_types() -> None:
    """The scripted responses are the SDK's own Message types."""
    message = calls(("get_weather", {"city": "Paris"}))
    assert isinstance(message.content[0], ToolCall)
