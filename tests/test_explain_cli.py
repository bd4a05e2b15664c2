"""`agent explain-error`: JSON lines in, one result per valid line out, errors by line number."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
import respx
import structlog

from agent.claude import READ_TIMEOUT_S
from agent.cli import EXIT_BROKEN_PIPE, EXIT_NO_ANSWER, EXIT_OK, EXIT_USAGE, main
from agent.explain import run
from agent.settings import DEFAULT_MODEL, Settings
from errors import error_to_action

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-ant-api03-EXPLAINSECRET-0123456789abcdef"
BASE = "https://claude.test"
BILLING = {
    "error": "429 Too Many Requests. Retry-After: 30",
    "operation": "Fetching billing data from billing_api",
    "user_context": "User viewing subscription page",
    "retry_count": 0,
}
CLAUDE_DOWN = {"type": "error", "error": {"type": "api_error", "message": "Internal error"}}


@pytest.fixture(autouse=True)
def _clean_structlog() -> Iterator[None]:
    """`main` configures structlog for the process: back to the defaults after each test."""
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()


def explain(
    text: str, env: dict[str, str] | None = None, llm: bool = False
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(Settings.from_env(env or {}), io.StringIO(text), out, err, llm=llm)
    return status, out.getvalue(), err.getvalue()


def command(
    argv: list[str], stdin: IO[str] | str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """`agent …` in this process, with `stdin` as its input."""
    source = io.StringIO(stdin) if isinstance(stdin, str) else stdin
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, env=env or {}, stdin=source, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def online(tmp_path: Path, **extra: str) -> dict[str, str]:
    log_file = str(tmp_path / "agent.jsonl")
    return {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": BASE,
        "AGENT_LOG_FILE": log_file,
        **extra,
    }


def test_billing_line() -> None:
    """The issue's example prints a wait that says 30 seconds and names billing."""
    status, out, err = explain(json.dumps(BILLING) + "\n")
    result = json.loads(out)
    assert (status, err) == (0, "")
    assert result["action"] == "wait"
    assert "30 seconds" in result["user_message"]
    assert "billing" in result["user_message"].lower()


def test_order_kept_and_blank_lines_skipped() -> None:
    """Results come out one per line, in input order."""
    lines = [json.dumps({"error": e, "operation": "x"}) for e in ("503", "404", "timed out")]
    status, out, _ = explain("\n".join([lines[0], "", lines[1], lines[2]]))
    types = [json.loads(line)["error_type"] for line in out.splitlines()]
    assert (status, types) == (0, ["server_error", "not_found", "timeout"])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"error": "503", "operation": "x"', "line 2: not valid JSON"),
        ('{"operation": "x"}', "line 2: 'error': field required"),
        ('{"error": "503", "retry_count": "two"}', "line 2: 'retry_count'"),
        ('{"error": "503", "retry_count": -1}', "line 2: 'retry_count'"),
    ],
)
def test_bad_line_named_and_processing_continues(line: str, message: str) -> None:
    """A bad line is reported by number on stderr; the lines around it still produce output."""
    good = json.dumps(BILLING)
    status, out, err = explain(f"{good}\n{line}\n{good}\n")
    assert status == 1
    assert len(out.splitlines()) == 2
    assert message in err


@pytest.mark.parametrize(
    ("line", "error_type"),
    [
        pytest.param('{"error": ""}', "unknown", id="empty"),
        pytest.param('{"error": null}', "unknown", id="null"),
        pytest.param("[Errno -2] Name or service not known", "network", id="plain-text"),
        pytest.param(
            "2024/12/25 00:40:02 Failed to get response from model API returned unexpected "
            "status code: 429: Rate limit reached for gpt-4o",
            "rate_limit",
            id="log-line",
        ),
        pytest.param("{not json", "bad_data", id="brace-but-not-an-object"),
        pytest.param('"connection refused"', "network", id="a-json-string"),
        pytest.param("[1, 2]", "unknown", id="a-json-array"),
        pytest.param("null", "unknown", id="json-null"),
        pytest.param(
            "[2020/10/21 04:52:04|sender.py|ERROR]: got status 429", "rate_limit", id="bracketed"
        ),
    ],
)
def test_every_input_gets_an_answer(line: str, error_type: str) -> None:
    """An empty or null error, and a plain-text line (taken as the error), get an answer."""
    status, out, err = explain(f"{line}\n")
    assert (status, err) == (0, "")
    assert json.loads(out)["error_type"] == error_type


def test_bytes_that_are_not_utf8_get_one_plain_message() -> None:
    """A line of bytes that are not UTF-8 is named on stderr; the other lines are answered."""
    good = json.dumps(BILLING).encode()
    proc = subprocess.run(
        [sys.executable, "-m", "agent", "explain-error"],
        input=good + b"\n\xff\xfe not text \x80\n" + good + b"\n",
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
        env={"PATH": "", "NO_COLOR": "1"},
    )
    assert proc.returncode == 1
    assert len(proc.stdout.decode().splitlines()) == 2
    assert proc.stderr.decode() == "explain-error: line 2: not UTF-8 text; skipped\n"


