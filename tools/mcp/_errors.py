"""MCP failures, translated once, here, into what error-to-action already understands.

Nothing a server says reaches the model: its words go into the exception's reason, which
error-to-action keeps for the (redacted) developer note only. The translation:

    the connection closed mid-call (a stdio server died)   → ServerGone (network: retry once,
                                                             on a restarted process)
    it can't be started or reached                          → ServerDown (network: retry once)
    it died more often than its restart bound allows        → RestartsSpent (skipped, as an
                                                              open circuit would be)
    JSON-RPC -32602 invalid params                          → InvalidInput (fix_input)
    JSON-RPC -32601 no such method or tool                  → InvalidInput (fix_input)
    JSON-RPC -32603 internal error                          → UpstreamStatus 500 (retry once)
    JSON-RPC -32700, -32600 (we sent something it can't parse) → McpProtocolError (escalate)
    the SDK's request timeout                               → TimeoutError (retry once)
    a result that breaks the MCP schema                     → BadUpstreamData (retry once)
    an `isError` result, or any other JSON-RPC error        → its text classified as a raw
                                                              error would be (`from_text`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from errors import (
    BadUpstreamData,
    InvalidInput,
    SourceSkipped,
    ToolError,
    UpstreamStatus,
    classify,
)

if TYPE_CHECKING:
    from tools.mcp._spec import McpServer

__all__ = [
    "McpProtocolError",
    "RestartsSpent",
    "ServerDown",
    "ServerGone",
    "from_text",
    "no_sdk_problem",
    "start_problem",
    "translate",
    "unwrap",
]

# JSON-RPC and the SDK's own codes (mcp_types), written out so this module needs no SDK.
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND = -32700, -32600, -32601
INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603
CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001

_CHECK_INPUT = "check each input against the tool's description and send them again"


class ServerGone(ConnectionResetError):
    """The connection ended under a call: the process exited, or the HTTP session broke."""


class ServerDown(ConnectionRefusedError):
    """The server could not be started or reached (nothing was sent to it)."""


class RestartsSpent(SourceSkipped):
    """The server died more often than its restart bound allows: not started again until
    the window moves on (error-to-action skips it, as it would a source with an open
    circuit)."""


class McpProtocolError(RuntimeError):
    """The server could not read what the SDK sent (parse error, invalid request)."""


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
        return _from_code(code, str(error), server)
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


def from_text(text: str, server: str) -> Exception:
    """The failure a server's own words describe (an `isError` result, an unknown JSON-RPC
    error), as an exception error-to-action classifies the same way it would the words."""
    facts = classify(text, "calling an MCP tool").facts
    if facts.status is not None:
        headers = {"retry-after": f"{facts.hint_s:g}"} if facts.hint_s is not None else None
        return UpstreamStatus(facts.status, text, source=server, headers=headers)
    match facts.signal:
        case "timeout":
            return TimeoutError(text)
        case "network":
            return ConnectionRefusedError(text) if facts.connect_phase else ConnectionError(text)
        case "bad_data":
            return BadUpstreamData(text, source=server)
        case "invalid_input":
            return InvalidInput("input", "was turned down by the tool", _CHECK_INPUT)
        case "not_found":
            return UpstreamStatus(404, text, source=server)
        case "missing_key":  # the server's own credentials, not the agent's key
            return UpstreamStatus(401, text, source=server)
    return ToolError(text, source=server)


def _from_code(code: int, message: str, server: str) -> BaseException:
    reason = f"JSON-RPC {code}: {message}"
    if code == CONNECTION_CLOSED:
        return ServerGone(f"the connection to {server} closed before it answered")
    if code == REQUEST_TIMEOUT:
        return TimeoutError(reason)
    if code == INVALID_PARAMS:
        return InvalidInput("input", "was turned down by the tool", _CHECK_INPUT)
    if code == METHOD_NOT_FOUND:
        return InvalidInput("tool", "is not offered by its server any more", "go on without it")
    if code == INTERNAL_ERROR:
        return UpstreamStatus(500, reason, source=server)
    if code in {PARSE_ERROR, INVALID_REQUEST}:
        return McpProtocolError(reason)
    return from_text(reason, server)


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
