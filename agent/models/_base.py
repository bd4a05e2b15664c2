"""The seam between the loop and a model: one request in, one `anthropic.types.Message` out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from anthropic.types import Message, MessageParam

__all__ = ["ModelBackend", "ModelRequest", "TextSink"]

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


class ModelBackend(Protocol):
    """A model: Claude over HTTP, the offline scripted model, or a fault-injecting wrapper.

    `create` raises the SDK's own exceptions on failure; the caller classifies and retries.
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
