"""`ClaudeModel`, the SDK boundary: its answers checked, its errors translated where needed."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from structlog.testing import capture_logs

from agent.app import Agent
from agent.claude import (
    CONNECT_TIMEOUT_S,
    READ_TIMEOUT_S,
    CappedTransport,
    ClaudeModel,
    http_timeout,
    new_client,
)
from agent.conversation import Conversation
from agent.models import ModelCaller, ModelRequest, PromptTooLong
from errors import BadUpstreamData, ResponseTooLarge, classify
from tests.agent.fake_claude import (
    FakeClaude,
    error,
    message,
    message_body,
    sse_bytes,
    sse_events,
    start_events,
    stream,
    text_block,
    tool_use,
)
from tests.agent.helpers import model_policy_on, registry

KEY = "sk-ant-api03-TESTSECRET-0123456789abcdefghijklmnop"
REQUEST = ModelRequest(messages=[{"role": "user", "content": "hi"}])
STREAMED = ModelRequest(messages=[{"role": "user", "content": "hi"}], on_text=lambda _: None)
HTML = httpx2.Response(200, headers={"content-type": "text/html"}, content=b"<html>proxy</html>")
CUT = httpx2.Response(
    200, headers={"content-type": "text/event-stream"}, content=sse_bytes(start_events("Paris"))
)


def _json(body: object) -> httpx2.Response:
    return httpx2.Response(200, json=body)


async def create(reply: Any, request: ModelRequest = REQUEST) -> Any:
    fake = FakeClaude(reply)
    model = ClaudeModel(api_key=KEY, base_url="https://claude.test", transport=fake.transport())
    try:
        return await model.create(request)
    finally:
        await model.aclose()


@pytest.mark.parametrize(
    "reply",
    [
        HTML,
        _json({"unexpected": True}),
        _json([1, 2]),
        _json(message_body() | {"content": [1, 2]}),
        _json(message_body({"type": "text"})),
        _json(message_body(tool_use("tu", "get_weather", {}) | {"input": None})),
        _json(message_body(text_block("hi")) | {"stop_reason": None}),
        CUT,
    ],
    ids=[
        "html",
        "json object of another shape",
        "json list",
        "content not blocks",
        "text block without text",
        "tool_use without input",
        "no stop_reason",
        "sse body to a non-streaming call",
    ],
)
async def test_a_200_answer_that_is_not_a_whole_message_is_bad_data(
    reply: httpx2.Response,
) -> None:
    """Non-streaming: anything but a readable message raises BadUpstreamData from "claude"."""
    with pytest.raises(BadUpstreamData) as caught:
        await create(reply)
    assert caught.value.source == "claude"
    assert classify(caught.value, "asking Claude").result.error_type == "bad_data"


@pytest.mark.parametrize("reply", [HTML, _json(message_body()), CUT], ids=["html", "json", "cut"])
async def test_a_streamed_200_that_is_not_a_whole_stream_is_bad_data(
    reply: httpx2.Response,
) -> None:
    """Streaming: non-SSE content, or a stream cut before its end, raises BadUpstreamData."""
    with pytest.raises(BadUpstreamData) as caught:
        await create(reply, STREAMED)
    assert caught.value.source == "claude"


async def test_a_whole_message_passes_unchanged() -> None:
    """A well-formed answer, streamed or not, is returned as the SDK's Message."""
    assert (await create(message(text_block("Hi.")))).content[0].text == "Hi."
    assert (await create(stream("Hi."), STREAMED)).stop_reason == "end_turn"


async def test_a_prompt_too_long_400_is_translated_with_its_cause() -> None:
    """400 "prompt is too long": PromptTooLong (fix_input), the SDK's error chained."""
    reply = error(
        400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
    )
    with pytest.raises(PromptTooLong) as caught:
        await create(reply)
    assert type(caught.value.__cause__).__name__ == "BadRequestError"
    assert classify(caught.value, "asking Claude").result.action.value == "fix_input"


