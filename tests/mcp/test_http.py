"""The flaky server over streamable HTTP on 127.0.0.1: the same engine, the same sentences."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from errors import plainness_problems
from tests.mcp.conftest import SERVER, Plan, quick
from tools import Registry
from tools.mcp import McpServer, connect

pytestmark = pytest.mark.loopback


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def http_server(plan: Plan) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The flaky server serving /mcp on a free loopback port, until the test ends."""
    port = free_port()
    argv = [sys.executable, str(SERVER), "--plan", str(plan.path), "--http", str(port)]
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and test server
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for(port, process)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.kill()
        process.wait(timeout=10)


def _wait_for(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):  # bounded: 30 s at most, on a loaded machine
        if process.poll() is not None:
            raise RuntimeError("the MCP test server exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the MCP test server did not start listening")


async def test_over_http_retries_answer_and_a_dead_server_is_a_sentence(
    plan: Plan, http_server: tuple[str, subprocess.Popen[bytes]]
) -> None:
    url, process = http_server
    plan.set(echo=["rpc_error:-32603"])
    async with connect([McpServer.http(url, name="web")], policy=quick()) as toolset:
        registry = Registry(toolset.tools)
        flaky = await registry.dispatch("echo", {"text": "hi"})
        process.kill()
        process.wait(timeout=10)
        dead = await registry.dispatch("echo", {"text": "hi"})
    assert flaky.content == "hi"
    assert [(a.source, a.outcome) for a in flaky.attempts] == [
        ("web", "server_error"),
        ("web", "ok"),
    ]
    assert dead.is_error
    assert plainness_problems(dead.content) == []
    assert [a.outcome for a in dead.attempts] == ["network", "network"]


async def test_an_unreachable_url_is_one_plain_sentence() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    async with connect([McpServer.http(url, name="web")]) as toolset:
        assert toolset.tools == []
    assert toolset.problems == [
        "The MCP server 'web' could not be reached, so its tools are left out; check its "
        "address and that it is running."
    ]
