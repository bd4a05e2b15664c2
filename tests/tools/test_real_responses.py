"""get_weather against responses the real services sent, recorded by others.

Each body lives in `tests/tools/fixtures/` with its source (repository, path, commit) beside
it. Served through respx to the real tool: what the model is told is asserted word for word.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from errors import UpstreamStatus, classify
from tests.tools.upstream import (
    END,
    FORECAST,
    GEOCODING,
    PARIS_FORECAST,
    PARIS_GEO,
    REFUSED,
    Script,
    ask,
    because,
    degraded,
    ok,
    parsed,
    status,
)
from tools import Tool, make_client, weather_tool
from tools.http import get_json
from tools.weather import Endpoints
from tools.weather._sources import RequestRefused
from tools.weather._tool import degraded_json, later_words

FIXTURES = Path(__file__).parent / "fixtures"
BERLIN_GEO = {
    "results": [
        {"name": "Berlin", "latitude": 52.52437, "longitude": 13.41053, "country_code": "DE",
         "country": "Germany", "admin1": "Land Berlin"}
    ]
}  # fmt: skip


def fixture(name: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    assert record["source"]["repository"]  # every recorded body says where it comes from
    return record


def served(name: str) -> Script:
    """The recorded answer, byte for byte where it was kept as text."""
    record = fixture(name)
    text = record.get("body_text")
    content = text.encode() if text is not None else json.dumps(record["body"]).encode()
    headers = {"Content-Type": "application/json; charset=utf-8"}
    return Script(lambda _r: httpx.Response(record["status"], content=content, headers=headers))


def wttr_route(routes: respx.MockRouter, script: Script) -> respx.Route:
    return routes.get(url__startswith=f"{END.wttr_url}/").mock(side_effect=script)


def mount_om(
    routes: respx.MockRouter, geocoding: Script, forecast: Script | None = None
) -> tuple[respx.Route, respx.Route]:
    geo = routes.get(url__startswith=GEOCODING).mock(side_effect=geocoding)
    fc = routes.get(url__startswith=FORECAST).mock(side_effect=forecast or Script(ok({})))
    return geo, fc


def test_every_fixture_cites_its_source() -> None:
    """Repository and path for every fixture; a commit unless it is an issue thread."""
    for path in sorted(FIXTURES.glob("*.json")):
        source = json.loads(path.read_text(encoding="utf-8"))["source"]
        assert source["repository"], path.name
        assert source["path"], path.name
        assert source["commit"] or "issue" in source["path"], path.name


# --- °F reported as °C ----------------------------------------------------------------------


async def test_fahrenheit_answer_is_converted(routes: respx.MockRouter, weather: Tool) -> None:
    """Chicago's recorded 17.5 °F reaches the model as −8.1 °C, not "17.5°C"."""
    _, forecast = mount_om(routes, Script(ok(PARIS_GEO)), served("open_meteo_forecast_fahrenheit"))
    result = await ask(weather, "Paris")
    assert parsed(result.content) == {
        "city": "Paris, France",
        "temperature": "-8.1°C",
        "condition": "overcast",
        "humidity": "64%",
        "source": "open-meteo",
    }
    assert forecast.calls.last.request.url.params["temperature_unit"] == "celsius"


async def test_celsius_is_asked_for_over_a_configured_url(
    routes: respx.MockRouter, client: httpx.AsyncClient
) -> None:
    """A forecast URL configured with temperature_unit=fahrenheit still asks for celsius."""
    url = "https://proxy.test/v1/forecast?temperature_unit=fahrenheit&apikey=k"
    endpoints = Endpoints(forecast_url=url)
    routes.get(url__startswith=GEOCODING).mock(side_effect=Script(ok(PARIS_GEO)))
    proxy = routes.get(url__startswith="https://proxy.test/").mock(
        side_effect=Script(ok(PARIS_FORECAST))
    )
    result = await ask(weather_tool(client, endpoints=endpoints), "Paris")
    params = proxy.calls.last.request.url.params
    assert params.get_list("temperature_unit") == ["celsius"]
    assert params["apikey"] == "k"
    assert parsed(result.content)["temperature"] == "8.8°C"


