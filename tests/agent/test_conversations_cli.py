"""Saved conversations from the command line: `ask --continue`, `chat --resume`, `/history`,
`agent conversations`, AGENT_HISTORY=off; the chat ones in child processes, one of them
killed mid-turn."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.history import FILE_NAME, History, turns_of
from benchmarks.harness import REPO, FaultServerProcess
from benchmarks.plan import Plan
from tests.cli_run import run_cli

OFFLINE = {"AGENT_OFFLINE": "1"}


def saved() -> History:
    return History.open()  # the test's own data folder (tests/conftest.py)


def test_ask_saves_and_continue_goes_on() -> None:
    """Each `ask` is saved; `ask --continue` asks in the latest conversation, so the model
    has the earlier turn and the store has both."""
    assert run_cli(["ask", "What's the weather in Paris?"], OFFLINE)[0] == 0
    assert run_cli(["ask", "--continue", "What is 6 * 7?"], OFFLINE)[0] == 0
    listed = saved().conversations()
    assert len(listed) == 1
    assert listed[0].turns == 2
    _, messages = saved().resume()
    assert [t.question for t in turns_of(messages)] == [
        "What's the weather in Paris?",
        "What is 6 * 7?",
    ]


def test_ask_says_a_damaged_store_once() -> None:
    """The sentence about a store set aside is printed once, not again after the turn."""
    folder = Path(os.environ["AGENT_DATA_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE_NAME).write_bytes(b"this is not SQLite at all\n" * 200)
    os.chmod(folder / FILE_NAME, 0o600)
    code, _out, err = run_cli(["ask", "What is 2 + 2?"], OFFLINE)
    assert code == 0
    assert err.count("file was damaged") == 1


def test_ask_without_continue_starts_a_new_conversation() -> None:
    """Two plain `ask`s are two conversations, the latest listed first."""
    run_cli(["ask", "What is 1 + 1?"], OFFLINE)
    run_cli(["ask", "What is 2 + 2?"], OFFLINE)
    assert [c.first_question for c in saved().conversations()] == [
        "What is 2 + 2?",
        "What is 1 + 1?",
    ]


def test_conversations_lists_and_deletes() -> None:
    """`agent conversations` lists id, start, turns and the first question; `--delete`
    removes one; an id that names none is one sentence and exit 1."""
    run_cli(["ask", "What is 3 + 4?"], OFFLINE)
    code, out, _ = run_cli(["conversations"], OFFLINE)
    assert code == 0
    ident = out.split()[0]
    assert "1 turn" in out
    assert "What is 3 + 4?" in out
    code, out, _ = run_cli(["conversations", "--delete", ident[:5]], OFFLINE)
    assert (code, out) == (0, f"Deleted conversation {ident}.\n")
    code, _, err = run_cli(["conversations", "--delete", ident], OFFLINE)
    assert code == 1
    assert "No saved conversation has the id" in err
    assert run_cli(["conversations"], OFFLINE)[2] == "No saved conversations yet.\n"


def test_history_off_stores_nothing_and_refuses_to_continue() -> None:
    """AGENT_HISTORY=off: a question is answered and nothing is written; `--continue` and
    `--resume` are usage errors that say why."""
    env = {**OFFLINE, "AGENT_HISTORY": "off"}
    assert run_cli(["ask", "What is 5 + 5?"], env)[0] == 0
    assert not (Path(os.environ["AGENT_DATA_DIR"]) / "conversations.sqlite").exists()
    code, _, err = run_cli(["ask", "--continue", "And 6 + 6?"], env)
    assert code == 2
    assert "AGENT_HISTORY is off" in err
    assert run_cli(["chat", "--resume"], env)[0] == 2


def test_resume_of_an_unknown_id_is_a_usage_error() -> None:
    """`chat --resume ID` where no conversation has that id: one sentence, exit 2."""
    code, _, err = run_cli(["chat", "--resume", "deadbeef"], OFFLINE)
    assert code == 2
    assert "'deadbeef'" in err


def test_a_chat_resumed_in_process_shows_its_history() -> None:
    """`/history` in a resumed chat lists the earlier turns, and a new one joins them."""
    run_cli(["chat"], OFFLINE, ["What is 2 + 3?", "/quit"])
    code, out, _ = run_cli(["chat", "--resume"], OFFLINE, ["/history", "What is 4 + 4?", "/quit"])
    assert code == 0
    assert "Resumed conversation" in out
    assert "1 turn in conversation" in out
    assert "What is 2 + 3?" in out
    assert saved().conversations()[0].turns == 2


# --- in child processes, against the loopback Messages API ------------------------------------


def chat(server: FaultServerProcess, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, **server.urls.env(), "PYTHONPATH": str(REPO)}
    return subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [sys.executable, "-m", "agent", "chat", *args],
        cwd=REPO, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


pytestmark = pytest.mark.loopback


async def test_quit_and_resume_sends_the_earlier_turns_to_the_model() -> None:
    """`agent chat`, a question, quit; `agent chat --resume`: /history shows the first turn,
    and the next request to the model carries both questions."""
    async with FaultServerProcess() as server:
        first = chat(server)
        out, _ = first.communicate("What's the weather in Bonn?\n/quit\n", timeout=60)
        assert first.returncode == 0
        assert "Bonn" in out
        second = chat(server, "--resume")
        out, _ = second.communicate("/history\nAnd in Oslo?\n/quit\n", timeout=60)
        assert second.returncode == 0
        assert "What's the weather in Bonn?" in out.split("Oslo")[0]  # listed before the turn
        report = await server.report()
    assert report.last_questions[:1] == ["What's the weather in Bonn?"]
    assert report.last_questions[-1] == "And in Oslo?"


async def test_sigkill_mid_turn_loses_only_that_turn() -> None:
    """A chat killed (SIGKILL) while its second turn waits on a slow forecast: resumed, it
    has the first turn, whole, and nothing of the second."""
    async with FaultServerProcess() as server:
        process = chat(server)
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write("What's the weather in Bonn?\n")
        process.stdin.flush()
        while "Bonn:" not in process.stdout.readline():  # the first turn's answer
            assert process.poll() is None
        await server.apply(Plan(latency={"forecast": 30.0}))
        process.stdin.write("What's the weather in Lima?\n")
        process.stdin.flush()
        deadline = time.monotonic() + 30
        while (await server.report()).requests.get("forecast", 0) == 0:
            assert time.monotonic() < deadline, "the second turn never reached the forecast"
            await asyncio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()  # type: ignore[union-attr]
    history = saved()
    assert [c.turns for c in history.conversations()] == [1]
    _, messages = history.resume()
    assert [t.question for t in turns_of(messages)] == ["What's the weather in Bonn?"]
    assert messages[-1]["role"] == "assistant"
