"""Your MCP servers' tools, behind the same resilience engine as the built-in ones.

    async with connect([McpServer.stdio("python", ["server.py"])], reserved={"calculate"}) as ts:
        ts.tools      # list[Tool]: one engine call per tool call
        ts.problems   # one plain sentence per server that could not start

Importing this package does not import the `mcp` SDK; starting servers does (install it with
the `mcp` extra). See docs/mcp.md.
"""

from tools.mcp._errors import McpToolError, ServerGone
from tools.mcp._spec import McpServer
from tools.mcp._toolset import McpToolset, connect, open_toolset

__all__ = [
    "McpServer",
    "McpToolError",
    "McpToolset",
    "ServerGone",
    "connect",
    "open_toolset",
]
