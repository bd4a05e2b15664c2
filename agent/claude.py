"""Claude through `anthropic.AsyncAnthropic`, with the SDK's own retries off (we own retrying).

The boundary to the SDK: what it hands back is checked here, once, and converted into the
agent's light `Reply`; what it raises is translated where the SDK's own type would mislead
the classifier (chaining the original):

- a 200 answer that is not a whole message — HTML from a proxy (the SDK returns a `str`),
  JSON of another shape, a stream that is not SSE (the SDK fails an `assert`) or that ends
  before its `message_delta` (no `stop_reason`) — is `errors.BadUpstreamData`, source
  "claude": retried once, then given up, like any malformed upstream data;
- a 400 "prompt is too long" is `PromptTooLong`, so the loop can drop earlier turns.

No answer may grow past a size: the SDK reads whatever the server sends, so `CappedTransport`
wraps its httpx2 transport and counts the bytes of every response as they stream in; past its
cap (`max_bytes`: `DEFAULT_MAX_BYTES`, 4 MiB, unless given) it raises `errors.ResponseTooLarge`
(bad data: retried once, then the next model). A declared length over the cap is refused
before a byte is read. The cap is on the decoded body: requests ask for no compression, and a
gzip or deflate body sent anyway is decoded here, a piece at a time and never past the cap;
any other encoding is refused.
"""

from __future__ import annotations

import contextlib
import re
import socket
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, cast

import anthropic
import httpx2
from anthropic import omit
from anthropic.types import ContentBlock, Message
from httpx2._utils import get_environment_proxies

from agent.models import (
    Block,
    ModelRequest,
    OtherBlock,
    Paragraphs,
    Progress,
    PromptTooLong,
    Reply,
    Text,
    TextSink,
    ToolCall,
    Usage,
)
from agent.settings import DEFAULT_MODEL
from errors import BadUpstreamData, ResponseTooLarge

if TYPE_CHECKING:
    from anthropic.lib.streaming import AsyncMessageStream, ParsedMessageStreamEvent

__all__ = [
    "CONNECT_TIMEOUT_S",
    "DEFAULT_MAX_BYTES",
    "READ_TIMEOUT_S",
    "SOURCE",
    "CappedTransport",
    "ClaudeModel",
    "http_timeout",
    "new_client",
    "to_reply",
]


# --- every answer capped ------------------------------------------------------------------------

DEFAULT_MAX_BYTES = 4 * 1024 * 1024  # 4 MiB: far above any answer of max_tokens, far below harm
SOURCE = "claude"  # the `source` of the failures raised here


class CappedTransport(httpx2.AsyncBaseTransport):
    """`inner`, with every response body cut at `max_bytes` (raising `ResponseTooLarge`)."""

    def __init__(
        self, inner: httpx2.AsyncBaseTransport, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.inner = inner
        self.max_bytes = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """The inner transport's response, its stream counted (and decoded) as it is read."""
        request.headers["Accept-Encoding"] = "identity"
        response = await self.inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        declared = response.headers.get("content-length", "")
        problem: Exception | None = None
        if encoding not in _DECODERS:
            problem = BadUpstreamData(f"the model API sent a {encoding!r} body", source=SOURCE)
        elif declared.isdigit() and int(declared) > self.max_bytes:
            problem = ResponseTooLarge(
                f"the model API declared a {declared}-byte body, over the "
                f"{self.max_bytes}-byte cap",
                source=SOURCE,
            )
        if problem is not None:
            await response.aclose()
            raise problem
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)  # what an async transport returns
        response.stream = _Capped(stream, _DECODERS[encoding], self.max_bytes)
        if encoding != "identity":  # decoded here, so httpx2 must not decode it again
            del response.headers["content-encoding"]
            response.headers.pop("content-length", None)
        return response

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self.inner.aclose()


# zlib's window bits per encoding: 0, none; 47, gzip or zlib framing; 15, zlib ("deflate").
_DECODERS = {"identity": 0, "": 0, "gzip": 47, "x-gzip": 47, "deflate": 15}


class _Capped(httpx2.AsyncByteStream):
    """A response stream (decoded here when `wbits` says so) that raises once more than
    `max_bytes` of body have come through."""

    def __init__(self, inner: httpx2.AsyncByteStream, wbits: int, max_bytes: int) -> None:
        self._inner = inner
        self._wbits = wbits
        self._max = max_bytes

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        decoder = zlib.decompressobj(self._wbits) if self._wbits else None
        async for chunk in self._inner:
            if decoder is not None:  # inflated up to one byte past the cap: enough to know
                try:
                    chunk = decoder.decompress(chunk, self._max - seen + 1)
                except zlib.error as exc:
                    raise BadUpstreamData(
                        "the model API sent a body that does not decode", source=SOURCE
                    ) from exc
            seen += len(chunk)
            if seen > self._max:
                raise ResponseTooLarge(
                    f"the model API's body passed the {self._max}-byte cap", source=SOURCE
                )
            if chunk:
                yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


