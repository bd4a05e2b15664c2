"""The `agent` command line: exit codes, streams, log file, and no secret anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent.cli import EXIT_NO_ANSWER, EXIT_OK, EXIT_USAGE
from tests.agent.fake_claude import message_body
from tests.agent.helpers import SECRET
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
URL = "https://claude.test/v1/messages"


run = run_cli


def online(tmp_path: Path) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": SECRET,
        "ANTHROPIC_BASE_URL": "https://claude.test",
        "AGENT_LOG_FILE": str(tmp_path / "agent.jsonl"),
    }


def test_ask_offline_prints_the_answer_and_exits_0() -> None:
    """The answer on stdout, the offline banner on stderr, exit 0."""
    code, out, err = run(["ask", "what is 12 * 7?"])
    assert (code, out) == (EXIT_OK, "12 * 7 = 84.\n")
    assert "Offline" in err
    assert "ANTHROPIC_API_KEY" in err


def test_an_unquoted_question_is_joined() -> None:
    """`agent ask what is 2 + 2` works without quotes."""
    assert run(["ask", "what", "is", "2", "+", "2"])[1] == "2 + 2 = 4.\n"


def test_a_degraded_answer_still_exits_0() -> None:
    """A graceful "could not" answer counts as answered."""
    code, out, _ = run(["--offline", "ask", "what is 1/0?"])
    assert code == EXIT_OK
    assert "zero" in out


@pytest.mark.parametrize("argv", [["ask"], ["ask", "   "], ["--bogus"], ["frobnicate"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    """A missing or empty question, or an unknown option or command, is a usage error."""
    code, out, err = run(argv)
    assert code == EXIT_USAGE
    assert out == ""
    assert err


def test_help_exits_0_on_stdout() -> None:
    """--help goes to stdout."""
    code, out, _ = run(["--help"])
    assert code == EXIT_OK
    assert "ask" in out
    assert "chat" in out


def test_a_rejected_key_exits_1_with_one_sentence(httpx2_mock: Any, tmp_path: Path) -> None:
    """401: nothing on stdout, one sentence on stderr naming the fix, no key, no traceback."""
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    httpx2_mock.post(URL).mock(return_value=httpx.Response(401, json=body))
    code, out, err = run(["ask", "what is 2 + 2?"], online(tmp_path))
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert err.count("\n") == 1
    assert "ANTHROPIC_API_KEY" in err
    assert SECRET not in err
    assert "Traceback" not in err


def test_the_log_file_gets_json_events_without_secrets(httpx2_mock: Any, tmp_path: Path) -> None:
    """AGENT_LOG_FILE: one JSON event a line; the failure has its developer_note; no key."""
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": f"bad header x-api-key: {SECRET}"},
    }
    httpx2_mock.post(URL).mock(return_value=httpx.Response(400, json=body))
    run(["ask", "hi"], online(tmp_path))
    text = (tmp_path / "agent.jsonl").read_text()
    events = [json.loads(line) for line in text.splitlines()]
    [failed] = [e for e in events if e["event"] == "model.attempt_failed"]
    assert failed["developer_note"]
    assert failed["error_type"] == "invalid_request"
    assert {"timestamp", "level", "turn"} <= failed.keys()
    [gave_up] = [e for e in events if e["event"] == "model.call_failed"]
    assert gave_up["error_type"] == "invalid_request"
    assert SECRET not in text


def test_ask_online_answers_with_claude(httpx2_mock: Any, tmp_path: Path) -> None:
    """With a key, the model's text is printed and no banner is shown."""
    reply = message_body({"type": "text", "text": "Four."})
    route = httpx2_mock.post(URL).mock(return_value=httpx.Response(200, json=reply))
    code, out, err = run(["ask", "--model", "claude-opus-4-6", "2+2?"], online(tmp_path))
    assert (code, out, err) == (EXIT_OK, "Four.\n", "")
    assert json.loads(route.calls[0].request.content)["model"] == "claude-opus-4-6"


def test_verbose_logs_readable_events_on_stderr() -> None:
    """--verbose writes log events to stderr, the answer still alone on stdout."""
    _code, out, err = run(["ask", "--verbose", "what is 2 + 2?"])
    assert out == "2 + 2 = 4.\n"
    assert "agent.turn_finished" in err


def test_no_subcommand_starts_the_chat() -> None:
    """`agent` alone is the REPL; Ctrl-D (end of input) exits 0."""
    code, out, _ = run([], lines=["what is 2 + 2?"])
    assert code == EXIT_OK
    assert "2 + 2 = 4." in out


def test_a_bug_is_one_sentence_and_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected exception becomes a plain sentence on stderr, never a traceback."""
    import agent.app

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"internal detail {SECRET}")

    monkeypatch.setattr(agent.app, "ask", broken)
    code, out, err = run(["ask", "hi"])
    assert code == EXIT_NO_ANSWER
    assert out == ""
    assert "Traceback" not in err
    assert SECRET not in err
    assert "RuntimeError" not in err


def test_a_bug_is_logged_to_the_log_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The crash sentence points at AGENT_LOG_FILE: the event is there, with its note, no key."""
    import agent.app

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"internal detail {SECRET}")

    monkeypatch.setattr(agent.app, "ask", broken)
    log_file = tmp_path / "agent.jsonl"
    run(["ask", "hi"], {"AGENT_LOG_FILE": str(log_file)})
    events = [json.loads(line) for line in log_file.read_text().splitlines()]
    [crash] = [e for e in events if e["event"] == "agent.crashed"]
    assert crash["developer_note"]
    assert SECRET not in log_file.read_text()


HEAVY = {"anthropic", "httpx", "httpx2", "pydantic", "rich", "structlog", "errors", "tools"}


