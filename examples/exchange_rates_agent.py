"""An agent with a tool of your own: `exchange_rate` next to the built-in ones.

    python examples/exchange_rates_agent.py
    python examples/exchange_rates_agent.py --primary-down "Exchange rate from GBP to USD?"

With ANTHROPIC_API_KEY set, Claude answers and the tool asks the real services. Without it,
the offline scripted model calls the tool, which is served only the real answers recorded in
tests/examples/fixtures (`recorded_services`): rates from USD (open.er-api.com) and from GBP
to USD (Frankfurter), and, for a code that is no ISO 4217 currency, open.er-api.com's answer
for a code it does not know. Any other pair has no recording: each source says it found
nothing there, never a made-up rate or a pretend outage. `--primary-down` (offline only)
makes open.er-api.com answer 503, so Frankfurter answers. It prints the answer, then the
turn's timeline.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import httpx

import offline
from agent import app
from agent.log import configure_logging
from agent.loop import Answer
from agent.settings import Settings
from errors import Gone
from examples.exchange_rates import ER_API, FRANKFURTER, exchange_rate_tool
from resilience import Event, Policy
from tools import make_client

QUESTION = "What's the exchange rate from USD to EUR?"
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "examples" / "fixtures"


async def ask(
    question: str, settings: Settings, *, primary_down: bool = False, policy: Policy | None = None
) -> Answer:
    """One answered turn; offline, the tool's services are the recordings."""
    transport = recorded_services(primary_down=primary_down) if settings.offline else None
    open_agent = offline.open_agent if settings.offline else app.open_agent
    async with make_client(transport=transport) as http:
        agent = await open_agent(settings, tools=[exchange_rate_tool(http)], policy=policy)
        try:
            return await agent.ask(question)
        finally:
            await agent.aclose()


def recorded_services(*, primary_down: bool = False) -> httpx.MockTransport:
    """open.er-api.com and Frankfurter as recorded, and nothing more: USD's rates from the
    one, GBP→USD from the other, and for a code that is no currency at all, open.er-api.com's
    recorded answer for a code it does not know. What was not recorded raises `Gone` (nothing
    there): honest offline, where a 503 would be a pretend outage."""

    def answer(request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.host == "open.er-api.com":
            base = url.path.rsplit("/", 1)[-1]
            if primary_down:
                return httpx.Response(503)
            if base == "USD":
                return _recorded("open_er_api_latest_USD.json")
            if not _is_currency(base):
                return _recorded("open_er_api_unsupported_code.json")
            raise Gone(f"no recording of {ER_API}'s rates from {base} offline", source=ER_API)
        pair = (url.params.get("base"), url.params.get("symbols"))
        if pair == ("GBP", "USD"):
            return _recorded("frankfurter_latest_GBP_USD_amount_1000000.json")
        raise Gone(f"no recording of {FRANKFURTER}'s rate {pair} offline", source=FRANKFURTER)

    return httpx.MockTransport(answer)


def _is_currency(code: str) -> bool:
    """Whether `code` is an ISO 4217 currency (one open.er-api.com may well list)."""
    import pycountry

    return pycountry.currencies.get(alpha_3=code) is not None


def _recorded(name: str) -> httpx.Response:
    content = (FIXTURES / name).read_bytes()
    return httpx.Response(200, content=content, headers={"Content-Type": "application/json"})


def timeline(attempts: Iterable[Event]) -> list[str]:
    """One aligned line per attempt: caller, source, number, outcome, action."""
    rows = [(a.caller, a.source, str(a.number), a.outcome, a.action or "") for a in attempts]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(5)]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    """Answer the question; exit 0 when answered (an honest "unavailable" counts), else 1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("question", nargs="?", default=QUESTION)
    parser.add_argument(
        "--primary-down", action="store_true", help="offline: open.er-api.com answers 503"
    )
    args = parser.parse_args(argv)
    settings = Settings.from_env(env)
    answer = asyncio.run(ask(args.question, settings, primary_down=args.primary_down))
    print(answer.text)
    print()
    print("\n".join(timeline(answer.attempts)))
    return 0 if answer.answered else 1


if __name__ == "__main__":
    configure_logging()  # the log's events go nowhere here; the timeline says what happened
    sys.exit(main())