def test_error_as_object() -> None:
    """An error given as a JSON object (a failure response) is explained from its text."""
    status, out, _ = explain(json.dumps({"error": {"status": 503, "message": "down"}}))
    assert (status, json.loads(out)["error_type"]) == (0, "server_error")


def test_llm_without_key_says_so_and_uses_rules() -> None:
    """--llm with no key says so plainly and answers with the rules."""
    status, out, err = explain(json.dumps(BILLING), env={}, llm=True)
    assert status == 0
    assert "ANTHROPIC_API_KEY is not set" in err
    assert json.loads(out)["action"] == "wait"


# --- the command's settings: the same as ask's and chat's ----------------------------------


@pytest.mark.parametrize(
    ("argv", "forced"),
    [
        (["--offline", "explain-error", "--llm"], {}),
        *((["explain-error", "--llm"], {"AGENT_OFFLINE": v}) for v in ("1", "true", "yes", "on")),
    ],
    ids=["agent --offline", "=1", "=true", "=yes", "=on"],
)
def test_llm_forced_offline_uses_the_rules_without_calling_claude(
    tmp_path: Path, argv: list[str], forced: dict[str, str]
) -> None:
    """--offline or AGENT_OFFLINE (any true spelling) wins over a key: rules, no request."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        claude = router.post(f"{BASE}/v1/messages")
        code, out, err = command(argv, json.dumps(BILLING), online(tmp_path, **forced))
    assert (code, json.loads(out)["action"]) == (EXIT_OK, "wait")
    assert "--offline or AGENT_OFFLINE is set" in err
    assert claude.call_count == 0


@pytest.mark.parametrize(
    ("argv", "env", "model"),
    [
        ([], {}, DEFAULT_MODEL),
        ([], {"AGENT_MODEL": "claude-haiku-4-5"}, "claude-haiku-4-5"),
        (["--model", "claude-opus-4-6"], {"AGENT_MODEL": "claude-haiku-4-5"}, "claude-opus-4-6"),
    ],
    ids=["default", "AGENT_MODEL", "--model"],
)
def test_llm_asks_claude_at_the_base_url_with_the_settings_model_and_a_timeout(
    httpx2_mock: Any, tmp_path: Path, argv: list[str], env: dict[str, str], model: str
) -> None:
    """One request to ANTHROPIC_BASE_URL, the configured model, the shared client's 15 s bound
    on the first byte (and on each gap between bytes)."""
    claude = httpx2_mock.post(f"{BASE}/v1/messages").respond(500, json=CLAUDE_DOWN)
    code, _, _ = command(
        ["explain-error", "--llm", *argv], json.dumps(BILLING), online(tmp_path, **env)
    )
    assert code == EXIT_OK
    [call] = claude.calls
    assert json.loads(call.request.content)["model"] == model
    assert call.request.extensions["timeout"]["read"] == READ_TIMEOUT_S


def test_llm_falls_back_to_the_rules_and_logs_why_in_the_log_file(
    httpx2_mock: Any, tmp_path: Path
) -> None:
    """Claude fails: the rules' answer on stdout, the fallback in AGENT_LOG_FILE, no key."""
    httpx2_mock.post(f"{BASE}/v1/messages").respond(500, json=CLAUDE_DOWN)
    code, out, _ = command(["explain-error", "--llm"], json.dumps(BILLING), online(tmp_path))
    rules = error_to_action(BILLING["error"], BILLING["operation"], BILLING["user_context"])
    log = (tmp_path / "agent.jsonl").read_text()
    assert (code, out) == (EXIT_OK, rules.to_json() + "\n")
    events = [json.loads(line) for line in log.splitlines()]
    [fallback] = [e for e in events if e["event"] == "errors.llm_fallback"]
    assert fallback["error_type"] == "server_error"
    assert fallback["developer_note"]
    assert KEY not in log


def test_a_malformed_base_url_is_a_usage_error() -> None:
    """ANTHROPIC_BASE_URL that is not http(s): exit 2, one line naming it, nothing explained."""
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": "ftp://claude.test"}
    code, out, err = command(["explain-error", "--llm"], json.dumps(BILLING), env)
    assert (code, out) == (EXIT_USAGE, "")
    assert err.startswith("agent: ANTHROPIC_BASE_URL ")
    assert err.count("\n") == 1
    assert "ftp://claude.test" not in err


# --- the crash guard ------------------------------------------------------------------------


