"""The conversation history, as the Messages API wants it, and the repair of a turn gone wrong.

No message is ever empty, and no text block is blank: the API rejects both (an empty
`end_turn`, a `tool_use` stop with no `tool_use` block, a whitespace-only text block).

A turn runs inside `conversation.turn()`: what it adds is kept only if it commits, so a
cancelled, refused or unanswered turn leaves the history exactly as it was::

    with conversation.turn() as turn:
        conversation.add_user_text(question)
        ...
        turn.commit()
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        TextBlockParam,
        ToolResultBlockParam,
    )

    from agent.models import Reply

__all__ = ["Conversation", "TurnScope"]


class TurnScope:
    """The part of the history one turn adds; rolled back unless `commit` is called."""

    def __init__(self, conversation: Conversation) -> None:
        self._conversation = conversation
        self.start = len(conversation)
        self.committed = False

    def commit(self) -> None:
        """Keep what the turn added."""
        self.committed = True

    def forget_earlier(self) -> bool:
        """Drop the turns before this one (the history no longer fits); False if none."""
        if self.start <= 0:
            return False
        del self._conversation._messages[: self.start]
        self.start = 0
        return True

    def rollback(self) -> None:
        """Forget everything this turn added."""
        del self._conversation._messages[self.start :]


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

    @contextlib.contextmanager
    def turn(self) -> Iterator[TurnScope]:
        """A scope for one turn: rolled back on the way out unless committed (or on error)."""
        scope = TurnScope(self)
        try:
            yield scope
        finally:
            if not scope.committed:
                scope.rollback()

    def add_user_text(self, text: str) -> None:
        """A new question; merged into a trailing user message (e.g. closing tool results)."""
        self._add_user(_text_blocks(text))

    def add_tool_results(self, results: Sequence[ToolResultBlockParam]) -> None:
        """The `tool_result` blocks answering the last assistant message."""
        self._add_user(list(results))

    def add_reply(self, reply: Reply) -> bool:
        """A model reply, its blocks as the API sent them bar blank text; False if none."""
        blocks = [block.to_param() for block in reply.content]
        return self._add_assistant([b for b in blocks if not _blank(b)])

    def add_assistant_text(self, text: str) -> bool:
        """An answer the agent phrased itself (when the model could not be asked again)."""
        return self._add_assistant(_text_blocks(text))

    def reset(self) -> None:
        """Start over."""
        self._messages.clear()

    def _add_assistant(self, blocks: Sequence[ContentBlockParam]) -> bool:
        if blocks:
            self._messages.append({"role": "assistant", "content": list(blocks)})
        return bool(blocks)

    def _add_user(self, blocks: Sequence[ContentBlockParam]) -> None:
        if not blocks:
            return
        if self._messages and self._messages[-1]["role"] == "user":
            last = self._messages[-1]
            merged = [*_as_blocks(last["content"]), *blocks]
            self._messages[-1] = {"role": "user", "content": merged}
            return
        self._messages.append({"role": "user", "content": list(blocks)})


def _text_blocks(text: str) -> list[TextBlockParam]:
    return [{"type": "text", "text": text}] if text.strip() else []


def _blank(block: ContentBlockParam) -> bool:
    return block["type"] == "text" and not str(block.get("text") or "").strip()


def _as_blocks(content: object) -> list[ContentBlockParam]:
    """A message's content as blocks; the history holds only request blocks (`to_param`)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(cast("Iterable[ContentBlockParam]", content))
