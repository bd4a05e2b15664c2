"""A model's reply in the agent's own light types: what the loop reads, whatever the backend.

The Claude backend converts the SDK's `Message` into these at its boundary (checking it
once); the offline scripted model builds them directly, so offline mode never imports the
anthropic SDK. Each block turns back into the SDK's request shape with `to_param`, for the
conversation history; blocks the loop does not read (thinking, server tools) are kept as
the API sent them and returned unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

if TYPE_CHECKING:
    from anthropic.types import ContentBlockParam, TextBlockParam, ToolUseBlockParam

__all__ = ["Block", "OtherBlock", "Reply", "Text", "ToolCall", "Usage"]


@dataclass(frozen=True, slots=True)
class Text:
    """Text the model said."""

    text: str
    type: Literal["text"] = "text"

    def to_param(self) -> TextBlockParam:
        """The block as the Messages API takes it back."""
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A `tool_use` block: the model asks for `name` with `input`."""

    id: str
    name: str
    input: Mapping[str, Any]
    type: Literal["tool_use"] = "tool_use"

    def to_param(self) -> ToolUseBlockParam:
        """The block as the Messages API takes it back."""
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": dict(self.input)}


@dataclass(frozen=True, slots=True)
class OtherBlock:
    """Any other block (thinking, server tool use, …), kept exactly as the API sent it."""

    type: str
    raw: Mapping[str, Any] = field(default_factory=dict)

    def to_param(self) -> ContentBlockParam:
        """The block as it came."""
        return cast("ContentBlockParam", dict(self.raw))


Block = Text | ToolCall | OtherBlock


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the call used, as the API counted them."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Reply:
    """One model answer."""

    content: tuple[Block, ...]
    stop_reason: str | None
    model: str = ""  # the model that answered
    usage: Usage = Usage()
    refusal: str | None = None  # why, when stop_reason is "refusal" and the API said
    id: str = ""

    @property
    def text(self) -> str:
        """All the text blocks, joined and stripped."""
        return "".join(b.text for b in self.content if isinstance(b, Text)).strip()

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The `tool_use` blocks, in order."""
        return tuple(b for b in self.content if isinstance(b, ToolCall))