class _Failing(io.StringIO):
    """A stream whose reads (or writes) raise `error`."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def __iter__(self) -> Iterator[str]:
        raise self.error

    def write(self, text: str) -> int:
        raise self.error


def test_a_bug_is_one_sentence_and_exit_1() -> None:
    """A crash inside explain-error: one plain sentence on stderr, never a traceback."""
    code, out, err = command(["explain-error"], _Failing(RuntimeError(f"detail {KEY}")))
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert KEY not in err


def test_a_closed_stdout_ends_quietly() -> None:
    """The reader of stdout went away: exit 141, as after SIGPIPE, and nothing on stderr."""
    out, err = _Failing(BrokenPipeError(32, "Broken pipe")), io.StringIO()
    code = main(
        ["explain-error"], env={}, stdin=io.StringIO(json.dumps(BILLING)), stdout=out, stderr=err
    )
    assert (code, err.getvalue()) == (EXIT_BROKEN_PIPE, "")


def test_piping_into_head_prints_no_traceback(tmp_path: Path) -> None:
    """`agent explain-error < many-lines | head -1`: one line out, nothing on stderr, exit 141."""
    lines = tmp_path / "many.jsonl"
    lines.write_text((json.dumps(BILLING) + "\n") * 5000)
    with (
        lines.open() as stdin,
        subprocess.Popen(
            [sys.executable, "-m", "agent", "explain-error"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={"PATH": "", "NO_COLOR": "1"},
        ) as proc,
    ):
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # what `head -1` does once it has its line
        err = proc.stderr.read()
        code = proc.wait(timeout=60)
    assert json.loads(first)["action"] == "wait"
    assert (code, err) == (EXIT_BROKEN_PIPE, "")


def test_console_script_end_to_end() -> None:
    """`python -m agent explain-error` works as a process, without importing the SDK."""
    code = (
        "import sys, runpy; sys.argv=['agent','explain-error']; "
        "import agent.cli as c; rc=c.main(['explain-error']); "
        "assert 'anthropic' not in sys.modules, 'explain-error imported the SDK'; sys.exit(rc)"
    )
    proc = subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-c", code],
        input=json.dumps(BILLING) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["action"] == "wait"


# --- --llm auto: the rules first, Claude for what they cannot place ------------------------

UNPLACED = {"error": "the moon is in the wrong phase", "operation": "Reading the tide tables"}
CLAUDE_ANSWER = {
    "error_type": "environment_mismatch",
    "user_message": "Reading the tide tables stopped because of a condition outside the app.",
    "action": "escalate",
    "action_detail": "Report it to the operator.",
    "retryable": False,
    "developer_note": "unrecognised condition",
}


def claude_message(text: str) -> dict[str, object]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": DEFAULT_MODEL,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 60},
    }


def test_llm_auto_asks_claude_only_about_what_the_rules_cannot_place(
    httpx2_mock: Any, tmp_path: Path
) -> None:
    """Two lines, one the rules place: one request; the share and the kept count on stderr."""
    claude = httpx2_mock.post(f"{BASE}/v1/messages").respond(
        200, json=claude_message(json.dumps(CLAUDE_ANSWER))
    )
    lines = f"{json.dumps(BILLING)}\n{json.dumps(UNPLACED)}\n"
    code, out, err = command(["explain-error", "--llm", "auto"], lines, online(tmp_path))
    results = [json.loads(line) for line in out.splitlines()]
    assert code == EXIT_OK
    assert len(claude.calls) == 1
    assert [r["error_type"] for r in results] == ["rate_limit", "environment_mismatch"]
    assert "1 of 2 lines (50%) went to Claude; its answer was kept for 1." in err


def test_llm_auto_keeps_the_rules_when_claude_fails(httpx2_mock: Any, tmp_path: Path) -> None:
    """Claude down: the unplaced line still gets the rules' answer, and none was kept."""
    httpx2_mock.post(f"{BASE}/v1/messages").respond(500, json=CLAUDE_DOWN)
    code, out, err = command(
        ["explain-error", "--llm", "auto"], json.dumps(UNPLACED), online(tmp_path)
    )
    assert (code, json.loads(out)["error_type"]) == (EXIT_OK, "unknown")
    assert "1 of 1 lines (100%) went to Claude; its answer was kept for 0." in err


# --- a terminal gets a hint; every fallback from --llm is said once --------------------------


