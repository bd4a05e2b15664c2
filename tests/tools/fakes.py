"""Test doubles shared by the tool tests."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock that moves only when slept through or pushed."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds
