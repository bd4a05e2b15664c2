"""The simulated services: a gazetteer, deterministic weather, and a fault plan per source."""

from __future__ import annotations

import httpx
import pytest

from offline import FORECAST, GEOCODING, WTTR, Fault, SimulatedServices, hand_set
from resilience import Policy
from tests.conftest import Progress
from tests.tools.fakes import FakeClock
from tests.tools.upstream import ask, because, degraded, parsed
from tools import Tool, weather_tool
from tools.weather._sources import LIGHT_VARIABLES

CITIES = ["Paris", "London", "Tokyo", "Mumbai", "Bonn", "New York City", "Sydney", "Berlin"]


@pytest.mark.parametrize("city", CITIES)
async def test_every_gazetteer_city_has_weather(city: str, sim_weather: Tool) -> None:
    """Each city answers from Open-Meteo with a temperature, a condition and humidity."""
    report = parsed((await ask(sim_weather, city)).content)
    assert report["city"].startswith(city)
    assert report["temperature"].endswith("°C")
    assert report.keys() == {"city", "temperature", "condition", "humidity", "source"}
    assert report["source"] == "open-meteo"


async def test_weather_is_deterministic(sim_weather: Tool) -> None:
    """The same question gets the same answer, word for word."""
    first, second = await ask(sim_weather, "Mumbai"), await ask(sim_weather, "Mumbai")
    assert (
        first.content
        == second.content
        == (
            '{"city": "Mumbai, India", "temperature": "31.4°C", "condition": "partly cloudy", '
            '"humidity": "70%", "source": "open-meteo"}'
        )
    )


async def test_wttr_answers_like_wttr(sim: SimulatedServices, sim_weather: Tool) -> None:
    """With Open-Meteo down, the simulated wttr.in answers in strings, rounded."""
    sim.fail_always(GEOCODING, Fault.status(401))
    result = await ask(sim_weather, "Bonn")
    assert result.content == (
        '{"city": "Bonn, Germany", "temperature": "9°C", "condition": "fog", "humidity": "76%", '
        '"source": "wttr.in"}'
    )


async def test_unknown_place_is_no_results_and_a_wttr_500(sim_client: httpx.AsyncClient) -> None:
    """Geocoding answers 200 without `results`; wttr.in answers 500 in plain text."""
    geo = await sim_client.get("https://geocoding-api.open-meteo.com/v1/search?name=Atlantis")
    wttr = await sim_client.get("https://wttr.in/Atlantis?format=j1")
    assert (geo.status_code, "results" in geo.json()) == (200, False)
    assert (wttr.status_code, wttr.text) == (500, "location not found: Atlantis")


@pytest.mark.parametrize(
    ("params", "countries"),
    [
        ({"name": "Paris", "count": "5"}, ["France", "United States"]),
        ({"name": "paris", "count": "1"}, ["France"]),
        ({"name": "London"}, ["United Kingdom", "Canada"]),
        ({"name": "Paris, France", "count": "5"}, None),
    ],
)
async def test_geocoding_matches_names_only_and_honours_count(
    params: dict[str, str], countries: list[str] | None, sim_client: httpx.AsyncClient
) -> None:
    """Like Open-Meteo: the name alone, biggest first, at most `count`; no match, no `results`."""
    url = "https://geocoding-api.open-meteo.com/v1/search"
    answer = await sim_client.get(url, params=params)
    results = answer.json().get("results")
    assert answer.status_code == 200
    assert ([r["country"] for r in results] if results is not None else None) == countries


@pytest.mark.parametrize("count", ["0", "101", "five", "-1"])
async def test_geocoding_refuses_a_count_out_of_range(
    count: str, sim_client: httpx.AsyncClient
) -> None:
    """A count outside 1–100 is a 400 with Open-Meteo's reason, as the real API answers."""
    url = "https://geocoding-api.open-meteo.com/v1/search"
    answer = await sim_client.get(url, params={"name": "Paris", "count": count})
    assert answer.status_code == 400
    assert answer.json() == {"error": True, "reason": "Parameter count must be between 1 and 100."}


