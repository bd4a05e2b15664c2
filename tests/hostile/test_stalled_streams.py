"""Finding 10 of issue 19: stalled model streams, with the default settings.

Before: a trickling body, `ping` events forever or text deltas forever held a question about
240 s (two attempts of AGENT_MODEL_TIMEOUT=120); only a shortened AGENT_MODEL_TIMEOUT showed
them bounded. Now each attempt also has a no-progress window (AGENT_MODEL_STALL_TIMEOUT,
30 s): nothing new for that long — only pings, blank deltas, or bytes that never complete an
event — and it is cut. A stream that has shown text when its attempt is cut keeps it, marked
with one plain sentence (`records.BROKE_OFF`), and is not asked for again. A live answer that
streams steadily for longer than the window is never cut.

The windows here are short and passed explicitly; every other bound is the default. Nothing
asserts a duration: a test that would take the old ~240 s fails at its hang guard instead.
"""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from agent import models, records
from agent.cli import EXIT_NO_ANSWER, EXIT_OK
from benchmarks.hostile_server import (
    HostileServer,
    Route,
    deltas_forever,
    pings_forever,
    steadily,
    trickle,
    whitespace_forever,
)
from tests.agent.helpers import assert_error_sentence
from tests.hostile.agents import GUARD_S, assert_cut_twice, claude_agent, events, run_agent

STALL = "0.5"  # AGENT_MODEL_STALL_TIMEOUT in the child processes: every other bound the default
CUT_NOTE = "(The answer stopped coming here"  # records.BROKE_OFF, as the person reads it


@pytest.mark.parametrize(
    ("route", "stream"),
    [
        (trickle(), False),
        (trickle(), True),
        (pings_forever(), True),
        (whitespace_forever(), True),
    ],
    ids=["trickle", "trickle, streamed", "pings forever", "blank deltas forever"],
)
async def test_an_attempt_without_progress_is_cut_at_the_window(route: Route, stream: bool) -> None:
    """Bytes or events keep coming but nothing new: each attempt is cut at the no-progress
    window (the attempt's own limit, 120 s, never reached), retried once, then one plain
    sentence; the client hangs up each connection."""
    async with HostileServer(messages=route) as server, asyncio.timeout(GUARD_S):
        agent = claude_agent(server, attempt_s=120.0, stall_s=0.3, turn_s=300.0)
        with capture_logs() as logs:
            answer = await agent.ask("hi", on_text=(lambda _text: None) if stream else None)
        assert server.saw_hang_ups(2)
        await agent.aclose()
    assert_cut_twice(answer, len(server.model_requests()), logs, "nothing new came for 0.3 s")


async def test_a_stream_that_stalls_after_text_keeps_it_and_says_it_was_cut() -> None:
    """ "Hello there." then blank deltas forever: the attempt is cut at the window, the answer
    is what was shown followed by one plain sentence, and the model is not asked again."""
    shown: list[str] = []
    async with HostileServer(messages=whitespace_forever("Hello there.")) as server:
        agent = claude_agent(server, attempt_s=120.0, stall_s=0.3, turn_s=300.0)
        async with asyncio.timeout(GUARD_S):
            with capture_logs() as logs:
                answer = await agent.ask("hi", on_text=shown.append)
            await agent.aclose()
    assert answer.answered is True
    assert answer.stop_reason == models.CUT_OFF
    assert answer.text == f"Hello there.\n\n{records.BROKE_OFF}"
    assert "".join(shown).endswith(f"\n{records.BROKE_OFF}\n")
    assert len(server.model_requests()) == 1
    [cut] = events(logs, "model.answer_cut")
    assert "nothing new came" in cut["why"]


