"""Admission control: at most `max_in_flight` questions run, a bounded queue waits for a
bounded time, and the rest are refused at once with one plain sentence."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from agent.app import Admission, Busy
from agent.records import BUSY
from agent.settings import Settings
from offline import ask
from tests.agent.helpers import assert_error_sentence


async def _hold(admission: Admission, release: asyncio.Event, entered: list[int]) -> None:
    async with admission.slot():
        entered.append(admission.in_flight)
        await release.wait()


async def test_past_the_in_flight_bound_questions_wait_their_turn() -> None:
    """Two slots, three questions: the third waits, then runs when a slot frees."""
    admission = Admission(max_in_flight=2, max_waiting=5, max_wait_s=10)
    release, entered = asyncio.Event(), []
    tasks = [asyncio.create_task(_hold(admission, release, entered)) for _ in range(3)]
    for _ in range(5):
        await asyncio.sleep(0)
    assert (admission.in_flight, admission.waiting, len(entered)) == (2, 1, 2)
    release.set()
    await asyncio.gather(*tasks)
    assert (len(entered), admission.in_flight, admission.waiting) == (3, 0, 0)
    assert max(entered) <= 2


async def test_a_full_queue_refuses_at_once() -> None:
    """One slot, one place in the queue: the third question is refused without waiting."""
    admission = Admission(max_in_flight=1, max_waiting=1, max_wait_s=10)
    release, entered = asyncio.Event(), []
    held = [asyncio.create_task(_hold(admission, release, entered)) for _ in range(2)]
    await asyncio.sleep(0)
    with capture_logs() as logs, pytest.raises(Busy) as caught:
        async with admission.slot():
            pass
    assert caught.value.why == "queue_full"
    [event] = [e for e in logs if e["event"] == "agent.admission_refused"]
    assert (event["in_flight"], event["waiting"], event["error_type"]) == (1, 1, "busy")
    release.set()
    await asyncio.gather(*held)


async def test_a_wait_past_the_limit_is_refused() -> None:
    admission = Admission(max_in_flight=1, max_waiting=5, max_wait_s=0.01)
    release, entered = asyncio.Event(), []
    held = asyncio.create_task(_hold(admission, release, entered))
    await asyncio.sleep(0)
    with pytest.raises(Busy) as caught:
        async with admission.slot():
            pass
    assert caught.value.why == "waited_too_long"
    assert (admission.waiting, admission.refused) == (0, 1)
    release.set()
    await held


async def test_ask_refused_is_one_plain_sentence_unanswered() -> None:
    """`ask(..., admission=)` with no room: no agent is built, one sentence, not answered."""
    admission = Admission(max_in_flight=1, max_waiting=0, max_wait_s=1)
    release, entered = asyncio.Event(), []
    held = asyncio.create_task(_hold(admission, release, entered))
    await asyncio.sleep(0)
    answer = await ask("what is 2 + 2?", Settings(), admission=admission)
    assert (answer.answered, answer.text, answer.model_calls) == (False, BUSY.user_message, 0)
    assert_error_sentence(answer.text)
    release.set()
    await held
    assert (await ask("what is 2 + 2?", Settings(), admission=admission)).answered is True