# --- the model ----------------------------------------------------------------------------------

# The SDK waits up to ten minutes by default; a turn must end in bounded time. These bound
# each step of one request: opening the connection, and the wait for the first byte and then
# between any two bytes. A trickle that keeps each gap short, or a stream of pings or blank
# deltas, is ended by the attempt's no-progress window (AGENT_MODEL_STALL_TIMEOUT: this model
# reports each event that brings something new), and anything else by the attempt's own
# wall-clock limit (AGENT_MODEL_TIMEOUT), streaming included (see agent.models.ModelCaller).
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 15.0  # a dead endpoint is reported after two attempts: about 30 s
# The API has no error code for it, only this wording (checked against 2.14's 400 bodies).
_PROMPT_TOO_LONG = re.compile(r"prompt is too long", re.IGNORECASE)


def http_timeout(read_s: float = READ_TIMEOUT_S) -> httpx2.Timeout:
    """The per-step timeouts of one model request."""
    connect_s = CONNECT_TIMEOUT_S  # opening a connection, or waiting for one from the pool
    return httpx2.Timeout(connect=connect_s, read=read_s, write=read_s, pool=connect_s)


def new_client(
    *,
    api_key: str,
    base_url: str | None = None,
    transport: httpx2.AsyncBaseTransport | None = None,
    timeout: httpx2.Timeout | None = None,
) -> anthropic.AsyncAnthropic:
    """An SDK client with its retries off and every answer capped at `DEFAULT_MAX_BYTES`, on
    `transport` (default: the network) wrapped in `CappedTransport`; build one per process
    and share it (it is costly)."""
    timeout = timeout or http_timeout()
    # The SDK's own defaults (connection limits, redirects, TCP keep-alive, proxies from the
    # environment), every transport capped.
    mounts: dict[str, httpx2.AsyncBaseTransport | None] = {}
    if transport is None:
        transport = httpx2.AsyncHTTPTransport(**_network())
        for pattern, proxy in get_environment_proxies().items():
            mounts[pattern] = (
                None
                if proxy is None
                else CappedTransport(httpx2.AsyncHTTPTransport(proxy=proxy, **_network()))
            )
    return anthropic.AsyncAnthropic(
        api_key=api_key,
        base_url=base_url,
        max_retries=0,  # one retry layer: agent.models.ModelCaller's
        timeout=timeout,
        http_client=anthropic.DefaultAsyncHttpxClient(
            transport=CappedTransport(transport), mounts=mounts, timeout=timeout
        ),
    )


def _network() -> dict[str, Any]:
    """What the SDK gives its own transport: its connection limits and TCP keep-alive."""
    options: list[tuple[int, int, int]] = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_KEEPINTVL", 60), ("TCP_KEEPCNT", 5), ("TCP_KEEPIDLE", 60)):
        if (option := getattr(socket, name, None)) is not None:
            options.append((socket.IPPROTO_TCP, option, value))
    return {"limits": anthropic.DEFAULT_CONNECTION_LIMITS, "socket_options": options}


