"""scripts/demo.py: every scenario answers, offline, without really sleeping."""

from __future__ import annotations

import io
import json
import re
from types import ModuleType
from typing import Any

import httpx
import pytest

from agent.console import wait_words
from agent.loop import Answer
from agent.settings import Settings
from agent.terminal import cells
from tests.agent.fake_claude import message_body
from tests.agent.helpers import SECRET


async def test_every_scenario_is_answered_offline(demo: ModuleType) -> None:
    """All eleven scenarios end answered, each failure logged with a developer_note."""
    outcomes = [await demo.run_scenario(s, Settings()) for s in demo.SCENARIOS]
    assert len(outcomes) == 11
    assert all(o.answer.answered for o in outcomes)
    failing = [o for o in outcomes if o.scenario.name != "happy" and o.scenario.name != "several"]
    assert all(any(e.get("developer_note") for e in o.events) for o in failing)


async def test_the_rate_limit_wait_is_requested_not_slept(demo: ModuleType) -> None:
    """Retry-After: 2 goes to the demo's recording sleep, once, and the retry then answers."""
    [scenario] = [s for s in demo.SCENARIOS if s.name == "rate_limit"]
    outcome = await demo.run_scenario(scenario, Settings())
    weather = [(a.outcome, a.wait_s) for a in outcome.answer.attempts if a.caller == "get_weather"]
    assert outcome.waits == [2.0]
    assert weather == [("rate_limit", 2.0), ("ok", None)]


async def test_the_simulated_services_answer_at_custom_endpoints(demo: ModuleType) -> None:
    """WTTR_URL and the Open-Meteo URLs set: the demo's services answer there, as the tool asks."""
    env = {
        "OPEN_METEO_GEOCODING_URL": "http://geo.test/v1/search",
        "OPEN_METEO_FORECAST_URL": "http://forecast.test/v1/forecast",
        "WTTR_URL": "http://wttr.test",
    }
    [scenario] = [s for s in demo.SCENARIOS if s.name == "happy"]
    outcome = await demo.run_scenario(scenario, Settings.from_env(env))
    [result] = outcome.answer.tool_results
    assert json.loads(result["content"])["source"] == "open-meteo"


def test_an_answer_holding_markup_is_shown_as_it_is(demo: ModuleType) -> None:
    """Model text with "[/x]" or "[bold]" is printed literally, never parsed as markup."""
    out = demo.Printer(io.StringIO(), 120, color=True)
    answer = Answer(text="Use [bold]x[/] then [/x] done.")
    demo.show(out, 1, demo.Outcome(demo.SCENARIOS[0], answer, [], [], 0.0))
    assert "Answer: Use [bold]x[/] then [/x] done." in out.stream.getvalue()


def test_escape_sequences_in_an_answer_never_reach_the_terminal(demo: ModuleType) -> None:
    """The demo prints the model's text through the one sanitiser: no OSC, no CSI, no BEL."""
    out = demo.Printer(io.StringIO(), 120, color=True)
    hostile = "Sunny\x1b]0;pwned\x07 and\x1b[2J mild."
    answer = Answer(
        text=hostile,
        tool_results=[{"type": "tool_result", "tool_use_id": "t", "content": "ok\x1b[2J"}],
    )
    demo.show(out, 1, demo.Outcome(demo.SCENARIOS[0], answer, [], [], 0.0))
    shown = re.sub(r"\x1b\[[0-9;]*m", "", out.stream.getvalue())  # the demo's own colours
    assert "Answer: Sunny and mild." in shown
    assert "\x1b]" not in shown
    assert "\x07" not in shown
    assert "[2J" not in shown


async def test_both_down_is_a_degraded_answer_without_numbers(demo: ModuleType) -> None:
    """The degraded scenario tells the model the weather is unavailable, with no figures."""
    [scenario] = [s for s in demo.SCENARIOS if s.name == "degraded"]
    outcome = await demo.run_scenario(scenario, Settings())
    [result] = outcome.answer.tool_results
    assert json.loads(result["content"])["degraded"] is True
    assert "°" not in outcome.answer.text


