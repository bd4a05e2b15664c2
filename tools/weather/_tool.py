"""`get_weather`: Open-Meteo, then wttr.in, then an honest "unavailable".

    tool = weather_tool(http, endpoints=Endpoints.from_env(os.environ))

The tool runs its two sources (`tools.weather._sources`) through the resilience engine: a
deadline per attempt and per call, error-to-action on every failure, a circuit breaker per
source. Its answer is a `Report` as JSON: `city` names the place it is for, `temperature`
in °C, `condition` in words (from WMO's codes, or wttr.in's WorldWeatherOnline codes; never
upstream free text), `humidity` when known, the `source`, and a `note` when the place is not
plainly the one asked for (a name read as another, a shared name, a region that fits none:
`tools.weather.places`). With no source
answering it says so honestly — `"degraded": true`, what happened to each source and when to
try again, and no invented numbers. A place that does not exist is not an outage: the model
is told which name was not found. The endpoints are read from the environment once, at the
entry point.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from errors import ErrorType as T
from errors import NotFound, duration
from resilience import AttemptInfo, Engine, Event, Listener, Outcome, Policy, Source
from tools.registry import Tool, ToolResult, to_result
from tools.weather._sources import (
    OPEN_METEO,
    WTTR,
    Endpoints,
    OpenMeteo,
    PlaceMismatch,
    Report,
    RequestRefused,
    UnexpectedUnit,
    Wttr,
)

__all__ = [
    "DESCRIPTION",
    "SourceState",
    "WeatherInput",
    "degraded_json",
    "later_words",
    "weather_tool",
]


DESCRIPTION = (
    "Get the current weather for a city: temperature, conditions and, when known, humidity. "
    "Use it when the user asks about weather, temperature or rain somewhere. "
    "Give the whole name as the user wrote it ('St. Louis', 'Ft. Worth') and a region or "
    "country after a comma when a name is shared ('Paris, Texas', 'Washington, D.C.'). "
    '"city" in the answer names the place it is for; a "note" says when that is not plainly '
    "the place asked: a name read as another, a name several places share, a region that "
    "fits none; pass the note on to the user. "
    'If every weather service is down, the answer has "degraded": true and no numbers; '
    "tell the user the weather is unavailable rather than guessing."
)


class WeatherInput(BaseModel):
    """The tool's input, validated before any request is made."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")

    city: str = Field(
        min_length=1,
        max_length=100,
        description="The city's name, e.g. 'Paris', 'New York' or 'Paris, Texas'.",
    )

    @field_validator("city")
    @classmethod
    def _looks_like_a_name(cls, value: str) -> str:
        if any(unicodedata.category(ch).startswith("C") for ch in value):
            raise ValueError("contains control characters")
        if not any(ch.isalpha() for ch in value):
            raise ValueError("contains no letters")
        return value


# What became of a source that gave no answer, and how the degraded answer says it: of one
# service, and of them all.
SourceState = Literal["down", "busy", "quota", "refused", "elsewhere", "unknown_place"]
_SAYS: dict[SourceState, tuple[str, str]] = {
    "down": ("is not answering", "are not answering"),
    "busy": ("is busy", "are busy"),
    "quota": ("has used up its daily request limit", "have used up their daily request limits"),
    "refused": ("turned down the request", "turned down the request"),
    "elsewhere": ("answered for a different place", "answered for a different place"),
    "unknown_place": ("did not know the place", "did not know the place"),
}


def degraded_json(
    city: str, states: Sequence[SourceState] = ("down",), later: str = "in a few minutes"
) -> str:
    """The answer when no source could give the weather: says what happened, in fixed words
    (one state per source tried, main first), and when to try again; invents nothing."""
    message = (
        f"Current weather for {city} is unavailable right now because {_because(states)}; "
        f"check a local weather service or try again {later}."
    )
    return json.dumps({"city": city, "degraded": True, "message": message}, ensure_ascii=False)


def _because(states: Sequence[SourceState]) -> str:
    main, *others = states or ("down",)
    if all(state == main for state in others):
        return f"the weather services {_SAYS[main][1]}"
    rest = " and ".join(f"the backup one {_SAYS[state][0]}" for state in others)
    return f"the main weather service {_SAYS[main][0]} and {rest}"


def later_words(retry_after_s: float | None, *, quota: bool = False) -> str:
    """When to try again: "in about 30 seconds" for a wait a server asked for, "in about
    7 hours" for a spent daily limit whose reset is known, "tomorrow" when it is not."""
    if retry_after_s is not None and retry_after_s > 0:
        return f"in about {duration(math.ceil(retry_after_s))}"  # never "0 seconds"
    return "tomorrow" if quota else "in a few minutes"


# --- the tool ------------------------------------------------------------------------------

