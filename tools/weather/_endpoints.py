"""Where the weather services live: read from the environment once, at the entry point."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DEFAULT_FORECAST_URL", "DEFAULT_GEOCODING_URL", "DEFAULT_WTTR_URL", "Endpoints"]

DEFAULT_GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
DEFAULT_FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
DEFAULT_WTTR_URL = "https://wttr.in"


@dataclass(frozen=True, slots=True)
class Endpoints:
    """The three URLs `get_weather` calls."""

    geocoding_url: str = DEFAULT_GEOCODING_URL
    forecast_url: str = DEFAULT_FORECAST_URL
    wttr_url: str = DEFAULT_WTTR_URL

    def __post_init__(self) -> None:
        for url in (self.geocoding_url, self.forecast_url, self.wttr_url):
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"weather endpoint must be an http(s) URL, got {url[:80]!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Endpoints:
        """From OPEN_METEO_GEOCODING_URL, OPEN_METEO_FORECAST_URL and WTTR_URL; unset or
        empty values keep the defaults."""
        return cls(
            geocoding_url=env.get("OPEN_METEO_GEOCODING_URL") or DEFAULT_GEOCODING_URL,
            forecast_url=env.get("OPEN_METEO_FORECAST_URL") or DEFAULT_FORECAST_URL,
            wttr_url=(env.get("WTTR_URL") or DEFAULT_WTTR_URL).rstrip("/"),
        )
