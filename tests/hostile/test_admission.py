"""Finding 8, the load half: many concurrent questions in one process queue or are refused
early, instead of all starting and all timing out.

Before: the soak at concurrency 100 collapsed once under load (652 of 1,000 "unavailable",
queueing past the deadlines): nothing bounded how many questions ran at once. Now a shared
`Admission` lets `max_in_flight` run, `max_waiting` wait, and refuses the rest at once.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from agent.app import Admission, ask, model_client
from agent.records import BUSY
from agent.settings import Settings
from benchmarks.hostile_server import HostileServer, answer, slowly
from tests.hostile.agents import GUARD_S
from tools import make_client


async def test_overload_queues_what_fits_and_refuses_the_rest_at_once() -> None:
    """30 questions at once against a slow model, 5 in flight and 10 waiting: 15 answered
    (5 at once, then the 10 that waited), 15 refused plainly without reaching the model."""
    async with HostileServer(messages=slowly(answer("Four."), 0.2)) as server:
        settings = Settings.from_env(server.env(), offline=False)
        admission = Admission(max_in_flight=5, max_waiting=10, max_wait_s=GUARD_S)
        client = model_client(settings)
        assert client is not None
        async with make_client() as http, asyncio.timeout(GUARD_S):
            answers = await asyncio.gather(
                *(
                    ask("2+2?", settings, http=http, client=client, admission=admission)
                    for _ in range(30)
                )
            )
        await client.close()
        asked = len(server.model_requests())
    outcomes = Counter(a.text for a in answers)
    assert outcomes == {"Four.": 15, BUSY.user_message: 15}
    assert asked == 15
    assert all(not a.answered for a in answers if a.text == BUSY.user_message)
    assert (admission.in_flight, admission.waiting, admission.refused) == (0, 0, 15)
