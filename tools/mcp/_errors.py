"""What MCP failures become, for error-to-action to read (`_connection.translate` maps the
SDK's errors to them; docs/mcp.md has the table).

Nothing a server says reaches the model: its words go into the exception's reason, which
error-to-action reads (and keeps, redacted, for the developer note only).
"""

from __future__ import annotations

from errors import SourceSkipped, ToolError

__all__ = ["McpToolError", "RestartsSpent", "ServerDown", "ServerGone"]


class ServerGone(ConnectionResetError):
    """The connection ended under a call: the process exited, or the HTTP session broke."""


class ServerDown(ConnectionRefusedError):
    """The server could not be started or reached (nothing was sent to it)."""


class RestartsSpent(SourceSkipped):
    """The server died more often than its restart bound allows: skipped until the window
    moves on, as a source with an open circuit is."""


class McpToolError(ToolError):
    """The server's own failure, a JSON-RPC error or an `isError` result: its words (and
    code: -32602 is the caller's input, -32603 the server's fault, …) are the reason, which
    error-to-action reads like any error text."""

    def __init__(self, text: str, *, server: str) -> None:
        super().__init__(text, source=server)
