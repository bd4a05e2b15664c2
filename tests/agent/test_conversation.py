"""The conversation history."""

from __future__ import annotations

from anthropic.types import TextBlock

from agent.conversation import Conversation
from agent.models.offline import make_message
from tests.agent.helpers import calls, text


def test_a_question_then_an_answer_alternate_roles() -> None:
    """User and assistant messages alternate, content as blocks."""
    conversation = Conversation()
    conversation.add_user_text("hi")
    conversation.add_assistant(text("hello"))
    assert [m["role"] for m in conversation.messages] == ["user", "assistant"]
    assert conversation.messages[1]["content"] == [{"type": "text", "text": "hello"}]


def test_assistant_tool_use_blocks_keep_only_the_fields_sent() -> None:
    """A tool_use block goes back exactly as id, name, input and type."""
    conversation = Conversation()
    conversation.add_assistant(calls(("get_weather", {"city": "Paris"})))
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


def test_rollback_forgets_a_turn() -> None:
    """Rolling back to a mark drops everything added after it."""
    conversation = Conversation()
    conversation.add_user_text("one")
    conversation.add_assistant(text("1"))
    mark = len(conversation)
    conversation.add_user_text("two")
    conversation.rollback(mark)
    assert len(conversation) == 2


def test_forget_before_keeps_the_current_turn() -> None:
    """Earlier turns are dropped; the current one stays, starting with its question."""
    conversation = Conversation()
    conversation.add_user_text("one")
    conversation.add_assistant(text("1"))
    assert conversation.forget_before(2) is True
    assert conversation.forget_before(0) is False


def test_messages_is_a_copy() -> None:
    """Changing the returned list does not change the history."""
    conversation = Conversation()
    conversation.messages.append({"role": "user", "content": "x"})
    assert len(conversation) == 0


def test_no_empty_message_ever_enters_the_history() -> None:
    """An empty reply, blank text and no tool results add nothing (the API rejects them)."""
    conversation = Conversation()
    assert conversation.add_assistant(make_message([])) is False
    assert conversation.add_assistant(text("   ")) is False
    assert conversation.add_assistant_text("") is False
    conversation.add_tool_results([])
    conversation.add_user_text(" \n")
    assert conversation.messages == []


def test_blank_text_blocks_are_dropped_from_a_reply() -> None:
    """A blank text block beside a tool_use is not sent back; the tool_use is."""
    conversation = Conversation()
    reply = make_message(
        [TextBlock(type="text", text=""), *calls(("calculate", {"expression": "1"})).content],
        "tool_use",
    )
    assert conversation.add_assistant(reply) is True
    assert [b["type"] for b in conversation.messages[0]["content"]] == ["tool_use"]  # type: ignore[index]
