"""The benchmark's parts, and a tiny run of the whole bench: facts only, never timings."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from types import ModuleType

import httpx
import pytest
from anthropic import APIStatusError, AsyncAnthropic

from benchmarks import scripted_model
from benchmarks.harness import FaultServerProcess, Run
from benchmarks.leaks import leak_markers
from benchmarks.perf import BARE, OURS, WORKLOADS, print_perf, run_perf
from benchmarks.plan import Fault, Plan
from benchmarks.scenarios import SCENARIOS, Scenario, judge
from benchmarks.suite import Config, Results, run_suite
from benchmarks.world import place
from tests.script_loader import BENCH
from tests.script_loader import load_script as load_script_at

BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
THREE_AT_ONCE = Scenario("three cities", ("Tokyo", "Nairobi", "Perth"))
TINY = Config(
    soak_questions=20,
    overhead_samples=3,
    fallback_samples=2,
    e2a_lines=50,
    cli_lines=20,
    upstream_latency_s=0.0,
    timeout_s=30.0,
    scenarios=(
        BY_NAME["happy path"],
        BY_NAME["primary 503 once"],
        BY_NAME["unknown city"],
        THREE_AT_ONCE,
    ),
)


def first_request(question: str) -> dict[str, object]:
    return {"model": "m", "messages": [{"role": "user", "content": question}]}


def test_scripted_model_asks_once_per_city() -> None:
    """The first request gets one get_weather tool_use per city in the question."""
    reply = scripted_model.reply(first_request("What's the weather in Bonn, Paris and Lima?"), 1)
    cities = [block["input"]["city"] for block in reply["content"]]
    assert (reply["stop_reason"], cities) == ("tool_use", ["Bonn", "Paris", "Lima"])


def test_scripted_model_answers_only_from_tool_results() -> None:
    """The end_turn text quotes the temperature in the result, or says unavailable."""
    asked = scripted_model.reply(first_request("What's the weather in Bonn and Lima?"), 1)
    ids = [block["id"] for block in asked["content"]]
    results = [
        {
            "type": "tool_result",
            "tool_use_id": ids[0],
            "content": '{"temperature": "24.1\\u00b0C"}',
        },
        {"type": "tool_result", "tool_use_id": ids[1], "content": "down", "is_error": True},
    ]
    messages = [
        {"role": "user", "content": "What's the weather in Bonn and Lima?"},
        {"role": "assistant", "content": asked["content"]},
        {"role": "user", "content": results},
    ]
    reply = scripted_model.reply({"model": "m", "messages": messages}, 2)
    assert reply["content"][0]["text"] == "Bonn: 24.1°C. Lima: unavailable."


def test_unanswered_tool_use_is_the_apis_400() -> None:
    """A tool_use without a tool_result in the next message is a protocol error."""
    asked = scripted_model.reply(first_request("What's the weather in Bonn and Lima?"), 1)
    answer = {"type": "tool_result", "tool_use_id": asked["content"][0]["id"], "content": "{}"}
    messages = [
        {"role": "user", "content": "What's the weather in Bonn and Lima?"},
        {"role": "assistant", "content": asked["content"]},
        {"role": "user", "content": [answer]},
    ]
    error = scripted_model.protocol_error(messages)
    assert error is not None
    assert asked["content"][1]["id"] in error


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("HTTPStatusError(\"Server error '503 Service Unavailable'\")", "exception name"),
        ('{"error": "Failed after 3 attempts: Weather API: HTTP 503"}', "status code"),
        ("Could not reach http://127.0.0.1:8080/v1/forecast", "URL"),
        ('Traceback (most recent call last):\n  File "x.py", line 1', "traceback"),
        ("Error: Tool 'get_weather' not found", "Error: prefix"),
        ("Failed after 3 attempts: All connection attempts failed", "library message"),
        ("the key test-key was rejected", "secret"),
    ],
)
def test_leak_markers_find_raw_error_text(text: str, marker: str) -> None:
    """Each kind of developer-facing text is caught."""
    assert marker in leak_markers(text, ["test-key"])


def test_plain_sentences_are_not_leaks() -> None:
    """A plain sentence and a weather report pass."""
    report = '{"city": "Bonn", "temperature": "24.1°C", "humidity": "87%", "source": "open-meteo"}'
    sentence = "The weather service is busy right now; try again in a minute."
    assert leak_markers(report) == leak_markers(sentence) == []


@pytest.mark.parametrize(
    ("text", "obtainable", "outcome"),
    [
        (f"Bonn: {place('Bonn').temperature}°C.", True, "correct"),  # type: ignore[union-attr]
        ("Bonn: 99.9°C.", True, "wrong"),
        ("Bonn: unavailable.", True, "unavailable"),
        ("Bonn: unavailable.", False, "correct"),
        (None, True, "no answer"),
    ],
)
def test_judge(text: str | None, obtainable: bool, outcome: str) -> None:
    """A right number, a wrong one, an honest "unavailable", and no answer are told apart."""
    assert judge(text, ("Bonn",), obtainable) == outcome


@pytest.fixture
async def server() -> AsyncIterator[FaultServerProcess]:
    async with FaultServerProcess() as started:
        yield started


@pytest.mark.loopback
async def test_fault_server_honours_retry_after(server: FaultServerProcess) -> None:
    """A 429 with Retry-After keeps refusing until the wait has passed, then answers."""
    await server.apply(Plan(faults=(Fault(route="geocoding", status=429, retry_after=1, times=1),)))
    async with httpx.AsyncClient() as client:
        statuses = [
            (await client.get(server.urls.geocoding, params={"name": "Bonn"})).status_code
            for _ in range(2)
        ]
        await asyncio.sleep(1.1)
        statuses.append(
            (await client.get(server.urls.geocoding, params={"name": "Bonn"})).status_code
        )
    assert statuses == [429, 429, 200]


@pytest.mark.loopback
async def test_sse_stream_reads_with_the_sdk(server: FaultServerProcess) -> None:
    """The SDK's own stream parser reads the server's SSE into a tool_use message."""
    async with (
        AsyncAnthropic(api_key="test-key", base_url=server.base, max_retries=0) as client,
        client.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=100,
            messages=[{"role": "user", "content": "What's the weather in Bonn?"}],
        ) as stream,
    ):
        message = await stream.get_final_message()
    assert message.stop_reason == "tool_use"
    assert [block.input for block in message.content if block.type == "tool_use"] == [
        {"city": "Bonn"}
    ]


@pytest.mark.loopback
async def test_mid_stream_overload_reaches_the_sdk(server: FaultServerProcess) -> None:
    """An `overloaded_error` event mid-stream raises APIStatusError with that type."""
    await server.apply(Plan(faults=(Fault(route="messages", kind="stream_error", times=1),)))
    async with AsyncAnthropic(api_key="test-key", base_url=server.base, max_retries=0) as client:
        with pytest.raises(APIStatusError) as raised:
            async with client.messages.stream(
                model="claude-sonnet-4-6",
                max_tokens=100,
                messages=[{"role": "user", "content": "What's the weather in Bonn?"}],
            ) as stream:
                await stream.get_final_message()
    assert raised.value.type == "overloaded_error"


@pytest.fixture(scope="module")
def tiny() -> Results:
    """The whole bench at a tiny size, run once for the tests below."""
    return asyncio.run(run_suite(TINY))


def runs_of(results: Results, contender: str) -> dict[str, Run]:
    return {run.scenario: run for run in results.runs if run.contender == contender}


@pytest.mark.loopback
def test_tiny_bench_runs_every_part(tiny: Results) -> None:
    """Every contender is built, every part runs, and every ratio is measured."""
    assert (tiny.missing, tiny.problems) == ({}, [])
    assert {r.name for r in tiny.ratios} >= {
        "middleware overhead, happy path (vs bare httpx)",
        "primary refusing connections (vs the fallback alone)",
        "error-to-action in-process",
        "error-to-action through the CLI",
    }


@pytest.mark.loopback
def test_this_agent_is_right_and_clean(tiny: Results) -> None:
    """This agent answers every tiny scenario correctly, within protocol, leaking nothing."""
    mine = runs_of(tiny, "this agent")
    assert {name: run.outcome for name, run in mine.items()} == dict.fromkeys(mine, "correct")
    assert not any(run.leaked or run.protocol_errors or run.crash for run in mine.values())


@pytest.mark.loopback
def test_article_loop_breaks_protocol_on_three_cities(tiny: Results) -> None:
    """The baseline answers only the first tool_use, so the API's 400 ends its turn."""
    run = runs_of(tiny, "article loop")[THREE_AT_ONCE.name]
    assert (run.protocol_errors, run.crash, run.outcome) == (1, "BadRequestError", "no answer")


