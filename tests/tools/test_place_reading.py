"""get_weather answers for the place asked, or its note says which place it is and why.

Served through respx to the real tool, with Open-Meteo's recorded geocoding answers
(`fixtures/geocoding/`, each citing its source) where one exists. Where none does (no
recording of Washington, Fort Worth or London's wttr.in answer was found), the body is the
offline world's, which answers in the real services' shapes from the GeoNames gazetteer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from offline import FORECAST, GEOCODING, Fault, SimulatedServices
from offline import _world as world
from tests.tools.upstream import END, PARIS_FORECAST, Script, ask, ok, parsed, status
from tools import Tool, weather_tool

RECORDED = Path(__file__).parent / "fixtures" / "geocoding"
LOCATION_NOT_FOUND = Script(lambda _r: httpx.Response(404, text="location not found"))


def recorded(name: str) -> Script:
    """Open-Meteo's recorded geocoding answer, as it was sent."""
    record: dict[str, Any] = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    assert record["source"]["repository"]  # every recording says where it comes from
    return Script(lambda _r: httpx.Response(record["status"], json=record["body"]))


def simulated_geocoding(name: str, count: int = 5) -> dict[str, Any]:
    """The offline world's geocoding answer for `name`, in Open-Meteo's shape."""
    request = httpx.Request("GET", END.geocoding_url, params={"name": name, "count": count})
    body: dict[str, Any] = world.geocoding(request).json()
    return body


def simulated_j1(name: str) -> dict[str, Any]:
    """The offline world's wttr.in answer for the biggest city called `name`."""
    return world.j1(world.search(name)[0])


def mount(
    routes: respx.MockRouter, geocoding: Script, wttr: Script = LOCATION_NOT_FOUND
) -> dict[str, respx.Route]:
    return {
        "geocoding": routes.get(url__startswith=END.geocoding_url).mock(side_effect=geocoding),
        "forecast": routes.get(url__startswith=END.forecast_url).mock(
            side_effect=Script(ok(PARIS_FORECAST))
        ),
        "wttr": routes.get(url__startswith=f"{END.wttr_url}/").mock(side_effect=wttr),
    }


# --- issue 20, item 2: a region hint like "D.C." is understood, with no false note -----------