async def test_other_400s_stay_the_sdks_own() -> None:
    """Any other 400 is left to the classifier as the SDK raised it."""
    with pytest.raises(Exception, match="Error code: 400") as caught:
        await create(error(400, "invalid_request_error", "max_tokens: must be positive"))
    assert not isinstance(caught.value, PromptTooLong)


async def test_a_shared_client_is_used_with_retries_off_and_left_open() -> None:
    """On a shared client (SDK retries on): one request per call, and aclose leaves it open."""
    fake = FakeClaude(error(529, "overloaded_error"), repeat_last=True)
    shared = new_client(api_key=KEY, transport=fake.transport()).with_options(max_retries=2)
    model = ClaudeModel(client=shared)
    with pytest.raises(Exception, match="529"):
        await model.create(REQUEST)
    await model.aclose()
    assert len(fake.requests) == 1
    assert not shared.is_closed()
    await shared.close()


async def test_a_shared_client_made_by_new_client_is_not_copied_per_model() -> None:
    """A client with retries off and the same timeout is used as it is; any other is copied."""
    shared = new_client(api_key=KEY)
    primary = ClaudeModel(client=shared)
    fallback = ClaudeModel(model="claude-haiku-4-5", client=primary.client)
    assert (primary.client, fallback.client) == (shared, shared)
    slower = ClaudeModel(client=shared, timeout=http_timeout(read_s=600.0)).client
    assert slower is not shared
    assert ClaudeModel(client=shared.with_options(max_retries=2)).client.max_retries == 0
    await shared.close()


@pytest.mark.parametrize("streamed", [False, True], ids=["create", "stream"])
async def test_bad_data_every_time_is_retried_once_then_one_plain_sentence(
    streamed: bool, fake_sleep: Any
) -> None:
    """Cut or non-message answers on every try: two requests, then no answer, never the text."""
    fake = FakeClaude(CUT, repeat_last=True)
    backend = ClaudeModel(api_key=KEY, base_url="https://claude.test", transport=fake.transport())
    agent = Agent(
        ModelCaller(backend, model_policy_on(fake_sleep)), registry(), closers=[backend.aclose]
    )
    with capture_logs() as logs:
        answer = await agent.ask("Paris?", on_text=(lambda _: None) if streamed else None)
    await agent.aclose()
    assert (answer.answered, len(fake.requests)) == (False, 2)
    assert "Paris" not in answer.text
    assert "try again" in answer.text
    [failed] = [e for e in logs if e["event"] == "model.call_failed"]
    assert (failed["error_type"], failed["last_source"]) == ("bad_data", "claude-sonnet-4-6")


async def test_a_prompt_too_long_from_the_api_trims_the_history(fake_sleep: Any) -> None:
    """The real 400 body, end to end: earlier turns dropped, the question asked again."""
    too_long = error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000")
    fake = FakeClaude(message(text_block("first")), too_long, message(text_block("second")))
    backend = ClaudeModel(api_key=KEY, base_url="https://claude.test", transport=fake.transport())
    agent = Agent(
        ModelCaller(backend, model_policy_on(fake_sleep)), registry(), closers=[backend.aclose]
    )
    conversation = Conversation()
    await agent.ask("one", conversation)
    answer = await agent.ask("two", conversation)
    await agent.aclose()
    assert answer.text == "second"
    assert [len(body["messages"]) for body in fake.bodies] == [1, 3, 1]


# --- the capped transport and the per-step timeouts ----------------------------------------


def _padded(size: int) -> bytes:
    """A whole, valid message whose text is `size` bytes long."""
    return json.dumps(message_body(text_block("x" * size))).encode()


async def _streamed_chunks(body: bytes, chunk: int = 65536) -> AsyncIterator[bytes]:
    for start in range(0, len(body), chunk):
        yield body[start : start + chunk]


