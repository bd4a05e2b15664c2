"""`agent explain-error`: JSON lines in, one result per valid line out, errors by line number."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.explain import run

BILLING = {
    "error": "429 Too Many Requests. Retry-After: 30",
    "operation": "Fetching billing data from billing_api",
    "user_context": "User viewing subscription page",
    "retry_count": 0,
}


def explain(
    text: str, env: dict[str, str] | None = None, llm: bool = False
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(argparse.Namespace(llm=llm, model=None), io.StringIO(text), out, err, env or {})
    return status, out.getvalue(), err.getvalue()


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
        ("{not json", "line 2: not valid JSON"),
        ("[1, 2]", "line 2: expected a JSON object"),
        ('{"operation": "x"}', "line 2: 'error': field required"),
        ('{"error": null}', "line 2: 'error'"),
        ('{"error": "503", "retry_count": "two"}', "line 2: 'retry_count'"),
        ('{"error": "503", "retry_count": -1}', "line 2: 'retry_count'"),
        ('{"error": ""}', "line 2: 'error'"),
    ],
)
def test_bad_line_named_and_processing_continues(line: str, message: str) -> None:
    """A bad line is reported by number on stderr; the lines around it still produce output."""
    good = json.dumps(BILLING)
    status, out, err = explain(f"{good}\n{line}\n{good}\n")
    assert status == 1
    assert len(out.splitlines()) == 2
    assert message in err


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


def test_console_script_end_to_end() -> None:
    """`python -m agent explain-error` works as a process, without importing the SDK."""
    root = Path(__file__).resolve().parents[2]
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
        cwd=root,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["action"] == "wait"
