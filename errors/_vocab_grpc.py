"""RPC status codes: gRPC's by name and by number, and JSON-RPC 2.0's, as clients print them.

Source of truth: gRPC's seventeen published status codes (0 OK to 16 UNAUTHENTICATED), as Python's
`grpc.StatusCode`, grpc-node ("14 UNAVAILABLE: …") and Grpc.Core (`StatusCode="Unavailable"`)
print them. Each code is mapped to the signal its documented meaning gives; a code is read
only where the text says it is one (after "StatusCode", as "grpc_status: N", or as grpc-node's
"N NAME:"), since words like "unknown" and "internal" are ordinary English.

JSON-RPC 2.0 (the specification's error object, and the MCP SDK's own codes) is read from
"JSON-RPC -32602" and `"code": -32602`.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["BY_NAME", "BY_NUMBER", "JSON_RPC", "TERMS"]

# name → (number, signal, why)
_CODES: dict[str, tuple[int, S, str]] = {
    "CANCELLED": (1, S.NETWORK, "the call was cancelled, usually by the caller or a proxy"),
    "UNKNOWN": (2, S.SERVER, "an error the server could not classify"),
    "INVALID_ARGUMENT": (3, S.BAD_REQUEST, "the request is malformed, whatever the state"),
    "DEADLINE_EXCEEDED": (4, S.TIMEOUT, "the deadline passed before the call finished"),
    "NOT_FOUND": (5, S.NOT_FOUND, "the entity asked for does not exist"),
    "ALREADY_EXISTS": (6, S.EXISTS, "the entity to create is already there"),
    "PERMISSION_DENIED": (7, S.FORBIDDEN, "the caller lacks a permission"),
    "RESOURCE_EXHAUSTED": (8, S.RATE_LIMIT, "a rate or quota ran out; the text says which"),
    "FAILED_PRECONDITION": (9, S.BAD_REQUEST, "the system is not in a state for this request"),
    "ABORTED": (10, S.CONFLICT, "a concurrency conflict; retry the whole sequence"),
    "OUT_OF_RANGE": (11, S.BAD_REQUEST, "past the valid range"),
    "UNIMPLEMENTED": (12, S.SERVER, "the server does not implement the method"),
    "INTERNAL": (13, S.SERVER, "an invariant broke inside the server"),
    "UNAVAILABLE": (14, S.SERVER, "the service is unavailable, most likely for a moment"),
    "DATA_LOSS": (15, S.SERVER, "unrecoverable data loss or corruption at the server"),
    "UNAUTHENTICATED": (16, S.BAD_CREDENTIALS, "no valid credentials for the call"),
}

BY_NAME: dict[str, S] = {name.lower(): signal for name, (_, signal, _) in _CODES.items()}
BY_NUMBER: dict[int, S] = {number: signal for number, signal, _ in _CODES.values()}
# Names with an underscore cannot be ordinary English: Google's JSON errors carry them as
# `"status": "RESOURCE_EXHAUSTED"`, so they count wherever they appear.
TERMS: tuple[Term, ...] = tuple(
    term(name, signal, f"gRPC {name} ({number}): {why}")
    for name, (number, signal, why) in _CODES.items()
    if "_" in name
)

# JSON-RPC 2.0 error codes (the specification's, and the MCP SDK's -32000/-32001).
JSON_RPC: dict[int, S] = {
    -32700: S.INTERNAL,  # parse error: the server could not read what we sent
    -32600: S.INTERNAL,  # invalid request: likewise, our own doing
    -32601: S.NOT_FOUND,  # method (or tool) not found
    -32602: S.INVALID_INPUT,  # invalid params: the caller's input
    -32603: S.SERVER,  # internal error, at the server
    -32000: S.NETWORK,  # MCP SDK: the connection closed
    -32001: S.TIMEOUT,  # MCP SDK: the request timed out
}
