"""`get_weather`'s work: Open-Meteo, then wttr.in, then an honest "unavailable".

Imported by the tool's first call (`tools.weather._tool`), with the HTTP stack and the
gazetteer: a question that never asks about the weather never loads them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx

from errors import NotFound
from resilience import Attempt, AttemptInfo, Engine, Outcome, Source
from tools._result import to_result
from tools._types import ToolResult
from tools.weather import _open_meteo, _wttr
from tools.weather._endpoints import Endpoints
from tools.weather._input import WeatherInput
from tools.weather._report import Report, SourceState, degraded_json, later_words

__all__ = ["Weather"]

# error-to-action's kinds, as the degraded answer says them.
_BUSY = frozenset({"rate_limit", "overloaded", "service_unavailable", "conflict"})
_REFUSED = frozenset(
    {
        "auth_invalid_credentials",
        "auth_token_expired",
        "auth_permission_denied",
        "auth_requires_admin",
        "invalid_request",
        "request_too_large",
    }
)


class Weather:
    """The tool's state: the client, the endpoints and the engine (breakers, budget), and
    whether a source's breaker is being held for a spent daily quota."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, engine: Engine):
        self._client = client
        self._endpoints = endpoints
        self._engine = engine
        self._quota_held: set[str] = set()  # sources whose breaker holds a spent quota

    async def answer(self, args: WeatherInput) -> ToolResult:
        operation = f"getting the weather for {args.city}"
        call = _Call(self._client, self._endpoints, args.city)
        outcome = await self._engine.run(operation, call.sources(), subject=args.city)
        self._remember_quota(outcome.attempts)
        no_answer = self._degraded(args.city, call)
        return to_result(outcome, operation, Report.to_json, no_answer=no_answer)

    def _remember_quota(self, attempts: tuple[Attempt, ...]) -> None:
        for attempt in attempts:
            if attempt.outcome == "quota_exhausted":
                self._quota_held.add(attempt.source)
            elif attempt.outcome == "ok" or self._engine.breaker(attempt.source).state == "closed":
                self._quota_held.discard(attempt.source)

    def _degraded(self, city: str, call: _Call) -> Callable[[Outcome[Report]], ToolResult]:
        """No source answered: an honest "unavailable" that says what happened to each
        source and when to try again (a spent quota: when it resets, else "tomorrow")."""

        def answer(outcome: Outcome[Report]) -> ToolResult:
            tried = call.tried(outcome)
            states = [self._state(name, outcome.attempts, call) for name in tried]
            quota = [name for name, state in zip(tried, states, strict=True) if state == "quota"]
            if quota:
                wait = max(self._engine.breaker(name).remaining_cooldown() for name in quota)
                later = later_words(wait or None, quota=True)
            else:
                later = later_words(outcome.retry_after_s)
            return ToolResult(degraded_json(city, states, later), attempts=outcome.attempts)

        return answer

    def _state(self, source: str, attempts: tuple[Attempt, ...], call: _Call) -> SourceState:
        last = [a for a in attempts if a.source == source][-1]
        error = call.errors.get(source)
        if last.number == 0:  # skipped: its breaker is open
            return "quota" if source in self._quota_held else "down"
        if isinstance(error, _wttr.PlaceMismatch):
            return "elsewhere"
        if isinstance(error, _open_meteo.RequestRefused) or last.outcome in _REFUSED:
            return "refused"
        if isinstance(error, NotFound):
            return "unknown_place"
        if last.outcome == "quota_exhausted":
            return "quota"
        return "busy" if last.outcome in _BUSY else "down"


class _Call:
    """One call's sources: Open-Meteo, then wttr.in (checked against the place Open-Meteo
    found, if it got that far), and the last error each one raised."""

    def __init__(self, client: httpx.AsyncClient, endpoints: Endpoints, city: str) -> None:
        self.primary = _open_meteo.OpenMeteo(client, endpoints, city)
        self.fallback = _wttr.Wttr(client, endpoints, city, known=lambda: self.primary.place)
        self.errors: dict[str, Exception] = {}

    def sources(self) -> list[Source[Report]]:
        """Only Open-Meteo's "no such place" is believed (wttr.in's answers for unknown places
        have changed too often); a unit it cannot read is not asked for again."""
        return [
            Source(
                _open_meteo.SOURCE,
                self._recorded(_open_meteo.SOURCE, self.primary.fetch),
                retry_on=lambda error: not isinstance(error, _open_meteo.UnexpectedUnit),
            ),
            Source(
                _wttr.SOURCE,
                self._recorded(_wttr.SOURCE, self.fallback.fetch),
                trusted_not_found=False,
            ),
        ]

    def tried(self, outcome: Outcome[Report]) -> list[str]:
        """The sources the call reached, in order."""
        return list(dict.fromkeys(attempt.source for attempt in outcome.attempts))

    def _recorded(
        self, name: str, fetch: Callable[[AttemptInfo], Awaitable[Report]]
    ) -> Callable[[AttemptInfo], Awaitable[Report]]:
        async def attempt(info: AttemptInfo) -> Report:
            try:
                return await fetch(info)
            except Exception as error:
                self.errors[name] = error
                raise

        return attempt
