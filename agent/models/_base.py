"""The seam between the loop and a model: one `ModelRequest` in, one `Reply` out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agent.models._reply import Reply
from errors import InvalidInput

if TYPE_CHECKING:
    from anthropic.types import MessageParam, ToolChoiceParam, ToolParam

__all__ = ["ModelBackend", "ModelRequest", "PromptTooLong", "TextSink"]

TextSink = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one Messages API call needs; `on_text` receives text as it streams."""

    messages: Sequence[MessageParam]
    tools: Sequence[ToolParam] = ()
    system: str = ""
    max_tokens: int = 1024
    tool_choice: ToolChoiceParam | None = None
    on_text: TextSink | None = field(default=None, compare=False)


class PromptTooLong(InvalidInput):
    """The messages no longer fit in the model's context window; `reason` is for the log only.

    An `InvalidInput` (fix_input, never resent as is, no fallback model asked): the loop drops
    earlier turns and asks once more, and says so plainly when there is nothing left to drop.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(
            "conversation", "is too long for the model to read", "ask a shorter question"
        )
        self.reason = f"context window exceeded; the API said: {detail}"  # for the log only


class ModelBackend(Protocol):
    """A model: Claude over HTTP, the offline scripted model, or a fault-injecting wrapper.

    `create` raises on failure: the SDK's own exceptions, or ours where the SDK's would
    mislead (`errors.BadUpstreamData` for an answer that is not a whole message,
    `PromptTooLong`); the engine classifies and retries.
    """

    @property
    def name(self) -> str:
        """The model's id, as the timeline and the log show it ("claude-sonnet-4-6")."""
        ...

    async def create(self, request: ModelRequest) -> Reply:
        """One model call."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