class _Terminal(io.StringIO):
    """Input typed at a terminal."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_a_one_line_hint_says_what_to_type_and_how_to_end() -> None:
    """stdin a terminal: one line on stderr (JSON, Ctrl-D) before anything is read."""
    code, out, err = command(["explain-error"], _Terminal(json.dumps(BILLING) + "\n"))
    assert code == EXIT_OK
    assert json.loads(out)["error_type"] == "rate_limit"
    assert err.count("\n") == 1
    assert "Ctrl-D" in err
    assert "JSON" in err


def test_piped_input_gets_no_hint() -> None:
    """stdin a pipe or file: nothing on stderr."""
    assert command(["explain-error"], json.dumps(BILLING))[2] == ""


def test_a_refused_key_is_said_once_without_verbose(httpx2_mock: Any, tmp_path: Path) -> None:
    """401 on every line: the rules answer each, and stderr says why once, not per line."""
    body = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    httpx2_mock.post(f"{BASE}/v1/messages").respond(401, json=body)
    lines = "\n".join(json.dumps(BILLING) for _ in range(3)) + "\n"
    code, out, err = command(["explain-error", "--llm"], lines, online(tmp_path))
    assert (code, len(out.splitlines())) == (EXIT_OK, 3)
    assert err.count("\n") == 1
    assert "ANTHROPIC_API_KEY" in err
    assert "rules answered instead" in err
    assert KEY not in err


def test_an_unreachable_endpoint_is_said_once(tmp_path: Path) -> None:
    """ANTHROPIC_BASE_URL at a closed port: one line naming the variable to check."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = online(tmp_path, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}")
    lines = f"{json.dumps(BILLING)}\n{json.dumps(BILLING)}\n"
    code, out, err = command(["explain-error", "--llm"], lines, env)
    assert (code, len(out.splitlines())) == (EXIT_OK, 2)
    assert err.count("\n") == 1
    assert "could not be reached" in err
    assert "ANTHROPIC_BASE_URL" in err


def test_an_invalid_answer_is_said_once(httpx2_mock: Any, tmp_path: Path) -> None:
    """Claude answers with something that is not the schema: said once; the rules answer."""
    httpx2_mock.post(f"{BASE}/v1/messages").respond(200, json=claude_message("not JSON at all"))
    lines = f"{json.dumps(BILLING)}\n{json.dumps(BILLING)}\n"
    code, out, err = command(["explain-error", "--llm"], lines, online(tmp_path))
    rules = error_to_action(BILLING["error"], BILLING["operation"], BILLING["user_context"])
    assert (code, out.splitlines()[0]) == (EXIT_OK, rules.to_json())
    assert err.count("\n") == 1
    assert "did not pass the checks" in err


def test_llm_auto_says_its_fallback_too(httpx2_mock: Any, tmp_path: Path) -> None:
    """--llm auto: Claude down for the line it was asked about: said once, then the share."""
    httpx2_mock.post(f"{BASE}/v1/messages").respond(500, json=CLAUDE_DOWN)
    _, _, err = command(["explain-error", "--llm", "auto"], json.dumps(UNPLACED), online(tmp_path))
    assert err.count("rules answered instead") == 1
    assert "went to Claude" in err


PY_TRACE = """Traceback (most recent call last):
  File "fetch.py", line 3, in <module>
    r = requests.get(url, timeout=5)
  File "/usr/lib/python3/dist-packages/requests/api.py", line 73, in get
    return request("get", url, params=params, **kwargs)
requests.exceptions.ConnectionError: [Errno 111] Connection refused
"""
JAVA_TRACE = """Exception in thread "main" java.lang.RuntimeException: lookup failed
\tat com.example.App.main(App.java:10)
Caused by: java.net.SocketTimeoutException: Read timed out
\tat java.base/java.net.SocketInputStream.socketRead0(Native Method)
\t... 12 more
"""


@pytest.mark.parametrize(
    ("trace", "error_type"),
    [(PY_TRACE, "network"), (JAVA_TRACE, "timeout")],
    ids=["python", "java"],
)
def test_a_pasted_stack_trace_is_one_error_read_by_its_last_exception(
    trace: str, error_type: str
) -> None:
    """A traceback pasted as text gets one answer, from its last exception line (the source
    line `requests.get(url, timeout=5)` it quotes is not read as a timeout)."""
    status, out, err = explain(trace)
    assert (status, err) == (0, "")
    [answer] = out.splitlines()
    assert json.loads(answer)["error_type"] == error_type


def test_blank_lines_separate_errors_and_log_lines_stay_one_each() -> None:
    """A trace, a blank line, then two log lines: three answers, in order."""
    status, out, _ = explain(PY_TRACE + "\nupstream timed out\n429 Too Many Requests\n")
    assert status == 0
    assert [json.loads(line)["error_type"] for line in out.splitlines()] == [
        "network",
        "timeout",
        "rate_limit",
    ]


def test_text_takes_the_whole_of_stdin_as_one_error() -> None:
    """`--text`: everything on stdin is one error, blank lines and all."""
    out, err = io.StringIO(), io.StringIO()
    stdin = io.StringIO("the request to the billing API\n\nfailed: connection refused\n")
    code = main(["explain-error", "--text"], env={}, stdin=stdin, stdout=out, stderr=err)
    assert code == EXIT_OK
    [answer] = out.getvalue().splitlines()
    assert json.loads(answer)["error_type"] == "network"
