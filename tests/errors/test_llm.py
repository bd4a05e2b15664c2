"""The Claude-backed skill: valid answers are used; anything else falls back to the rules."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import anthropic
import httpx2
import pytest
from structlog.testing import capture_logs

from errors import Action, classify_with_fallback_model, error_to_action, explain_with_claude

ERROR = "429 Too Many Requests. Retry-After: 30"
OPERATION = "Fetching billing data from billing_api"
MODEL = "claude-sonnet-4-6"

GOOD = {
    "error_type": "rate_limit",
    "user_message": "Your billing details are on their way; give it about half a minute.",
    "action": "wait",
    "action_detail": "Wait 30 seconds, then retry unchanged.",
    "retryable": True,
    "developer_note": "billing_api 429, Retry-After 30 s, retry_count=0.",
}


def message(text: str) -> dict[str, object]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 60},
    }


Handler = Callable[[httpx2.Request], httpx2.Response]


@pytest.fixture
def seen() -> list[dict[str, object]]:
    return []


def client_for(handler: Handler) -> anthropic.AsyncAnthropic:
    transport = httpx2.MockTransport(handler)
    return anthropic.AsyncAnthropic(
        api_key="sk-ant-test-000000000",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )


def answering(text: str, seen: list[dict[str, object]], status: int = 200) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        if status != 200:
            body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
            return httpx2.Response(status, json=body)
        return httpx2.Response(200, json=message(text))

    return handler


async def explain(handler: Handler, retry_count: int = 0) -> object:
    async with client_for(handler) as client:
        return await explain_with_claude(client, MODEL, ERROR, OPERATION, "", retry_count)


async def test_valid_answer_is_used(seen: list[dict[str, object]]) -> None:
    """A schema-valid, plain answer is returned as Claude gave it."""
    result = await explain(answering(json.dumps(GOOD), seen))
    assert result.model_dump(mode="json") == GOOD
    assert seen[0]["max_tokens"] == 250
    assert seen[0]["model"] == MODEL


async def test_fenced_json_is_accepted(seen: list[dict[str, object]]) -> None:
    """A JSON answer inside a code fence still counts."""
    result = await explain(answering(f"```json\n{json.dumps(GOOD)}\n```", seen))
    assert result.user_message == GOOD["user_message"]


def _bad_answers() -> Iterator[tuple[str, str]]:
    yield "malformed JSON", "{not json"
    yield "missing field", json.dumps({k: v for k, v in GOOD.items() if k != "action"})
    yield "unknown action", json.dumps({**GOOD, "action": "panic"})
    yield "retry without retryable", json.dumps({**GOOD, "retryable": False})
    yield "jargon", json.dumps({**GOOD, "user_message": "HTTP 429 from https://x.test."})
    yield "extra key", json.dumps({**GOOD, "confidence": 0.9})


@pytest.mark.parametrize(("why", "text"), list(_bad_answers()))
async def test_invalid_answer_falls_back(
    why: str, text: str, seen: list[dict[str, object]]
) -> None:
    """An answer that breaks the schema or the rules is replaced by the rules' answer."""
    with capture_logs() as logs:
        result = await explain(answering(text, seen))
    assert result == error_to_action(ERROR, OPERATION)
    assert [e["event"] for e in logs] == ["errors.llm_fallback"], why
    assert logs[0]["developer_note"]


async def test_retryable_after_two_retries_falls_back(seen: list[dict[str, object]]) -> None:
    """Claude may not call a third retry retryable."""
    result = await explain(answering(json.dumps(GOOD), seen), retry_count=2)
    assert not result.retryable


async def test_overloaded_api_falls_back(seen: list[dict[str, object]]) -> None:
    """A 529 from the API is logged once and the rules answer; no retry is made."""
    with capture_logs() as logs:
        result = await explain(answering("", seen, status=529))
    assert result.action is Action.WAIT
    assert len(seen) == 1
    assert logs[0]["error_type"] == "overloaded"


async def test_secret_in_error_not_sent(seen: list[dict[str, object]]) -> None:
    """The error text is redacted before it is sent to Claude."""
    async with client_for(answering(json.dumps(GOOD), seen)) as client:
        await explain_with_claude(client, MODEL, "401 key=sk-ant-api03-LEAKLEAKLEAK", "x")
    assert "LEAKLEAK" not in json.dumps(seen)


# --- the rules first, Claude for what they cannot place --------------------------------------

UNPLACED = "the moon is in the wrong phase"
ESCALATING = {
    **GOOD,
    "error_type": "environment_mismatch",
    "user_message": "Fetching billing data stopped because of a condition outside the app.",
    "action": "escalate",
    "retryable": False,
}


async def test_placed_errors_never_reach_claude(seen: list[dict[str, object]]) -> None:
    """An error the rules place is answered by them; Claude is not asked."""
    async with client_for(answering(json.dumps(ESCALATING), seen)) as client:
        assisted = await classify_with_fallback_model(client, MODEL, ERROR, OPERATION)
    assert (assisted.asked, assisted.kept, seen) == (False, False, [])
    assert assisted.result == error_to_action(ERROR, OPERATION)


async def test_unplaced_errors_get_claudes_checked_answer(seen: list[dict[str, object]]) -> None:
    """An unknown error goes to Claude; a valid, no-more-eager answer is kept."""
    async with client_for(answering(json.dumps(ESCALATING), seen)) as client:
        assisted = await classify_with_fallback_model(client, MODEL, UNPLACED, OPERATION)
    assert (assisted.asked, assisted.kept, len(seen)) == (True, True, 1)
    assert assisted.result.error_type == "environment_mismatch"


async def test_claude_may_not_retry_what_the_rules_cannot_place(
    seen: list[dict[str, object]],
) -> None:
    """Today's validation holds: an unplaced error is never made retryable by the model."""
    async with client_for(answering(json.dumps(GOOD), seen)) as client:
        assisted = await classify_with_fallback_model(client, MODEL, UNPLACED, OPERATION)
    assert (assisted.asked, assisted.kept) == (True, False)
    assert assisted.result == error_to_action(UNPLACED, OPERATION)


async def test_the_wait_for_claude_is_bounded() -> None:
    """A model that does not answer in time: the rules answer, and the fallback is logged."""

    class _Stalled:
        async def create(self, **request: object) -> object:
            await asyncio.sleep(10)
            raise AssertionError("not reached")

    client: Any = SimpleNamespace(messages=_Stalled())
    with capture_logs() as logs:
        assisted = await classify_with_fallback_model(
            client, MODEL, UNPLACED, OPERATION, wait_s=0.01
        )
    assert (assisted.asked, assisted.kept) == (True, False)
    assert assisted.result.error_type == "unknown"
    assert [event["event"] for event in logs] == ["errors.llm_fallback"]


async def test_without_a_client_the_rules_answer_exceptions_too() -> None:
    """No client (offline): the rules answer, for an exception as for a text."""
    assisted = await classify_with_fallback_model(None, MODEL, KeyError("x"), "getting it")
    assert (assisted.asked, assisted.result.error_type) == (False, "internal_error")