def _raw(body: bytes, headers: dict[str, str]) -> Callable[[httpx2.Request], httpx2.Response]:
    """A reply as a server sends it: the body streamed in chunks, as raw bytes, never read
    ahead by the fake (so a `content-encoding` is the transport's to decode)."""

    def reply(_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, content=_streamed_chunks(body))

    return reply


JSON = {"content-type": "application/json"}
SSE = {"content-type": "text/event-stream"}
GZIP = JSON | {"content-encoding": "gzip"}


@pytest.mark.parametrize(
    ("reply", "request_"),
    [
        (httpx2.Response(200, content=_padded(5_000_000)), REQUEST),  # declared length
        (_raw(_padded(5_000_000), JSON), REQUEST),  # no length: counted as it streams
        (
            _raw(sse_bytes(sse_events(message_body(text_block("y" * 5_000_000)))), SSE),
            STREAMED,
        ),  # a stream whose deltas never stop growing
    ],
    ids=["declared", "chunked json", "sse"],
)
async def test_an_answer_past_the_cap_is_too_large_not_held(
    reply: Any, request_: ModelRequest
) -> None:
    """Over 4 MiB, however it comes: `ResponseTooLarge` (bad data), never the whole body."""
    with pytest.raises(ResponseTooLarge) as caught:
        await create(reply, request_)
    assert classify(caught.value, "asking Claude").result.error_type == "bad_data"


async def test_the_cap_is_the_transports_own_to_set() -> None:
    """`CappedTransport(inner, max_bytes=…)`: a body of the cap passes, one byte more is
    `ResponseTooLarge`, declared or counted as it streams."""
    body = b"x" * 1_000

    def send(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/chunked":  # no length: counted as it streams
            return _raw(body, JSON)(request)
        return httpx2.Response(200, content=body)  # a declared length

    for cap, fits in ((1_000, True), (999, False)):
        transport = CappedTransport(httpx2.MockTransport(send), max_bytes=cap)
        async with httpx2.AsyncClient(transport=transport) as client:
            for path in ("/declared", "/chunked"):
                if fits:
                    assert (await client.get(f"https://claude.test{path}")).content == body
                else:
                    with pytest.raises(ResponseTooLarge, match="999-byte cap"):
                        await client.get(f"https://claude.test{path}")


async def test_a_gzip_bomb_is_stopped_at_the_cap_while_it_inflates() -> None:
    """A small gzip body that inflates past the cap is stopped, though never asked for."""
    bomb = gzip.compress(_padded(20_000_000))
    assert len(bomb) < 100_000
    with pytest.raises(ResponseTooLarge):
        await create(_raw(bomb, GZIP))


async def test_a_small_gzip_answer_is_read_and_no_compression_is_asked_for() -> None:
    """A gzip answer under the cap reads as usual; requests say `Accept-Encoding: identity`."""
    body = gzip.compress(json.dumps(message_body(text_block("Sunny."))).encode())
    fake = FakeClaude(_raw(body, GZIP))
    model = ClaudeModel(api_key=KEY, base_url="https://claude.test", transport=fake.transport())
    reply = await model.create(REQUEST)
    await model.aclose()
    assert reply.text == "Sunny."
    assert fake.requests[0].headers["accept-encoding"] == "identity"


async def test_an_encoding_not_asked_for_is_bad_data() -> None:
    """A body in an encoding this client cannot cap while decoding is refused, unread."""
    with pytest.raises(BadUpstreamData):
        await create(_raw(b"\x00" * 64, JSON | {"content-encoding": "br"}))


def test_each_step_of_a_request_is_bounded() -> None:
    """Connect 10 s; the first byte, and each gap between bytes, 15 s: a dead endpoint is
    reported after two attempts (about 30 s), not after the SDK's ten minutes."""
    model = ClaudeModel(api_key=KEY)
    timeout = model.client.timeout
    assert isinstance(timeout, httpx2.Timeout)
    assert (timeout.connect, timeout.read) == (CONNECT_TIMEOUT_S, READ_TIMEOUT_S) == (10.0, 15.0)
