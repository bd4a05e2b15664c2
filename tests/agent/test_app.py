"""`agent.app.ask`: settings in, one answered turn out (the CLI's and the benchmark's entry);
offline, with the scripted model and the simulated services wired in (`offline.ask`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from agent.app import ask, claude_models, model_client, open_agent
from agent.claude import ClaudeModel, new_client
from agent.cli import _world
from agent.loop import Limits
from agent.settings import Settings
from offline import Fault, OfflineModel, SimulatedServices
from offline import ask as offline_ask
from tests.agent.fake_claude import FakeClaude, message, message_body, text_block
from tests.agent.helpers import SECRET
from tools import make_client

ONLINE = Settings(api_key=SECRET, base_url="https://claude.test", offline=False)


async def test_offline_ask_answers_from_the_simulated_services() -> None:
    """Offline: the scripted model calls get_weather and words the answer."""
    answer = await offline_ask("What's the weather in Paris?", Settings())
    assert answer.answered is True
    assert "Paris" in answer.text
    assert "°C" in answer.text
    assert answer.model_calls == 2
    assert json.loads(answer.tool_results[0]["content"])["city"].startswith("Paris")


async def test_several_cities_are_looked_up_in_one_round() -> None:
    """Three cities: three tool_results from one model call, then the answer."""
    answer = await offline_ask("Weather in Paris, Tokyo and Lima?", Settings())
    assert len(answer.tool_results) == 3
    assert answer.model_calls == 2


async def test_a_given_http_client_is_used_for_the_tools() -> None:
    """`http=` replaces the tools' client (the benchmark injects faults this way)."""
    services = SimulatedServices()
    services.fail_always("open-meteo-geocoding", Fault.status(404))
    services.fail_always("wttr", Fault.status(404))
    async with make_client(transport=services.transport) as http:
        answer = await offline_ask("weather in Paris?", Settings(), http=http)
    assert answer.answered is True
    assert services.calls["open-meteo-geocoding"]
    assert services.calls["wttr"]


async def test_offline_the_simulated_services_answer_at_custom_endpoints() -> None:
    """WTTR_URL and the Open-Meteo URLs set: offline, the simulated services answer there."""
    env = {
        "OPEN_METEO_GEOCODING_URL": "http://geo.test/v1/search",
        "OPEN_METEO_FORECAST_URL": "http://forecast.test/v1/forecast",
        "WTTR_URL": "http://wttr.test",
    }
    answer = await offline_ask("What's the weather in Paris?", Settings.from_env(env))
    [result] = answer.tool_results
    assert "is_error" not in result
    assert json.loads(result["content"])["source"] == "open-meteo"
    assert "°C" in answer.text


async def test_a_division_by_zero_is_a_graceful_answer() -> None:
    """calculate 1/0 is an is_error result the model relays; the turn is answered."""
    answer = await offline_ask("what is 1/0?", Settings())
    assert answer.tool_results[0]["is_error"] is True
    assert "zero" in answer.text


def test_the_backend_follows_the_settings() -> None:
    """Offline settings give the scripted model (wired in by the command line); a key gives
    Claude."""
    assert isinstance(_world(Settings())["backend"], OfflineModel)
    assert _world(ONLINE) == {}
    assert isinstance(claude_models(ONLINE)[0], ClaudeModel)


async def test_offline_settings_without_a_model_are_refused() -> None:
    """The agent never reaches for the offline world itself: offline, a model must be given."""
    with pytest.raises(ValueError, match="backend"):
        await open_agent(Settings())


async def test_online_ask_uses_claude_at_the_base_url(httpx2_mock: Any) -> None:
    """With a key, requests go to ANTHROPIC_BASE_URL with the key as a bearer token."""
    route = httpx2_mock.post("https://claude.test/v1/messages").mock(
        return_value=httpx.Response(200, json=message_body({"type": "text", "text": "Hi!"}))
    )
    async with make_client(transport=SimulatedServices().transport) as http:
        answer = await ask("hello", ONLINE, http=http)
    assert answer.text == "Hi!"
    assert route.call_count == 1
    assert route.calls[0].request.headers["authorization"] == f"Bearer {SECRET}"


