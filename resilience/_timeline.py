"""What the engine reports: one `Attempt` per try (the timeline) and `Progress` for a person.

A caller is whatever asked the engine for something: a tool ("get_weather") or the model
("model"). A source is one place an answer can come from: "open-meteo", "wttr.in",
"claude-sonnet-4-6". The timeline is what `/trace` and the demo show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["Attempt", "Observer", "Progress", "ProgressKind"]

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
