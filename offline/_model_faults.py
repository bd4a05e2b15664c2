"""Fault-injecting wrappers around any backend, for the demo and tests.

`FlakyModel` fails the next calls with errors built exactly as the SDK raises them
(`api_error` imports the SDK when first called); `MangledInputModel` spoils the first tool
call's input, as a confused model might.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from agent.models import ModelBackend, ModelRequest, Reply
from offline._messages_wire import error_body

if TYPE_CHECKING:
    import anthropic

__all__ = ["FlakyModel", "MangledInputModel", "api_error"]

_URL = "https://api.anthropic.com/v1/messages"


def api_error(
    status: int, error_type: str, message: str = "", *, headers: dict[str, str] | None = None
) -> anthropic.APIStatusError:
    """The SDK's exception for an error response (status 200: a mid-stream `event: error`)."""
    import anthropic
    import httpx2

    body = error_body(error_type, message)
    request = httpx2.Request("POST", _URL)
    response = httpx2.Response(status, headers=headers, json=body, request=request)
    classes: dict[int, type[anthropic.APIStatusError]] = {
        401: anthropic.AuthenticationError,
        429: anthropic.RateLimitError,
        500: anthropic.InternalServerError,
        529: anthropic.OverloadedError,
    }
    error_class = classes.get(status, anthropic.APIStatusError)
    return error_class(f"Error code: {status} - {json.dumps(body)}", response=response, body=body)


class FlakyModel:
    """Raises `errors`, one per call, then behaves like `inner`."""

    def __init__(self, inner: ModelBackend, errors: Iterable[Exception]) -> None:
        self._inner = inner
        self._errors = deque(errors)
        self.name = inner.name

    async def create(self, request: ModelRequest) -> Reply:
        """The next injected error, or the inner model's answer."""
        if self._errors:
            raise self._errors.popleft()
        return await self._inner.create(request)

    async def aclose(self) -> None:
        """Close the inner model."""
        await self._inner.aclose()


def _wrong_type(tool_input: dict[str, Any]) -> dict[str, Any]:
    return dict.fromkeys(tool_input, 42) or {"input": 42}


class MangledInputModel:
    """Replaces the input of the first tool call `inner` makes (by default: numbers for text)."""

    def __init__(
        self,
        inner: ModelBackend,
        mangle: Callable[[dict[str, Any]], dict[str, Any]] = _wrong_type,
    ) -> None:
        self._inner = inner
        self._mangle: Callable[[dict[str, Any]], dict[str, Any]] | None = mangle
        self.name = inner.name

    async def create(self, request: ModelRequest) -> Reply:
        """The inner answer, with its first tool call spoiled once."""
        reply = await self._inner.create(request)
        if self._mangle is None or not reply.tool_calls:
            return reply
        first = reply.tool_calls[0]
        spoiled = dataclasses.replace(first, input=self._mangle(dict(first.input)))
        self._mangle = None
        content = tuple(spoiled if block is first else block for block in reply.content)
        return dataclasses.replace(reply, content=content)

    async def aclose(self) -> None:
        """Close the inner model."""
        await self._inner.aclose()
