"""The place table: twenty place names chosen for difficulty (short forms, shared names,
misspellings, other scripts, regions), what `agent ask --offline "What's the weather in X?"`
answers (its first line), and what the `get_weather` tool makes of Open-Meteo's recorded
geocoding answer for the name, where one was recorded (tests/tools/fixtures/geocoding/).

    python scripts/places_table.py

Offline only: the command runs against the simulated services; the tool is served the
recording for every geocoding request it makes (a second search too), a fixed forecast, and
wttr.in's "location not found", through an `httpx.MockTransport`. Nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
from pathlib import Path
from typing import Any

import httpx

from agent.cli import main as agent
from tools import make_client, weather_tool

RECORDED = Path(__file__).resolve().parents[1] / "tests" / "tools" / "fixtures" / "geocoding"

# (name, what makes it hard, the recording of Open-Meteo's answer for its name, if any)
PLACES = [
    ("St. Louis", "short form", None),
    ("St. John's", "short form, apostrophe", None),
    ("Ft. Worth", "short form", None),
    ("Mt. Vernon", "short form, shared", None),
    ("Washington, D.C.", "region in initials", None),
    ("Springfield", "shared", None),
    ("Hollywood", "shared", "hollywood_open-meteo-ruby"),
    ("London", "shared, one dominant", "london_accessiweather-geocode_london"),
    ("Londn", "misspelling", None),
    ("Zürich", "non-ASCII", None),
    ("東京", "other script", None),
    ("Brasilia", "accent left out", "brasilia_tpisel-openmeteo"),
    ("Paris, TX", "region code", "paris_paxos"),
    ("Victoria, BC", "region code, shared", None),
    ("Cambridge, MA", "region code, shared", None),
    ("London, UK", "country alias", "london_accessiweather-geocode_london"),
    ("New York, NY", "region code", "new-york_accessiweather-geocode_nyc"),
    ("Paris, Japan", "region fits none", "paris_paxos"),
    ("St", "fragment", None),
    ("Xyzzyplughnowhere", "made up", "xyzzyplughnowhere_python-open-meteo"),
]

_FORECAST = {
    "current_units": {"temperature_2m": "°C", "relative_humidity_2m": "%"},
    "current": {"temperature_2m": 10.0, "relative_humidity_2m": 50, "weather_code": 3},
}


def offline_answer(name: str) -> str:
    """The first line `agent ask --offline` prints for the weather in `name`."""
    out, err = io.StringIO(), io.StringIO()
    env = {key: value for key, value in os.environ.items() if key != "ANTHROPIC_API_KEY"}
    agent(["ask", "--offline", f"What's the weather in {name}?"], env=env, stdout=out, stderr=err)
    lines = out.getvalue().splitlines() or err.getvalue().splitlines()[-1:]
    return lines[0] if lines else ""


async def tool_answer(name: str, recording: str) -> tuple[str, str]:
    """The place and the note (or the sentence) the tool answers with, served `recording`."""
    record: dict[str, Any] = json.loads((RECORDED / f"{recording}.json").read_text("utf-8"))

    def serve(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/search"):
            return httpx.Response(record["status"], json=record["body"])
        if request.url.path.endswith("/forecast"):
            return httpx.Response(200, json=_FORECAST)
        return httpx.Response(404, text="location not found")

    async with make_client(transport=httpx.MockTransport(serve)) as client:
        tool = weather_tool(client)
        result = await tool.handler(tool.input_model.model_validate({"city": name}))
    if result.error is not None:
        return "—", result.content
    answer = json.loads(result.content)
    return str(answer["city"]), str(answer.get("note") or "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|") or " "


async def rows() -> list[list[str]]:
    """One row per place: the name, what makes it hard, the offline answer, the recording
    and what the tool answers with it."""
    table = []
    for number, (name, kind, recording) in enumerate(PLACES, 1):
        said = await asyncio.to_thread(offline_answer, name)
        place, note = await tool_answer(name, recording) if recording else ("", "")
        shown = recording or "none recorded"
        table.append([str(number), name, kind, said, shown, place, note])
    return table


def main() -> None:
    """Print the table in Markdown."""
    head = ["#", "asked", "hard because", "`agent ask --offline` (first line)"]
    head += ["recorded geocoding", "tool: place", "tool: note"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in asyncio.run(rows()):
        print("| " + " | ".join(_cell(cell) for cell in row) + " |")


if __name__ == "__main__":
    main()
