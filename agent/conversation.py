"""The conversation history, as the Messages API wants it, and the repair of a turn gone wrong.

No message is ever empty, and no text block is blank: the API rejects both (an empty
`end_turn`, a `tool_use` stop with no `tool_use` block, a whitespace-only text block).

A turn runs inside `conversation.turn()`: what it adds is kept only if it commits, so a
cancelled, refused or unanswered turn leaves the history exactly as it was::

    with conversation.turn() as turn:
        conversation.add_user_text(question)
        ...
        turn.commit()

The history is kept within a token budget at turn boundaries (`keep_within`, before a new
question): the oldest whole turns are dropped, a turn being everything from one question to
the next, so a `tool_use` and its `tool_result` are never split. Tokens are estimated
cheaply, a token per four characters of the messages' JSON, or the API's own count of the
last request (`note_usage`; cache reads and writes included) when that is larger.

**The boundary into the model** is `to_model`: the person's text and every tool result —
built-in, MCP, `@tool` — cross it before they join the history: secrets masked (by value and
pattern), invisible characters removed (controls, bidi overrides, zero-width, the BOM, a flood
of combining marks), the size capped, and text from outside the project wrapped as data the
system prompt tells the model never to obey.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, cast

from errors import redact
from errors._redact import INVISIBLE, without_mark_floods

if TYPE_CHECKING:
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        TextBlockParam,
        ToolResultBlockParam,
    )

    from agent.models import Reply

__all__ = [
    "CHARS_PER_TOKEN",
    "DATA_TAG",
    "MAX_TO_MODEL",
    "Conversation",
    "Keeper",
    "TurnScope",
    "to_model",
]

CHARS_PER_TOKEN = 4  # a cheap, conservative estimate for English text and JSON
MAX_TO_MODEL = 50_000  # characters of one text (a question, a tool result) the model is sent
DATA_TAG = "tool_output"  # what wraps text from outside the project


def to_model(text: str, *, source: str = "") -> str:
    """`text` as it may enter the conversation the model reads: the one boundary every
    question and tool result crosses. Secrets masked (`errors.redact`: registered values and
    known patterns), invisible characters removed (`errors._redact.INVISIBLE`), a flood of
    combining marks cut to `errors._redact.MAX_MARKS`, at most `MAX_TO_MODEL` characters (the
    rest counted, not sent). Text from outside the project — an MCP server's answer, a
    `@tool` function's — names its `source` and is wrapped as data (`<tool_output
    source="…">`), never as words of ours, with any closing tag inside it defused."""
    text = redact(text)
    if not (text.isascii() and text.isprintable()):
        text = without_mark_floods(INVISIBLE.sub("", text))
    if len(text) > MAX_TO_MODEL:
        text = f"{text[:MAX_TO_MODEL]}\n[cut: {len(text) - MAX_TO_MODEL} more characters]"
    if not source:
        return text
    body = text.replace(f"</{DATA_TAG}", f"<\\/{DATA_TAG}")
    label = INVISIBLE.sub("", source).replace('"', "'")[:80]
    return f'<{DATA_TAG} source="{label}">\n{body}\n</{DATA_TAG}>'


class TurnScope:
    """The part of the history one turn adds; a context manager that rolls it back on the
    way out (on error too) unless `commit` was called."""

    def __init__(self, conversation: Conversation) -> None:
        self._conversation = conversation
        self.start = len(conversation)
        self.committed = False

    def __enter__(self) -> TurnScope:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Forget everything the turn added, unless it was committed."""
        if not self.committed and len(self._conversation) > self.start:
            del self._conversation._messages[self.start :]
            self._conversation._reported_tokens = 0

    def commit(self) -> None:
        """Keep what the turn added (and hand it to the conversation's keeper, if any)."""
        self.committed = True
        conversation = self._conversation
        if conversation.keeper is not None:
            conversation.keeper.keep(conversation._messages[self.start :])

    def forget_earlier(self) -> bool:
        """Drop the turns before this one (the history no longer fits); False if none."""
        if self.start <= 0:
            return False
        del self._conversation._messages[: self.start]
        self._conversation._reported_tokens = 0
        self.start = 0
        return True


class Keeper(Protocol):
    """Where committed turns are saved (`agent.history.Saved`: SQLite)."""

    def keep(self, messages: Sequence[MessageParam]) -> None:
        """Save one committed turn's messages; never raises."""
        ...


class Conversation:
    """Messages so far; the REPL keeps one across turns, `ask` uses a fresh one.

    With a `keeper`, each committed turn is also handed to it, as the API's own blocks;
    `earlier` starts the history with the messages of a saved conversation."""

    def __init__(
        self, earlier: Sequence[MessageParam] = (), *, keeper: Keeper | None = None
    ) -> None:
        self._messages: list[MessageParam] = list(earlier)
        self._reported_tokens = 0  # the API's count for the last request on this history
        self.keeper = keeper

    @property
    def messages(self) -> list[MessageParam]:
        """A copy of the history, safe to send."""
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def turn(self) -> TurnScope:
        """A scope for one turn: rolled back on the way out unless committed (or on error)."""
        return TurnScope(self)

    def add_user_text(self, text: str) -> None:
        """A new question, across `to_model`; merged into a trailing user message (e.g.
        closing tool results)."""
        self._add_user(_text_blocks(to_model(text)))

    def add_tool_results(self, results: Sequence[ToolResultBlockParam]) -> None:
        """The `tool_result` blocks answering the last assistant message (their content has
        crossed `to_model`: `agent.tool_round.result_block`)."""
        self._add_user(list(results))

    def add_reply(self, reply: Reply) -> bool:
        """A model reply, its blocks as the API sent them bar blank text; False if none."""
        return self._add_assistant([b for b in reply.params if not _blank(b)])

    def add_assistant_text(self, text: str) -> bool:
        """An answer the agent phrased itself (when the model could not be asked again)."""
        return self._add_assistant(_text_blocks(text))

    def note_usage(self, input_tokens: int, *, overhead_chars: int = 0) -> None:
        """The API's count of the tokens in the last request made on this history, less the
        part no trimming can shrink (the system prompt and the tool definitions, estimated
        from `overhead_chars`): a large MCP toolset must not push every turn out."""
        self._reported_tokens = max(0, input_tokens - overhead_chars // CHARS_PER_TOKEN)

    def tokens(self) -> int:
        """The history's size in tokens, estimated (see the module's doc)."""
        chars = sum(_chars(message) for message in self._messages)
        return max(chars // CHARS_PER_TOKEN, self._reported_tokens)

    def keep_within(self, budget_tokens: int) -> int:
        """Drop the oldest whole turns until the history fits `budget_tokens`; how many were
        dropped. Call it between turns, never inside one."""
        sizes = [_chars(message) for message in self._messages]
        estimate = max(sum(sizes) // CHARS_PER_TOKEN, self._reported_tokens)
        dropped = 0
        while self._messages and estimate > budget_tokens:
            cut = next((i for i in self._question_starts() if i > 0), len(self._messages))
            del self._messages[:cut]
            del sizes[:cut]
            self._reported_tokens = 0  # counted on messages no longer here
            estimate = sum(sizes) // CHARS_PER_TOKEN
            dropped += 1
        return dropped

    def _question_starts(self) -> list[int]:
        """Where turns begin: user messages that carry no tool_result (those answer the
        assistant message before them, in the same turn)."""
        return [
            index
            for index, message in enumerate(self._messages)
            if message["role"] == "user"
            and not any(b["type"] == "tool_result" for b in _as_blocks(message["content"]))
        ]

    def _add_assistant(self, blocks: Sequence[ContentBlockParam]) -> bool:
        if blocks:
            self._messages.append({"role": "assistant", "content": list(blocks)})
        return bool(blocks)

    def _add_user(self, blocks: Sequence[ContentBlockParam]) -> None:
        if not blocks:
            return
        if self._messages and self._messages[-1]["role"] == "user":  # merged into it
            blocks = [*_as_blocks(self._messages.pop()["content"]), *blocks]
        self._messages.append({"role": "user", "content": list(blocks)})


def _chars(message: MessageParam) -> int:
    return len(json.dumps(message, ensure_ascii=False, default=str))


def _text_blocks(text: str) -> list[TextBlockParam]:
    return [{"type": "text", "text": text}] if text.strip() else []


def _blank(block: ContentBlockParam) -> bool:
    return block["type"] == "text" and not str(block.get("text") or "").strip()


def _as_blocks(content: object) -> list[ContentBlockParam]:
    """A message's content as blocks; the history holds only request blocks (`to_param`)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(cast("Iterable[ContentBlockParam]", content))
