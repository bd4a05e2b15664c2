"""Fixtures every test folder may use: structlog back to its defaults after every test, a
fake clock, a policy on it, a progress recorder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog

from resilience import Policy, Progress, RetryBudget
from tests.tools.fakes import FakeClock


@pytest.fixture(autouse=True)
def _clean_structlog() -> Iterator[None]:
    structlog.contextvars.clear_contextvars()
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def policy(clock: FakeClock) -> Policy:
    """The default knobs on fake time, with jitter pinned to half the backoff ceiling."""
    return Policy(sleep=clock.sleep, clock=clock, rand=lambda: 0.5, budget=RetryBudget())


@pytest.fixture
def progress() -> list[Progress]:
    """Progress events an observer received."""
    return []
