"""Real sockets on 127.0.0.1: a server that hangs and one that drips, cut by the deadlines.

These are the only tests that take real time (about half a second each): the timeouts are
asyncio's own, on real connections, with the client's read timeout left long on purpose.
They assert what was cut and how often, never how long it took: a loaded machine is slow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import TracebackType

import pytest
from structlog.testing import capture_logs

from resilience import Policy
from tests.tools.upstream import ask, parsed
from tools import make_client, weather_tool
from tools.weather import Endpoints

pytestmark = pytest.mark.loopback

Behaviour = Callable[[asyncio.StreamWriter], Awaitable[None]]


class Loopback:
    """An HTTP server on 127.0.0.1 that reads each request, then behaves as told."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.requests = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Loopback:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await reader.readuntil(b"\r\n\r\n")
            self.requests += 1
            await self.behaviour(writer)
        finally:
            writer.close()

    def endpoints(self) -> Endpoints:
        base = f"http://127.0.0.1:{self.port}"
        return Endpoints(f"{base}/v1/search", f"{base}/v1/forecast", f"{base}/wttr")


async def hang(_writer: asyncio.StreamWriter) -> None:
    await asyncio.Event().wait()


async def drip(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    writer.write(b"Content-Length: 100000\r\n\r\n{")
    while True:
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(b" ")


# Real time, small numbers: 0.2 s per attempt, 0.5 s for the whole call.
REAL_TIME = Policy(attempt_timeout_s=0.2, deadline_s=0.5, base_backoff_s=0.01, max_backoff_s=0.01)


@pytest.mark.parametrize("behaviour", [hang, drip], ids=["hanging", "dripping"])
async def test_a_stuck_server_cannot_hold_the_turn(behaviour: Behaviour) -> None:
    """Hanging or dripping a byte every 50 ms, each attempt is cut by its timeout and the last
    by the call's deadline (not the client's longer read timeout): the call ends degraded."""
    async with Loopback(behaviour) as server:
        client = make_client(connect_timeout=1.0, read_timeout=1.0)
        async with client, asyncio.timeout(10):  # a hang guard, not a timing assertion
            tool = weather_tool(client, endpoints=server.endpoints(), policy=REAL_TIME)
            with capture_logs() as logs:
                result = await ask(tool, "Paris")
    assert parsed(result.content)["degraded"] is True
    outcomes = [(a.source, a.outcome) for a in result.attempts]
    assert outcomes == [
        ("open-meteo", "timeout"),
        ("open-meteo", "timeout"),
        ("wttr.in", "deadline_exceeded"),
    ]
    assert server.requests == 3
    assert [e["event"] for e in logs].count("tool.attempt_failed") == 3
