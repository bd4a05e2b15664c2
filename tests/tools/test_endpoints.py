"""Endpoints: documented defaults (docs/contracts.md), environment overrides, URL checks."""

from __future__ import annotations

import pytest

from errors import BadSetting
from tools import check_http_url
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


def test_a_query_in_an_endpoint_is_kept_whole() -> None:
    """A key in the URL's query survives; only WTTR_URL's path loses its trailing slash."""
    env = {
        "OPEN_METEO_FORECAST_URL": "https://customer-api.open-meteo.com/v1/forecast?apikey=K3y/",
        "WTTR_URL": "https://wttr.test/weather/?key=K3y/",
    }
    endpoints = Endpoints.from_env(env)
    assert endpoints.forecast_url == env["OPEN_METEO_FORECAST_URL"]
    assert endpoints.wttr_url == "https://wttr.test/weather?key=K3y/"


def test_repr_masks_keys_in_the_urls() -> None:
    """Printed or logged as an object, the endpoints show no key."""
    endpoints = Endpoints(forecast_url="https://api.test/v1/forecast?apikey=S3cret-Key")
    text = repr(endpoints)
    assert "S3cret-Key" not in text
    assert "apikey=[redacted]" in text
    assert "https://wttr.in" in text


def test_a_refused_url_is_reported_without_its_key() -> None:
    """The start-up error for a non-http URL does not echo a key it carries."""
    with pytest.raises(ValueError, match="http") as caught:
        Endpoints.from_env({"WTTR_URL": "ftp://wttr.test/?key=S3cret-Key"})
    assert "S3cret-Key" not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "https://api.open-meteo.com/v1/forecast",
        "http://127.0.0.1:8080/geo?apikey=K3y",
        "http://[::1]:1/wttr",
        "HTTPS://Example.test",
    ],
)
def test_an_http_url_with_a_host_passes(url: str) -> None:
    """http(s), a host, and a port in range if there is one."""
    check_http_url("SOME_URL", url)


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("file:///etc/passwd", id="not http"),
        pytest.param("ftp://wttr.test/", id="ftp"),
        pytest.param("wttr.in", id="no scheme"),
        pytest.param("https://", id="no host"),
        pytest.param("https:///v1/search", id="empty host"),
        pytest.param("http://host:99999/x", id="port out of range"),
        pytest.param("http://host:port/x", id="port not a number"),
        pytest.param("http://[::1/x", id="unparseable"),
        pytest.param("", id="empty"),
    ],
)
def test_anything_else_is_a_bad_setting_named_not_echoed(url: str) -> None:
    """The setting is named, the value (it may hold a key) is not repeated."""
    with pytest.raises(BadSetting) as caught:
        check_http_url("OPEN_METEO_FORECAST_URL", url + "?key=S3cret")
    assert (caught.value.name, caught.value.problem) == (
        "OPEN_METEO_FORECAST_URL",
        "must be an http(s) URL",
    )
    assert "S3cret" not in str(caught.value)


def test_endpoints_refuse_a_url_without_a_host() -> None:
    """Endpoints use the same check: "https://" alone fails at start-up."""
    with pytest.raises(BadSetting, match="OPEN_METEO_GEOCODING_URL"):
        Endpoints.from_env({"OPEN_METEO_GEOCODING_URL": "https://"})