@pytest.mark.parametrize(
    ("city", "expected"),
    [
        ("Paris, France", ("Paris, France", "8.8°C")),
        ("Paris, Texas", ("Paris, Texas, United States", "18.6°C")),
        ("London, CA", ("London, Canada", "4.2°C")),
        ("London", ("London, United Kingdom", "11.2°C")),
    ],
)
async def test_city_with_a_country_or_region_answers_offline(
    city: str, expected: tuple[str, str], sim_weather: Tool
) -> None:
    """The offline app geocodes "City, Region" by name and picks the place the rest names."""
    report = parsed((await ask(sim_weather, city)).content)
    assert (report["city"], report["temperature"], report["source"]) == (*expected, "open-meteo")


async def test_simulated_wttr_reads_a_region_too(sim: SimulatedServices, sim_weather: Tool) -> None:
    """With Open-Meteo down, wttr.in resolves "Paris, Texas" to that Paris, as wttr.in does."""
    sim.fail_always(GEOCODING, Fault.status(401))
    report = parsed((await ask(sim_weather, "Paris, Texas")).content)
    assert (report["city"], report["temperature"], report["source"]) == (
        "Paris, Texas, United States",
        "19°C",
        "wttr.in",
    )


async def test_unknown_place_costs_one_request_per_source(
    sim: SimulatedServices, sim_weather: Tool, clock: FakeClock
) -> None:
    """Atlantis: Open-Meteo has no results, wttr.in's 500 text is read as not found, not
    retried; no sleep, and the model is asked to fix the name."""
    result = await ask(sim_weather, "Atlantis")
    assert [len(sim.calls[source]) for source in (GEOCODING, FORECAST, WTTR)] == [1, 0, 1]
    assert clock.sleeps == []
    assert [(a.source, a.outcome) for a in result.attempts] == [
        ("open-meteo", "not_found"),
        ("wttr.in", "not_found"),
    ]
    assert result.error is not None
    assert (result.error.error_type, result.error.action) == ("not_found", "fix_input")


async def test_forecast_echoes_only_what_was_asked(sim_client: httpx.AsyncClient) -> None:
    """Only the current= variables requested come back, as the real API does."""
    url = "https://api.open-meteo.com/v1/forecast"
    params = {"latitude": "48.85", "longitude": "2.35", "current": LIGHT_VARIABLES}
    current = (await sim_client.get(url, params=params)).json()["current"]
    assert current.keys() == {"time", "interval", "temperature_2m", "weather_code"}


async def test_queued_faults_are_consumed_one_per_request(
    sim: SimulatedServices, sim_client: httpx.AsyncClient
) -> None:
    """Two queued faults spoil two requests; the third is normal."""
    sim.fail(WTTR, Fault.status(503), Fault.status(429, retry_after=7))
    answers = [await sim_client.get("https://wttr.in/Paris?format=j1") for _ in range(3)]
    assert [a.status_code for a in answers] == [503, 429, 200]
    assert answers[1].headers["Retry-After"] == "7"
    assert len(sim.calls[WTTR]) == 3


async def test_persistent_fault_lasts_until_cleared(
    sim: SimulatedServices, sim_client: httpx.AsyncClient
) -> None:
    """fail_always applies to every request until clear()."""
    sim.fail_always(WTTR, Fault.html())
    first = await sim_client.get("https://wttr.in/Paris")
    sim.clear(WTTR)
    second = await sim_client.get("https://wttr.in/Paris")
    assert first.headers["content-type"].startswith("text/html")
    assert second.json()["current_condition"]


def test_unknown_source_is_refused(sim: SimulatedServices) -> None:
    """A typo in a source name fails loudly instead of faulting nothing."""
    with pytest.raises(ValueError, match="open-meteo-geocoding"):
        sim.fail("open-meteo", Fault.hang())


def test_gazetteer_has_the_promised_cities() -> None:
    """The ten hand-set places are real gazetteer entries."""
    names = {place.name for place in hand_set()}
    assert names >= set(CITIES)


