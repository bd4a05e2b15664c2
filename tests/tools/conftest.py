"""Shared fixtures: a fake clock, a policy on it, the simulated services and respx routes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import respx

from offline import SimulatedServices
from resilience import Policy, Progress, RetryBudget
from tests.tools.fakes import FakeClock
from tools import Tool, make_client, weather_tool


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def policy(clock: FakeClock) -> Policy:
    """The default knobs on fake time, with jitter pinned to half the backoff ceiling."""
    return Policy(sleep=clock.sleep, clock=clock, rand=lambda: 0.5, budget=RetryBudget())


@pytest.fixture
def progress() -> list[Progress]:
    return []


@pytest.fixture
def sim() -> SimulatedServices:
    return SimulatedServices()


@pytest.fixture
async def sim_client(sim: SimulatedServices) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(transport=sim.transport) as client:
        yield client


@pytest.fixture
def sim_weather(sim_client: httpx.AsyncClient, policy: Policy, progress: list[Progress]) -> Tool:
    return weather_tool(sim_client, policy=policy, observer=progress.append)


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
    return weather_tool(client, policy=policy, observer=progress.append)
