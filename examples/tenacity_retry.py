"""error-to-action in your own tenacity code: three strategies, one verdict per failure.

    python examples/tenacity_retry.py

A service that answers 503, then 429 with `Retry-After: 1`, then the data is fetched with
tenacity's `AsyncRetrying`; whether to try again and how long to wait are read from
error-to-action's verdict on each failure. A failure that cannot pass (a 404) ends at once,
with one plain sentence for the person. Nothing here touches the network: the service is an
`httpx.MockTransport`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
from tenacity import AsyncRetrying, stop_after_attempt

from resilience import (
    retry_if_error_to_action,
    stop_error_to_action,
    verdict_of,
    wait_error_to_action,
)

Sleep = Callable[[float], Awaitable[None]]


async def fetch_invoice(
    client: httpx.AsyncClient, number: str, *, sleep: Sleep = asyncio.sleep
) -> dict[str, Any] | str:
    """The invoice as JSON, or the one sentence that says why it could not be had."""
    retrying = AsyncRetrying(
        retry=retry_if_error_to_action(f"fetching invoice {number}"),
        wait=wait_error_to_action(),
        stop=stop_error_to_action() | stop_after_attempt(5),
        sleep=sleep,
        reraise=True,
    )
    try:
        async for attempt in retrying:
            with attempt:
                response = await client.get(f"https://billing.example/invoices/{number}")
                response.raise_for_status()  # httpx's HTTPStatusError: status and headers
                answer: dict[str, Any] = response.json()
                return answer
    except httpx.HTTPError:
        verdict = verdict_of(attempt.retry_state)
        assert verdict is not None  # the last attempt failed: it has a verdict
        return verdict.final().result.user_message
    raise AssertionError("tenacity ended without an answer or an error")  # pragma: no cover


def flaky_billing() -> httpx.MockTransport:
    """503, then 429 asking for a second, then the invoice; any other number is not found."""
    answers: Iterator[httpx.Response] = iter(
        [
            httpx.Response(503, text="upstream busy"),
            httpx.Response(429, headers={"Retry-After": "1"}, text="slow down"),
            httpx.Response(200, json={"number": "A-17", "total": "42.00 EUR"}),
        ]
    )

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/A-17"):
            return next(answers)
        return httpx.Response(404, json={"error": "no such invoice"})

    return httpx.MockTransport(handle)


async def main() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # recorded, not slept: the example is instant
        waits.append(round(seconds, 2))

    async with httpx.AsyncClient(transport=flaky_billing()) as client:
        print(await fetch_invoice(client, "A-17", sleep=sleep))
        print(f"waited: {waits} (a backoff after the 503, the server's 1 s after the 429)")
        print(await fetch_invoice(client, "B-99", sleep=sleep))


if __name__ == "__main__":
    asyncio.run(main())