async def test_text_forever_is_cut_at_the_attempt_limit_and_kept() -> None:
    """Text deltas forever are progress, so only the attempt's limit ends them: what was
    shown is kept and marked as cut, never re-asked in full."""
    async with HostileServer(messages=deltas_forever()) as server:
        agent = claude_agent(server, attempt_s=0.5, stall_s=30.0)
        async with asyncio.timeout(GUARD_S):
            answer = await agent.ask("hi", on_text=lambda _text: None)
            await agent.aclose()
    assert answer.answered is True
    assert answer.text.startswith("and on and on")
    assert answer.text.endswith(records.BROKE_OFF)
    assert len(server.model_requests()) == 1


async def test_a_live_answer_streaming_longer_than_the_window_is_not_cut() -> None:
    """A word every 0.05 s for 30 words, with a 1 s no-progress window: the stream lasts
    longer than the window in all, but something new keeps coming, so it is read to its end."""
    async with HostileServer(messages=steadily(30, 0.05)) as server:
        agent = claude_agent(server, attempt_s=120.0, stall_s=1.0)
        async with asyncio.timeout(GUARD_S):
            answer = await agent.ask("hi", on_text=lambda _text: None)
            await agent.aclose()
    assert answer.answered is True
    assert answer.stop_reason == "end_turn"
    assert answer.text == " ".join(f"w{n}" for n in range(30))
    assert len(server.model_requests()) == 1


# --- the command line, in child processes, with the default bounds -----------------------------


def test_agent_ask_against_a_trickle_exits_1_with_one_sentence_by_default() -> None:
    """`agent ask`, a body trickling forever, only the no-progress window shortened: exit 1,
    one sentence, two attempts (before: about 240 s)."""
    with HostileServer(messages=trickle()) as server:
        ran = run_agent(["ask", "hi"], server.env(AGENT_MODEL_STALL_TIMEOUT=STALL))
        asked = len(server.model_requests())
    assert (ran.code, ran.out, asked) == (EXIT_NO_ANSWER, "", 2)
    assert ran.err.count("\n") == 1
    assert_error_sentence(ran.err.strip())


def test_agent_chat_against_pings_forever_says_so_and_goes_on_by_default() -> None:
    """`agent chat`, pings forever: one sentence, and the next line is read (here `/trace`,
    which shows the two cut attempts)."""
    with HostileServer(messages=pings_forever()) as server:
        ran = run_agent(["chat"], server.env(AGENT_MODEL_STALL_TIMEOUT=STALL), "hi\n/trace\n")
        asked = len(server.model_requests())
    assert (ran.code, asked) == (EXIT_OK, 2)
    assert "Asking Claude for an answer" in ran.out
    assert ran.out.count("timeout") == 2


def test_agent_chat_keeps_an_answer_that_stalls_after_text() -> None:
    """`agent chat`, "Hello there." then blank deltas forever: the person keeps what they
    read, followed by one sentence saying it was cut off; the model is asked once."""
    route = whitespace_forever("Hello there.")
    with HostileServer(messages=route) as server:
        ran = run_agent(["chat"], server.env(AGENT_MODEL_STALL_TIMEOUT=STALL), "hi\n")
        asked = len(server.model_requests())
    assert (ran.code, asked) == (EXIT_OK, 1)
    assert "Hello there." in ran.out
    assert CUT_NOTE in ran.out
    assert ran.out.index("Hello there.") < ran.out.index(CUT_NOTE)


def test_agent_chat_keeps_text_that_never_ends_and_marks_it() -> None:
    """`agent chat`, text deltas forever, the attempt limit shortened: the text shown stays,
    marked as cut, and it is not asked for again (before: a second attempt, then a failure
    sentence under the first attempt's text)."""
    with HostileServer(messages=deltas_forever()) as server:
        ran = run_agent(["chat"], server.env(AGENT_MODEL_TIMEOUT="1"), "hi\n")
        asked = len(server.model_requests())
    assert (ran.code, asked) == (EXIT_OK, 1)
    assert "and on and on" in ran.out
    assert CUT_NOTE in ran.out
    assert "Asking Claude for an answer" not in ran.out
