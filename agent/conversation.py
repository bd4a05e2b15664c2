"""The conversation history, as the Messages API wants it: alternating user/assistant turns.

No message is ever empty, and no text block is blank: the API rejects both (an empty
`end_turn`, a `tool_use` stop with no `tool_use` block, a whitespace-only text block).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from anthropic.types import Message, MessageParam

__all__ = ["Conversation", "tool_uses"]


def tool_uses(message: Message) -> list[Any]:
    """The `tool_use` blocks of a response, in order."""
    return [block for block in message.content if block.type == "tool_use"]


class Conversation:
    """Messages so far; the REPL keeps one across turns, `ask` uses a fresh one."""

    def __init__(self) -> None:
        self._messages: list[MessageParam] = []

    @property
    def messages(self) -> list[MessageParam]:
        """A copy of the history, safe to send."""
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def add_user_text(self, text: str) -> None:
        """A new question; merged into a trailing user message (e.g. closing tool results)."""
        self._add_user(_text_blocks(text))

    def add_tool_results(self, results: Sequence[dict[str, Any]]) -> None:
        """The `tool_result` blocks answering the last assistant message."""
        self._add_user(list(results))

    def add_assistant(self, message: Message) -> bool:
        """A model response, its blocks as the API sent them bar blank text; False if none."""
        blocks = [block.to_dict() for block in message.content]
        return self._add_assistant([b for b in blocks if not _blank(b)])

    def add_assistant_text(self, text: str) -> bool:
        """An answer the agent phrased itself (when the model could not be asked again)."""
        return self._add_assistant(_text_blocks(text))

    def rollback(self, mark: int) -> None:
        """Forget everything after `mark` (a length from `len()`): a cancelled or refused turn."""
        del self._messages[mark:]

    def reset(self) -> None:
        """Start over."""
        self._messages.clear()

    def forget_before(self, mark: int) -> bool:
        """Drop the earlier turns, keeping the one that starts at `mark`; False if none."""
        if mark <= 0:
            return False
        del self._messages[:mark]
        return True

    def _add_assistant(self, blocks: list[Any]) -> bool:
        if blocks:
            self._messages.append(cast("MessageParam", {"role": "assistant", "content": blocks}))
        return bool(blocks)

    def _add_user(self, blocks: list[Any]) -> None:
        if not blocks:
            return
        if self._messages and self._messages[-1]["role"] == "user":
            last = self._messages[-1]
            merged = [*_as_blocks(last["content"]), *blocks]
            self._messages[-1] = cast("MessageParam", {"role": "user", "content": merged})
            return
        self._messages.append(cast("MessageParam", {"role": "user", "content": blocks}))


def _text_blocks(text: str) -> list[Any]:
    return [{"type": "text", "text": text}] if text.strip() else []


def _blank(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and not str(block.get("text") or "").strip()


def _as_blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(cast("list[Any]", content))
