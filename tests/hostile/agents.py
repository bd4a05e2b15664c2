"""Agents and runs pointed at a hostile server, with small bounds injected."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from agent.app import Agent
from agent.claude import ClaudeModel, http_timeout
from agent.loop import Answer, Limits
from agent.models import MODEL_POLICY, ModelCaller
from benchmarks.hostile_server import HostileServer
from tests.agent.helpers import assert_error_sentence, registry
from tests.cli_run import run_cli
from tools import Registry

GUARD_S = 30  # a hang guard only: each test's own bounds end it long before this
CHILD_GUARD_S = 60  # the same, for a child process (its start-up included)
KEY = "sk-ant-api03-HOSTILE-0123456789abcdefghij"
REPO = Path(__file__).resolve().parents[2]
_INHERITED = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "SYSTEMROOT",
    "AGENT_CACHE_DIR",
    "AGENT_DATA_DIR",
)


async def no_sleep(_seconds: float) -> None:
    return None


def claude_agent(
    server: HostileServer,
    *,
    attempt_s: float = 5.0,
    read_s: float = 5.0,
    turn_s: float = 20.0,
    stall_s: float | None = None,
    tools: Registry | None = None,
    limits: Limits | None = None,
    sleep: Callable[[float], Awaitable[None]] = no_sleep,
) -> Agent:
    """Claude (the real SDK, on real sockets) at `server`: `read_s` for the first byte and
    each gap, `attempt_s` for one attempt in all, `stall_s` for one attempt without progress
    (None: the default), `turn_s` for the turn."""
    model = ClaudeModel(api_key=KEY, base_url=server.base, timeout=http_timeout(read_s=read_s))
    policy = dataclasses.replace(MODEL_POLICY, attempt_timeout_s=attempt_s, sleep=sleep)
    limits = dataclasses.replace(limits or Limits(), turn_timeout_s=turn_s)
    stall = {} if stall_s is None else {"stall_s": stall_s}
    agent = Agent(ModelCaller(model, policy, **stall), tools or registry(), limits)
    agent.closers.append(model.aclose)
    return agent


async def ask(agent: Agent, question: str = "hi", *, stream: bool = False) -> Answer:
    """One turn; streamed (as the REPL asks) when `stream`, else one whole answer."""
    shown: list[str] = []
    try:
        return await agent.ask(question, on_text=shown.append if stream else None)
    finally:
        await agent.aclose()


cli = run_cli


def events(logs: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The captured events called `name`."""
    return [event for event in logs if event["event"] == name]


class Ran(NamedTuple):
    """What `python -m agent` did in a child process."""

    code: int
    out: str
    err: str


def assert_cut_twice(answer: Answer, requests: int, logs: list[dict[str, Any]], note: str) -> None:
    """A model call cut on both its attempts: retried once, then one plain sentence, with
    `note` in each failure's developer note."""
    assert answer.answered is False
    assert_error_sentence(answer.text)
    assert [(a.outcome, a.action) for a in answer.attempts] == [
        ("timeout", "retry"),
        ("timeout", "escalate"),
    ]
    assert requests == 2
    failed = events(logs, "model.attempt_failed")
    assert all(note in e["developer_note"] for e in failed)


def run_agent(
    argv: list[str], env: Mapping[str, str], stdin: str | bytes = "", *, guard_s: float = 0
) -> Ran:
    """`python -m agent argv…` in a child process of its own, with `env` (and PATH, HOME,
    the locale, and PYTHONPATH at this repository) and `stdin` typed in; killed, and the
    test failed, if it outlasts `guard_s` (default `CHILD_GUARD_S`)."""
    child = subprocess.run(  # noqa: S603 - this interpreter, this repository's module
        agent_command(argv),
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        env=child_env(env),
        cwd=REPO,
        timeout=guard_s or CHILD_GUARD_S,
        check=False,
    )
    return Ran(child.returncode, child.stdout.decode(), child.stderr.decode())


def agent_command(argv: list[str]) -> list[str]:
    """`python -m agent argv…`, with this interpreter."""
    return [sys.executable, "-m", "agent", *argv]


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env`, with PATH, HOME and the locale inherited and PYTHONPATH at this repository."""
    inherited = {name: os.environ[name] for name in _INHERITED if name in os.environ}
    return {**inherited, "PYTHONPATH": str(REPO), **env}
