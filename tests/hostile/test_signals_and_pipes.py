"""Finding 6 of issue 19: SIGTERM and SIGHUP end a turn as Ctrl-C does, and a reader of
stdout that leaves ends `ask` and `chat` with 141, quietly.

Before: SIGTERM killed `agent chat` with no cleanup and left its MCP server running; a reader
that left mid-answer made `chat` log the broken pipe as a model failure (class network), ask
the model a second time and exit 1; `ask` with a 2 MB answer exited 0 after delivering 64 KB.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from benchmarks.hostile_server import HostileServer, answer, deltas_forever
from tests.hostile.children import GUARD_S, agent_env, alive, finish, spawn, wait_until
from tests.mcp.conftest import Plan

LINGERING = Path(__file__).with_name("lingering_server.py")
PROMPT = "you› ".encode()
BIG = "word " * (2 * 1024 * 1024 // 5)  # a 2 MB answer


# --- helpers ---------------------------------------------------------------------------------


def read_until(stream: BinaryIO, marker: bytes) -> bytes:
    """What the child wrote to `stream` up to and including `marker` (failing past the guard)."""
    seen = b""
    deadline = time.monotonic() + GUARD_S
    while marker not in seen:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([stream], [], [], max(0.0, left))
        if not ready:
            raise AssertionError(f"waited {GUARD_S:g} s for {marker!r}; saw {seen[-200:]!r}")
        chunk = os.read(stream.fileno(), 65536)
        if not chunk:
            raise AssertionError(f"stdout ended before {marker!r}; saw {seen[-200:]!r}")
        seen += chunk
    return seen


def read_all(descriptor: int) -> bytes:
    """Everything a child writes to the pipe at `descriptor`, until it closes."""
    chunks = []
    deadline = time.monotonic() + GUARD_S
    while True:
        ready, _, _ = select.select([descriptor], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError(f"the pipe was still open after {GUARD_S:g} s")
        chunk = os.read(descriptor, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def named(log: Path, name: str) -> list[dict[str, Any]]:
    return [event for event in events(log) if event["event"] == name]


def wait_for(child: subprocess.Popen[bytes]) -> tuple[int, str]:
    """The child's exit code and stderr, once it has ended (killed past the guard)."""
    code, _, err = finish(child)
    return code, err


@contextlib.contextmanager
def lingering_mcp(tmp_path: Path) -> Iterator[tuple[str, Plan, Path]]:
    """An `--mcp` spec for the lingering server, its plan, and where it writes its process
    ids. Whatever the test does, the processes it started are ended afterwards."""
    plan, pids = Plan(tmp_path / "plan.json"), tmp_path / "mcp.pids"
    spec = shlex.join([sys.executable, str(LINGERING), str(pids), str(plan.path)])
    try:
        yield f"lingering={spec}", plan, pids
    finally:
        for pid in mcp_pids(pids):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def mcp_pids(pids: Path) -> list[int]:
    """The lingering server's process id and its helper's, once written."""
    text = pids.read_text() if pids.exists() else ""
    return [int(pid) for pid in text.split()]


def all_ended(pids: list[int]) -> bool:
    return not any(alive(pid) for pid in pids)


def call_started(plan: Plan) -> bool:
    """The server took the plan's one step: its tool call is running (and hangs)."""
    try:
        return plan.left("echo") == []
    except ValueError:  # read while the server was writing it
        return False


