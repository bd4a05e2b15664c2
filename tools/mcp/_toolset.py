"""Your MCP servers started together, and their tools named clear of each other's and of the
built-in ones. The `mcp` extra's SDK (`_connection`) and jsonschema (`_tool`) are imported
only when servers are asked for: without them, the servers are one plain sentence.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from resilience import Listener, Policy
from tools.mcp._spec import McpServer
from tools.registry import Tool

if TYPE_CHECKING:
    from tools.mcp._connection import Connection

__all__ = ["McpToolset", "connect", "open_toolset"]

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_MAX_NAME = 64  # the Messages API's tool names: ^[a-zA-Z0-9_-]{1,64}$
_NO_SDK = (
    "MCP servers need the mcp package, which is not installed, so the agent runs "
    "without them; install it with pip install 'failsafe-agent[mcp]' and try again."
)
Notice = Callable[[str], None]


@dataclass(slots=True)
class McpToolset:
    """The tools of the servers that started, the sentences for those that did not, and the
    sessions behind them (closed, and stdio processes stopped, by `aclose`)."""

    tools: list[Tool] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)

    async def aclose(self) -> None:
        """Close every session; stop every server process."""
        await asyncio.gather(*(c.aclose() for c in self.connections), return_exceptions=True)


async def open_toolset(
    servers: Sequence[McpServer],
    *,
    reserved: Collection[str] = (),
    policy: Policy | None = None,
    listener: Listener | None = None,
    on_problem: Notice | None = None,
) -> McpToolset:
    """Start `servers` (at once) and build their tools, named clear of `reserved` and of each
    other; a server that can't start or list its tools is left out with one plain sentence,
    in `problems` and to `on_problem`. Close the result with `aclose`."""
    toolset = McpToolset()
    if servers:
        try:
            from tools.mcp._connection import Connection
            from tools.mcp._tool import mcp_tool
        except ImportError:
            _problem(toolset, _NO_SDK, on_problem)
            return toolset
        connections = [Connection(server) for server in _unique(servers)]
        listed = await asyncio.gather(*(c.start() for c in connections))
        policy = policy or Policy()  # one policy, so one breaker per server across its tools
        taken = set(reserved)
        for connection, remote in zip(connections, listed, strict=True):
            if isinstance(remote, str):
                _problem(toolset, remote, on_problem)
                continue
            toolset.connections.append(connection)
            for tool in remote:
                name = _free_name(connection.server.name, tool.name, taken)
                taken.add(name)
                toolset.tools.append(mcp_tool(connection, tool, name, policy, listener))
    return toolset


@asynccontextmanager
async def connect(
    servers: Sequence[McpServer],
    *,
    reserved: Collection[str] = (),
    policy: Policy | None = None,
    listener: Listener | None = None,
    on_problem: Notice | None = None,
) -> AsyncIterator[McpToolset]:
    """`open_toolset` for an `async with` block, closed on the way out."""
    toolset = await open_toolset(
        servers, reserved=reserved, policy=policy, listener=listener, on_problem=on_problem
    )
    async with aclosing(toolset):
        yield toolset


def _problem(toolset: McpToolset, sentence: str, on_problem: Notice | None) -> None:
    toolset.problems.append(sentence)
    if on_problem is not None:
        on_problem(sentence)


def _unique(servers: Sequence[McpServer]) -> list[McpServer]:
    """The servers, a repeated name made unique ("files", "files-2")."""
    seen: set[str] = set()
    unique: list[McpServer] = []
    for server in servers:
        name, n = server.name, 1
        while name in seen:
            n += 1
            name = f"{server.name[:28]}-{n}"
        seen.add(name)
        unique.append(replace(server, name=name))
    return unique


def _free_name(server: str, remote: str, taken: set[str]) -> str:
    """The remote tool's name, fit for the API; prefixed by the server's name if taken."""
    name = _NOT_IN_NAME.sub("_", remote).strip("_")[:_MAX_NAME] or "tool"
    if name in taken:
        name = f"{server}_{name}"[:_MAX_NAME]
    base, n = name, 1
    while name in taken:
        n += 1
        name = f"{base[: _MAX_NAME - len(str(n)) - 1]}_{n}"
    return name
