"""The conversation history."""

from __future__ import annotations

import pytest

from agent.conversation import CHARS_PER_TOKEN, Conversation
from agent.models import Text
from tests.agent.helpers import calls, check_history, reply, text


def test_a_question_then_an_answer_alternate_roles() -> None:
    """User and assistant messages alternate, content as blocks."""
    conversation = Conversation()
    conversation.add_user_text("hi")
    conversation.add_reply(text("hello"))
    assert [m["role"] for m in conversation.messages] == ["user", "assistant"]
    assert conversation.messages[1]["content"] == [{"type": "text", "text": "hello"}]


def test_assistant_tool_use_blocks_keep_only_the_fields_sent() -> None:
    """A tool_use block goes back exactly as id, name, input and type."""
    conversation = Conversation()
    conversation.add_reply(calls(("get_weather", {"city": "Paris"})))
    [block] = conversation.messages[0]["content"]  # type: ignore[misc]
    assert block == {
        "type": "tool_use",
        "id": "toolu_00",
        "name": "get_weather",
        "input": {"city": "Paris"},
    }


def test_text_after_tool_results_joins_the_same_user_message() -> None:
    """Two user additions in a row become one message, tool results first."""
    conversation = Conversation()
    conversation.add_tool_results([{"type": "tool_result", "tool_use_id": "t", "content": "x"}])
    conversation.add_user_text("now answer")
    [message] = conversation.messages
    assert [b["type"] for b in message["content"]] == ["tool_result", "text"]  # type: ignore[index, union-attr]


def test_a_turn_not_committed_is_rolled_back() -> None:
    """A turn scope left without `commit` drops everything the turn added."""
    conversation = Conversation()
    conversation.add_user_text("one")
    conversation.add_reply(text("1"))
    with conversation.turn():
        conversation.add_user_text("two")
        conversation.add_reply(text("2"))
    assert len(conversation) == 2


def test_a_committed_turn_is_kept() -> None:
    """A turn scope that commits keeps its messages."""
    conversation = Conversation()
    with conversation.turn() as turn:
        conversation.add_user_text("one")
        conversation.add_reply(text("1"))
        turn.commit()
    assert len(conversation) == 2


def test_a_turn_that_raises_is_rolled_back() -> None:
    """An exception (a cancelled turn) leaves the history as it was."""
    conversation = Conversation()

    def cancelled_turn() -> None:
        with conversation.turn():
            conversation.add_user_text("one")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cancelled_turn()
    assert len(conversation) == 0


def test_forget_earlier_keeps_the_current_turn() -> None:
    """Earlier turns are dropped; the current one stays, starting with its question."""
    conversation = Conversation()
    conversation.add_user_text("one")
    conversation.add_reply(text("1"))
    with conversation.turn() as turn:
        conversation.add_user_text("two")
        assert turn.forget_earlier() is True
        assert turn.forget_earlier() is False
        turn.commit()
    assert conversation.messages == [{"role": "user", "content": [{"type": "text", "text": "two"}]}]


def test_messages_is_a_copy() -> None:
    """Changing the returned list does not change the history."""
    conversation = Conversation()
    conversation.messages.append({"role": "user", "content": "x"})
    assert len(conversation) == 0


def test_no_empty_message_ever_enters_the_history() -> None:
    """An empty reply, blank text and no tool results add nothing (the API rejects them)."""
    conversation = Conversation()
    assert conversation.add_reply(reply([])) is False
    assert conversation.add_reply(text("   ")) is False
    assert conversation.add_assistant_text("") is False
    conversation.add_tool_results([])
    conversation.add_user_text(" \n")
    assert conversation.messages == []


def test_blank_text_blocks_are_dropped_from_a_reply() -> None:
    """A blank text block beside a tool_use is not sent back; the tool_use is."""
    conversation = Conversation()
    answer = reply(
        [Text(""), *calls(("calculate", {"expression": "1"})).content],
        "tool_use",
    )
    assert conversation.add_reply(answer) is True
    assert [b["type"] for b in conversation.messages[0]["content"]] == ["tool_use"]  # type: ignore[index]


# --- the token budget ----------------------------------------------------------------------


def _turns(conversation: Conversation, count: int, size: int = 400) -> None:
    """`count` committed turns, each a question, a tool call and its result, and an answer."""
    for n in range(count):
        with conversation.turn() as turn:
            conversation.add_user_text(f"question {n} " + "q" * size)
            conversation.add_reply(calls(("calculate", {"expression": f"{n}+1"})))
            conversation.add_tool_results(
                [{"type": "tool_result", "tool_use_id": "toolu_00", "content": "x" * size}]
            )
            conversation.add_reply(text(f"answer {n}"))
            turn.commit()


def test_within_budget_nothing_is_dropped() -> None:
    conversation = Conversation()
    _turns(conversation, 3)
    assert conversation.keep_within(10_000) == 0
    assert len(conversation) == 12


def test_over_budget_the_oldest_whole_turns_go_first() -> None:
    """The history starts with a question again, every tool_use still has its result."""
    conversation = Conversation()
    _turns(conversation, 10)
    budget = conversation.tokens() // 2
    dropped = conversation.keep_within(budget)
    assert dropped >= 5
    assert conversation.tokens() <= budget
    messages = conversation.messages
    assert len(messages) == 4 * (10 - dropped)
    assert messages[0]["content"][0]["text"].startswith(f"question {dropped} ")  # type: ignore[index]
    check_history([dict(m) for m in messages])  # type: ignore[arg-type]


def test_the_apis_own_count_is_used_when_larger() -> None:
    """usage.input_tokens above the estimate: the budget is checked against it."""
    conversation = Conversation()
    _turns(conversation, 2, size=10)
    conversation.note_usage(50_000)
    assert conversation.tokens() == 50_000
    assert conversation.keep_within(40_000) == 1  # then the count is stale: estimated again
    assert 0 < conversation.tokens() < 40_000
    assert len(conversation) == 4


def test_tool_definitions_and_the_system_prompt_do_not_count_against_the_history() -> None:
    """A 20k-token toolset (a large MCP server) in the API's count drops no turn."""
    conversation = Conversation()
    _turns(conversation, 3, size=10)
    conversation.note_usage(21_000, overhead_chars=20_000 * CHARS_PER_TOKEN)
    assert conversation.keep_within(20_000) == 0
    assert len(conversation) == 12


def test_a_turn_larger_than_the_budget_leaves_an_empty_history() -> None:
    conversation = Conversation()
    _turns(conversation, 1, size=10_000)
    assert conversation.keep_within(100) == 1
    assert len(conversation) == 0
