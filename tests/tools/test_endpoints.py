"""Endpoints: defaults from DESIGN.md, overrides from an environment mapping."""

from __future__ import annotations

import pytest

from tools.weather import Endpoints


def test_defaults_are_the_real_services() -> None:
    """With nothing set, the public Open-Meteo and wttr.in addresses are used."""
    assert Endpoints.from_env({}) == Endpoints(
        "https://geocoding-api.open-meteo.com/v1/search",
        "https://api.open-meteo.com/v1/forecast",
        "https://wttr.in",
    )


def test_environment_overrides_each_url() -> None:
    """Each variable replaces its URL; a trailing slash on WTTR_URL is dropped."""
    env = {
        "OPEN_METEO_GEOCODING_URL": "http://127.0.0.1:1/geo",
        "OPEN_METEO_FORECAST_URL": "http://127.0.0.1:1/forecast",
        "WTTR_URL": "http://127.0.0.1:2/",
    }
    endpoints = Endpoints.from_env(env)
    assert (endpoints.geocoding_url, endpoints.forecast_url, endpoints.wttr_url) == (
        "http://127.0.0.1:1/geo",
        "http://127.0.0.1:1/forecast",
        "http://127.0.0.1:2",
    )


def test_empty_values_keep_the_defaults() -> None:
    """An empty variable counts as unset."""
    assert Endpoints.from_env({"WTTR_URL": ""}).wttr_url == "https://wttr.in"


def test_a_non_http_url_is_refused() -> None:
    """A URL that is not http(s) fails at start-up, not mid-turn."""
    with pytest.raises(ValueError, match="http"):
        Endpoints.from_env({"WTTR_URL": "file:///etc/passwd"})