# --- SIGTERM and SIGHUP ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"]
)
def test_a_signal_mid_turn_ends_chat_and_its_mcp_server(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    """A signal while an MCP tool call runs: the turn ends as Ctrl-C ends it, the server's
    whole process group is ended, the log says why, exit 128 + the signal."""
    log = tmp_path / "agent.jsonl"
    with lingering_mcp(tmp_path) as (spec, plan, pids):
        plan.set(echo=["hang"])
        child = spawn(["chat", "--mcp", spec], agent_env(tmp_path, AGENT_LOG_FILE=str(log)))
        assert child.stdin is not None
        child.stdin.write(b"use echo with text=hi\n")
        child.stdin.flush()
        wait_until(lambda: call_started(plan), "the MCP call to start")
        child.send_signal(sent)
        exit_code, err = wait_for(child)
        started = mcp_pids(pids)
        assert len(started) == 2
        wait_until(lambda: all_ended(started), "the MCP server's process group to end")
    assert exit_code == code
    assert "Traceback" not in err
    assert [e["signal"] for e in named(log, "agent.stopped")] == [sent.name]


def test_sighup_at_the_prompt_ends_chat_and_its_mcp_server(tmp_path: Path) -> None:
    """SIGHUP (the terminal went away) while chat waits for a line: exit 129, the server's
    process group ended."""
    with lingering_mcp(tmp_path) as (spec, _plan, pids):
        child = spawn(["chat", "--mcp", spec], agent_env(tmp_path))
        assert child.stdout is not None
        read_until(child.stdout, PROMPT)
        child.send_signal(signal.SIGHUP)
        exit_code, err = wait_for(child)
        started = mcp_pids(pids)
        wait_until(lambda: all_ended(started), "the MCP server's process group to end")
    assert exit_code == 129
    assert "Traceback" not in err


def test_sigterm_ends_ask_and_its_mcp_server(tmp_path: Path) -> None:
    """`agent ask` told to stop while an MCP tool call runs: exit 143, the server ended."""
    log = tmp_path / "agent.jsonl"
    with lingering_mcp(tmp_path) as (spec, plan, pids):
        plan.set(echo=["hang"])
        argv = ["ask", "--mcp", spec, "use echo with text=hi"]
        child = spawn(argv, agent_env(tmp_path, AGENT_LOG_FILE=str(log)))
        wait_until(lambda: call_started(plan), "the MCP call to start")
        child.send_signal(signal.SIGTERM)
        exit_code, err = wait_for(child)
        started = mcp_pids(pids)
        wait_until(lambda: all_ended(started), "the MCP server's process group to end")
    assert exit_code == 143
    assert "Traceback" not in err
    assert [e["signal"] for e in named(log, "agent.stopped")] == ["SIGTERM"]


# --- a reader that leaves --------------------------------------------------------------------


def test_a_reader_leaving_mid_answer_ends_chat_quietly(tmp_path: Path) -> None:
    """The reader of a streamed answer closes its end: exit 141, nothing on stderr, one model
    call, and no model or tool failure logged."""
    log = tmp_path / "agent.jsonl"
    with HostileServer(messages=deltas_forever()) as server:
        env = agent_env(tmp_path, **server.env(AGENT_LOG_FILE=str(log)))
        child = spawn(["chat"], env)
        assert child.stdin is not None
        assert child.stdout is not None
        child.stdin.write(b"hi\n")
        child.stdin.flush()
        read_until(child.stdout, b"and on and on")
        child.stdout.close()  # the reader leaves mid-answer
        exit_code, err = wait_for(child)
        asked = len(server.model_requests())
    assert (exit_code, err, asked) == (141, "", 1)
    failures = [e for e in events(log) if e["event"].endswith(("_failed", ".crashed"))]
    assert failures == []
    assert [e["signal"] for e in named(log, "agent.stopped")] == ["SIGPIPE"]


def test_a_reader_leaving_a_large_answer_is_exit_141(tmp_path: Path) -> None:
    """`agent ask` with a 2 MB answer on an unbuffered stdout (PYTHONUNBUFFERED=1) whose
    reader leaves after 64 KB: exit 141, quietly, never 0."""
    with HostileServer(messages=answer(BIG)) as server:
        env = agent_env(tmp_path, **server.env(PYTHONUNBUFFERED="1"))
        child = spawn(["ask", "hi"], env)
        assert child.stdout is not None
        first = child.stdout.read(65536)
        child.stdout.close()
        exit_code, err = wait_for(child)
    assert len(first) == 65536
    assert (exit_code, err) == (141, "")


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
def test_a_large_answer_on_a_non_blocking_pipe_is_delivered_whole(
    tmp_path: Path, unbuffered: bool
) -> None:
    """A stdout pipe in non-blocking mode (as another program may leave it) that is read to
    the end: all 2 MB of the answer arrive, exit 0."""
    reader, writer = os.pipe()
    fcntl.fcntl(writer, fcntl.F_SETFL, fcntl.fcntl(writer, fcntl.F_GETFL) | os.O_NONBLOCK)
    extra = {"PYTHONUNBUFFERED": "1"} if unbuffered else {}
    with HostileServer(messages=answer(BIG)) as server:
        child = spawn(["ask", "hi"], agent_env(tmp_path, **server.env(**extra)), stdout=writer)
        os.close(writer)
        try:
            out = read_all(reader)
        finally:
            os.close(reader)
        exit_code, err = wait_for(child)
    assert (exit_code, err) == (0, "")
    assert out.decode() == BIG.strip() + "\n"
