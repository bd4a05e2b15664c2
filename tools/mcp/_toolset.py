"""MCP servers' tools as `Tool`s, each call one run of the resilience engine.

    async with connect([McpServer.stdio("python", ["server.py"])]) as toolset:
        registry = Registry([*builtin_tools(http), *toolset.tools])
        ...  # toolset.problems: one plain sentence per server left out

Each tool's single source is its server (the timeline's source is the server's name), so a
call gets the engine's deadline per attempt and per call, error-to-action on every failure
(translated at the boundary, `_errors`) and a circuit breaker per server, shared by all the
server's tools. A tool's name already taken (a built-in, or another server's tool) becomes
`{server}_{name}`. The `mcp` SDK is imported only here, when servers are asked for.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog
from pydantic import BaseModel

from resilience import AttemptInfo, CircuitBreaker, Engine, Listener, Policy, Source
from tools.mcp._errors import McpToolError, no_sdk_problem, start_problem
from tools.mcp._spec import McpServer
from tools.registry import Tool, ToolResult, to_result

if TYPE_CHECKING:
    from mcp.types import CallToolResult
    from mcp.types import Tool as RemoteTool

    from tools.mcp._connection import Connection

__all__ = ["MAX_RESULT_CHARS", "McpToolset", "connect", "open_toolset"]

log = structlog.get_logger("tools")

MAX_RESULT_CHARS = 50_000  # a larger answer is cut, and says so
_TOOL_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_MAX_NAME = 64  # the Messages API's tool names: ^[a-zA-Z0-9_-]{1,64}$
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
        except ImportError:
            _problem(toolset, no_sdk_problem(), on_problem)
            return toolset
        connections = [Connection(server) for server in _unique(servers)]
        listed = await asyncio.gather(*(_start(c) for c in connections))
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
                toolset.tools.append(_tool(connection, tool, name, policy, listener))
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
    try:
        yield toolset
    finally:
        await toolset.aclose()


async def _start(connection: Connection) -> list[RemoteTool] | str:
    from tools.mcp._connection import StartFailed

    try:
        tools = await connection.start()
    except StartFailed as failed:
        return start_problem(connection.server, listing=failed.listing, timed_out=failed.timed_out)
    log.info(
        "mcp.server_started",
        server=connection.server.name,
        transport=connection.server.transport,
        tools=len(tools),
    )
    return tools


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
        unique.append(server if name == server.name else _renamed(server, name))
    return unique


def _renamed(server: McpServer, name: str) -> McpServer:
    from dataclasses import replace

    return replace(server, name=name)


def _free_name(server: str, remote: str, taken: set[str]) -> str:
    """The remote tool's name, fit for the API; prefixed by the server's name if taken."""
    name = _TOOL_NAME.sub("_", remote).strip("_")[:_MAX_NAME] or "tool"
    if name in taken:
        name = f"{server}_{name}"[:_MAX_NAME]
    base, n = name, 1
    while name in taken:
        n += 1
        name = f"{base[: _MAX_NAME - len(str(n)) - 1]}_{n}"
    return name


# --- one MCP tool as a Tool ----------------------------------------------------------------


class _ServerEngine(Engine):
    """An engine whose every source shares the server's one circuit breaker."""

    def __init__(
        self, caller: str, policy: Policy, listener: Listener | None, breaker: CircuitBreaker
    ) -> None:
        super().__init__(caller, policy, listener)
        self._server_breaker = breaker

    def breaker(self, source: str) -> CircuitBreaker:
        """The server's breaker, whichever tool is calling."""
        return self._server_breaker


def _tool(
    connection: Connection,
    remote: RemoteTool,
    name: str,
    policy: Policy,
    listener: Listener | None,
) -> Tool:
    from tools.mcp._schema import arguments, input_model

    server = connection.server.name
    schema = dict(remote.input_schema or {})
    schema.setdefault("type", "object")
    activity = f"running the {_words(remote.name)} tool"
    operation = f"{activity} via the MCP server {server}"
    engine = _ServerEngine(name, policy, listener, connection.breaker_for(policy))

    async def fetch(args: BaseModel) -> str:
        result = await connection.call(remote.name, arguments(args))
        if result.is_error:
            raise McpToolError(_text(result), server=server)
        return _render(result)

    async def handler(args: BaseModel) -> ToolResult:
        async def attempt(_info: AttemptInfo) -> str:
            return await fetch(args)

        source = Source(server, attempt)
        outcome = await engine.run(operation, [source])
        return to_result(outcome, str)

    def rebind(new_policy: Policy | None, new_listener: Listener | None) -> Tool:
        return _tool(connection, remote, name, new_policy or policy, new_listener)

    return Tool(
        name,
        _description(remote),
        input_model(name, schema),
        handler,
        activity,
        rebind=rebind,
        input_schema=schema,
        origin=f"MCP server {server}",
    )


def _description(remote: RemoteTool) -> str:
    text = (remote.description or remote.title or "").strip()
    return text or f"The {_words(remote.name)} tool."


def _words(name: str) -> str:
    return " ".join(re.sub(r"[_./:-]+", " ", name).split()) or "MCP"


def _text(result: CallToolResult) -> str:
    """The text of an `isError` result: for the classifier and the developer note only."""
    return " ".join(_parts(result))[:4000]


def _render(result: CallToolResult) -> str:
    """What the model reads of an answer: its text blocks, or its structured content as
    JSON; what it can't read (an image, a binary resource) is named; cut past a cap."""
    parts = _parts(result)
    if not any(parts) and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = "\n".join(parts) or "(the tool answered with nothing)"
    if len(text) > MAX_RESULT_CHARS:
        cut = f"\n… (cut: the answer was {len(text)} characters)"
        text = text[:MAX_RESULT_CHARS] + cut
    return text


def _parts(result: CallToolResult) -> list[str]:
    parts: list[str] = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind == "resource":
            resource: Any = getattr(block, "resource", None)
            text = getattr(resource, "text", None)
            parts.append(str(text) if text is not None else "(a binary resource)")
        elif kind == "resource_link":
            parts.append(f"(a link to {getattr(block, 'uri', 'a resource')})")
        else:
            parts.append(f"(an {kind} the agent cannot show)" if kind else "(unknown content)")
    return parts