# error-to-action's kinds, as the degraded answer says them.
_BUSY = {T.RATE_LIMIT, T.OVERLOADED, T.SERVICE_UNAVAILABLE, T.CONFLICT}
_REFUSED = {T.AUTH_INVALID_CREDENTIALS, T.AUTH_TOKEN_EXPIRED, T.AUTH_PERMISSION_DENIED}
_REFUSED |= {T.AUTH_REQUIRES_ADMIN, T.INVALID_REQUEST, T.REQUEST_TOO_LARGE}


def weather_tool(
    client: httpx.AsyncClient | Callable[[], httpx.AsyncClient],
    *,
    endpoints: Endpoints | None = None,
    policy: Policy | None = None,
    listener: Listener | None = None,
) -> Tool:
    """The `get_weather` tool, with its own circuit breakers (one per source). `client` is
    the HTTP client, or a function that makes it on the first call."""
    weather = _Weather(client, endpoints or Endpoints(), Engine("get_weather", policy, listener))
    return Tool(
        name="get_weather",
        description=DESCRIPTION,
        input_model=WeatherInput,
        handler=weather.answer,
        activity="getting the weather",
        rebind=lambda policy, listener: weather_tool(
            client, endpoints=endpoints, policy=policy, listener=listener
        ),
    )


@dataclass
class _Weather:
    """The tool's state: the client, the endpoints and the engine (breakers, budget), and
    the sources whose breaker is being held for a spent daily quota."""

    client: httpx.AsyncClient | Callable[[], httpx.AsyncClient]
    endpoints: Endpoints
    engine: Engine
    quota_held: set[str] = field(default_factory=set)

    async def answer(self, args: WeatherInput) -> ToolResult:
        """One call: Open-Meteo, then wttr.in (checked against the place Open-Meteo found, if
        it got that far), then the degraded answer."""
        if callable(self.client):  # made on the first weather question
            self.client = self.client()
        primary = OpenMeteo(self.client, self.endpoints, args.city)
        fallback = Wttr(self.client, self.endpoints, args.city, known=lambda: primary.place)
        errors: dict[str, Exception] = {}
        sources = [
            # A unit it cannot read is not asked for again.
            Source(OPEN_METEO, _kept(errors, OPEN_METEO, primary.fetch), retry_on=_not_a_unit),
            # Only Open-Meteo's "no such place" is believed: wttr.in's answers for unknown
            # places have changed too often.
            Source(WTTR, _kept(errors, WTTR, fallback.fetch), trusted=False),
        ]
        operation = f"getting the weather for {args.city}"
        outcome = await self.engine.run(operation, sources, subject=args.city)
        self._remember_quota(outcome.attempts)
        return to_result(
            outcome, Report.to_json, no_answer=lambda o: self._degraded(args.city, o, errors)
        )

    def _remember_quota(self, attempts: tuple[Event, ...]) -> None:
        for attempt in attempts:
            if attempt.outcome == T.QUOTA_EXHAUSTED:
                self.quota_held.add(attempt.source)
            elif attempt.outcome == "ok" or self.engine.breaker(attempt.source).state == "closed":
                self.quota_held.discard(attempt.source)

    def _degraded(
        self, city: str, outcome: Outcome[Report], errors: dict[str, Exception]
    ) -> ToolResult:
        """No source answered: an honest "unavailable" that says what happened to each
        source and when to try again (a spent quota: when it resets, else "tomorrow")."""
        tried = list(dict.fromkeys(attempt.source for attempt in outcome.attempts))
        states = [self._state(name, outcome.attempts, errors.get(name)) for name in tried]
        quota = [name for name, state in zip(tried, states, strict=True) if state == "quota"]
        if quota:
            wait = max(self.engine.breaker(name).remaining_cooldown() for name in quota)
            later = later_words(wait or None, quota=True)
        else:
            later = later_words(outcome.retry_after_s)
        return ToolResult(degraded_json(city, states, later), attempts=outcome.attempts)

    def _state(
        self, source: str, attempts: tuple[Event, ...], error: Exception | None
    ) -> SourceState:
        last = [a for a in attempts if a.source == source][-1]
        if last.number == 0:  # skipped: its breaker is open
            return "quota" if source in self.quota_held else "down"
        if isinstance(error, PlaceMismatch):
            return "elsewhere"
        if isinstance(error, RequestRefused) or last.outcome in _REFUSED:
            return "refused"
        if isinstance(error, NotFound) or last.outcome == T.NOT_FOUND:  # wttr.in's 404 too
            return "unknown_place"
        if last.outcome == T.QUOTA_EXHAUSTED:
            return "quota"
        return "busy" if last.outcome in _BUSY else "down"


def _not_a_unit(error: BaseException) -> bool:
    return not isinstance(error, UnexpectedUnit)


def _kept(
    errors: dict[str, Exception], name: str, fetch: Callable[[AttemptInfo], Awaitable[Report]]
) -> Callable[[AttemptInfo], Awaitable[Report]]:
    """`fetch`, keeping the last error it raised in `errors[name]` (for the degraded answer)."""

    async def attempt(info: AttemptInfo) -> Report:
        try:
            return await fetch(info)
        except Exception as error:
            errors[name] = error
            raise

    return attempt
