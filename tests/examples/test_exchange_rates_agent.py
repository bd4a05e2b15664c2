"""examples/exchange_rates_agent.py offline: the scripted model calls exchange_rate, the tool is
served the recorded answers, and the answer and the turn's timeline are printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs

from agent.settings import Settings
from examples.exchange_rates_agent import ask, main, timeline
from resilience import Policy

README = Path(__file__).resolve().parents[2] / "README.md"


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


NO_SUCH_CODE = "no currency called “XYZ” could be found; check the name and try again."
NOTHING_THERE = "found nothing there, so it will be skipped."


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What's the exchange rate from XYZ to EUR?", NO_SUCH_CODE),
        ("What's the exchange rate from USD to XYZ?", NO_SUCH_CODE),
        ("What's the exchange rate from EUR to GBP?", NOTHING_THERE),
        ("Exchange rate from JPY to EUR?", NOTHING_THERE),
    ],
)
async def test_offline_answers_say_what_the_readme_says(
    question: str, said: str, policy: Policy
) -> None:
    """An unknown code, or a pair with no recording: the README's sentence, never an outage."""
    answer = await ask(question, Settings(), policy=policy)
    assert answer.answered
    assert answer.text.endswith(said)
    assert said in " ".join(README.read_text(encoding="utf-8").split())
    assert {a.outcome for a in answer.attempts} <= {"ok", "not_found"}