def test_gazetteer_places_are_told_apart_by_coordinates() -> None:
    """Places sharing a name are far apart, so the forecast finds each one's own weather."""
    places = hand_set()
    ids = {place.id for place in places}
    spots = {(round(place.latitude), round(place.longitude)) for place in places}
    assert len(ids) == len(spots) == len(places) == 10


@pytest.mark.parametrize(
    ("source", "fault"),
    [
        (source, fault)
        for source in (GEOCODING, FORECAST)
        for fault in (Fault.status(503), Fault.reset(), Fault.refused(), Fault.html(),
                      Fault.drift(), Fault.nulls(), Fault.huge(), Fault.not_json())
    ],
    ids=lambda value: value if isinstance(value, str) else value.kind,
)  # fmt: skip
async def test_primary_faults_fall_back_to_wttr(
    source: str, fault: Fault, sim: SimulatedServices, sim_weather: Tool
) -> None:
    """Every lasting Open-Meteo fault is retried once, then wttr.in answers."""
    sim.fail_always(source, fault)
    result = await ask(sim_weather, "Tokyo")
    assert parsed(result.content)["source"] == "wttr.in"
    assert len(sim.calls[source]) == 2


@pytest.mark.parametrize(
    ("fault", "later"),
    [
        (Fault.status(500), "in a few minutes"),
        (Fault.reset(), "in a few minutes"),
        (Fault.html(), "in a few minutes"),
        (Fault.drift(), "in a few minutes"),
        (Fault.nulls(), "in a few minutes"),
        (Fault.huge(), "in a few minutes"),
        (Fault.not_json(), "in a few minutes"),
        (Fault.status(429, retry_after=40), "in about 40 seconds"),
        (Fault.status(503, retry_after=120), "in about 2 minutes"),
    ],
    ids=lambda value: value.kind if isinstance(value, Fault) else "",
)
async def test_both_sources_failing_degrades(
    fault: Fault, later: str, sim: SimulatedServices, sim_weather: Tool
) -> None:
    """With Open-Meteo refusing and wttr.in faulty, the answer is degraded and honest."""
    sim.fail_always(GEOCODING, Fault.status(403))
    sim.fail_always(WTTR, fault)
    result = await ask(sim_weather, "Sydney")
    backup = "is busy" if fault.code in {429, 503} else "is not answering"
    assert result.content == degraded(later, because("turned down the request", backup), "Sydney")
    assert not result.is_error


async def test_hang_is_cut_by_the_attempt_timeout(
    sim: SimulatedServices, sim_client: httpx.AsyncClient, clock: FakeClock
) -> None:
    """A hanging forecast is cancelled at the attempt timeout and retried lighter."""
    policy = Policy(sleep=clock.sleep, clock=clock, rand=lambda: 0.5, attempt_timeout_s=0.05)
    sim.fail(FORECAST, Fault.hang())
    result = await ask(weather_tool(sim_client, policy=policy), "Paris")
    assert parsed(result.content)["source"] == "open-meteo"
    assert [r.url.params["current"] for r in sim.calls[FORECAST]][1] == LIGHT_VARIABLES
    assert [a.outcome for a in result.attempts] == ["timeout", "ok"]


async def test_slow_answer_within_the_timeout_is_fine(
    sim: SimulatedServices, sim_weather: Tool
) -> None:
    """A slow but timely answer is just an answer."""
    sim.fail(FORECAST, Fault.slow(0.01))
    result = await ask(sim_weather, "Berlin")
    assert [a.outcome for a in result.attempts] == ["ok"]