async def test_aclose_closes_what_the_agent_opened() -> None:
    """Clients the agent created are closed with it; a given client is left open."""
    async with make_client(transport=SimulatedServices().transport) as http:
        agent = await open_agent(Settings(), http=http, backend=OfflineModel())
        await agent.aclose()
        assert not http.is_closed


async def test_a_shared_claude_client_serves_many_questions_and_stays_open() -> None:
    """ask(…, client=) uses the given SDK client for every question and never closes it."""
    fake = FakeClaude(message(text_block("One.")), message(text_block("Two.")))
    client = new_client(api_key=SECRET, transport=fake.transport())
    elsewhere = Settings(api_key=SECRET, base_url="https://unused.test", offline=False)
    async with make_client(transport=SimulatedServices().transport) as http:
        first = await ask("1?", elsewhere, http=http, client=client)
        second = await ask("2?", elsewhere, http=http, client=client)
    assert (first.text, second.text) == ("One.", "Two.")
    assert len(fake.requests) == 2
    assert not client.is_closed()
    await client.close()


async def test_model_client_is_built_only_for_claude() -> None:
    """model_client: an SDK client with retries off online, None offline."""
    assert model_client(Settings()) is None
    client = model_client(ONLINE)
    assert client is not None
    assert client.max_retries == 0
    await client.close()


CITIES = ("Paris", "Tokyo", "Lima", "Oslo")


class _InFlight(httpx.AsyncBaseTransport):
    """A transport that counts the requests it has in flight, and the most at once."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner, self.now, self.most = inner, 0, 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            return await self.inner.handle_async_request(request)
        finally:
            self.now -= 1


async def test_questions_on_one_tools_client_share_one_bound_on_tool_calls() -> None:
    """With `max_concurrent_tools=1`, four questions at once on one tools' client send one
    weather request at a time (each its own: four questions, four answers)."""
    services = SimulatedServices()
    services.fail_always("open-meteo-geocoding", Fault.slow(0.05))
    counting = _InFlight(services.transport)
    one = Limits(max_concurrent_tools=1)
    async with make_client(transport=counting) as http:
        answers = await asyncio.gather(
            *(offline_ask(f"weather in {city}?", Settings(), http=http, limits=one)
              for city in CITIES)
        )  # fmt: skip
    assert all(answer.answered for answer in answers)
    assert len(services.calls["open-meteo-geocoding"]) == 4
    assert counting.most == 1


async def test_questions_on_clients_of_their_own_have_bounds_of_their_own() -> None:
    """The same four questions, each on a tools' client of its own, overlap."""
    services = SimulatedServices()
    services.fail_always("open-meteo-geocoding", Fault.slow(0.05))
    counting = _InFlight(services.transport)
    one = Limits(max_concurrent_tools=1)

    async def on_its_own(city: str) -> None:
        async with make_client(transport=counting) as http:
            await offline_ask(f"weather in {city}?", Settings(), http=http, limits=one)

    await asyncio.gather(*(on_its_own(city) for city in CITIES))
    assert counting.most > 1


def test_one_tools_client_serves_a_second_event_loop() -> None:
    """A shared client used again under a new event loop (a second `asyncio.run`) gets a gate
    of that loop: both runs answer, one request at a time."""
    services = SimulatedServices()
    services.fail_always("open-meteo-geocoding", Fault.slow(0.02))
    counting = _InFlight(services.transport)
    http = make_client(transport=counting)
    one = Limits(max_concurrent_tools=1)

    async def two_at_once() -> list[bool]:
        answers = await asyncio.gather(
            *(offline_ask(f"weather in {city}?", Settings(), http=http, limits=one)
              for city in CITIES[:2])
        )  # fmt: skip
        return [answer.answered for answer in answers]

    assert asyncio.run(two_at_once()) == [True, True]
    assert asyncio.run(two_at_once()) == [True, True]
    asyncio.run(http.aclose())
    assert counting.most == 1
