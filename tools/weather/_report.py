"""What `get_weather` answers: a report from one source, or an honest degraded answer."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from errors import BadUpstreamData, duration

__all__ = [
    "Report",
    "SourceState",
    "as_number",
    "celsius",
    "degraded_json",
    "humidity",
    "label",
    "later_words",
]

# Outside this range a reading is not weather but a broken feed.
_PLAUSIBLE_C = (-95.0, 65.0)


@dataclass(frozen=True, slots=True)
class Report:
    """Current weather at one place, as one source reported it."""

    city: str
    temperature_c: float
    condition: str
    source: str
    humidity_pct: float | None = None
    note: str | None = None  # e.g. the region asked for fitted no place of that name

    def to_json(self) -> str:
        """The tool's success answer (docs/contracts.md, "The get_weather tool"), plus `note`
        when there is one."""
        body: dict[str, str] = {
            "city": self.city,
            "temperature": f"{_number(self.temperature_c)}°C",
            "condition": self.condition,
        }
        if self.humidity_pct is not None:
            body["humidity"] = f"{_number(self.humidity_pct)}%"
        body["source"] = self.source
        if self.note:
            body["note"] = self.note
        return json.dumps(body, ensure_ascii=False)


def _number(value: float) -> str:
    return f"{round(value, 1):g}"


# Names and descriptions from a source reach the model: words and light punctuation only.
_LABEL = re.compile(r"[\w ,.'’()-]{1,60}")


def label(value: object) -> str | None:
    """Upstream text fit to show (a place name, "Partly cloudy"), or None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text if _LABEL.fullmatch(text) else None


def celsius(value: object, source: str) -> float:
    """A temperature reading, or `BadUpstreamData`: null, text, NaN or absurd is not one."""
    number = as_number(value)
    if number is None or not _PLAUSIBLE_C[0] <= number <= _PLAUSIBLE_C[1]:
        raise BadUpstreamData(f"{source} sent no usable temperature ({value!r:.40})", source=source)
    return number


def as_number(value: object) -> float | None:
    """A finite number from a JSON number or numeric string (wttr.in sends strings)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def humidity(value: object) -> float | None:
    """Relative humidity, when present and between 0 and 100; otherwise left out."""
    number = as_number(value)
    return number if number is not None and 0 <= number <= 100 else None


# What became of a source that gave no answer, and how the degraded answer says it.
SourceState = Literal["down", "busy", "quota", "refused", "elsewhere", "unknown_place"]
_SAYS: dict[SourceState, str] = {
    "down": "is not answering",
    "busy": "is busy",
    "quota": "has used up its daily request limit",
    "refused": "turned down the request",
    "elsewhere": "answered for a different place",
    "unknown_place": "did not know the place",
}
_ALL_SAY: dict[SourceState, str] = {
    "down": "the weather services are not answering",
    "busy": "the weather services are busy",
    "quota": "the weather services have used up their daily request limits",
    "refused": "the weather services turned down the request",
    "elsewhere": "the weather services answered for a different place",
    "unknown_place": "the weather services did not know the place",
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
    if not states:
        return _ALL_SAY["down"]
    if len(set(states)) == 1:
        return _ALL_SAY[states[0]]
    main, *others = states
    rest = " and ".join(f"the backup one {_SAYS[state]}" for state in others)
    return f"the main weather service {_SAYS[main]} and {rest}"


def later_words(retry_after_s: float | None, *, quota: bool = False) -> str:
    """When to try again: "in about 30 seconds" for a wait a server asked for, "in about
    7 hours" for a spent daily limit whose reset is known, "tomorrow" when it is not."""
    if retry_after_s is not None and retry_after_s > 0:
        return f"in about {_whole(retry_after_s)}"
    return "tomorrow" if quota else "in a few minutes"


def _whole(seconds: float) -> str:
    """A wait the server asked for, in words ("30 seconds", "2 minutes"); never "0 seconds"."""
    return duration(math.ceil(seconds))
