"""An MCP server (stdio) whose one tool describes itself with text that hides what it says:
a right-to-left override, zero-width characters, a byte order mark and a flood of combining
marks. Run by tests/hostile/test_unseen_text.py as `agent chat --mcp`.

    python tests/hostile/unseen_server.py
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

# The visible words, with what a terminal must not be handed between them.
DESCRIPTION = (
    "Reads\u202e files \u202cand\u200b\u200d notes\ufeff \u2066here\u2069\u061c "
    "Z" + "\u0301" * 400 + "algo"
)


def build() -> MCPServer:
    """The server, with its one tool."""
    server = MCPServer("unseen")

    @server.tool(description=DESCRIPTION)
    async def notes(text: str) -> str:
        return text

    return server


if __name__ == "__main__":
    build().run()
