"""What the fault server is told to do (a `Plan`) and what it tells back (a `Report`).

Both cross a process boundary as JSON, so they are pydantic models.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["HANG_S", "RANDOM_FAULTS", "ROUTES", "Fault", "Plan", "Report", "Route", "Share"]

Route = Literal["messages", "geocoding", "forecast", "wttr"]
ROUTES: tuple[Route, ...] = ("messages", "geocoding", "forecast", "wttr")


class Fault(BaseModel):
    """One scripted fault on one route."""

    model_config = ConfigDict(frozen=True)

    route: Route
    kind: Literal["status", "drop", "garbage", "stream_error", "hang"] = "status"
    status: int = 503
    retry_after: int | None = None  # seconds; the server keeps refusing until they have passed
    times: int | None = None  # how many requests it hits; None: every one
    for_s: float | None = None  # only while this many seconds since the plan; None: always


HANG_S = 30.0  # how long a "hang" holds its request before answering: past every client's timeout


class Share(BaseModel):
    """A fault that hits this fraction of the requests to its route (`Plan.mix`)."""

    model_config = ConfigDict(frozen=True)

    rate: float
    fault: Fault


class Plan(BaseModel):
    """A scenario's faults and latencies; applying one resets the server's counters."""

    model_config = ConfigDict(frozen=True)

    seed: int = 0
    latency: dict[Route, float] = Field(default_factory=dict)  # seconds added to every response
    faults: tuple[Fault, ...] = ()
    random_rate: float = 0.0  # chance that any one request to a route in `random_routes` fails
    random_routes: tuple[Route, ...] = ()
    mix: tuple[Share, ...] = ()  # seeded draws per request: each share's fault at its rate
    secrets: tuple[str, ...] = ()  # strings that must never appear in a request to the model


class Report(BaseModel):
    """What the server saw since the last plan."""

    requests: dict[str, int] = Field(default_factory=dict)
    model_calls: int = 0
    faults_injected: int = 0
    protocol_errors: list[str] = Field(default_factory=list)
    tool_results: dict[str, str] = Field(default_factory=dict)  # tool_use_id -> text, as received
    secret_hits: int = 0
    last_questions: list[str] = Field(
        default_factory=list
    )  # the person's texts in the last request


# The soak's random faults: what a flaky upstream really does, per route.
_WEATHER_MENU: tuple[dict[str, object], ...] = (
    {"status": 503},
    {"status": 500},
    {"kind": "drop"},  # connection closed without a response
    {"status": 429, "retry_after": 1},
    {"kind": "garbage"},  # 200 with an HTML page
)
_MODEL_MENU: tuple[dict[str, object], ...] = (
    {"status": 529},
    {"status": 500},
    {"status": 429, "retry_after": 1},
    {"kind": "stream_error"},  # overloaded_error mid-stream (a 529 if not streaming)
)
RANDOM_FAULTS: dict[Route, tuple[Fault, ...]] = {
    route: tuple(
        Fault.model_validate({"route": route, **spec})
        for spec in (_MODEL_MENU if route == "messages" else _WEATHER_MENU)
    )
    for route in ROUTES
}
