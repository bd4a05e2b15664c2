"""Model calls: one retry layer, decided by error-to-action, with an injected sleep."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import pytest
from structlog.testing import capture_logs

from agent.models import ModelCaller, ModelRequest, ModelUnavailable
from agent.records import ASKED_AGAIN
from offline import FlakyModel, api_error
from resilience import Event
from tests.agent.helpers import SECRET, ScriptedModel, model_policy_on, text
from tests.conftest import Watched

REQUEST = ModelRequest(messages=[{"role": "user", "content": "hi"}])


async def call(model: Any, sleep: Any, observer: Any = None) -> tuple[Any, list[Event]]:
    timeline: list[Event] = []
    caller = ModelCaller(model, model_policy_on(sleep), listener=observer)
    return await caller.create(REQUEST, timeline), timeline


async def test_an_overloaded_model_is_retried_with_backoff(fake_sleep: Any, sleeps: list) -> None:
    """Two 529s then an answer: two waits within the backoff bounds, then the message."""
    model = ScriptedModel(
        api_error(529, "overloaded_error"), api_error(529, "overloaded_error"), text("ok")
    )
    message, timeline = await call(model, fake_sleep)
    assert message.content[0].text == "ok"
    assert len(sleeps) == 2
    assert all(0 <= s <= 8 for s in sleeps)
    assert [a.outcome for a in timeline] == ["overloaded", "overloaded", "ok"]


async def test_retry_after_is_honoured(fake_sleep: Any, sleeps: list) -> None:
    """A 429 with Retry-After: 3 waits three seconds, once."""
    limited = api_error(429, "rate_limit_error", headers={"retry-after": "3"})
    await call(ScriptedModel(limited, text("ok")), fake_sleep)
    assert sleeps == [3.0]


async def test_a_zero_retry_after_does_not_hot_loop(fake_sleep: Any, sleeps: list) -> None:
    """Retry-After: 0 still waits the minimum."""
    limited = api_error(429, "rate_limit_error", headers={"retry-after": "0"})
    await call(ScriptedModel(limited, text("ok")), fake_sleep)
    assert sleeps[0] >= 1.0


async def test_retries_stop_at_the_policy_bound(fake_sleep: Any, sleeps: list) -> None:
    """A model that stays overloaded is given up after three attempts."""
    model = ScriptedModel(*(api_error(529, "overloaded_error") for _ in range(5)))
    with capture_logs() as logs, pytest.raises(ModelUnavailable) as caught:
        await call(model, fake_sleep)
    assert len(model.requests) == 3
    assert len(sleeps) == 2
    failed = [e for e in logs if e["event"] == "model.attempt_failed"]
    assert len(failed) == 3
    assert all(e["developer_note"] for e in failed)
    assert [e["event"] for e in logs].count("model.call_failed") == 1
    assert caught.value.result.retryable is False


async def test_each_failed_attempt_is_logged_once(fake_sleep: Any) -> None:
    """Every failed attempt is one event; the call that got no answer, one more."""
    model = ScriptedModel(*(api_error(500, "api_error") for _ in range(3)))
    with capture_logs() as logs, pytest.raises(ModelUnavailable):
        await call(model, fake_sleep)
    events = [e["event"] for e in logs]
    assert events == ["model.attempt_failed", "model.attempt_failed", "model.call_failed"]


@pytest.mark.parametrize(
    ("status", "error_type"),
    [(401, "authentication_error"), (400, "invalid_request_error"), (402, "billing_error")],
)
async def test_failures_that_will_not_pass_are_not_retried(
    fake_sleep: Any, sleeps: list, status: int, error_type: str
) -> None:
    """A rejected key, a malformed request or spent credit is given up at once."""
    model = ScriptedModel(api_error(status, error_type), text("never"))
    with pytest.raises(ModelUnavailable):
        await call(model, fake_sleep)
    assert sleeps == []
    assert len(model.requests) == 1


async def test_a_rejected_key_says_how_to_fix_it_without_the_key(fake_sleep: Any) -> None:
    """The sentence for a 401 names ANTHROPIC_API_KEY and never the key itself."""
    error = api_error(401, "authentication_error", f"invalid x-api-key {SECRET}")
    with capture_logs() as logs, pytest.raises(ModelUnavailable) as caught:
        await call(ScriptedModel(error), fake_sleep)
    assert "ANTHROPIC_API_KEY" in caught.value.sentence
    assert SECRET not in caught.value.sentence
    assert SECRET not in str(logs)


async def test_a_mid_stream_overload_is_retried(fake_sleep: Any, sleeps: list) -> None:
    """An `event: error` overloaded_error (HTTP 200) is a capacity failure like a 529."""
    model = ScriptedModel(api_error(200, "overloaded_error"), text("ok"))
    message, _ = await call(model, fake_sleep)
    assert message.content[0].text == "ok"
    assert len(sleeps) == 1


async def test_a_connection_error_is_retried_once(fake_sleep: Any, sleeps: list) -> None:
    """Connection refused: one more try, then give up."""
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    model = ScriptedModel(*(anthropic.APIConnectionError(request=request) for _ in range(3)))
    with pytest.raises(ModelUnavailable):
        await call(model, fake_sleep)
    assert len(model.requests) == 2


async def test_retries_are_reported_for_the_status_line(fake_sleep: Any) -> None:
    """Each scheduled retry sends an event whose progress a person can read."""
    events = Watched()
    model = ScriptedModel(api_error(529, "overloaded_error"), text("ok"))
    await call(model, fake_sleep, events.append)
    [event] = [e for e in events if e.kind != "attempting"]
    assert event.kind == "waiting"
    assert "busy" in event.message


async def test_a_flaky_wrapper_fails_then_passes_through(fake_sleep: Any) -> None:
    """FlakyModel raises its injected errors first, then answers like the inner model."""
    flaky = FlakyModel(ScriptedModel(text("ok")), [api_error(529, "overloaded_error")])
    message, timeline = await call(flaky, fake_sleep)
    assert message.content[0].text == "ok"
    assert len(timeline) == 2


async def test_cancellation_is_not_retried(fake_sleep: Any) -> None:
    """A cancelled call propagates at once."""
    import asyncio

    model = ScriptedModel(asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await call(model, fake_sleep)
    assert len(model.requests) == 1


async def test_a_retry_after_beyond_the_cap_is_not_waited(fake_sleep: Any, sleeps: list) -> None:
    """Retry-After of an hour: no sleep at all; the sentence says when to try again."""
    limited = api_error(429, "rate_limit_error", headers={"retry-after": "3600"})
    with pytest.raises(ModelUnavailable) as caught:
        await call(ScriptedModel(limited, text("never")), fake_sleep)
    assert sleeps == []
    assert "minutes" in caught.value.sentence or "hour" in caught.value.sentence


async def test_an_unknown_model_says_to_check_the_model_setting(fake_sleep: Any) -> None:
    """404 not_found_error: not retried; the sentence names --model and AGENT_MODEL only."""
    error = api_error(404, "not_found_error", f"model: claude-nope <html> {SECRET}")
    model = ScriptedModel(error, text("never"))
    with pytest.raises(ModelUnavailable) as caught:
        await call(model, fake_sleep)
    assert len(model.requests) == 1
    assert "--model" in caught.value.sentence
    assert "AGENT_MODEL" in caught.value.sentence
    assert "claude-nope" not in caught.value.sentence
    assert SECRET not in caught.value.sentence


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (api_error(500, "api_error"), "claude failed — retrying now"),
        (
            api_error(429, "rate_limit_error", headers={"retry-after": "2.5"}),
            "claude is busy — waiting 3 seconds as it asked",
        ),
    ],
    ids=["a short backoff", "Retry-After: 2.5"],
)
async def test_retry_waits_are_worded_like_the_tools(
    fake_sleep: Any, error: Exception, words: str
) -> None:
    """Under half a second reads "retrying now"; longer waits round halves up to whole seconds."""
    events = Watched()
    model = FlakyModel(ScriptedModel(text("ok")), [error])
    model.name = "claude"
    caller = ModelCaller(
        model, model_policy_on(fake_sleep, base_backoff_s=0.01), listener=events.append
    )
    await caller.create(REQUEST, [])
    assert [e.message for e in events if e.kind != "attempting"] == [words]


async def test_a_retry_after_partial_text_ends_that_line_and_says_so_first(
    fake_sleep: Any,
) -> None:
    """Streamed "Let me", then a failure and a retry: the line is ended, and a line saying the
    model is asked again comes before the retried text (never a silent restart)."""
    seen: list[str] = []

    class Partial:
        name = "scripted"

        def __init__(self) -> None:
            self.calls = 0

        async def create(self, request: ModelRequest) -> Any:
            self.calls += 1
            assert request.on_text is not None
            if self.calls == 1:
                request.on_text("Let me")
                raise api_error(200, "overloaded_error")
            request.on_text("All good.")
            return text("All good.")

        async def aclose(self) -> None:
            return None

    caller = ModelCaller(Partial(), model_policy_on(fake_sleep))
    await caller.create(ModelRequest(messages=REQUEST.messages, on_text=seen.append), [])
    assert "".join(seen) == f"Let me\n{ASKED_AGAIN}\nAll good."


def _refused() -> anthropic.APIConnectionError:
    """What the SDK raises when nothing listens: APIConnectionError from httpx2.ConnectError."""
    request = httpx2.Request("POST", "https://claude.test/v1/messages")
    try:
        try:
            raise httpx2.ConnectError("[Errno 111] Connection refused")
        except httpx2.ConnectError as cause:
            raise anthropic.APIConnectionError(request=request) from cause
    except anthropic.APIConnectionError as error:
        return error


async def test_a_refused_connection_is_retried_at_once(fake_sleep: Any, sleeps: list) -> None:
    """Nothing was sent, so the one retry needs no backoff: no sleep at all, and the timeline
    says the wait was zero."""
    _, timeline = await call(ScriptedModel(_refused(), text("ok")), fake_sleep)
    assert sleeps == []
    assert [(a.outcome, a.wait_s) for a in timeline] == [("network", 0.0), ("ok", None)]


async def test_a_long_retry_after_ends_the_call_with_the_wait(
    fake_sleep: Any, sleeps: list
) -> None:
    """A Retry-After past the model policy's cap is not slept: the sentence says how long."""
    limited = api_error(429, "rate_limit_error", headers={"retry-after": "600"})
    with pytest.raises(ModelUnavailable) as caught:
        await call(ScriptedModel(limited, text("ok")), fake_sleep)
    assert sleeps == []
    assert "10 minutes" in caught.value.sentence


