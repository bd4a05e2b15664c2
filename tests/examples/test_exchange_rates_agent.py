"""examples/exchange_rates_agent.py offline: the scripted model calls exchange_rate, the tool is
served the recorded answers, and the answer and the turn's timeline are printed."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from agent.settings import Settings
from examples.exchange_rates_agent import ask, main, timeline
from resilience import Policy


def test_it_answers_offline_from_the_recorded_rate(capsys: pytest.CaptureFixture[str]) -> None:
    """No key: the answer from open.er-api.com's recorded USD rates, then the timeline."""
    with capture_logs():
        code = main([], env={})
    assert code == 0
    assert capsys.readouterr().out.splitlines() == [
        "1 USD is 0.852966 EUR (the rate of 2025-09-30, from open.er-api.com).",
        "",
        "model          offline-scripted  1  ok",
        "exchange_rate  open_er_api       1  ok",
        "model          offline-scripted  1  ok",
    ]


async def test_with_the_primary_down_frankfurter_answers(policy: Policy) -> None:
    """--primary-down: two 503s from open.er-api.com, then Frankfurter's recorded GBP rate."""
    answer = await ask(
        "What's the exchange rate from GBP to USD?", Settings(), primary_down=True, policy=policy
    )
    assert answer.text == "1 GBP is 1.326528 USD (the rate of 2022-03-04, from frankfurter.dev)."
    assert timeline(answer.attempts)[1:4] == [
        "exchange_rate  open_er_api       1  server_error  retry",
        "exchange_rate  open_er_api       2  server_error  escalate",
        "exchange_rate  frankfurter       1  ok",
    ]


async def test_a_pair_with_no_recording_is_answered_as_unavailable(policy: Policy) -> None:
    """JPY was not recorded: both services answer 503, and the model says so plainly."""
    answer = await ask("Exchange rate from JPY to EUR?", Settings(), policy=policy)
    assert answer.answered
    assert answer.text.startswith(
        "Sorry — getting the exchange rate from JPY to EUR still isn't working"
    )