class ClaudeModel:
    """The Messages API; streams text to `request.on_text` when one is given.

    It builds its own SDK client from `api_key`, `base_url` and `transport` (capped, closed
    by `aclose`), or runs on a shared `client` (left open; those three are then unused);
    either way with the SDK's retries off and `timeout` for each step of a request.
    """

    def __init__(
        self,
        *,
        api_key: str = "",
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        timeout: httpx2.Timeout | None = None,
        client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        self.name = model  # the timeline's source: which model answered, or failed
        self._owns_client = client is None
        timeout = timeout or http_timeout()
        # The SDK client this model calls through (for a second model to share).
        self.client: anthropic.AsyncAnthropic
        if client is None:
            self.client = new_client(
                api_key=api_key, base_url=base_url, transport=transport, timeout=timeout
            )
        elif client.max_retries == 0 and client.timeout == timeout:
            self.client = client  # as `new_client` makes it: used as it is
        else:  # a copy on the same connections: the shared one may have retries on
            self.client = client.with_options(max_retries=0, timeout=timeout)

    async def create(self, request: ModelRequest) -> Reply:
        """One whole reply; raises the SDK's exceptions, or ours (see the module's doc).
        Progress is reported when the request goes out and, streaming, for each event that
        brings something new (`_news`); a whole answer brings its news all at once, at its
        end."""
        params: dict[str, Any] = {
            "model": self.name,
            "max_tokens": request.max_tokens,
            "messages": list(request.messages),
            "system": request.system or omit,
            "tools": list(request.tools) if request.tools else omit,
            "tool_choice": request.tool_choice or omit,
        }
        progress = request.on_progress or (lambda: None)
        progress()
        with _translated():
            if request.on_text is None:
                answer: object = await self.client.messages.create(**params)
            else:
                async with self.client.messages.stream(**params) as stream:
                    answer = await _streamed(stream, request.on_text, progress)
        return to_reply(_checked(answer))

    async def aclose(self) -> None:
        """Close the SDK's HTTP client, unless it is a shared one."""
        if self._owns_client:
            await self.client.close()


async def _streamed(stream: AsyncMessageStream, on_text: TextSink, progress: Progress) -> object:
    """The whole message; its text to `on_text` as it streams, laid out as `Reply.text` is;
    `progress()` for each event that brings something new."""
    paragraphs = Paragraphs(on_text)
    async for event in stream:
        if _news(event):
            progress()
        if event.type == "content_block_start":
            paragraphs.block(event.content_block.type)
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            paragraphs.text(event.delta.text)
    try:
        return await stream.get_final_message()
    except AssertionError as exc:  # the SDK asserts it saw a message_start: not SSE at all
        raise BadUpstreamData("a 200 stream without any message events", source=SOURCE) from exc


# What a delta carries, by its type; the SDK repeats each delta as one of the events in
# _ECHOES, which are no news of their own. Pings never get here: the SDK drops them.
_DELTA_FIELDS = ("text", "partial_json", "thinking", "signature")
_ECHOES = frozenset({"text", "input_json", "thinking", "signature", "citation"})


def _news(event: ParsedMessageStreamEvent[Any]) -> bool:
    """Whether a stream event brings something new: a delta that is more than blank space
    (of any kind but text, JSON, thinking or a signature, such as a citation: always), or any
    other event of the message (it starts, a block starts or ends, it ends)."""
    if event.type == "content_block_delta":
        carried = [getattr(event.delta, name, None) for name in _DELTA_FIELDS]
        words = [value for value in carried if isinstance(value, str)]
        return not words or any(word.strip() for word in words)
    return event.type not in _ECHOES


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """The SDK's 400 "prompt is too long" as `PromptTooLong`; our own cap on the body, which
    the SDK reports as a failed connection, as itself; everything else unchanged."""
    try:
        yield
    except anthropic.BadRequestError as exc:
        detail = exc.api_message or exc.message
        if _PROMPT_TOO_LONG.search(detail):
            raise PromptTooLong(detail) from exc
        raise
    except anthropic.APIConnectionError as exc:
        if isinstance(exc.__cause__, BadUpstreamData):  # the cap, or a body that won't decode
            raise exc.__cause__ from exc
        raise


def _checked(answer: object) -> Message:
    """`answer` if it is a whole message the loop can read, else `BadUpstreamData`."""
    problem = _problem(answer)
    if problem is not None:
        raise BadUpstreamData(f"a 200 answer that is {problem}", source=SOURCE)
    return cast("Message", answer)


def _problem(answer: object) -> str | None:
    """What keeps `answer` from being read as a message, or None (the SDK validates nothing)."""
    if not isinstance(answer, Message):
        return f"not a message but {type(answer).__name__}"
    if answer.stop_reason is None:
        return "a message without a stop_reason (cut before its end)"
    content: object = answer.content  # any JSON may be here
    if not isinstance(content, list):
        return "a message without a content list"
    if not all(_readable(block) for block in content):
        return "a message with a malformed text or tool_use block"
    return None


# The fields the loop reads, by block type; other block types are passed back as they came.
_FIELDS: dict[str, dict[str, type]] = {
    "text": {"text": str},
    "tool_use": {"id": str, "name": str, "input": dict},
}


def _readable(block: object) -> bool:
    """A block has a type; text and tool_use blocks have the fields the loop reads."""
    kind = getattr(block, "type", None)
    if not isinstance(kind, str):
        return False
    expected = _FIELDS.get(kind, {})
    return all(isinstance(getattr(block, key, None), t) for key, t in expected.items())


def to_reply(message: Message) -> Reply:
    """A checked SDK message as the agent's own `Reply`."""
    details, usage = message.stop_details, message.usage
    # The request's size: `input_tokens` counts only what no cache read or wrote.
    cached = (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    input_tokens = usage.input_tokens + cached
    return Reply(
        content=tuple(_block(block) for block in message.content),
        stop_reason=message.stop_reason,
        model=message.model,
        usage=Usage(input_tokens, usage.output_tokens),
        refusal=details.explanation if details else None,
        id=message.id,
    )


def _block(block: ContentBlock) -> Block:
    """One content block: text and tool calls read, every block kept as it came (every field
    it was sent with, known to this SDK or not), to go back in the next request."""
    raw = block.to_dict(warnings=False)  # a shape this SDK did not expect goes back too
    if block.type == "text":
        return Text(block.text, raw=raw)
    if block.type == "tool_use":
        return ToolCall(block.id, block.name, dict(block.input), raw=raw)
    return OtherBlock(str(block.type), raw)
