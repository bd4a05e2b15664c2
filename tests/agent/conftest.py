"""Shared fixtures: structlog back to its defaults after every test, no context left bound."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _clean_structlog() -> Iterator[None]:
    structlog.contextvars.clear_contextvars()
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()


@pytest.fixture
def sleeps() -> list[float]:
    """Waits requested through the injected sleep."""
    return []


@pytest.fixture
def fake_sleep(sleeps: list[float]):  # type: ignore[no-untyped-def]
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return sleep
