"""Admission control: many questions at once in one process queue, or are refused early,
instead of all starting and all timing out together.

A server asking many questions on shared clients (the benchmark's soak calls
`agent.app.ask` a hundred at a time) shares one `Admission`: at most `max_in_flight`
questions run; up to `max_waiting` more wait their turn, each for at most `max_wait_s`; a
question that finds the queue full, or waits longer than that, is refused at once with one
plain sentence (`BUSY`), unanswered. Without it, every question starts, the connection
pools and the upstreams are swamped, and the deadlines run out for all of them.

    admission = Admission()
    answer = await ask(question, settings, http=http, client=client, admission=admission)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Literal

import structlog

from errors import Action, ErrorAction

__all__ = ["BUSY", "Admission", "Busy"]

log = structlog.get_logger("agent")

BUSY = ErrorAction(
    error_type="busy",
    user_message=(
        "The agent is busy with other questions right now, so this one was not started; "
        "please try again shortly."
    ),
    action=Action.WAIT,  # capacity frees up as the running questions finish
    action_detail="Ask again in a few seconds; nothing was started for this question.",
    retryable=True,  # by the caller, later: nothing here retries it
    developer_note="refused by admission control: too many questions in flight and waiting",
)

Why = Literal["queue_full", "waited_too_long"]


class Busy(Exception):
    """A question refused by admission control; `why` says which limit refused it."""

    def __init__(self, why: Why) -> None:
        super().__init__(why)
        self.why = why


class Admission:
    """A semaphore with a bounded, time-limited wait queue; share one per process."""

    def __init__(
        self, max_in_flight: int = 32, max_waiting: int = 100, max_wait_s: float = 30.0
    ) -> None:
        if max_in_flight < 1 or max_waiting < 0 or max_wait_s < 0:
            raise ValueError("max_in_flight must be at least 1; the others not negative")
        self.max_in_flight = max_in_flight
        self.max_waiting = max_waiting
        self.max_wait_s = max_wait_s
        self._slots = asyncio.Semaphore(max_in_flight)
        self.in_flight = 0
        self.waiting = 0
        self.refused = 0

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the slots for the question's run; `Busy` if none comes in time."""
        await self._enter()
        try:
            yield
        finally:
            self.in_flight -= 1
            self._slots.release()

    async def _enter(self) -> None:
        if self._slots.locked() or self.waiting:  # no free slot, or others are first in line
            if self.waiting >= self.max_waiting:
                raise self._refuse("queue_full")
            self.waiting += 1
            try:
                async with asyncio.timeout(self.max_wait_s):
                    await self._slots.acquire()
            except TimeoutError:
                raise self._refuse("waited_too_long") from None
            finally:
                self.waiting -= 1
        else:
            await self._slots.acquire()
        self.in_flight += 1

    def _refuse(self, why: Why) -> Busy:
        self.refused += 1
        log.warning(
            "agent.admission_refused",
            why=why,
            in_flight=self.in_flight,
            waiting=self.waiting,
            **BUSY.log_fields(),
        )
        return Busy(why)
