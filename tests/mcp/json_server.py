"""A small MCP server whose tool answers with a JSON object, for the tests.

    python tests/mcp/json_server.py

Tool: `station(name)` answers with the readings of a weather station as an object (its
text content is that object as pretty-printed JSON, as MCP servers commonly send it).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer


def build() -> MCPServer:
    """The server and its one tool."""
    server = MCPServer("stations")

    @server.tool()
    async def station(name: str) -> dict[str, Any]:
        """The latest readings of a weather station."""
        return {"station": name, "temperature_c": 12.5, "wind": "light", "gusts": None}

    return server


if __name__ == "__main__":
    build().run()
