"""Your MCP servers' tools, behind the same resilience engine as the built-in ones.

    from tools.mcp import McpServer, connect

    servers = [McpServer.stdio("python", ["server.py"]), McpServer.http("http://127.0.0.1:8000/mcp")]
    async with connect(servers, reserved={"get_weather", "calculate"}) as toolset:
        toolset.tools      # list[Tool]: one engine call per tool call
        toolset.problems   # one plain sentence per server that could not start

Importing this package does not import the `mcp` SDK; starting servers does (install it with
the `mcp` extra). See docs/mcp.md.
"""

from tools.mcp._errors import McpToolError, RestartsSpent, ServerDown, ServerGone
from tools.mcp._spec import McpServer
from tools.mcp._toolset import MAX_RESULT_CHARS, McpToolset, connect, open_toolset

__all__ = [
    "MAX_RESULT_CHARS",
    "McpServer",
    "McpToolError",
    "McpToolset",
    "RestartsSpent",
    "ServerDown",
    "ServerGone",
    "connect",
    "open_toolset",
]
