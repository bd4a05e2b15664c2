"""What `get_weather` answers: a report from one source, or an honest degraded answer."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from errors import BadUpstreamData, duration

__all__ = ["Report", "as_number", "celsius", "degraded_json", "humidity", "label"]

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

    def to_json(self) -> str:
        """The tool's success answer (docs/contracts.md, "The get_weather tool")."""
        body: dict[str, str] = {
            "city": self.city,
            "temperature": f"{_number(self.temperature_c)}°C",
            "condition": self.condition,
        }
        if self.humidity_pct is not None:
            body["humidity"] = f"{_number(self.humidity_pct)}%"
        body["source"] = self.source
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


def degraded_json(city: str, retry_after_s: float | None = None) -> str:
    """The answer when no source could give the weather: says so, and invents nothing."""
    later = "in a few minutes" if retry_after_s is None else f"in about {_whole(retry_after_s)}"
    message = (
        f"Current weather for {city} is unavailable right now because the weather services "
        f"are not answering; check a local weather service or try again {later}."
    )
    return json.dumps({"city": city, "degraded": True, "message": message}, ensure_ascii=False)


def _whole(seconds: float) -> str:
    """A wait the server asked for, in words ("30 seconds", "2 minutes"); never "0 seconds"."""
    return duration(math.ceil(seconds))