async def test_an_unknown_unit_is_refused_once_and_wttr_answers(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """The recorded answer with its unit changed to kelvin: not converted, not asked again."""
    body = json.loads(fixture("open_meteo_forecast_fahrenheit")["body_text"])
    body["current_units"]["temperature_2m"] = "K"
    _, forecast = mount_om(routes, Script(ok(BERLIN_GEO)), Script(ok(body)))
    wttr_route(routes, served("wttr_berlin_j1"))
    result = await ask(weather, "Berlin")
    assert forecast.call_count == 1
    assert parsed(result.content)["source"] == "wttr.in"


# --- "City, Region" hints -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("city", "latitude", "named"),
    [
        ("Paris", "48.85341", "Paris, France"),
        ("Paris, TX", "33.66094", "Paris, Texas, United States"),
        ("Paris, Texas", "33.66094", "Paris, Texas, United States"),
        ("Paris, Tennessee", "36.302", "Paris, Tennessee, United States"),
        ("Paris, KY", "38.2098", "Paris, Kentucky, United States"),
        ("Paris, IL, US", "39.61115", "Paris, Illinois, United States"),
    ],
)
async def test_region_hints_pick_among_recorded_matches(
    city: str, latitude: str, named: str, routes: respx.MockRouter, weather: Tool
) -> None:
    """Open-Meteo's recorded five Parises (country names in French): hints by ISO code,
    region name or country alias pick the right one; the label names the region asked."""
    _, forecast = mount_om(routes, served("open_meteo_geocoding_paris"), Script(ok(PARIS_FORECAST)))
    result = await ask(weather, city)
    assert forecast.calls.last.request.url.params["latitude"] == latitude
    report = parsed(result.content)
    assert report["city"] == named
    assert "note" not in report


@pytest.mark.parametrize("city", ["Paris, USA", "Paris, United States"])
async def test_a_country_several_matches_share_is_answered_with_a_note(
    city: str, routes: respx.MockRouter, weather: Tool
) -> None:
    """ "Paris, USA": four recorded Parises are in the United States; the first answers,
    and the note names the others (all of comparable size)."""
    _, forecast = mount_om(routes, served("open_meteo_geocoding_paris"), Script(ok(PARIS_FORECAST)))
    report = parsed((await ask(weather, city)).content)
    assert forecast.calls.last.request.url.params["latitude"] == "33.66094"
    assert report["city"] == "Paris, Texas, United States"
    assert report["note"] == (
        "Several places are called Paris; this is Paris, Texas, United States. Others: Paris, "
        "Tennessee, United States; Paris, Kentucky, United States; Paris, Illinois, United States."
    )


async def test_a_hint_that_fits_no_match_is_said(routes: respx.MockRouter, weather: Tool) -> None:
    """ "Paris, Japan": no recorded Paris is in Japan; the answer names the place it is for."""
    mount_om(routes, served("open_meteo_geocoding_paris"), Script(ok(PARIS_FORECAST)))
    result = await ask(weather, "Paris, Japan")
    report = parsed(result.content)
    assert report["city"] == "Paris, France"
    assert report["note"] == "No Paris was found in Japan; this is the weather for Paris, France."


# --- a daily limit is not a busy spell ------------------------------------------------------


async def test_open_meteo_reason_reaches_the_classifier(routes: respx.MockRouter) -> None:
    """The 429 body's `reason` is passed on whole in the exception the tool raises."""
    routes.get(FORECAST).mock(side_effect=served("open_meteo_429_daily_limit"))
    async with make_client() as client:
        with pytest.raises(UpstreamStatus) as raised:
            await get_json(client, FORECAST, source="open-meteo")
    assert raised.value.status == 429
    assert raised.value.reason == (
        "open-meteo answered 429 Too Many Requests: "
        "Daily API request limit exceeded. Please try again tomorrow."
    )


def test_degraded_answer_after_a_spent_quota_says_when() -> None:
    """The words, given the states: the limit, the other source, and when it resets."""
    assert later_words(25_000, quota=True) == "in about 7 hours"
    assert later_words(None, quota=True) == "tomorrow"
    assert json.loads(degraded_json("Paris", ["quota", "down"], "tomorrow"))["message"] == (
        "Current weather for Paris is unavailable right now because the main weather service "
        "has used up its daily request limit and the backup one is not answering; check a "
        "local weather service or try again tomorrow."
    )


