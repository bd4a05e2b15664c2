"""Start-up stays light (issue 12): which modules each command loads, in a fresh interpreter.

Presence only, never timings (benchmarks/startup.py measures those). Offline mode never
imports the anthropic SDK; `--help` imports neither the tools nor the error library; a sum
loads no HTTP stack; explain-error without --llm loads neither rich nor httpx; only the REPL
loads rich; and with a key, Claude's SDK is imported on a background thread, not before the
prompt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agent.app import open_agent
from agent.models.claude import ClaudeModel
from agent.settings import Settings
from benchmarks.harness import REPO
from benchmarks.startup import Case, Row, Startup, print_startup, run_startup
from tests.script_loader import BENCH, load_script

# The SDK and its HTTP stack; rich and what httpx's command line would bring; the extras.
SDK = {"anthropic", "httpx2"}
HEAVY = SDK | {"rich", "click", "pygments", "mcp", "jsonschema", "opentelemetry"}
_SCRIPT = """
import json, sys
from agent.cli import main
code = main(json.loads(sys.argv[1]))
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def _modules(argv: list[str], stdin: str = "", env: dict[str, str] | None = None) -> set[str]:
    """Every module `agent ARGV` had imported by its end, run in a fresh interpreter."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENT_"))}
    clean = {k: v for k, v in clean.items() if not k.startswith("OTEL_")}
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", _SCRIPT, json.dumps(argv)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**clean, **(env or {})},
        timeout=120,
        check=False,
    )
    last = done.stdout.rstrip().splitlines()[-1]
    assert last.startswith("MODULES "), done.stdout + done.stderr
    return set(json.loads(last.removeprefix("MODULES ")))


def _roots(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["ask", "--help"], ["chat", "--help"], ["explain-error", "--help"]],
    ids=["agent", "ask", "chat", "explain-error"],
)
def test_help_loads_only_the_command_line(argv: list[str]) -> None:
    roots = _roots(_modules(argv))
    assert not roots & (HEAVY | {"httpx", "pydantic", "structlog", "errors", "tools"})


def test_an_offline_sum_loads_no_sdk_no_http_stack_and_no_rich() -> None:
    modules = _modules(["ask", "--offline", "What is 2+2?"])
    assert not _roots(modules) & (HEAVY | {"httpx"})
    assert "tools.weather._service" not in modules  # the weather tool's work, unasked for
    assert "offline._services" not in modules  # the simulated weather services


def test_an_offline_weather_question_loads_httpx_but_no_sdk_and_no_rich() -> None:
    """The simulated services answer through httpx's MockTransport: httpx is needed here."""
    roots = _roots(_modules(["ask", "--offline", "Weather in Rome?"]))
    assert "httpx" in roots
    assert not roots & HEAVY


def test_no_key_is_offline_and_loads_no_sdk() -> None:
    roots = _roots(_modules(["ask", "What is 2+2?"]))
    assert not roots & SDK


def test_explain_error_without_llm_loads_no_sdk_no_http_stack_and_no_rich() -> None:
    line = json.dumps({"error": "ConnectionResetError: reset by peer", "operation": "x"})
    roots = _roots(_modules(["explain-error"], stdin=line + "\n"))
    assert not roots & (HEAVY | {"httpx"})


def test_offline_chat_loads_rich_for_its_screen_but_no_sdk_and_no_http_stack() -> None:
    roots = _roots(_modules(["chat", "--offline"], stdin="/quit\n"))
    assert "rich" in roots
    assert not roots & (SDK | {"httpx"})


async def test_with_a_key_the_models_are_stand_ins_until_the_sdk_is_loaded() -> None:
    """open_agent returns at once with models named as Claude's, the SDK importing on a
    thread of its own (the first model call waits for it)."""
    settings = Settings(
        api_key="sk-ant-test",
        base_url="https://claude.test",
        offline=False,
        fallback_model="claude-haiku-4-5",
    )
    agent = await open_agent(settings)
    try:
        models = agent.caller.models
        assert [model.name for model in models] == [settings.model, "claude-haiku-4-5"]
        assert not any(isinstance(model, ClaudeModel) for model in models)
    finally:
        await agent.aclose()


def test_the_startup_table_has_a_row_per_command_as_ratios_to_the_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """benchmarks.startup, on two cheap commands: medians, ratios to the first, the table."""
    cases = (
        Case("python -c pass", ("-c", "pass")),
        Case("agent --help", ("-m", "agent", "--help")),
    )
    result = run_startup(quick=True, cases=cases)
    assert [row.case.name for row in result.rows] == ["python -c pass", "agent --help"]
    assert result.rows[0].ratio == 1.0
    assert all(row.runs == 7 and row.median_s > 0 for row in result.rows)
    print_startup(result)
    table = capsys.readouterr().out
    assert "agent --help" in table
    assert "load average" in table


def test_bench_only_startup_reports_a_missed_aim_without_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`scripts/bench.py --only startup`: the table and its JSON; a missed aim is no failure."""
    script = _bench_script()
    slow = Case("agent ask", ("-m", "agent", "ask", "x"), aim=1.5)
    base = Case("python -c pass", ("-c", "pass"))
    result = Startup(
        0.1, (Row(base, 0.1, 1.0, 7), Row(slow, 0.3, 3.0, 7)), 7, 2, (1.0, 1.0, 1.0), "3.11"
    )
    monkeypatch.setattr(script, "run_startup", lambda **_: result)
    monkeypatch.setattr(script, "run_hostile", _not_run)
    monkeypatch.setattr(script, "run_suite", _not_run)
    out = tmp_path / "bench.json"
    assert script.main(["--quick", "--only", "startup", "--out", str(out)]) == 0
    assert "3.00×  ≤ 1.5× ✗" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert [row["met"] for row in data["startup"]["rows"]] == [None, False]
    assert data["broken"] is False


def _not_run(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("--only startup ran another part")


def _bench_script() -> ModuleType:
    return load_script(BENCH, "bench_script_startup")