async def test_dripping_body_is_cut_by_the_attempt_timeout(
    sim: SimulatedServices, sim_client: httpx.AsyncClient, clock: FakeClock
) -> None:
    """One byte every 10 ms never trips a read timeout, but the attempt timeout cuts it."""
    policy = Policy(sleep=clock.sleep, clock=clock, attempt_timeout_s=0.05)
    sim.fail_always(WTTR, Fault.drip(0.01))
    sim.fail_always(GEOCODING, Fault.status(401))
    progress: list[Progress] = []
    tool = weather_tool(sim_client, policy=policy, listener=progress.append)
    result = await ask(tool, "London")
    assert result.content == degraded(
        because=because("turned down the request", "is not answering"), city="London"
    )
    assert [a.outcome for a in result.attempts] == [
        "auth_invalid_credentials",
        "timeout",
        "timeout",
    ]


@pytest.mark.parametrize(
    ("city", "named"),
    [
        ("Rome", "Rome, Italy"),
        ("São Paulo", "São Paulo, Brazil"),
        ("Zürich", "Zürich, Switzerland"),
        ("東京", "Tokyo, Japan"),
        ("Lima", "Lima, Peru"),
        ("Lima, Ohio", "Lima, Ohio, United States"),
        ("Rome, GA", "Rome, Georgia, United States"),
        ("London, UK", "London, United Kingdom"),
        ("Paris, TX", "Paris, Texas, United States"),
    ],
)
async def test_any_real_city_resolves_offline(city: str, named: str, sim_weather: Tool) -> None:
    """The offline world is the gazetteer: any real city answers, in its own name."""
    report = parsed((await ask(sim_weather, city)).content)
    assert (report["city"], report["source"]) == (named, "open-meteo")
    assert report["temperature"].endswith("°C")


async def test_offline_weather_is_the_same_from_both_sources(
    sim: SimulatedServices, sim_weather: Tool
) -> None:
    """Simulated weather is a function of the place: wttr.in says Lima's, rounded."""
    first = parsed((await ask(sim_weather, "Lima")).content)
    sim.fail_always(GEOCODING, Fault.status(401))
    second = parsed((await ask(sim_weather, "Lima")).content)
    assert round(float(first["temperature"].removesuffix("°C"))) == int(
        second["temperature"].removesuffix("°C")
    )
    assert second["city"] == "Lima, Peru"


@pytest.mark.parametrize("city", ["Xyzzyville", "Atlantis", "Narnia"])
async def test_made_up_places_are_not_found_offline(city: str, sim_weather: Tool) -> None:
    """A name no real city has is a name to fix, not an outage."""
    result = await ask(sim_weather, city)
    assert result.error is not None
    assert (result.error.error_type, result.error.action) == ("not_found", "fix_input")


async def test_simulated_wttr_elsewhere_is_not_believed(
    sim: SimulatedServices, sim_weather: Tool
) -> None:
    """wttr.in answering for another place (Hanoi) while Open-Meteo is down: degraded."""
    sim.fail_always(GEOCODING, Fault.status(503))
    sim.fail_always(WTTR, Fault.elsewhere())
    result = await ask(sim_weather, "Lima")
    assert result.content == degraded(
        because=because("is not answering", "answered for a different place"), city="Lima"
    )


async def test_simulated_forecast_answers_in_the_unit_asked(sim_client: httpx.AsyncClient) -> None:
    """temperature_unit=fahrenheit is honoured, with current_units saying so."""
    url = "https://api.open-meteo.com/v1/forecast"
    params = {"latitude": "35.6895", "longitude": "139.69171", "current": "temperature_2m"}
    body = (await sim_client.get(url, params={**params, "temperature_unit": "fahrenheit"})).json()
    assert (body["current"]["temperature_2m"], body["current_units"]["temperature_2m"]) == (
        63.5,
        "°F",
    )


async def test_simulated_invalid_request_is_not_the_models_to_fix(
    sim: SimulatedServices, sim_weather: Tool
) -> None:
    """Open-Meteo's real 400 reason: an internal error, one request, wttr.in answers."""
    sim.fail_always(FORECAST, Fault.invalid_request())
    result = await ask(sim_weather, "Tokyo")
    assert len(sim.calls[FORECAST]) == 1
    assert parsed(result.content)["source"] == "wttr.in"
    assert result.attempts[0].outcome == "internal_error"
