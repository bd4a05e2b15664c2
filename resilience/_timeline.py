"""What the engine reports: one `Attempt` per try (the timeline) and `Progress` for a person.

A caller is whatever asked the engine for something: a tool ("get_weather") or the model
("model"). A source is one place an answer can come from: "open-meteo", "wttr.in",
"claude-sonnet-4-6". The timeline is what `/trace` and the demo show.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["Attempt", "Observer", "Progress", "ProgressKind", "record", "recording_attempts"]

# "attempting": an attempt at `source` has just gone out (a display may count the seconds);
# the others say what follows a failure.
ProgressKind = Literal["attempting", "retrying", "waiting", "falling_back", "degraded", "skipped"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try at one source."""

    caller: str  # "get_weather", "calculate", "model", …
    source: str  # "open-meteo", "wttr.in", "claude-sonnet-4-6", …
    number: int  # 1-based, per source (0: the source was skipped, not called)
    duration_s: float
    outcome: str  # "ok", or the error_type of the failure
    action: str | None = None  # error-to-action's action, on failure
    wait_s: float | None = None  # the wait before the next attempt, when one was slept
    subject: str = ""  # what the call was about, when it names one ("Paris")


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress event for a status line ("open-meteo failed — retrying in 2 seconds")."""

    kind: ProgressKind
    caller: str
    source: str
    message: str  # one plain phrase, safe to show a person
    wait_s: float | None = None


class Observer(Protocol):
    """Receives progress events; must not block."""

    def __call__(self, event: Progress, /) -> None: ...


# The lists `recording_attempts` fills, innermost last; a task started inside inherits them.
_RECORDERS: ContextVar[tuple[list[Attempt], ...]] = ContextVar("attempt_recorders", default=())


@contextlib.contextmanager
def recording_attempts() -> Iterator[list[Attempt]]:
    """A list that receives every attempt made inside the block (in this task and the tasks
    it starts) as soon as it is made, so that a caller cancelled part-way (Ctrl-C in the
    REPL) still knows what was tried. An attempt cut short by the cancellation is there too,
    with the outcome "cancelled"."""
    attempts: list[Attempt] = []
    token = _RECORDERS.set((*_RECORDERS.get(), attempts))
    try:
        yield attempts
    finally:
        _RECORDERS.reset(token)


def record(attempt: Attempt) -> None:
    """Hand `attempt` to every `recording_attempts` block it was made in."""
    for attempts in _RECORDERS.get():
        attempts.append(attempt)