# --- a model that can't be reached: the sentence says what to check -------------------------


def _closed_port() -> int:
    """A loopback port with nothing listening (connections to it are refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_a_refused_model_endpoint_says_to_check_anthropic_base_url(fake_sleep: Any) -> None:
    """Connection refused at ANTHROPIC_BASE_URL: check that address, not "try again later"."""
    from agent.claude import ClaudeModel

    base_url = f"http://127.0.0.1:{_closed_port()}"
    model = ClaudeModel(api_key="k", base_url=base_url)
    caller = ModelCaller(model, model_policy_on(fake_sleep), base_url=base_url)
    try:
        with pytest.raises(ModelUnavailable) as caught:
            await caller.create(REQUEST, [])
    finally:
        await caller.aclose()
    sentence = caught.value.sentence
    assert "ANTHROPIC_BASE_URL" in sentence
    assert "could not be reached" in sentence
    assert base_url not in sentence  # the address itself may hold credentials
    assert sentence.count(".") == 1  # one sentence


async def test_a_model_host_not_found_without_base_url_says_to_check_the_network(
    fake_sleep: Any,
) -> None:
    """A DNS failure with the default endpoint: check the network connection."""
    from agent.claude import ClaudeModel

    def no_such_host(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("[Errno -2] Name or service not known", request=request)

    model = ClaudeModel(api_key="k", transport=httpx2.MockTransport(no_such_host))
    caller = ModelCaller(model, model_policy_on(fake_sleep))
    try:
        with pytest.raises(ModelUnavailable) as caught:
            await caller.create(REQUEST, [])
    finally:
        await caller.aclose()
    assert "network" in caught.value.sentence
    assert "ANTHROPIC_BASE_URL" not in caught.value.sentence


async def test_an_overloaded_model_keeps_the_verdicts_sentence(fake_sleep: Any) -> None:
    """Only a connection that never opened gets the "could not be reached" sentence."""
    model = ScriptedModel(*(api_error(529, "overloaded_error") for _ in range(3)))
    caller = ModelCaller(model, model_policy_on(fake_sleep), base_url="http://claude.test")
    with pytest.raises(ModelUnavailable) as caught:
        await caller.create(REQUEST, [])
    assert "could not be reached" not in caught.value.sentence


def _recorded(name: str) -> dict[str, Any]:
    import json
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "messages_api" / name
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _recorded_429() -> anthropic.APIStatusError:
    """The API's 429 as recorded: the 2024 headers (anthropic-ratelimit-*, x-should-retry, no
    retry-after) with the recorded per-minute rate-limit body."""
    headers = _recorded("error_429_headers_2024_anthropic_sdk_typescript_issue357.json")["headers"]
    body = _recorded("error_429_body_2024_cline_issue42.json")["body"]
    message = __import__("json").loads(body)["error"]["message"]
    headers = {k: v for k, v in headers.items() if k != "content-length"}
    return api_error(429, "rate_limit_error", message, headers=headers)


async def test_a_recorded_429_without_retry_after_is_retried(fake_sleep: Any, sleeps: list) -> None:
    """The API's recorded 429 (no retry-after, x-should-retry: true): retried, after the wait
    its spent limit's reset gives (20:00:00 reset − 19:59:59 date = 1 s), then the answer."""
    message, timeline = await call(ScriptedModel(_recorded_429(), text("ok")), fake_sleep)
    assert message.content[0].text == "ok"
    assert sleeps == [1.0]
    assert [a.outcome for a in timeline] == ["rate_limit", "ok"]


async def test_per_minute_in_the_words_is_no_wait(fake_sleep: Any, sleeps: list) -> None:
    """A 429 whose body says "per-minute" and no header says when: a backoff, not 60 s."""
    body = _recorded("error_429_body_2024_cline_issue42.json")["body"]
    message = __import__("json").loads(body)["error"]["message"]
    limited = api_error(429, "rate_limit_error", message)
    await call(ScriptedModel(limited, text("ok")), fake_sleep)
    assert len(sleeps) == 1
    assert sleeps[0] <= 8  # the policy's backoff ceiling, never the minute the words name


async def test_x_should_retry_false_is_honoured(fake_sleep: Any, sleeps: list) -> None:
    """x-should-retry: false on a 529: the server says another try will fail; none is made."""
    refused = api_error(529, "overloaded_error", headers={"x-should-retry": "false"})
    model = ScriptedModel(refused, text("never"))
    with pytest.raises(ModelUnavailable):
        await call(model, fake_sleep)
    assert len(model.requests) == 1
    assert sleeps == []
