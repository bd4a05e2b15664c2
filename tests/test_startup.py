"""Start-up: offline mode never imports the anthropic SDK, OpenTelemetry or the MCP SDK (they
are imported only when asked for), whatever the command; with a key, Claude's SDK is imported
on a background thread, not before the prompt. Presence only, never timings
(benchmarks/startup.py measures those).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agent.app import open_agent
from agent.claude import ClaudeModel
from agent.cli import main
from agent.settings import Settings
from benchmarks.harness import REPO
from benchmarks.startup import Case, Row, Startup, print_startup, run_startup
from tests.script_loader import BENCH, load_script

ASKED_FOR_ONLY = {"anthropic", "httpx2", "opentelemetry", "mcp"}  # Claude, --otel, --mcp
_SCRIPT = """
import json, sys
from agent.cli import main
code = main(json.loads(sys.argv[1]))
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def _clean_env() -> dict[str, str]:
    """This environment without the agent's, the SDK's and OpenTelemetry's settings, as a
    person's may be; but the test's own folder for saved conversations (`tests/conftest.py`)."""
    drop = ("ANTHROPIC_", "AGENT_", "OTEL_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    return clean | {"AGENT_DATA_DIR": os.environ["AGENT_DATA_DIR"]}


def _modules(argv: list[str], stdin: str = "", env: dict[str, str] | None = None) -> set[str]:
    """Every module `agent ARGV` had imported by its end, run in a fresh interpreter."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", _SCRIPT, json.dumps(argv)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**_clean_env(), **(env or {})},
        timeout=120,
        check=False,
    )
    last = done.stdout.rstrip().splitlines()[-1]
    assert last.startswith("MODULES "), done.stdout + done.stderr
    return set(json.loads(last.removeprefix("MODULES ")))


def _roots(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["--help"], ""),
        (["ask", "--offline", "What is 2+2?"], ""),
        (["ask", "--offline", "Weather in Rome?"], ""),
        (["ask", "What is 2+2?"], ""),  # no key: offline
        (["chat", "--offline"], "/quit\n"),
        (["explain-error"], json.dumps({"error": "reset by peer", "operation": "x"}) + "\n"),
    ],
    ids=["help", "sum", "weather", "no key", "chat", "explain-error"],
)
def test_offline_never_imports_the_sdks_asked_for_only(argv: list[str], stdin: str) -> None:
    """No anthropic (nor its httpx2), no OpenTelemetry, no MCP SDK unless asked for."""
    assert not _roots(_modules(argv, stdin)) & ASKED_FOR_ONLY


_PROCESS = """
import atexit, gc, json, sys
import agent.cli
seen = {}
loaded = agent.cli._loaded
def watched():
    seen["before"] = gc.isenabled()
    loaded()
    seen["after"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()
agent.cli._loaded = watched
def report():
    reader = sys.modules.get("errors._text")
    seen["read"] = bool(reader and reader._BUILT)
    print("STATE " + json.dumps(seen), file=sys.stderr)
atexit.register(report)
sys.argv = ["agent", *json.loads(sys.argv[1])]
raise SystemExit(agent.cli.run_process())
"""


def _process_state(argv: list[str], stdin: str = "") -> dict[str, object]:
    """`agent ARGV` as the console script runs it: whether the collector was off while the
    command loaded and on once its work began, how many objects were frozen then, whether the
    error reader's vocabulary was built by the end."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", _PROCESS, json.dumps(argv)],
        input=stdin, capture_output=True, text=True, cwd=REPO, env=_clean_env(), timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = done.stderr.rstrip().splitlines()[-1]
    state: dict[str, object] = json.loads(last.removeprefix("STATE "))
    return state


def test_the_console_script_loads_without_the_collector_then_freezes_what_loaded() -> None:
    """An offline `agent ask` run as the console script: the collector is off while the
    command loads, on once the work begins, with the loaded modules' objects (tens of
    thousands) frozen out of its way; a sum needs no error reader, so its vocabulary is never
    built."""
    state = _process_state(["ask", "--offline", "What is 2+2?"])
    assert (state["before"], state["after"], state["read"]) == (False, True, False)
    assert isinstance(state["frozen"], int)
    assert state["frozen"] > 20_000


def test_explain_error_freezes_too_and_builds_the_vocabulary_on_its_first_text() -> None:
    """explain-error: the same start-up; it reads a text, so the vocabulary is built then."""
    line = json.dumps({"error": "Connection reset by peer", "operation": "x"}) + "\n"
    state = _process_state(["explain-error"], line)
    assert (state["before"], state["after"], state["read"]) == (False, True, True)
    assert isinstance(state["frozen"], int)
    assert state["frozen"] > 20_000


def test_main_called_in_process_leaves_the_callers_collector_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`main` from a test or a program: nothing frozen, the collector as the caller left it,
    on or off."""
    frozen = gc.get_freeze_count()
    assert main(["ask", "--offline", "What is 2+2?"], env={}) == 0
    assert (gc.get_freeze_count(), gc.isenabled()) == (frozen, True)
    gc.disable()
    try:
        assert main(["ask", "--offline", "What is 2+2?"], env={}) == 0
        assert (gc.get_freeze_count(), gc.isenabled()) == (frozen, False)
    finally:
        gc.enable()
    assert capsys.readouterr().out.count("4") >= 2


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
