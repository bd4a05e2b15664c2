"""MCP failures, translated once, here, into what error-to-action reads.

Nothing a server says reaches the model: its words go into the exception's reason, which
error-to-action reads (and keeps, redacted, for the developer note only). The translation:

    the connection closed mid-call (a stdio server died)   → ServerGone (network: retry once,
                                                             on a restarted process)
    it can't be started or reached                          → ServerDown (network: retry once)
    it died more often than its restart bound allows        → RestartsSpent (skipped, as an
                                                              open circuit would be)
    the SDK's request timeout                               → TimeoutError (retry once)
    a result that breaks the MCP schema                     → BadUpstreamData (retry once)
    a JSON-RPC error, or an `isError` result                → McpToolError: the server's own
                                                              words and code, read as any error
                                                              text is ("JSON-RPC -32602: …")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from errors import BadUpstreamData, SourceSkipped, ToolError

if TYPE_CHECKING:
    from tools.mcp._spec import McpServer

__all__ = [
    "McpToolError",
    "RestartsSpent",
    "ServerDown",
    "ServerGone",
    "no_sdk_problem",
    "start_problem",
    "translate",
    "unwrap",
]

# The MCP SDK's own codes for a closed connection and its request timeout.
CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001


class ServerGone(ConnectionResetError):
    """The connection ended under a call: the process exited, or the HTTP session broke."""


class ServerDown(ConnectionRefusedError):
    """The server could not be started or reached (nothing was sent to it)."""


class RestartsSpent(SourceSkipped):
    """The server died more often than its restart bound allows: not started again until
    the window moves on (error-to-action skips it, as it would a source with an open
    circuit)."""


class McpToolError(ToolError):
    """The server's own failure: a JSON-RPC error (`code`) or an `isError` result. Its words
    are the reason, which error-to-action reads like any error text (JSON-RPC codes
    included: -32602 is the caller's input, -32603 the server's fault, …)."""

    def __init__(self, text: str, *, server: str, code: int | None = None) -> None:
        super().__init__(text if code is None else f"JSON-RPC {code}: {text}", source=server)
        self.code = code


def unwrap(error: BaseException) -> BaseException:
    """The one error inside an (anyio task group's) exception group, or `error` itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def translate(error: BaseException, server: str) -> BaseException:
    """What `error`, raised by the SDK during a call to `server`, is in our terms; anything
    not recognised is returned as it is (error-to-action reads foreign errors by class)."""
    error = unwrap(error)
    code = getattr(error, "code", None)
    if _is_mcp_error(error) and isinstance(code, int):
        if code == CONNECTION_CLOSED:
            return ServerGone(f"the connection to {server} closed before it answered")
        if code == REQUEST_TIMEOUT:
            return TimeoutError(f"JSON-RPC {code}: {error}")
        return McpToolError(str(error), server=server, code=code)
    if isinstance(error, ValidationError):
        return BadUpstreamData(
            f"the answer breaks the MCP result schema ({error.error_count()} problems)",
            source=server,
        )
    if isinstance(error, RuntimeError) and _is_output_check(str(error)):
        return BadUpstreamData(str(error), source=server)
    if type(error).__name__ in {"ClosedResourceError", "BrokenResourceError", "EndOfStream"}:
        return ServerGone(f"the connection to {server} is closed")
    return error


def _is_mcp_error(error: BaseException) -> bool:
    """The SDK's `MCPError` or a subclass, known by name (this module imports no SDK)."""
    return any(cls.__name__ == "MCPError" for cls in type(error).__mro__)


def _is_output_check(message: str) -> bool:
    """The SDK's words when a result breaks the tool's own output schema."""
    return message.startswith(("Invalid structured content", "Invalid schema for tool")) or (
        message.startswith("Tool ") and "output schema" in message
    )


# --- one plain sentence for a server left out at start-up -----------------------------------


def start_problem(server: McpServer, *, listing: bool = False, timed_out: bool = False) -> str:
    """Why `server`'s tools are missing, in one plain sentence of our own words."""
    who = f"The MCP server '{server.name}'"
    if listing:
        return (
            f"{who} started but would not list its tools, so they are left out; "
            "its own log should say why."
        )
    if timed_out:
        return (
            f"{who} did not answer within {server.connect_timeout_s:g} seconds of starting, "
            "so its tools are left out; check that it is an MCP server and that it runs."
        )
    if server.transport == "http":
        return (
            f"{who} could not be reached, so its tools are left out; "
            "check its address and that it is running."
        )
    return (
        f"{who} could not start, so its tools are left out; "
        "check its command (run on its own, it shows why)."
    )


def no_sdk_problem() -> str:
    """The sentence for MCP servers asked for without the SDK installed."""
    return (
        "MCP servers need the mcp package, which is not installed, so the agent runs "
        "without them; install it with pip install 'failsafe-agent[mcp]' and try again."
    )
