"""examples/tenacity_retry.py: your own tenacity loop, every decision read from error-to-action."""

from __future__ import annotations

import httpx

from errors import plainness_problems
from examples.tenacity_retry import fetch_invoice, flaky_billing


async def _fetched(number: str) -> tuple[object, list[float], int]:
    waits: list[float] = []
    calls = 0

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    transport = flaky_billing()

    def counted(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return transport.handler(request)  # type: ignore[no-any-return]

    async with httpx.AsyncClient(transport=httpx.MockTransport(counted)) as client:
        answer = await fetch_invoice(client, number, sleep=sleep)
    return answer, waits, calls


async def test_a_503_and_a_429_are_waited_out_as_error_to_action_says() -> None:
    """503: a full-jitter backoff; 429 with Retry-After: 1: exactly that; then the data."""
    answer, waits, calls = await _fetched("A-17")
    assert answer == {"number": "A-17", "total": "42.00 EUR"}
    assert calls == 3
    assert 0 <= waits[0] <= 0.5
    assert waits[1] == 1.0


async def test_a_404_is_not_retried_and_ends_in_one_plain_sentence() -> None:
    """Not found: one attempt, no wait, and the final sentence (never the raw error)."""
    answer, waits, calls = await _fetched("B-99")
    assert (calls, waits) == (1, [])
    assert isinstance(answer, str)
    assert "invoice B-99" in answer
    assert plainness_problems(answer) == []