async def test_daily_limit_costs_one_request_and_wttr_answers(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """The recorded daily-limit 429: one forecast request, no retry; wttr.in answers."""
    _, forecast = mount_om(routes, Script(ok(BERLIN_GEO)), served("open_meteo_429_daily_limit"))
    wttr_route(routes, served("wttr_berlin_j1"))
    result = await ask(weather, "Berlin")
    assert forecast.call_count == 1
    assert [(a.source, a.outcome) for a in result.attempts] == [
        ("open-meteo", "quota_exhausted"),
        ("wttr.in", "ok"),
    ]


async def test_daily_limit_holds_the_breaker_and_the_next_call_skips_open_meteo(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """After the limit, the next call sends nothing to Open-Meteo and asks wttr.in."""
    geo, forecast = mount_om(routes, Script(ok(BERLIN_GEO)), served("open_meteo_429_daily_limit"))
    wttr_route(routes, served("wttr_berlin_j1"))
    await ask(weather, "Berlin")
    second = await ask(weather, "Berlin")
    assert (geo.call_count, forecast.call_count) == (1, 1)
    assert [(a.source, a.number, a.outcome) for a in second.attempts] == [
        ("open-meteo", 0, "source_skipped"),
        ("wttr.in", 1, "ok"),
    ]
    assert parsed(second.content)["city"] == "Berlin, Germany"


async def test_daily_limit_with_wttr_down_says_when_to_try_again(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Both out, now and on the next call: the answer names the limit and when it resets."""
    mount_om(routes, Script(ok(PARIS_GEO)), served("open_meteo_429_daily_limit"))
    wttr_route(routes, Script(status(503)))
    for _ in range(2):
        message = parsed((await ask(weather, "Paris")).content)["message"]
        assert "the main weather service has used up its daily request limit" in message
        assert re.search(r"try again (tomorrow|in about \d+ (hours?|minutes?))\.$", message)


# --- a 400 for a request we built -----------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["open_meteo_400_invalid_variable", "open_meteo_400_forecast_variable_daily"]
)
async def test_our_own_bad_request_is_not_the_callers_to_fix(
    name: str, routes: respx.MockRouter, weather: Tool
) -> None:
    """The recorded 400s: an internal error (not fix_input), one request, wttr.in answers."""
    _, forecast = mount_om(routes, Script(ok(BERLIN_GEO)), served(name))
    wttr_route(routes, served("wttr_berlin_j1"))
    result = await ask(weather, "Berlin")
    assert forecast.call_count == 1
    first = result.attempts[0]
    assert (first.source, first.outcome, first.action) == (
        "open-meteo",
        "internal_error",
        "escalate",
    )
    assert parsed(result.content)["city"] == "Berlin, Germany"


async def test_our_own_bad_request_with_wttr_down_is_worded_as_it_happened(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Not "the services are not answering": one refused our request, the other is down."""
    mount_om(routes, Script(ok(PARIS_GEO)), served("open_meteo_400_invalid_variable"))
    wttr_route(routes, Script(status(503)))
    result = await ask(weather, "Paris")
    assert result.content == degraded(because=because(REFUSED, "is not answering"))


def test_refused_request_classifies_as_the_apps_own_problem() -> None:
    """What error-to-action makes of it today: escalate, for the developers."""
    verdict = classify(RequestRefused("open-meteo refused a request"), "getting the weather")
    assert (verdict.result.error_type, verdict.result.action.value) == (
        "internal_error",
        "escalate",
    )


# --- wttr.in's place is checked -------------------------------------------------------------


async def test_wttr_answer_for_the_place_asked_is_used(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Berlin's recorded j1, asked for Berlin with Open-Meteo refusing the key: believed."""
    mount_om(routes, Script(status(401)))
    wttr_route(routes, served("wttr_berlin_j1"))
    result = await ask(weather, "Berlin")
    assert parsed(result.content) == {
        "city": "Berlin, Germany",
        "temperature": "10°C",
        "condition": "partly cloudy",
        "humidity": "54%",
        "source": "wttr.in",
    }


@pytest.mark.parametrize(
    ("city", "recorded", "named"),
    [
        ("Detroit, MI", "wttr_detroit_j1", "Detroit, Michigan, United States"),
        ("Detroit, USA", "wttr_detroit_j1", "Detroit, United States"),
        ("Potsdam", "wttr_berlin_j1", "Potsdam, Germany"),  # nearest_area next door
    ],
)
async def test_wttr_area_fits_the_region_or_lies_next_door(
    city: str, recorded: str, named: str, routes: respx.MockRouter, weather: Tool
) -> None:
    """A region that fits, or an area within 50 km of a real city of the asked name; the
    place named as the gazetteer (and Open-Meteo) names it."""
    mount_om(routes, Script(status(401)))
    wttr_route(routes, served(recorded))
    assert parsed((await ask(weather, city)).content)["city"] == named


@pytest.mark.parametrize(
    ("city", "recorded"),
    [
        ("Lima", "wttr_heideck_j1"),  # an unknown name answered with some other place
        ("Paris, TX", "wttr_detroit_j1"),
    ],
)
async def test_wttr_answer_for_another_place_is_not_an_answer(
    city: str, recorded: str, routes: respx.MockRouter, weather: Tool
) -> None:
    """With Open-Meteo out, a mismatch degrades, saying the backup answered elsewhere."""
    mount_om(routes, Script(status(401)))
    wttr = wttr_route(routes, served(recorded))
    result = await ask(weather, city)
    assert wttr.call_count == 1  # not retried
    expected = degraded(because=because(REFUSED, "answered for a different place"), city=city)
    assert result.content == expected


async def test_wttr_answer_for_a_region_that_fits_no_such_place_says_so(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """ "Detroit, Ontario": no Detroit is in Ontario, so wttr.in's Detroit answers, and the
    note says so, as Open-Meteo's answer would."""
    mount_om(routes, Script(status(401)))
    wttr_route(routes, served("wttr_detroit_j1"))
    report = parsed((await ask(weather, "Detroit, Ontario")).content)
    assert (report["city"], report["source"]) == ("Detroit, United States", "wttr.in")
    assert report["note"] == (
        "No Detroit was found in Ontario; this is the weather for Detroit, United States."
    )


async def test_wttr_is_checked_against_where_open_meteo_put_the_city(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Geocoded Lima (−12.04, −77.03), forecast down: Heideck's j1 is 10,000 km off."""
    lima = {"results": [{"name": "Lima", "latitude": -12.04318, "longitude": -77.02824,
                         "country_code": "PE", "country": "Peru"}]}  # fmt: skip
    mount_om(routes, Script(ok(lima)), Script(status(503)))
    wttr_route(routes, served("wttr_heideck_j1"))
    result = await ask(weather, "Lima")
    assert parsed(result.content)["message"].startswith(
        "Current weather for Lima is unavailable right now because the main weather service is "
        "not answering and the backup one answered for a different place"
    )


async def test_wttr_near_the_geocoded_place_is_labelled_with_it(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Geocoded Berlin, forecast down: wttr.in's Berlin (0.6 km off) answers, as Open-Meteo
    named the place."""
    mount_om(routes, Script(ok(BERLIN_GEO)), Script(status(503)))
    wttr_route(routes, served("wttr_berlin_j1"))
    report = parsed((await ask(weather, "Berlin")).content)
    assert (report["city"], report["temperature"], report["source"]) == (
        "Berlin, Germany",
        "10°C",
        "wttr.in",
    )


async def test_unknown_place_with_wttr_elsewhere_is_a_name_to_fix(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Open-Meteo has no Xyzzyville; wttr.in's Heideck does not change that: fix_input."""
    mount_om(routes, Script(ok({"generationtime_ms": 0.3})))
    wttr_route(routes, served("wttr_heideck_j1"))
    result = await ask(weather, "Xyzzyville")
    assert result.error is not None
    assert (result.error.error_type, result.error.action) == ("not_found", "fix_input")
    assert "“Xyzzyville”" in result.content