async def test_invalid_input_is_fixed_by_the_model(demo: ModuleType) -> None:
    """The spoiled call gets fix_input; the model resends it corrected and answers."""
    [scenario] = [s for s in demo.SCENARIOS if s.name == "invalid_input"]
    outcome = await demo.run_scenario(scenario, Settings())
    first, second = outcome.answer.tool_results
    assert first["is_error"] is True
    assert "is_error" not in second
    assert "Sydney" in outcome.answer.text


def test_main_prints_every_scenario_and_a_summary(
    demo: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole demo, offline: exit 0, each title and the summary on stdout."""
    assert demo.main(["--offline"], env={}) == 0
    out = capsys.readouterr().out
    assert all(s.title in out for s in demo.SCENARIOS)
    assert "Summary" in out


async def test_with_a_key_the_scenarios_run_against_claude(
    demo: ModuleType, httpx2_mock: Any
) -> None:
    """Online, the model-overloaded scenario fails Claude once, then Claude answers."""
    reply = message_body({"type": "text", "text": "Mumbai is warm."})
    route = httpx2_mock.post("https://claude.test/v1/messages").mock(
        return_value=httpx.Response(200, json=reply)
    )
    settings = Settings(api_key=SECRET, base_url="https://claude.test", offline=False)
    [scenario] = [s for s in demo.SCENARIOS if s.name == "model_overloaded"]
    outcome = await demo.run_scenario(scenario, settings)
    assert outcome.answer.text == "Mumbai is warm."
    assert route.call_count == 1
    assert [a.outcome for a in outcome.answer.attempts] == ["overloaded", "ok"]


async def test_the_fallback_model_answers_when_the_primary_stays_overloaded(
    demo: ModuleType,
) -> None:
    """Offline, the model_fallback scenario: three 529s, then the second model answers, and
    the next model call skips the primary while its breaker is open."""
    [scenario] = [s for s in demo.SCENARIOS if s.name == "model_fallback"]
    outcome = await demo.run_scenario(scenario, Settings())
    models = [
        (a.source, a.number, a.outcome) for a in outcome.answer.attempts if a.caller == "model"
    ]
    assert models == [
        ("offline-scripted", 1, "overloaded"),
        ("offline-scripted", 2, "overloaded"),
        ("offline-scripted", 3, "overloaded"),
        ("offline-fallback", 1, "ok"),
        ("offline-scripted", 0, "source_skipped"),
        ("offline-fallback", 1, "ok"),
    ]
    assert outcome.answer.model == "offline-fallback"
    assert "8.8°C" in outcome.answer.text


def test_several_scenarios_after_one_scenario_option(demo: ModuleType) -> None:
    """`--scenario happy rate_limit`, as the docstring shows; repeating the option works too."""
    assert demo.parse(["--scenario", "happy", "rate_limit"]).scenario == ["happy", "rate_limit"]
    repeated = demo.parse(["--scenario", "happy", "--scenario", "several"]).scenario
    assert repeated == ["happy", "several"]


def _shown(demo: ModuleType, name: str) -> str:
    import asyncio

    [scenario] = [s for s in demo.SCENARIOS if s.name == name]
    outcome = asyncio.run(demo.run_scenario(scenario, Settings()))
    out = demo.Printer(io.StringIO(), 200)
    demo.show(out, 1, outcome)
    out.lines(demo.summary([outcome], out.width or 10_000))
    output = out.stream.getvalue()
    assert isinstance(output, str)
    return output


def test_no_empty_developer_log_heading(demo: ModuleType) -> None:
    """A scenario with nothing logged says "nothing" rather than a heading with nothing under."""
    shown = _shown(demo, "happy")
    assert "What the developer log recorded: nothing" in shown
    lines = shown.splitlines()
    heading = next(i for i, line in enumerate(lines) if "developer log" in line)
    assert lines[heading + 1].startswith("Answer:")


def test_the_summary_says_the_waits_are_simulated(demo: ModuleType) -> None:
    """ "2.0 s" of waits beside a few ms taken: the summary says the sleeps are simulated."""
    shown = _shown(demo, "rate_limit")
    assert "2.0 s" in shown
    assert "simulated" in shown
    assert "recorded, not slept" in " ".join(shown.split())


def _everything(demo: ModuleType, out: Any) -> str:
    """Every scenario and the summary, printed by `out`."""
    import asyncio

    outcomes = [asyncio.run(demo.run_scenario(s, Settings())) for s in demo.SCENARIOS]
    for number, outcome in enumerate(outcomes, 1):
        demo.show(out, number, outcome)
    out.lines(demo.summary(outcomes, out.width or 10_000))
    return str(out.stream.getvalue())


@pytest.mark.parametrize("width", [80, 40])
def test_on_a_narrow_terminal_every_line_fits(demo: ModuleType, width: int) -> None:
    """At 80 and 40 columns no line is longer than the screen or ends in spaces."""
    shown = _everything(demo, demo.Printer(io.StringIO(), width))
    too_long = [line for line in shown.splitlines() if cells(line) > width]
    assert too_long == []
    assert [line for line in shown.splitlines() if line != line.rstrip()] == []


def test_at_80_columns_a_json_result_breaks_between_members(demo: ModuleType) -> None:
    """A tool's JSON answer wraps between its members, never inside a value."""
    shown = _shown_at(demo, "several", demo.Printer(io.StringIO(), 80))
    told = shown[shown.index("model was told:") : shown.index("What the developer")]
    assert '"city": "New York City, United States",' in told
    assert '"condition": "moderate rain",' in told


def test_the_summary_is_a_table_at_80_columns(demo: ModuleType) -> None:
    """The summary's columns fit 80 columns: a ruled table, not one block per row."""
    shown = _shown_at(demo, "model_fallback", demo.Printer(io.StringIO(), 80))
    summary = shown[shown.index("Summary") :].splitlines()
    assert summary[1].split() == [
        "scenario",
        "answered",
        "model",
        "calls",
        "attempts",
        "failures",
        "waits",
        "took",
    ]
    assert set(summary[2]) == {"─"}


def test_piped_each_line_is_whole_and_plain(demo: ModuleType) -> None:
    """Off a terminal: each JSON result exactly as the model read it, no trailing spaces."""
    import asyncio

    [scenario] = [s for s in demo.SCENARIOS if s.name == "several"]
    told = asyncio.run(demo.run_scenario(scenario, Settings())).answer.tool_results
    shown = _everything(demo, demo.Printer(io.StringIO()))
    assert all(f"\n  {result['content']}\n" in shown for result in told)
    assert [line for line in shown.splitlines() if line != line.rstrip()] == []
    assert "\x1b" not in shown


def test_a_skipped_model_shows_no_attempt_number(demo: ModuleType) -> None:
    """model_fallback: the primary skipped (its breaker open) made no attempt: no "#0"."""
    shown = _shown_at(demo, "model_fallback", demo.Printer(io.StringIO(), 80))
    [row] = [line for line in shown.splitlines() if line.startswith("model") and "skip" in line]
    assert row.split() == ["model", "offline-scripted", "source_skipped", "skip"]


def _shown_at(demo: ModuleType, name: str, out: Any) -> str:
    import asyncio

    [scenario] = [s for s in demo.SCENARIOS if s.name == name]
    outcome = asyncio.run(demo.run_scenario(scenario, Settings()))
    demo.show(out, 1, outcome)
    out.lines(demo.summary([outcome], out.width or 10_000))
    return str(out.stream.getvalue())


async def test_waits_read_the_same_in_the_timeline_and_the_summary(demo: ModuleType) -> None:
    """Each scenario's waits: the same words in its timeline and in the summary."""
    for scenario in demo.SCENARIOS:
        outcome = await demo.run_scenario(scenario, Settings())
        timeline = [wait_words(a.wait_s) for a in outcome.answer.attempts if a.wait_s is not None]
        [row] = demo.summary([outcome], 10_000)[3:4]
        assert (", ".join(timeline) or "—") in row