@pytest.mark.parametrize("argv", [None, ["--help"], ["explain-error", "--help"]])
def test_the_cli_module_and_its_help_import_only_the_standard_library(
    argv: list[str] | None,
) -> None:
    """Importing agent.cli, and `agent --help`, load none of the heavy packages (nor ours)."""
    run_it = "" if argv is None else f"agent.cli.main({argv!r}); "
    code = f"import sys, agent.cli; {run_it}print(sorted({HEAVY!r} & set(sys.modules)))"
    done = subprocess.run(  # noqa: S603 - a fixed argv: our own interpreter
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_explain_error_help_lists_its_llm_option() -> None:
    """`agent explain-error --help` shows --llm beside the options that mean something there."""
    code, out, _ = run(["explain-error", "--help"])
    assert code == EXIT_OK
    assert "--llm" in out
    assert "--model" in out


# --- help: what each command is, its environment and its exit statuses ----------------------

COMMANDS = [[], ["chat"], ["ask"], ["explain-error"], ["conversations"]]


def _help(command: list[str]) -> str:
    code, out, _ = run([*command, "--help"])
    assert code == EXIT_OK
    return out


def _contract_variables() -> list[str]:
    """The variables of docs/contracts.md's environment table."""
    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    table = text[text.index("## Environment") :].split("\n\n")[1]
    return [line.split("`")[1] for line in table.splitlines()[2:]]


@pytest.mark.parametrize(
    "command", COMMANDS, ids=["agent", "chat", "ask", "explain-error", "conversations"]
)
def test_every_command_says_what_it_does(command: list[str]) -> None:
    """Each help has a description between its usage and its options, in 80 columns."""
    out = _help(command)
    description = out.split("\n\n")[1]
    assert description.endswith(".")
    assert all(len(line) <= 80 for line in out.splitlines())


@pytest.mark.parametrize("command", [[], ["chat"], ["ask"]], ids=["agent", "chat", "ask"])
def test_help_lists_every_variable_of_the_contract(command: list[str]) -> None:
    """`agent [chat|ask] --help` lists docs/contracts.md's environment variables."""
    out = _help(command)
    listed = out[out.index("environment:") : out.index("exit status:")]
    assert [name for name in _contract_variables() if name not in listed] == []


@pytest.mark.parametrize(
    ("command", "statuses"),
    [
        (["chat"], ["0", "2", "130"]),
        (["ask"], ["0", "1", "2", "130", "141"]),
        (["explain-error"], ["0", "1", "2", "141"]),
        (["conversations"], ["0", "1", "2", "141"]),
    ],
)
def test_help_lists_the_exit_statuses(command: list[str], statuses: list[str]) -> None:
    """Each command's help ends with its exit statuses, as docs/contracts.md gives them."""
    out = _help(command)
    rows = out[out.index("exit status:") :].splitlines()[1:]
    assert [row.split()[0] for row in rows if row.startswith("  ") and row.split()] == statuses


def test_explain_error_help_names_its_own_variables() -> None:
    """explain-error lists the variables it reads, and no weather endpoint."""
    listed = _help(["explain-error"])
    assert "ANTHROPIC_API_KEY" in listed
    assert "AGENT_OFFLINE" in listed
    assert "WTTR_URL" not in listed


def test_explain_error_takes_no_offline_option() -> None:
    """--offline means nothing to explain-error: not offered, and refused as a usage error."""
    assert "--offline" not in _help(["explain-error"])
    code, out, err = run(["explain-error", "--offline"])
    assert (code, out) == (EXIT_USAGE, "")
    assert "usage: agent explain-error" in err


def test_help_gives_the_real_defaults() -> None:
    """The timeouts' defaults in help are the settings'; --otel's is not called the default."""
    from agent.settings import DEFAULT_MODEL_TIMEOUT_S, DEFAULT_TURN_TIMEOUT_S

    out = " ".join(_help(["ask"]).split())
    attempt = "AGENT_MODEL_TIMEOUT seconds one model attempt may take in all"
    assert f"{attempt} (default: {DEFAULT_MODEL_TIMEOUT_S:g})" in out
    assert f"(default: {DEFAULT_TURN_TIMEOUT_S:g})" in out
    assert "(the default)" not in out
    assert "--otel alone means otlp" in out
    assert "tracing is off, unless OTEL_EXPORTER_OTLP_ENDPOINT is set" in out


def test_python_dash_m_agent_runs_the_cli() -> None:
    """`python -m agent ask …` works like the console script."""
    done = subprocess.run(
        [sys.executable, "-m", "agent", "ask", "what is 6 * 7?"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "", "NO_COLOR": "1", "AGENT_DATA_DIR": os.environ["AGENT_DATA_DIR"]},
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "6 * 7 = 42.\n")


def test_a_malformed_endpoint_is_a_usage_error() -> None:
    """With a key, WTTR_URL that is not an http(s) URL: exit 2 with one line naming it."""
    env = {"ANTHROPIC_API_KEY": SECRET, "WTTR_URL": "ftp://wttr.test/?key=S3cret"}
    code, out, err = run(["ask", "hi"], env)
    assert (code, out) == (EXIT_USAGE, "")
    assert err == "agent: WTTR_URL must be an http(s) URL.\n"


def test_an_empty_reply_exits_1_with_one_sentence(httpx2_mock: Any, tmp_path: Path) -> None:
    """end_turn with no content: no answer, so stdout stays empty and exit is 1."""
    httpx2_mock.post(URL).mock(return_value=httpx.Response(200, json=message_body()))
    code, out, err = run(["ask", "hi"], online(tmp_path))
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert err.count("\n") == 1
    assert "no answer" in err


def test_an_unknown_model_says_to_check_the_model_option(httpx2_mock: Any, tmp_path: Path) -> None:
    """404 for --model claude-nope: one sentence naming --model and AGENT_MODEL, no body."""
    body = {"type": "error", "error": {"type": "not_found_error", "message": "model: <b>nope"}}
    httpx2_mock.post(URL).mock(return_value=httpx.Response(404, json=body))
    code, out, err = run(["ask", "--model", "claude-nope", "hi"], online(tmp_path))
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert err.count("\n") == 1
    assert "--model" in err
    assert "AGENT_MODEL" in err
    assert "<b>" not in err
    assert "404" not in err


@pytest.mark.parametrize("url", ["ftp://claude.test", "claude.test", "http://", "http://x:port"])
def test_a_malformed_anthropic_base_url_exits_2_naming_the_variable(url: str) -> None:
    """ANTHROPIC_BASE_URL that is not an http(s) URL: exit 2, one line naming it, not echoed."""
    code, out, err = run(["ask", "hi"], {"ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": url})
    assert (code, out) == (EXIT_USAGE, "")
    assert err.count("\n") == 1
    assert "ANTHROPIC_BASE_URL" in err
    assert url not in err


@pytest.mark.parametrize("name", ["AGENT_MODEL_TIMEOUT", "AGENT_TURN_TIMEOUT"])
def test_a_bad_timeout_exits_2_naming_the_variable(name: str) -> None:
    """A timeout that is not a positive number: exit 2, the variable named, nothing asked."""
    code, out, err = run(["ask", "what is 2 + 2?"], env={name: "-1"})
    assert (code, out) == (EXIT_USAGE, "")
    assert err == f"agent: {name} must be a positive number of seconds.\n"


def test_ask_prints_no_escape_sequence_from_the_model(httpx2_mock: Any, tmp_path: Path) -> None:
    """`agent ask`: the model's OSC title, screen clear and carriage return are not printed."""
    hostile = "Four\x1b]0;pwned\x07.\x1b[2J\r"
    reply = message_body({"type": "text", "text": hostile})
    httpx2_mock.post(URL).mock(return_value=httpx.Response(200, json=reply))
    code, out, _ = run(["ask", "2+2?"], online(tmp_path))
    assert (code, out) == (EXIT_OK, "Four.\n")


def test_a_refused_model_endpoint_names_anthropic_base_url(tmp_path: Path) -> None:
    """`agent ask` with ANTHROPIC_BASE_URL at a closed port: exit 1, one sentence saying to
    check that variable."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**online(tmp_path), "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}
    code, out, err = run(["ask", "what is 2 + 2?"], env)
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert err.count("\n") == 1
    assert "ANTHROPIC_BASE_URL" in err


@pytest.mark.parametrize(
    "env",
    [
        {"OPEN_METEO_GEOCODING_URL": "not a url"},
        {"OPEN_METEO_FORECAST_URL": "ftp://forecast.test"},
        {"WTTR_URL": "wttr.test"},
        {"ANTHROPIC_BASE_URL": "claude.test"},
        {"ANTHROPIC_API_KEY": SECRET, "AGENT_OFFLINE": "1", "WTTR_URL": "ftp://wttr.test"},
    ],
    ids=["geocoding", "forecast", "wttr", "base-url", "forced-offline"],
)
def test_offline_ignores_url_variables_it_does_not_use(env: dict[str, str]) -> None:
    """Offline nothing real is called: a malformed URL variable is no reason to refuse."""
    code, out, err = run(["ask", "what is 2 + 2?"], env)
    assert (code, out) == (EXIT_OK, "2 + 2 = 4.\n")
    assert "URL" not in err


def test_model_help_shows_the_real_default_model() -> None:
    """`--model` says which model is used when neither it nor AGENT_MODEL is given."""
    from agent.settings import DEFAULT_MODEL

    for argv in (["--help"], ["ask", "--help"], ["chat", "--help"]):
        code, out, _ = run(argv)
        assert code == EXIT_OK
        assert DEFAULT_MODEL in " ".join(out.split())  # however the help wraps


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["ask", "--bogus", "x"], "usage: agent ask"),
        (["chat", "--bogus"], "usage: agent chat"),
        (["explain-error", "--bogus"], "usage: agent explain-error"),
        (["--bogus"], "usage: agent ["),
    ],
)
def test_an_unknown_option_is_reported_with_its_subcommands_usage(
    argv: list[str], usage: str
) -> None:
    """The usage printed is the subcommand's own, and the error names the option."""
    code, out, err = run(argv)
    assert (code, out) == (EXIT_USAGE, "")
    assert err.startswith(usage)
    assert "unrecognized arguments: --bogus" in err
