"""Where the weather services live: read from the environment once, at the entry point."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from errors import BadSetting, redact
from tools._urls import check_http_url

__all__ = ["DEFAULT_FORECAST_URL", "DEFAULT_GEOCODING_URL", "DEFAULT_WTTR_URL", "Endpoints"]

DEFAULT_GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
DEFAULT_FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
DEFAULT_WTTR_URL = "https://wttr.in"

# Each URL and the environment variable it comes from, for start-up errors.
_VARIABLES = {
    "geocoding_url": "OPEN_METEO_GEOCODING_URL",
    "forecast_url": "OPEN_METEO_FORECAST_URL",
    "wttr_url": "WTTR_URL",
}


@dataclass(frozen=True, slots=True, repr=False)
class Endpoints:
    """The three URLs `get_weather` calls. Each may carry a query (say `?apikey=…`): it is kept,
    and the tool's own parameters are added to it. The repr masks such keys."""

    geocoding_url: str = DEFAULT_GEOCODING_URL
    forecast_url: str = DEFAULT_FORECAST_URL
    wttr_url: str = DEFAULT_WTTR_URL

    def __post_init__(self) -> None:
        """A URL that is not http(s) is refused at start-up, named but not echoed."""
        for attribute, variable in _VARIABLES.items():
            check_http_url(variable, getattr(self, attribute))

    def __repr__(self) -> str:
        urls = (self.geocoding_url, self.forecast_url, self.wttr_url)
        return f"Endpoints({', '.join(repr(redact(url)) for url in urls)})"

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, lenient: bool = False) -> Endpoints:
        """From OPEN_METEO_GEOCODING_URL, OPEN_METEO_FORECAST_URL and WTTR_URL; unset or
        empty values keep the defaults. `lenient` (offline, where no real service is called):
        a value that is not an http(s) URL keeps the default too, rather than being refused."""
        urls = {
            "geocoding_url": env.get("OPEN_METEO_GEOCODING_URL") or DEFAULT_GEOCODING_URL,
            "forecast_url": env.get("OPEN_METEO_FORECAST_URL") or DEFAULT_FORECAST_URL,
            "wttr_url": _no_trailing_slash(env.get("WTTR_URL") or DEFAULT_WTTR_URL),
        }
        if lenient:
            urls = {name: _usable(name, url) for name, url in urls.items()}
        return cls(**urls)


_DEFAULTS = {
    "geocoding_url": DEFAULT_GEOCODING_URL,
    "forecast_url": DEFAULT_FORECAST_URL,
    "wttr_url": DEFAULT_WTTR_URL,
}


def _usable(attribute: str, url: str) -> str:
    """`url` if it is an http(s) URL, else the default for `attribute`."""
    try:
        check_http_url(_VARIABLES[attribute], url)
    except BadSetting:
        return _DEFAULTS[attribute]
    return url


def _no_trailing_slash(url: str) -> str:
    """`url` with its path's trailing slash dropped (any query left as it is)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/")))
