"""Shared fixtures: structlog back to its defaults after every test, no context left bound;
a fake sleep that records waits; simulated services and agents on a fake Claude; the demo
script loaded as a module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest

from offline import SimulatedServices
from tests.agent.helpers import Connector
from tests.script_loader import DEMO, load_script


@pytest.fixture
def sleeps() -> list[float]:
    """Waits requested through the injected sleep."""
    return []


@pytest.fixture
def fake_sleep(sleeps: list[float]):  # type: ignore[no-untyped-def]
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return sleep


@pytest.fixture
def services() -> SimulatedServices:
    """The simulated weather services the `connect` fixture's agents use."""
    return SimulatedServices()


@pytest.fixture
async def connect(services: SimulatedServices, fake_sleep: Any) -> AsyncIterator[Connector]:
    """`await connect(fake, limits=…, tools=…, policy=…)`: an agent on Claude over `fake`."""
    connector = Connector(services, fake_sleep)
    yield connector
    await connector.aclose()


@pytest.fixture(scope="module")
def demo() -> ModuleType:
    """scripts/demo.py as a module (it is a script, outside any package)."""
    return load_script(DEMO, "demo")
