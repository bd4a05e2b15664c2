"""`exchange_rate`: a tool of your own, made with `@tool`, with a primary and a fallback source.

    async with make_client() as http:
        agent = await open_agent(settings, tools=[exchange_rate_tool(http)])

The primary is open.er-api.com (about 160 currencies, refreshed daily, no key); the fallback
is Frankfurter (the European Central Bank's reference rates, about 30 currencies). Each source
checks what it was sent and raises the project's own errors, and error-to-action decides what
happens next:

- a currency the primary does not list is `NotFound`: the model is told to fix the code;
- an answer that makes no sense is `BadUpstreamData`: tried once more, then the fallback;
- an HTTP status (and its Retry-After) is raised by `tools.http.get_json`, which also caps
  the body's size.

A currency Frankfurter lacks is no proof that it does not exist (the ECB publishes few), so
its 404 (which error-to-action alone would read as a name to correct) is raised as `Gone`:
nothing there, and never a reason to tell the model to change the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Annotated, Any

import httpx
from pydantic import Field

from errors import BadUpstreamData, Gone, NotFound, UpstreamStatus
from tools import Tool, tool
from tools.http import get_json

__all__ = ["RateEndpoints", "exchange_rate_tool", "parse_frankfurter", "parse_open_er_api"]

ER_API, FRANKFURTER = "open.er-api.com", "frankfurter.dev"

Currency = Annotated[
    str,
    Field(pattern="^[A-Z]{3}$", description="An ISO 4217 currency code in capitals, e.g. USD."),
]


@dataclass(frozen=True, slots=True)
class RateEndpoints:
    """Where the two sources answer."""

    open_er_api: str = "https://open.er-api.com/v6/latest"  # GET {open_er_api}/{base}
    frankfurter: str = "https://api.frankfurter.dev/v1/latest"  # GET …?base=…&symbols=…


def exchange_rate_tool(
    client: httpx.AsyncClient, *, endpoints: RateEndpoints = RateEndpoints()
) -> Tool:
    """The `exchange_rate` tool, asking its sources through `client`."""

    async def frankfurter(base: Currency, quote: Currency) -> dict[str, Any]:
        params = {"base": base, "symbols": quote}
        try:
            body = await get_json(client, endpoints.frankfurter, source=FRANKFURTER, params=params)
        except UpstreamStatus as error:
            if error.status == 404:  # a currency the ECB does not publish: not a wrong code
                lacks = f"{FRANKFURTER} lists no {base}→{quote} rate"
                raise Gone(lacks, source=FRANKFURTER) from error
            raise
        return parse_frankfurter(body, base, quote)

    @tool(
        name="exchange_rate",
        activity="getting the exchange rate from {base} to {quote}",
        fallbacks=[frankfurter],
    )
    async def open_er_api(base: Currency, quote: Currency) -> dict[str, Any]:
        """How much one unit of `base` is worth in `quote`, at the latest daily rate.

        To convert an amount, multiply it by `rate`. The answer gives the rate's date and
        the service it came from.
        """
        body = await get_json(client, f"{endpoints.open_er_api}/{base}", source=ER_API)
        return parse_open_er_api(body, base, quote)

    return open_er_api


def parse_open_er_api(body: Any, base: str, quote: str) -> dict[str, Any]:
    """`{"result": "success", "base_code": base, "rates": {…}, "time_last_update_unix": …}`;
    its own errors come as `{"result": "error", "error-type": …}`, often with a 200."""
    if not isinstance(body, dict):
        raise BadUpstreamData(f"{ER_API} sent {type(body).__name__}, not an object", source=ER_API)
    if body.get("result") == "error":
        raise _refusal(body.get("error-type"), base)
    rates = body.get("rates")
    if (
        body.get("result") != "success"
        or body.get("base_code") != base
        or not isinstance(rates, dict)
    ):
        raise BadUpstreamData(f"{ER_API} sent no rates for {base}", source=ER_API)
    if quote not in rates:  # it lists every currency it knows
        raise NotFound(quote, what="currency", source=ER_API)
    day = _day(body.get("time_last_update_unix"), ER_API)
    return _answer(base, quote, _positive(rates[quote], ER_API), day, ER_API)


def _refusal(kind: object, base: str) -> Exception:
    """What open.er-api.com's `"result": "error"` means, as one of the project's errors."""
    if kind == "unsupported-code":
        return NotFound(base, what="currency", source=ER_API)
    reason = f"{ER_API} answered result=error, error-type {kind!r}"
    if kind == "rate-limited":
        return UpstreamStatus(429, reason, source=ER_API)  # a 429 in all but the status
    return BadUpstreamData(reason, source=ER_API)


def parse_frankfurter(body: Any, base: str, quote: str) -> dict[str, Any]:
    """`{"amount": 1.0, "base": base, "date": "2026-07-31", "rates": {quote: …}}`; the rates
    are for `amount` units of the base."""
    rates = body.get("rates") if isinstance(body, dict) else None
    if not isinstance(rates, dict) or body.get("base") != base or quote not in rates:
        raise BadUpstreamData(f"{FRANKFURTER} sent no {base}→{quote} rate", source=FRANKFURTER)
    rate = _positive(rates[quote], FRANKFURTER) / _positive(body.get("amount"), FRANKFURTER)
    return _answer(base, quote, rate, _day(body.get("date"), FRANKFURTER), FRANKFURTER)


def _positive(value: object, source: str) -> float:
    """A number above zero and short of absurd (NaN, infinity and JSON `true` are not)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e300:
        return float(value)
    raise BadUpstreamData(
        f"{source} sent {type(value).__name__} where a positive number belongs", source=source
    )


def _day(value: object, source: str) -> str:
    """The rate's date, ISO: from a Unix time or from "YYYY-MM-DD"."""
    try:
        if isinstance(value, str):
            return date.fromisoformat(value).isoformat()
        if isinstance(value, int) and not isinstance(value, bool):
            return datetime.fromtimestamp(value, UTC).date().isoformat()
    except (ValueError, OverflowError, OSError):
        pass
    raise BadUpstreamData(f"{source} sent no usable date for its rates", source=source)


def _answer(base: str, quote: str, rate: float, day: str, source: str) -> dict[str, Any]:
    return {"base": base, "quote": quote, "rate": rate, "date": day, "source": source}
