"""The seam between the loop and a model: one request in, one `anthropic.types.Message` out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from errors import InvalidInput

if TYPE_CHECKING:
    from anthropic.types import Message, MessageParam

__all__ = ["ModelBackend", "ModelRequest", "PromptTooLong", "TextSink"]

TextSink = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one Messages API call needs; `on_text` receives text as it streams."""

    messages: Sequence[MessageParam]
    tools: Sequence[dict[str, Any]] = ()
    system: str = ""
    max_tokens: int = 1024
    tool_choice: dict[str, Any] | None = None
    on_text: TextSink | None = field(default=None, compare=False)


class PromptTooLong(InvalidInput):
    """The messages no longer fit in the model's context window; `detail` is for the log only.

    An `InvalidInput` (fix_input, never resent as is): the loop drops earlier turns and asks
    once more, and says so plainly when there is nothing left to drop.
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
    `PromptTooLong`); the caller classifies and retries.
    """

    @property
    def name(self) -> str:
        """A short label for logs and the timeline ("claude", "offline")."""
        ...

    async def create(self, request: ModelRequest) -> Message:
        """One model call."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
