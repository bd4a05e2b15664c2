"""Claude through `anthropic.AsyncAnthropic`, with the SDK's own retries off (we own retrying)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import anthropic
from anthropic import omit

from agent.models._base import ModelRequest
from agent.settings import DEFAULT_MODEL

if TYPE_CHECKING:
    import httpx2
    from anthropic.types import Message

__all__ = ["DEFAULT_TIMEOUT_S", "ClaudeModel"]

# The SDK waits up to ten minutes by default; a turn must end in bounded time.
DEFAULT_TIMEOUT_S = 60.0


class ClaudeModel:
    """The Messages API; streams text to `request.on_text` when one is given."""

    name = "claude"

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        http_client: httpx2.AsyncClient | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.model = model
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,  # one retry layer: agent.model_call's
            timeout=timeout_s,
            http_client=http_client,
        )

    async def create(self, request: ModelRequest) -> Message:
        """One call; raises the SDK's exceptions (a mid-stream error too) unchanged."""
        params = self._params(request)
        if request.on_text is None:
            message: Message = await self._client.messages.create(**params)
            return message
        async with self._client.messages.stream(**params) as stream:
            async for text in stream.text_stream:
                request.on_text(text)
            return await stream.get_final_message()

    async def aclose(self) -> None:
        """Close the SDK's HTTP client."""
        await self._client.close()

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": list(request.messages),
            "system": request.system or omit,
            "tools": cast("Any", list(request.tools)) if request.tools else omit,
            "tool_choice": cast("Any", request.tool_choice) if request.tool_choice else omit,
        }
