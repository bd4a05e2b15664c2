"""Finding 1 (and the model half of 7): a model endpoint that trickles, pings forever, streams
text forever, never answers, or sends 50 MB cannot hold a turn or the memory.

Before: the 60 s timeout was per read, every byte reset it, model calls had no overall
deadline and no body cap; `agent ask` and `agent chat` were still running at 360 s.
Now each attempt is cut (first byte and gaps: the read timeout; in all: AGENT_MODEL_TIMEOUT;
without progress: AGENT_MODEL_STALL_TIMEOUT, in test_stalled_streams), the turn has
AGENT_TURN_TIMEOUT, and a body past 4 MiB is bad data. A stream that has shown text when its
attempt is cut keeps it (test_stalled_streams), so text deltas forever are there.
"""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from agent.cli import EXIT_NO_ANSWER
from benchmarks.hostile_server import (
    HostileServer,
    Route,
    big_body,
    never_answers,
    pings_forever,
    steadily,
    trickle,
)
from tests.agent.helpers import assert_error_sentence
from tests.hostile.agents import GUARD_S, ask, assert_cut_twice, claude_agent, cli, events


@pytest.mark.parametrize(
    ("route", "stream"),
    [
        (trickle(), False),
        (trickle(), True),
        (pings_forever(), True),
    ],
    ids=["trickle", "trickle, streamed", "pings forever"],
)
async def test_a_body_that_never_ends_is_cut_per_attempt(route: Route, stream: bool) -> None:
    """Bytes keep coming (so no read timeout fires): each attempt is cut at its own limit,
    retried once, then one plain sentence; the client hangs up each connection."""
    async with HostileServer(messages=route) as server, asyncio.timeout(GUARD_S):
        agent = claude_agent(server, attempt_s=0.3, read_s=5.0)
        with capture_logs() as logs:
            answer = await agent.ask("hi", on_text=(lambda _text: None) if stream else None)
        # Before the client is closed: cutting each attempt closed its own connection.
        assert server.saw_hang_ups(2)
        await agent.aclose()
    assert_cut_twice(answer, len(server.model_requests()), logs, "no complete answer")


async def test_an_endpoint_that_never_answers_is_reported_after_two_read_timeouts() -> None:
    """Accepts and stays silent: the first-byte timeout ends each attempt (not the SDK's ten
    minutes): two attempts, one sentence."""
    async with HostileServer(messages=never_answers()) as server, asyncio.timeout(GUARD_S):
        agent = claude_agent(server, attempt_s=30.0, read_s=0.2)
        with capture_logs() as logs:
            answer = await ask(agent)
    assert answer.answered is False
    assert_error_sentence(answer.text)
    assert [a.outcome for a in answer.attempts] == ["timeout", "timeout"]
    failed = events(logs, "model.attempt_failed")
    assert all("APITimeoutError" in e["developer_note"] for e in failed)


async def test_a_turn_that_runs_out_of_time_ends_with_one_sentence() -> None:
    """A stream of pings and a long attempt limit: the turn's own deadline ends it, once."""
    async with HostileServer(messages=pings_forever()) as server, asyncio.timeout(GUARD_S):
        agent = claude_agent(server, attempt_s=60.0, turn_s=0.4)
        with capture_logs() as logs:
            answer = await ask(agent, stream=True)
    assert answer.answered is False
    assert answer.error is not None
    assert answer.error.error_type == "turn_timed_out"
    assert_error_sentence(answer.text)
    assert len(events(logs, "agent.turn_timed_out")) == 1


async def test_a_live_stream_is_not_cut_early() -> None:
    """Text arriving steadily for longer than the read timeout is read to its end."""
    async with HostileServer(messages=steadily(8, 0.05)) as server:
        agent = claude_agent(server, attempt_s=10.0, read_s=0.2)
        async with asyncio.timeout(GUARD_S):
            answer = await ask(agent, stream=True)
    assert answer.answered is True
    assert answer.text == " ".join(f"w{n}" for n in range(8))


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
async def test_a_50_mb_answer_is_refused_not_held(stream: bool) -> None:
    """50 MB of text in one message: bad data past the 4 MiB cap, retried once, then one
    sentence; never read whole."""
    async with HostileServer(messages=big_body(50)) as server, asyncio.timeout(GUARD_S):
        agent = claude_agent(server)
        answer = await ask(agent, stream=stream)
    assert answer.answered is False
    assert_error_sentence(answer.text)
    assert [a.outcome for a in answer.attempts] == ["bad_data", "bad_data"]


def test_agent_ask_against_a_trickle_exits_1_with_one_sentence() -> None:
    """The CLI, end to end: AGENT_MODEL_TIMEOUT cuts the trickle; exit 1, one sentence."""
    with HostileServer(messages=trickle()) as server:
        env = server.env(AGENT_MODEL_TIMEOUT="0.3", AGENT_TURN_TIMEOUT="3")
        code, out, err = cli(["ask", "weather in Paris?"], env)
    assert (code, out) == (EXIT_NO_ANSWER, "")
    assert err.count("\n") == 1
    assert_error_sentence(err.strip())


def test_agent_chat_against_pings_forever_says_so_and_takes_the_next_question() -> None:
    """The REPL, end to end: the streamed attempt is cut, one sentence, and the session goes
    on to the next line (here: the end of input)."""
    with HostileServer(messages=pings_forever()) as server:
        env = server.env(AGENT_MODEL_TIMEOUT="0.3", AGENT_TURN_TIMEOUT="3")
        code, out, _ = cli(["chat"], env, ["weather in Paris?", "/trace"])
    assert code == 0
    assert "Asking Claude for an answer" in out
    assert "timeout" in out  # /trace lists the cut attempts
    assert len(server.model_requests()) == 2