@pytest.mark.loopback
def test_tool_runner_sends_raw_exceptions(tiny: Results) -> None:
    """The SDK runner's repr(exc) reaches the model when Open-Meteo answers 503."""
    run = runs_of(tiny, "SDK tool runner")["primary 503 once"]
    assert "exception name" in next(iter(run.leaks.values()))


@pytest.mark.loopback
def test_tiny_soak_is_clean(tiny: Results) -> None:
    """Twenty questions under random faults: no crash, protocol error, leak or wrong number."""
    assert tiny.soak is not None
    assert tiny.soak.clean
    assert sum(tiny.soak.outcomes.values()) == 20


def load_script() -> ModuleType:
    return load_script_at(BENCH, "bench_script")


@pytest.mark.loopback
def test_script_reports_and_writes_json(tiny: Results, capsys: pytest.CaptureFixture[str]) -> None:
    """The script prints the table and checks, and its JSON round-trips."""
    script = load_script()
    script.print_report(tiny, quick=True)
    printed = capsys.readouterr().out
    data = json.loads(json.dumps(script.as_json(tiny)))
    assert "Side by side" in printed
    assert "Checks" in printed
    assert len(data["runs"]) == len(tiny.runs)
    assert data["soak"]["questions"] == 20


def test_bench_help_describes_it_in_whole_sentences() -> None:
    """`scripts/bench.py --help` gives the docstring's first paragraph, not half a line."""
    bench = load_script()
    description = bench._parser().description
    assert description.endswith("(benchmarks/perf.py).")
    assert description.startswith("Benchmark this agent beside")


def test_perf_runs_both_systems_on_the_same_questions_and_judges_them() -> None:
    """A tiny perf run: both systems answer the calm questions and say the degraded ones."""
    tiny = [dataclasses.replace(w, quick_questions=4) for w in WORKLOADS if w.name in
            ("c=20", "degraded")]  # fmt: skip
    perf = run_perf(quick=True, workloads=tiny)
    for system in (OURS, BARE):
        assert perf.rows["c=20"][system].outcomes == {"correct": 4}
        assert perf.rows["degraded"][system].outcomes == {"unavailable": 4}
    answers = [check for check in perf.checks() if "CPU" not in check.name]  # no timing here
    assert [check.ok for check in answers] == [True, True]
    assert json.loads(json.dumps(perf.as_json()))["rows"]["c=20"][OURS]["questions"] == 4
    print_perf(perf)