async def test_washington_dc_is_the_district_of_columbia_with_no_note(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """ "Washington, D.C.": the initials are DC, the District of Columbia; no note claims
    that no Washington is there."""
    mounted = mount(routes, Script(ok(simulated_geocoding("Washington"))))
    report = parsed((await ask(weather, "Washington, D.C.")).content)
    assert mounted["geocoding"].calls.last.request.url.params["name"] == "Washington"
    assert report["city"] == "Washington, District of Columbia, United States"
    assert "note" not in report


async def test_washington_dc_from_wttr_alone_is_the_same_place(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Open-Meteo refusing, wttr.in's Washington, DC answers "Washington, D.C." alike."""
    mount(routes, Script(status(401)), Script(ok(simulated_j1("Washington"))))
    report = parsed((await ask(weather, "Washington, D.C.")).content)
    assert (report["city"], report["source"]) == (
        "Washington, District of Columbia, United States",
        "wttr.in",
    )
    assert "note" not in report


# --- issue 20, item 1: names read whole, fragments never read as another name ---------------


async def test_ft_worth_is_searched_again_as_fort_worth(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Open-Meteo finds nothing for "Ft. Worth" (a recorded no-match answer); the tool asks
    again for "Fort Worth" and answers for it, with no note: it is the place asked."""
    fort_worth = ok(simulated_geocoding("Fort Worth"))
    nothing = recorded("unknown-no-match_virga")
    mounted = mount(routes, Script(nothing.steps[0], fort_worth))
    report = parsed((await ask(weather, "Ft. Worth")).content)
    names = [call.request.url.params["name"] for call in mounted["geocoding"].calls]
    assert names == ["Ft. Worth", "Fort Worth"]
    assert report["city"] == "Fort Worth, United States"
    assert "note" not in report


async def test_a_fragment_is_no_place(sim_weather: Tool, sim: SimulatedServices) -> None:
    """ "St" alone: the gazetteer's Sète has "st" among its spellings, yet "St" is never read
    as Sète, by either source: the model is asked to fix the name."""
    result = await ask(sim_weather, "St")
    assert result.error is not None
    assert (result.error.error_type, result.error.action) == ("not_found", "fix_input")
    assert "“St”" in result.content
    assert "Sète" not in result.content
    assert len(sim.calls[FORECAST]) == 0  # no weather was fetched for anywhere


async def test_a_misspelling_is_answered_with_a_note(sim_weather: Tool) -> None:
    """ "Londn" (one of London's alternate spellings in GeoNames) is answered for London,
    and the note says the name was read so."""
    report = parsed((await ask(sim_weather, "Londn")).content)
    assert report["city"] == "London, United Kingdom"
    assert report["note"] == "“Londn” was read as London, United Kingdom."


async def test_a_misspelling_open_meteo_does_not_know_is_not_found(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Open-Meteo matches no misspelling (a recorded no-match answer), wttr.in says
    "location not found": "Londn" is a name to fix, not silently London."""
    mount(routes, recorded("unknown-no-match_mdml-weather-mcp"))
    result = await ask(weather, "Londn")
    assert result.error is not None
    assert result.error.action == "fix_input"
    assert "“Londn”" in result.content


async def test_a_misspelling_wttr_reads_as_london_says_so(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """Open-Meteo finds no "Londn"; wttr.in answers for London: believed, with the same
    note the offline Open-Meteo answer has."""
    mount(routes, recorded("unknown-no-match_virga"), Script(ok(simulated_j1("London"))))
    report = parsed((await ask(weather, "Londn")).content)
    assert (report["city"], report["source"]) == ("London, United Kingdom", "wttr.in")
    assert report["note"] == "“Londn” was read as London, United Kingdom."


# --- shared names ---------------------------------------------------------------------------


async def test_a_shared_name_names_the_others(routes: respx.MockRouter, weather: Tool) -> None:
    """Open-Meteo's recorded ten Hollywoods: Florida first, California's of the same size
    second; the answer is Florida's, and the note says California's shares the name."""
    mount(routes, recorded("hollywood_open-meteo-ruby"))
    report = parsed((await ask(weather, "Hollywood")).content)
    assert report["city"] == "Hollywood, Florida, United States"
    assert report["note"] == (
        "Several places are called Hollywood; this is Hollywood, Florida, United States. "
        "Others: Hollywood, California, United States."
    )


@pytest.mark.parametrize(
    ("city", "recording", "named"),
    [
        ("London", "london_accessiweather-geocode_london", "London, United Kingdom"),
        ("Boston", "boston_mdml-weather-mcp", "Boston, Massachusetts, United States"),
        (
            "San Francisco",
            "san-francisco_accessiweather-geocoding_display_name",
            "San Francisco, United States",
        ),
    ],
)
async def test_a_name_one_place_dominates_has_no_note(
    city: str, recording: str, named: str, routes: respx.MockRouter, weather: Tool
) -> None:
    """London, Boston, San Francisco (recorded): their namesakes are under a tenth of their
    size, so the label alone says which place it is."""
    mount(routes, recorded(recording))
    report = parsed((await ask(weather, city)).content)
    assert report["city"] == named
    assert "note" not in report


async def test_springfield_is_one_with_a_note_from_either_source(
    sim: SimulatedServices, sim_weather: Tool
) -> None:
    """Offline, "Springfield" is Missouri's with a note naming the others; with Open-Meteo
    down, wttr.in's answer carries the same label and note."""
    first = parsed((await ask(sim_weather, "Springfield")).content)
    sim.fail_always(GEOCODING, Fault.status(401))
    second = parsed((await ask(sim_weather, "Springfield")).content)
    assert (first["source"], second["source"]) == ("open-meteo", "wttr.in")
    assert first["city"] == second["city"] == "Springfield, Missouri, United States"
    assert first["note"] == second["note"]
    assert first["note"].startswith(
        "Several places are called Springfield; this is Springfield, Missouri, United States. "
        "Others: Springfield, Massachusetts, United States; Springfield, Illinois, United States"
    )


@pytest.mark.parametrize(
    "city",
    [
        "St. Louis",
        "St. John's",
        "Ft. Worth",
        "Mt. Vernon",
        "Londn",
        "Washington, D.C.",
        "Paris, Japan",
        "Victoria, BC",
        "Cambridge, MA",
        "Zürich",
    ],
)
async def test_both_sources_read_a_name_alike(
    city: str, sim: SimulatedServices, sim_client: httpx.AsyncClient
) -> None:
    """Offline, Open-Meteo's answer and wttr.in's alone name the same place with the same
    note (or none)."""
    primary = parsed((await ask(weather_tool(sim_client), city)).content)
    sim.fail_always(GEOCODING, Fault.status(401))
    backup = parsed((await ask(weather_tool(sim_client), city)).content)
    assert (primary["source"], backup["source"]) == ("open-meteo", "wttr.in")
    assert (primary["city"], primary.get("note")) == (backup["city"], backup.get("note"))


# --- regions --------------------------------------------------------------------------------


async def test_a_region_not_among_the_first_matches_is_looked_for_among_more(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """ "Paris, Japan": no Paris of the first five is in Japan, so twenty are asked for;
    none is either, and the note says so."""
    mounted = mount(routes, recorded("paris_paxos"))
    report = parsed((await ask(weather, "Paris, Japan")).content)
    counts = [call.request.url.params["count"] for call in mounted["geocoding"].calls]
    assert counts == ["5", "20"]
    assert report["note"] == "No Paris was found in Japan; this is the weather for Paris, France."


async def test_wttr_answering_another_place_of_the_name_is_not_believed(
    routes: respx.MockRouter, weather: Tool
) -> None:
    """ "Paris, Texas" with Open-Meteo down: wttr.in's answer for Paris, France is not an
    answer, since a Paris in Texas exists."""
    mount(routes, Script(status(401)), Script(ok(simulated_j1("Paris"))))
    result = await ask(weather, "Paris, Texas")
    assert parsed(result.content)["degraded"] is True
    assert "answered for a different place" in parsed(result.content)["message"]
