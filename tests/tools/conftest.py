"""Shared fixtures: the simulated services, respx routes and weather tools on them (the clock,
the policy and the progress list come from tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import respx

from offline import SimulatedServices
from resilience import Policy
from tests.conftest import Progress
from tools import Tool, make_client, weather_tool


@pytest.fixture
def sim() -> SimulatedServices:
    return SimulatedServices()


@pytest.fixture
async def sim_client(sim: SimulatedServices) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(transport=sim.transport) as client:
        yield client


@pytest.fixture
def sim_weather(sim_client: httpx.AsyncClient, policy: Policy, progress: list[Progress]) -> Tool:
    return weather_tool(sim_client, policy=policy, listener=progress.append)


@pytest.fixture
def routes() -> Iterator[respx.MockRouter]:
    """respx in front of every real host; a request to anything unrouted fails the test."""
    with respx.mock(assert_all_called=False) as router:
        yield router


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as client:
        yield client


@pytest.fixture
def weather(client: httpx.AsyncClient, policy: Policy, progress: list[Progress]) -> Tool:
    return weather_tool(client, policy=policy, listener=progress.append)
