"""Endpoint URLs carrying their own query (a commercial plan's API key): kept, merged, never logged.

httpx's `params=` replaces a URL's query, which silently dropped such a key; the tool now adds
its parameters to the query the URL already has.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import httpx
import pytest
import respx
from structlog.testing import capture_logs

from offline import SimulatedServices
from resilience import Policy
from tests.tools.upstream import (
    FROM_OPEN_METEO,
    FROM_WTTR,
    NO_MATCH,
    PARIS_FORECAST,
    PARIS_GEO,
    PARIS_J1,
    Script,
    ask,
    ok,
    parsed,
    status,
)
from tools import make_client, weather_tool
from tools.weather import Endpoints

KEY = "Zx81QpL2vN4-commercial"
KEYED = Endpoints(
    geocoding_url=f"https://customer-geocoding.test/v1/search?apikey={KEY}",
    forecast_url=f"https://customer-api.test/v1/forecast?apikey={KEY}",
    wttr_url=f"https://wttr.test/weather?key={KEY}",
)


def mount_keyed(
    routes: respx.MockRouter,
    geocoding: Script | None = None,
    forecast: Script | None = None,
    wttr: Script | None = None,
) -> tuple[Script, Script, Script]:
    """Route the keyed endpoints by address (any query), healthy unless a script is given."""
    scripts = (
        geocoding or Script(ok(PARIS_GEO)),
        forecast or Script(ok(PARIS_FORECAST)),
        wttr or Script(ok(PARIS_J1)),
    )
    for prefix, script in zip(
        ("https://customer-geocoding.test/", "https://customer-api.test/", "https://wttr.test/"),
        scripts,
        strict=True,
    ):
        routes.get(url__startswith=prefix).mock(side_effect=script)
    return scripts


async def test_open_meteo_requests_keep_the_key(
    routes: respx.MockRouter, client: httpx.AsyncClient, policy: Policy
) -> None:
    """Geocoding and forecast each carry the URL's apikey and the tool's own parameters."""
    geocoding, forecast, _ = mount_keyed(routes)
    result = await ask(weather_tool(client, endpoints=KEYED, policy=policy), "Paris")
    assert result.content == FROM_OPEN_METEO
    geo = geocoding.requests[0].url.params
    assert (geo.get_list("apikey"), geo["name"], geo["count"]) == ([KEY], "Paris", "5")
    now = forecast.requests[0].url.params
    assert (now.get_list("apikey"), now["latitude"]) == ([KEY], "48.85341")
    assert now["current"].startswith("temperature_2m")


async def test_a_city_cannot_change_the_key_or_our_parameters(
    routes: respx.MockRouter, client: httpx.AsyncClient, policy: Policy
) -> None:
    """ "&apikey=…&format=…" in a city stays inside `name`; the configured key is the only one."""
    geocoding, _, wttr = mount_keyed(
        routes, geocoding=Script(ok(NO_MATCH)), wttr=Script(status(503))
    )
    city = "Paris&apikey=evil&format=xml"
    await ask(weather_tool(client, endpoints=KEYED, policy=policy), city)
    params = geocoding.requests[0].url.params
    assert params.get_list("apikey") == [KEY]
    assert params.get_list("name") == [city]
    assert params.get_list("format") == ["json"]
    sent = wttr.requests[0].url
    assert sent.params.get_list("key") == [KEY]
    assert sent.params.get_list("format") == ["j1"]


async def test_wttr_gets_the_city_in_its_path_and_the_key_in_its_query(
    routes: respx.MockRouter, client: httpx.AsyncClient, policy: Policy
) -> None:
    """WTTR_URL's path takes the encoded city; its query keeps the key and adds format=j1."""
    _, _, wttr = mount_keyed(routes, geocoding=Script(status(401)))
    result = await ask(weather_tool(client, endpoints=KEYED, policy=policy), "Paris")
    assert result.content == FROM_WTTR
    assert wttr.requests[0].url.raw_path == f"/weather/Paris?key={KEY}&format=j1".encode()


async def test_a_keyed_wttr_url_still_encodes_the_city_as_one_segment(
    routes: respx.MockRouter, client: httpx.AsyncClient, policy: Policy
) -> None:
    """A city with '/', '.' and '?' stays one path segment before the URL's own query."""
    from_env = Endpoints.from_env({"WTTR_URL": f"https://wttr.test/weather/?key={KEY}"})
    endpoints = replace(KEYED, wttr_url=from_env.wttr_url)
    _, _, wttr = mount_keyed(routes, geocoding=Script(status(401)), wttr=Script(status(503)))
    await ask(weather_tool(client, endpoints=endpoints, policy=policy), "../x?format=xml")
    expected = f"/weather/%2E%2E%2Fx%3Fformat%3Dxml?key={KEY}&format=j1"
    assert wttr.requests[0].url.raw_path == expected.encode()


async def test_the_key_never_reaches_logs_or_the_model(
    routes: respx.MockRouter,
    client: httpx.AsyncClient,
    policy: Policy,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Failures whose text holds the full URL: developer_note masks the key, nothing else has it."""

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot connect to {request.url}", request=request)

    def echoing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"error": True, "reason": f"failed: {request.url}"})

    mount_keyed(routes, geocoding=Script(refused), wttr=Script(echoing))
    tool = weather_tool(client, endpoints=KEYED, policy=policy)
    with caplog.at_level(logging.DEBUG), capture_logs() as logs:
        result = await ask(tool, "Paris")
    assert parsed(result.content)["degraded"] is True
    notes = [e["developer_note"] for e in logs if e["event"] == "tool.attempt_failed"]
    assert len(notes) == 4
    assert all("key=[redacted]" in note for note in notes)  # the URL got there, masked
    everything = [json.dumps(logs, default=str), caplog.text, result.content, repr(result)]
    assert not [text for text in everything if KEY in text]


async def test_simulated_services_answer_keyed_endpoints(policy: Policy) -> None:
    """Offline, endpoints with a key in their query still reach the simulated services."""
    services = SimulatedServices(KEYED)
    async with make_client(transport=services.transport) as http:
        result = await ask(weather_tool(http, endpoints=KEYED, policy=policy), "Paris")
    assert parsed(result.content)["source"] == "open-meteo"
    assert services.calls["open-meteo-geocoding"][0].url.params["apikey"] == KEY
